#pragma once
// Authorization on serve's admin port: which of Pulsar's checks each admin
// path makes, and its refusal (status and reason) as the 4.2 broker's
// PulsarWebResource and admin resources answer it. Only with both
// `authenticationEnabled` and `authorizationEnabled` (as Pulsar's web
// resources check); authentication itself comes first (auth_filter.h).

#include <optional>
#include <string>

#include "broker_model/broker/broker.h"
#include "sim/serve/http/route_support.h"

namespace cnx::serve::http {

namespace detail {
/// nullopt when `role` may make `req` (at the parsed `target`), else the refusal.
std::optional<Response> refuseAdminRequest(const Broker& broker, bool authenticationEnabled, const Request& req,
                                           const Target& target, const std::string& role);
}  // namespace detail

/// The same for a request not parsed yet (a target that does not parse is the
/// route's to refuse): what serve's admin handler calls after authentication.
std::optional<Response> authorizeAdminRequest(const Broker& broker, const Request& req, const std::string& role);

}  // namespace cnx::serve::http
