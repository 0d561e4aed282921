#include "sim/scenario/tls_settings.h"

#include <algorithm>
#include <array>
#include <charconv>

namespace cnx::serve {
namespace {

constexpr std::array<std::string_view, 7> kTlsKeys{
    "brokerServicePortTls", "webServicePortTls",  "tlsCertificateFilePath",
    "tlsKeyFilePath",       "tlsTrustCertsFilePath", "tlsAllowInsecureConnection",
    "tlsRequireTrustedClientCertOnConnect"};

std::optional<std::string> setPort(std::optional<std::uint16_t>& port, std::string_view key, std::string_view value) {
    if (value.empty()) {
        port.reset();
        return std::nullopt;
    }
    unsigned n = 0;
    auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc() || p != value.data() + value.size() || n > 65535)
        return std::string(key) + ": expected a port from 0 to 65535 (0: a free one), got '" + std::string(value) + "'";
    port = static_cast<std::uint16_t>(n);
    return std::nullopt;
}

std::optional<std::string> setFlag(bool& flag, std::string_view key, std::string_view value) {
    if (value.empty() || value == "false") flag = false;
    else if (value == "true") flag = true;
    else return std::string(key) + ": expected true or false, got '" + std::string(value) + "'";
    return std::nullopt;
}

}  // namespace

std::optional<std::string> TlsSettings::set(std::string_view key, std::string_view value) {
    if (key == "brokerServicePortTls") return setPort(brokerServicePortTls, key, value);
    if (key == "webServicePortTls") return setPort(webServicePortTls, key, value);
    if (key == "tlsCertificateFilePath") tlsCertificateFilePath = std::string(value);
    else if (key == "tlsKeyFilePath") tlsKeyFilePath = std::string(value);
    else if (key == "tlsTrustCertsFilePath") tlsTrustCertsFilePath = std::string(value);
    else if (key == "tlsAllowInsecureConnection") return setFlag(tlsAllowInsecureConnection, key, value);
    else if (key == "tlsRequireTrustedClientCertOnConnect") return setFlag(tlsRequireTrustedClientCertOnConnect, key, value);
    else return "unknown TLS setting '" + std::string(key) + "'";
    return std::nullopt;
}

std::span<const std::string_view> TlsSettings::keys() { return kTlsKeys; }

bool TlsSettings::isKey(std::string_view key) {
    return std::find(kTlsKeys.begin(), kTlsKeys.end(), key) != kTlsKeys.end();
}

}  // namespace cnx::serve
