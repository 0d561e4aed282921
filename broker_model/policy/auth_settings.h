#pragma once
// The authentication and authorization keys of Pulsar's broker.conf (issue 44)
// as plain data: what `--config`, `--set` and `--setup`'s `broker:` give, read
// by broker_model/auth (AuthenticationService) and the authorization checks.
// Defaults are Pulsar 4.2's: ServiceConfiguration fields (authenticationEnabled,
// authenticationProviders, anonymousUserRole, authenticationRefreshCheckSeconds,
// authorizationEnabled, superUserRoles, authorizationAllowWildcardsMatching,
// authenticateMetricsEndpoint) and the free-form properties the providers read
// (AuthenticationProviderToken: tokenSecretKey, tokenPublicKey, tokenPublicAlg,
// tokenAuthClaim, tokenAudienceClaim, tokenAudience, tokenAllowedClockSkewSeconds;
// AuthenticationProviderBasic: basicAuthConf). Only the form of a value is
// checked here; whether a key file can be read is AuthenticationService's.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cnx {

struct AuthSettings {
    // ServiceConfiguration (4.2) fields.
    bool authenticationEnabled = false;
    /// Provider class names as broker.conf lists them (comma-separated there).
    std::vector<std::string> authenticationProviders;
    /// Empty: none (ServiceConfiguration's null): a client without credentials is refused.
    std::string anonymousUserRole;
    /// ServiceConfiguration.authenticationRefreshCheckSeconds: 60.
    int authenticationRefreshCheckSeconds = 60;
    bool authorizationEnabled = false;
    std::vector<std::string> superUserRoles;
    bool authorizationAllowWildcardsMatching = false;
    /// ServiceConfiguration.authenticateMetricsEndpoint: false on the broker (true on the proxy).
    bool authenticateMetricsEndpoint = false;

    // AuthenticationProviderToken's properties (not ServiceConfiguration fields).
    std::string tokenSecretKey;   // file:///path, data:;base64,..., a path, or base64
    std::string tokenPublicKey;   // the same forms, an X.509 SubjectPublicKeyInfo
    std::string tokenPublicAlg = "RS256";  // AuthenticationProviderToken: RS256 when unset
    std::string tokenAuthClaim = "sub";    // the claim the role is read from
    std::string tokenAudienceClaim;        // empty: the audience is not checked
    std::string tokenAudience;
    int tokenAllowedClockSkewSeconds = 0;
    // AuthenticationProviderBasic's property: a path, file:/data: URL or base64 of the htpasswd text.
    std::string basicAuthConf;

    /// Sets `key` from its broker.conf text; an error message for a value of
    /// the wrong form (nothing changes then); nullopt also when `key` is not one
    /// of keys() — use owns() first.
    std::optional<std::string> set(std::string_view key, std::string_view value);
    /// Whether `key` is one of these settings.
    static bool owns(std::string_view key);
    /// Every key `set` accepts.
    static std::span<const std::string_view> keys();
    /// The value of `key` as `GET /admin/v2/brokers/configuration/runtime`
    /// shows it; nullopt for the provider properties, which are no
    /// ServiceConfiguration field (so the runtime configuration has no entry
    /// for them, and tokenSecretKey is never shown).
    std::optional<std::string> valueText(std::string_view key) const;

    bool operator==(const AuthSettings&) const = default;
};

}  // namespace cnx
