#include "broker_model/policy/auth_settings.h"

#include <algorithm>
#include <array>
#include <charconv>

namespace cnx {
namespace {

constexpr std::array<std::string_view, 16> kAuthKeys{
    "authenticationEnabled",       "authenticationProviders",
    "anonymousUserRole",           "authenticationRefreshCheckSeconds",
    "authorizationEnabled",        "superUserRoles",
    "authorizationAllowWildcardsMatching", "authenticateMetricsEndpoint",
    "tokenSecretKey",              "tokenPublicKey",
    "tokenPublicAlg",              "tokenAuthClaim",
    "tokenAudienceClaim",          "tokenAudience",
    "tokenAllowedClockSkewSeconds", "basicAuthConf",
};

std::string expected(std::string_view key, std::string_view what, std::string_view value) {
    return std::string(key) + " expects " + std::string(what) + ", got '" + std::string(value) + "'";
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

std::optional<std::string> setBool(bool& out, std::string_view key, std::string_view value) {
    if (value == "true") out = true;
    else if (value == "false") out = false;
    else return expected(key, "true or false", value);
    return std::nullopt;
}

// ServiceConfiguration's Set<String> fields: FieldParser splits on commas and trims.
std::vector<std::string> commaList(std::string_view value) {
    std::vector<std::string> out;
    while (true) {
        auto comma = value.find(',');
        auto item = trim(value.substr(0, comma));
        if (!item.empty() && std::find(out.begin(), out.end(), item) == out.end()) out.emplace_back(item);
        if (comma == std::string_view::npos) break;
        value.remove_prefix(comma + 1);
    }
    return out;
}

std::optional<std::string> setSeconds(int& out, std::string_view key, std::string_view value, int min) {
    long long n = 0;
    auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    constexpr long long kMax = 365LL * 24 * 3600;  // a year: enough for any test, far from overflow in ms
    if (ec != std::errc() || p != value.data() + value.size() || n < min || n > kMax)
        return expected(key, "a whole number of seconds from " + std::to_string(min) + " to " + std::to_string(kMax),
                        value);
    out = static_cast<int>(n);
    return std::nullopt;
}

constexpr std::array<std::string_view, 9> kTokenAlgs{"RS256", "RS384", "RS512", "PS256", "PS384",
                                                     "PS512", "ES256", "ES384", "ES512"};

std::string javaSet(std::vector<std::string> items) {
    // A TreeSet's String.valueOf: sorted, "[a, b]".
    std::sort(items.begin(), items.end());
    std::string out = "[";
    for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
    return out + "]";
}

}  // namespace

bool AuthSettings::owns(std::string_view key) {
    return std::find(kAuthKeys.begin(), kAuthKeys.end(), key) != kAuthKeys.end();
}

std::span<const std::string_view> AuthSettings::keys() { return kAuthKeys; }

std::optional<std::string> AuthSettings::set(std::string_view key, std::string_view value) {
    if (key == "authenticationEnabled") return setBool(authenticationEnabled, key, value);
    if (key == "authorizationEnabled") return setBool(authorizationEnabled, key, value);
    if (key == "authorizationAllowWildcardsMatching") return setBool(authorizationAllowWildcardsMatching, key, value);
    if (key == "authenticateMetricsEndpoint") return setBool(authenticateMetricsEndpoint, key, value);
    if (key == "authenticationProviders") {
        authenticationProviders = commaList(value);
        return std::nullopt;
    }
    if (key == "superUserRoles") {
        superUserRoles = commaList(value);
        return std::nullopt;
    }
    if (key == "authenticationRefreshCheckSeconds")
        return setSeconds(authenticationRefreshCheckSeconds, key, value, 1);
    if (key == "tokenAllowedClockSkewSeconds") return setSeconds(tokenAllowedClockSkewSeconds, key, value, 0);
    if (key == "tokenPublicAlg") {
        // AuthenticationProviderToken.getPublicKeyAlgType: SignatureAlgorithm.forName, an
        // RSA or EC family (an HMAC name cannot decode a public key).
        if (std::find(kTokenAlgs.begin(), kTokenAlgs.end(), value) == kTokenAlgs.end())
            return expected(key, "one of RS256 RS384 RS512 PS256 PS384 PS512 ES256 ES384 ES512", value);
        tokenPublicAlg = std::string(value);
        return std::nullopt;
    }
    if (key == "tokenAuthClaim") {
        tokenAuthClaim = value.empty() ? "sub" : std::string(value);
        return std::nullopt;
    }
    std::string* text = key == "anonymousUserRole"    ? &anonymousUserRole
                        : key == "tokenSecretKey"     ? &tokenSecretKey
                        : key == "tokenPublicKey"     ? &tokenPublicKey
                        : key == "tokenAudienceClaim" ? &tokenAudienceClaim
                        : key == "tokenAudience"      ? &tokenAudience
                        : key == "basicAuthConf"      ? &basicAuthConf
                                                      : nullptr;
    if (text == nullptr) return std::nullopt;
    *text = std::string(trim(value));
    return std::nullopt;
}

std::optional<std::string> AuthSettings::valueText(std::string_view key) const {
    auto flag = [](bool b) { return std::string(b ? "true" : "false"); };
    if (key == "authenticationEnabled") return flag(authenticationEnabled);
    if (key == "authorizationEnabled") return flag(authorizationEnabled);
    if (key == "authorizationAllowWildcardsMatching") return flag(authorizationAllowWildcardsMatching);
    if (key == "authenticateMetricsEndpoint") return flag(authenticateMetricsEndpoint);
    if (key == "authenticationProviders") return javaSet(authenticationProviders);
    if (key == "superUserRoles") return javaSet(superUserRoles);
    if (key == "anonymousUserRole") return anonymousUserRole;  // null shows as ""
    if (key == "authenticationRefreshCheckSeconds") return std::to_string(authenticationRefreshCheckSeconds);
    return std::nullopt;
}

}  // namespace cnx
