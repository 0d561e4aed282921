#pragma once
// Authentication of the admin HTTP API (issue 44), as Pulsar's
// AuthenticationFilter in front of the broker's REST resources: with
// authenticationEnabled, a request to a path Pulsar authenticates gets a role
// (AuthenticationService.authenticateHttpRequest) or the filter's 401.
//
// Which paths (PulsarService.addWebServerHandlers, 4.2): /admin, /lookup and
// /topics resources require authentication; /metrics only with
// authenticateMetricsEndpoint; /status.html and /static do not. cnxsim's own
// /cnxsim/ control paths (reset, upgrade, trace) require it as /admin does.
// Any other path matches no servlet on a real broker (404 without the filter),
// so it passes here too and the routes answer it.

#include <string>
#include <string_view>
#include <variant>

#include "broker_model/auth/authentication.h"
#include "broker_model/broker/broker.h"
#include "sim/net/http_server.h"

namespace cnx::serve::http {

/// Whether a request to `path` (the target without its query) is authenticated
/// when authentication is on.
bool requiresAuthentication(const Broker& broker, std::string_view path);

/// The role of `request` (empty when authentication is off or the path needs
/// none), or the refusal to send instead of serving it: 401 as Pulsar's
/// AuthenticationFilter sends it (`sendError(401, "Authentication required")`
/// through Jetty's error handler). `peer` is the TLS client certificate.
std::variant<std::string, Response> authenticateRequest(Broker& broker, const Request& request,
                                                        const auth::PeerCertificate& peer);

/// The 401 answer itself, for `request`.
Response authenticationRequired(const Request& request);

}  // namespace cnx::serve::http
