#pragma once
// Authentication as Pulsar's broker does it (issue 44): the providers of
// broker.conf's `authenticationProviders` by their method names (`token`,
// `basic`, `tls`), chosen as ServerCnx.handleConnect and
// AuthenticationService.authenticateHttpRequest choose them, and the
// anonymous role. Built once from AuthSettings (keys and the htpasswd file are
// read then, as a broker reads them at start), immutable afterwards.
//
// Every input is bounded: a token or credential over kMaxCredentialBytes is
// refused before it is decoded, JSON nested deeper than kMaxJsonDepth too.
// Refusals are values (AuthResult), never exceptions.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "broker_model/policy/auth_settings.h"
#include "broker_model/auth/peer_certificate.h"

namespace cnx::auth {

/// The outcome of one authentication.
struct AuthResult {
    bool ok = false;
    std::string role;    // the principal, when ok
    std::string method;  // the provider's method name that decided ("none": the anonymous role)
    std::string error;   // why not, when !ok (the broker's log text; clients see Pulsar's fixed refusal)
    /// When the credentials stop being valid (a token's `exp`), ms since the epoch.
    std::optional<std::int64_t> expiresAtMs;

    static AuthResult success(std::string role, std::string method, std::optional<std::int64_t> expires = {}) {
        return {true, std::move(role), std::move(method), {}, expires};
    }
    static AuthResult failure(std::string method, std::string error) {
        return {false, {}, std::move(method), std::move(error), {}};
    }
};

/// What an HTTP request carries for authentication.
struct HttpCredentials {
    std::optional<std::string> authorization;  // the Authorization header
    std::optional<std::string> authMethodName;  // X-Pulsar-Auth-Method-Name
};

class Provider;

class AuthenticationService {
public:
    static constexpr std::size_t kMaxCredentialBytes = 16 * 1024;
    static constexpr int kMaxJsonDepth = 16;

    /// The service `settings` describe, or the error text naming the setting
    /// that is unusable (an unknown provider class, a key that cannot be read
    /// or decoded, an htpasswd line of the wrong form), as a broker that
    /// refuses to start. With authentication off it is always built (and
    /// enabled() is false): nothing is read then.
    static std::variant<std::shared_ptr<const AuthenticationService>, std::string> create(const AuthSettings& settings);
    /// Enabled, and refuses every client and request: what a broker whose
    /// settings are unusable is left with (it would not have started).
    static std::shared_ptr<const AuthenticationService> refusingAll();
    ~AuthenticationService();

    bool enabled() const { return enabled_; }
    /// Empty when there is none.
    const std::string& anonymousUserRole() const { return anonymousUserRole_; }
    /// Whether a provider of `method` is configured.
    bool hasProvider(std::string_view method) const;

    /// CONNECT and AUTH_RESPONSE (ServerCnx.handleConnect / doAuthentication):
    /// `method` is CONNECT's auth_method_name (or the legacy enum's name), `data`
    /// its auth_data. No provider of that method: the anonymous role when set,
    /// else refused. `nowMs` is the broker's clock.
    AuthResult authenticate(std::string_view method, std::string_view data, const PeerCertificate& peer,
                            std::int64_t nowMs) const;

    /// An HTTP request (AuthenticationService.authenticateHttpRequest): the
    /// provider X-Pulsar-Auth-Method-Name names, else each provider in turn;
    /// none succeeding: the anonymous role when set, else refused. With no
    /// provider configured at all, no authentication is required (an empty role).
    AuthResult authenticateHttp(const HttpCredentials& credentials, const PeerCertificate& peer,
                                std::int64_t nowMs) const;

private:
    AuthenticationService() = default;
    const Provider* provider(std::string_view method) const;

    bool enabled_ = false;
    bool refuseAll_ = false;
    std::string anonymousUserRole_;
    std::vector<std::unique_ptr<Provider>> providers_;  // in authenticationProviders' order
};

/// The legacy CONNECT auth_method enum's method name, as ServerCnx derives it
/// (`AuthMethodYcaV1` -> `ycav1`): its name without the `AuthMethod` prefix, lower case.
std::string legacyAuthMethodName(std::string_view enumName);

/// Md5Crypt.apr1Crypt (commons-codec): `$apr1$salt$hash` of `password`. Exposed for tests.
std::string apr1Crypt(std::string_view password, std::string_view salt);

}  // namespace cnx::auth
