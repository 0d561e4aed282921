#pragma once
// What the admin route files share (admin_routes.cc, namespace_routes.cc):
// the parsed target, Pulsar's error answers, and JSON body parsing. Private
// to sim/serve/http.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "broker_model/admin/admin_api.h"
#include "sim/net/http_server.h"
#include "sim/rest/admin_routes_table.h"
#include "sim/net/request_target.h"

namespace cnx::serve::http::detail {

using Json = nlohmann::json;

using Target = RequestTarget;
/// Compact JSON text that never throws: invalid UTF-8 (a name from the binary
/// protocol, a quoted body) becomes U+FFFD, as Java's decoders make it
/// (issue 40 item 2: nlohmann's type_error 316 killed the server).
std::string dumpJson(const Json& json);
std::string reasonBody(const std::string& reason);
/// The AdminApi answer as an HTTP response.
Response fromAdmin(const Request& req, const AdminResponse& r);
/// A RestException(status, reason): `{"reason": …}` and the status's standard reason phrase.
Response error(const Request& req, int status, const std::string& reason);
Response methodNotAllowed(const Request& req, const std::string& allow);
inline bool isTrue(const Target& t, const char* key) { return queryIsTrue(t, key); }
/// The body as JSON, or the 400 a malformed body gets (Jackson's message as the reason).
std::optional<Json> jsonBody(const Request& req, Response* refusal);

/// A request the route table resolved (rest::resolve) and how it is answered.
struct Routed {
    const Request& req;
    const Target& target;
    const rest::Route& route;
    const rest::Params& params;
    const std::function<void(Response, TracePtr)>& done;

    rest::Call call() const { return route.call; }
    void reply(Response r) const { done(std::move(r), nullptr); }
    void answer(const AdminResponse& r) const { done(fromAdmin(req, r), r.trace); }
    /// A named segment of the route's pattern (the table guarantees it is there).
    const std::string& param(std::string_view name) const { return params.find(name)->second; }
    /// `{tenant}/{namespace}`.
    std::string ns() const { return param("tenant") + "/" + param("namespace"); }
    /// The topic the path names; resolve() refused a name that does not parse.
    TopicName topic() const { return *TopicName::parse(*rest::topicOf(route, params)); }
};

}  // namespace cnx::serve::http::detail
