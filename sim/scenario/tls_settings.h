#pragma once
// `cnxsim serve`'s TLS listeners, set as a Pulsar broker sets them: the
// broker.conf keys brokerServicePortTls, webServicePortTls,
// tlsCertificateFilePath, tlsKeyFilePath, tlsTrustCertsFilePath,
// tlsAllowInsecureConnection and tlsRequireTrustedClientCertOnConnect, given
// through --config, --set or --setup's `broker: config:`, and the CLI's
// --tls-port / --admin-tls-port. They are the transport's, not the broker
// model's: read here, known to broker_conf (not "ignored"), never passed to
// BrokerConfig, and not changed by POST /cnxsim/reset.
//
// The server's TLS context (tls_context.h) is made from them at start-up; a
// certificate or key that cannot be used stops serve with exit status 2 and
// the setting's name.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace cnx::serve {

struct TlsSettings {
    /// The binary protocol's TLS port (0: a free one); none: no TLS listener.
    std::optional<std::uint16_t> brokerServicePortTls;
    /// The admin API's HTTPS port (0: a free one); none: no HTTPS listener.
    std::optional<std::uint16_t> webServicePortTls;
    std::string tlsCertificateFilePath;
    std::string tlsKeyFilePath;
    std::string tlsTrustCertsFilePath;
    /// Any client certificate is accepted (Pulsar's InsecureTrustManagerFactory).
    bool tlsAllowInsecureConnection = false;
    /// A client without a trusted certificate fails the handshake.
    bool tlsRequireTrustedClientCertOnConnect = false;

    /// Sets one key from its text; an empty value is the default (as in
    /// broker.conf). The error text for a bad value or an unknown key.
    std::optional<std::string> set(std::string_view key, std::string_view value);
    /// Whether any TLS listener is asked for.
    bool anyListener() const { return brokerServicePortTls || webServicePortTls; }

    static std::span<const std::string_view> keys();
    static bool isKey(std::string_view key);
};

}  // namespace cnx::serve
