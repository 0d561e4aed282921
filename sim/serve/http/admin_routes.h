#pragma once
// Pulsar's admin REST paths on `cnxsim serve --admin-port` (reference §7),
// answered through the same AdminApi that scenario steps call, so an HTTP
// call and an admin step of a scenario get the same status, reason and body
// on the same release. Paths Pulsar does not have are 404, known paths with
// another method 405 (with Allow), each with a `{"reason": …}` body.
//
// Served:
//   GET|POST|DELETE /admin/v2/schemas/{tenant}/{ns}/{topic}/schema   (?force=true on DELETE)
//   GET  /admin/v2/schemas/{tenant}/{ns}/{topic}/schema/{version}
//   GET  /admin/v2/schemas/{tenant}/{ns}/{topic}/schemas
//   POST /admin/v2/schemas/{tenant}/{ns}/{topic}/compatibility
//   POST /admin/v2/schemas/{tenant}/{ns}/{topic}/version
//   PUT  /admin/v2/{persistent|non-persistent}/{tenant}/{ns}/{topic}/unload
//   DELETE /admin/v2/{persistent|non-persistent}/{tenant}/{ns}/{topic}  (?force, ?deleteSchema)
//   GET  /admin/v2/clusters, GET|PUT /admin/v2/clusters/{cluster}, GET /admin/v2/brokers/health, GET /metrics
//   GET  /lookup/v2/topic/{persistent|non-persistent}/{tenant}/{ns}/{topic}  (?listenerName)
//   GET  /admin/v2/brokers/configuration, GET /admin/v2/brokers/configuration/values
//   POST /admin/v2/brokers/configuration/{key}/{value}, DELETE /admin/v2/brokers/configuration/{key}
//   GET  /admin/v2/brokers/version
//   tenants, namespaces, topic set-up and policies: namespace_routes.cc
//   cnxsim's own, under /cnxsim/: GET status, GET trace?last=N (decision_ring.h),
//   POST upgrade?version=V, POST restart, POST reset (lifecycle.h)

#include <functional>
#include <string>

#include "broker_model/admin/admin_api.h"
#include "broker_model/broker/broker.h"
#include "sim/net/http_server.h"
#include "sim/net/request_target.h"
#include "sim/net/session_tap.h"

namespace cnx::serve {
class DecisionRing;
class Lifecycle;
class Server;
}  // namespace cnx::serve

namespace cnx::serve::http {

namespace detail {
struct Routed;
}  // namespace detail

class AdminRoutes {
public:
    /// Every reference outlives this; `lifecycle` and `ring` may be nullptr (no /cnxsim/ control, no trace).
    AdminRoutes(Broker& broker, AdminApi& admin, Lifecycle* lifecycle, const Server* server, DecisionRing* ring = nullptr)
        : broker_(broker), admin_(admin), lifecycle_(lifecycle), server_(server), ring_(ring) {}

    /// The answer and, when the model decided it, its decision trace.
    using Answer = std::function<void(Response, TracePtr)>;
    /// Answers `request`; `done` is called exactly once, now or later.
    void handle(const Request& request, Answer done);

private:
    // Each reads the routes of its area (sim/rest/admin_routes_table.h) that
    // resolve() matched; route_support.h has the matched request.
    void dispatch(const detail::Routed& c);
    // admin_routes.cc: /metrics, brokers, clusters, lookup, /cnxsim/, schemas
    void brokerCall(const detail::Routed& c);
    void clusterCall(const detail::Routed& c);
    void cnxsimCall(const detail::Routed& c);
    void cnxsimTrace(const detail::Routed& c);
    void lookupCall(const detail::Routed& c);
    void schemaCall(const detail::Routed& c);
    // namespace_routes.cc: tenants, namespaces, topics
    void tenantCall(const detail::Routed& c);
    void putTenant(const detail::Routed& c);
    void namespaceCall(const detail::Routed& c);
    void createNamespace(const detail::Routed& c);
    void namespacePolicyCall(const detail::Routed& c);
    void topicCall(const detail::Routed& c);
    void partitionsCall(const detail::Routed& c, const TopicName& topic);
    void topicPolicyCall(const detail::Routed& c, const TopicName& topic);

    Broker& broker_;
    AdminApi& admin_;
    Lifecycle* lifecycle_;
    const Server* server_;
    DecisionRing* ring_;
};

/// The exchange as the session taps see it (session_tap.h).
AdminExchange exchangeOf(const Request& request, const Response& response, const Trace* trace);


}  // namespace cnx::serve::http
