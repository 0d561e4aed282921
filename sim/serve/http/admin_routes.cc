#include "sim/serve/http/admin_routes.h"
#include "sim/serve/broker_conf.h"

#include <charconv>
#include <map>
#include <sstream>
#include <vector>

#include "broker_model/admin/schema_payload.h"
#include "broker_model/policy/policies.h"
#include "sim/serve/http/route_support.h"
#include "sim/serve/decision_ring.h"
#include "sim/serve/lifecycle.h"
#include "sim/serve/server.h"

namespace cnx::serve::http {
namespace {

using namespace detail;

std::string metricsText(const Broker& broker, const Server* server) {
    std::size_t producers = 0, consumers = 0;
    for (const auto& [_, topic] : broker.loadedTopics()) {
        producers += topic->producers().size();
        consumers += static_cast<std::size_t>(topic->consumerCount());
    }
    std::ostringstream o;
    o << "# TYPE pulsar_topics_count gauge\n"
      << "pulsar_topics_count{cluster=\"standalone\"} " << broker.loadedTopics().size() << "\n"
      << "# TYPE pulsar_producers_count gauge\n"
      << "pulsar_producers_count{cluster=\"standalone\"} " << producers << "\n"
      << "# TYPE pulsar_consumers_count gauge\n"
      << "pulsar_consumers_count{cluster=\"standalone\"} " << consumers << "\n"
      << "# TYPE pulsar_active_connections gauge\n"
      << "pulsar_active_connections{cluster=\"standalone\"} " << (server ? server->connectionCount() : 0) << "\n";
    return o.str();
}

}  // namespace


AdminExchange exchangeOf(const Request& request, const Response& response, const Trace* trace) {
    return AdminExchange{std::string(request.method_string()), std::string(request.target()), request.body(),
                         static_cast<int>(response.result_int()), response.body(), trace,
                         std::string(response.reason())};
}

void AdminRoutes::handle(const Request& req, Answer done) {
    auto reply = [done](Response response) { done(std::move(response), nullptr); };
    auto target = parseRequestTarget(std::string_view(req.target().data(), req.target().size()));
    if (!target) {
        reply(error(req, 400, "Bad request: invalid percent-encoding in '" + std::string(req.target()) + "'"));
        return;
    }
    auto verb = req.method_string();
    auto method = rest::methodFromName(std::string_view(verb.data(), verb.size()));
    auto r = rest::resolve(method, target->segments, rest::Serving{lifecycle_ != nullptr});
    switch (r.kind) {
        case rest::Resolution::Kind::notFound: return reply(error(req, 404, "HTTP 404 Not Found"));
        case rest::Resolution::Kind::methodNotAllowed: return reply(methodNotAllowed(req, r.allow));
        case rest::Resolution::Kind::refused: return reply(error(req, r.status, r.reason));
        case rest::Resolution::Kind::route: break;
    }
    dispatch(Routed{req, *target, *r.route, r.params, done});
}

// Every call of the table to the handler of its area (no default: a new call must be placed).
void AdminRoutes::dispatch(const Routed& c) {
    using C = rest::Call;
    switch (c.call()) {
        case C::metrics: case C::brokerVersion: case C::brokerHealth: case C::brokerConfigNames:
        case C::brokerConfigRuntime: case C::brokerConfigValues: case C::setBrokerConfig: case C::deleteBrokerConfig:
        case C::getClusters:
            return brokerCall(c);
        case C::getCluster: case C::createCluster: return clusterCall(c);
        case C::cnxsimStatus: case C::cnxsimTrace: case C::cnxsimUpgrade: case C::cnxsimRestart: case C::cnxsimReset:
            return cnxsimCall(c);
        case C::lookupTopic: return lookupCall(c);
        case C::getSchema: case C::getSchemaAtVersion: case C::postSchema: case C::deleteSchema: case C::getAllSchemas:
        case C::testCompatibility: case C::getVersionBySchema:
            return schemaCall(c);
        case C::getTenants: case C::getTenant: case C::createTenant: case C::updateTenant: case C::deleteTenant:
            return tenantCall(c);
        case C::getNamespaces: case C::getNamespacePolicies: case C::createNamespace: case C::deleteNamespace:
        case C::getNamespaceTopics: case C::getNamespacePermissions: case C::grantNamespacePermission:
        case C::revokeNamespacePermission: case C::namespaceNotModelled:
            return namespaceCall(c);
        case C::getNamespacePolicy: case C::setNamespacePolicy: case C::removeNamespacePolicy:
            return namespacePolicyCall(c);
        case C::listTopics: case C::listPartitionedTopics: case C::createTopic: case C::deleteTopic:
        case C::getTopicPermissions: case C::grantTopicPermission: case C::revokeTopicPermission: case C::topicStats:
        case C::terminateTopic: case C::unloadTopic: case C::getPartitionedMetadata: case C::createPartitionedTopic:
        case C::updatePartitionedTopic: case C::deletePartitionedTopic: case C::getTopicPolicy: case C::setTopicPolicy:
        case C::removeTopicPolicy: case C::topicNotModelled:
            return topicCall(c);
    }
}

// /metrics, BrokersBase and GET /admin/v2/clusters.
void AdminRoutes::brokerCall(const Routed& c) {
    const auto& req = c.req;
    auto ok = [&](std::string body, const char* type = "application/json") {
        c.reply(makeResponse(req.version(), req.keep_alive(), 200, std::move(body), type));
    };
    Json values = Json::object();
    switch (c.call()) {
        case rest::Call::metrics: return ok(metricsText(broker_, server_), "text/plain; version=0.0.4");
        // BrokersBase.version(): the broker's release as plain text.
        case rest::Call::brokerVersion: return ok(broker_.profile().release.toString(), "text/plain");
        case rest::Call::brokerHealth: return ok("ok", "text/plain");
        case rest::Call::getClusters: return ok(R"(["standalone"])");
        case rest::Call::brokerConfigNames: {
            Json names = Json::array();
            for (auto key : BrokerConfig::keys())
                if (BrokerConfig::isDynamic(key)) names.push_back(std::string(key));
            return ok(dumpJson(names));
        }
        // Every setting's effective value, as Pulsar answers it (strings); `run --against` reads it.
        case rest::Call::brokerConfigRuntime:
            for (auto key : BrokerConfig::keys())
                if (auto text = configValueText(broker_.policies().broker, key)) values[std::string(key)] = *text;
            return ok(dumpJson(values));
        case rest::Call::brokerConfigValues:
            for (const auto& [key, value] : broker_.configOverrides())
                if (BrokerConfig::isDynamic(key)) values[key] = value;
            return ok(dumpJson(values));
        case rest::Call::setBrokerConfig: return c.answer(admin_.updateDynamicConfig(c.param("key"), c.param("value")));
        case rest::Call::deleteBrokerConfig: return c.answer(admin_.updateDynamicConfig(c.param("key"), std::nullopt));
        default: break;
    }
    c.reply(error(req, 404, "HTTP 404 Not Found"));
}

// SchemasResource: the topic's name was checked by the route table (412).
void AdminRoutes::schemaCall(const Routed& c) {
    const auto& req = c.req;
    auto topic = c.topic();
    // Answered now or later: the request outlives the answer, `done` is copied.
    auto answer = [&req, done = c.done](AdminResponse r) { done(fromAdmin(req, r), r.trace); };
    auto withPayload = [&](auto&& call) {
        auto parsed = schemaFromPostPayload(req.body());
        if (auto* e = std::get_if<PayloadError>(&parsed)) return c.reply(http::error(req, e->status, e->reason));
        call(std::get<SchemaData>(std::move(parsed)));
    };
    switch (c.call()) {
        case rest::Call::getSchema: return admin_.getSchema(topic, std::nullopt, answer);
        case rest::Call::postSchema:
            return withPayload([&](SchemaData schema) { admin_.postSchema(topic, schema, answer); });
        case rest::Call::deleteSchema: return admin_.deleteSchema(topic, isTrue(c.target, "force"), answer);
        case rest::Call::getSchemaAtVersion: {
            const auto& text = c.param("version");
            std::int64_t version = 0;
            auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), version);
            // §7.4: a version that is not a decimal long fails in the broker: 500.
            if (ec != std::errc() || p != text.data() + text.size())
                return c.reply(http::error(req, 500, "For input string: \"" + text + "\""));
            return admin_.getSchema(topic, version, answer);
        }
        case rest::Call::getAllSchemas: return admin_.getAllSchemas(topic, answer);
        case rest::Call::testCompatibility:
            return withPayload([&](SchemaData schema) { admin_.testCompatibility(topic, schema, answer); });
        case rest::Call::getVersionBySchema:
            return withPayload([&](SchemaData schema) { admin_.getVersionBySchema(topic, schema, answer); });
        default: break;
    }
    c.reply(error(req, 404, "HTTP 404 Not Found"));
}

// TopicLookupBase (v2 topic names): GET /lookup/v2/topic/{domain}/{tenant}/{ns}/{topic},
// the listener from ?listenerName= or the X-Pulsar-ListenerName header.
void AdminRoutes::lookupCall(const Routed& c) {
    std::string listener;
    if (auto it = c.target.query.find("listenerName"); it != c.target.query.end()) listener = it->second;
    else if (auto h = c.req.find("X-Pulsar-ListenerName"); h != c.req.end()) listener = std::string(h->value());
    c.answer(admin_.lookupTopic(c.topic(), listener));
}

// ClustersBase: the broker's one cluster, `standalone`.
void AdminRoutes::clusterCall(const Routed& c) {
    const auto& req = c.req;
    const auto& name = c.param("cluster");
    if (c.call() == rest::Call::getCluster) {
        if (name != "standalone") return c.reply(error(req, 404, "Cluster does not exist"));
        auto data = broker_.lookupData({});
        if (auto* e = std::get_if<std::string>(&data)) return c.reply(error(req, 500, *e));
        const auto& urls = std::get<LookupData>(data);
        return c.reply(makeResponse(req.version(), req.keep_alive(), 200,
                                    dumpJson(Json{{"serviceUrl", urls.httpUrl}, {"brokerServiceUrl", urls.brokerUrl}})));
    }
    if (!TopicName::validNamePart(name)) return c.reply(error(req, 412, "Cluster name is not valid"));
    if (req.body().empty()) return c.reply(error(req, 400, "cluster data is required"));
    Response refusal;
    auto body = jsonBody(req, &refusal);
    if (!body) return c.reply(std::move(refusal));
    if (!body->is_object())
        return c.reply(error(req, 400, "Cannot deserialize value of type `ClusterDataImpl` from " + dumpJson(*body)));
    if (name == "standalone") return c.reply(error(req, 409, "Cluster already exists"));
    c.answer(admin_.notModelled("a cluster besides standalone: the model is one broker of one cluster"));
}

// cnxsim's own control, routed only when serve has a lifecycle.
void AdminRoutes::cnxsimCall(const Routed& c) {
    const auto& req = c.req;
    auto json = [&req](int status, const Json& body) {
        return makeResponse(req.version(), req.keep_alive(), status, dumpJson(body));
    };
    LifecycleAnswer answer;
    switch (c.call()) {
        case rest::Call::cnxsimStatus: return c.reply(json(200, lifecycle_->status()));
        case rest::Call::cnxsimTrace: return cnxsimTrace(c);
        case rest::Call::cnxsimUpgrade: {
            auto v = c.target.query.find("version");
            if (v == c.target.query.end() || v->second.empty())
                return c.reply(error(req, 400, "upgrade needs ?version=RELEASE"));
            answer = lifecycle_->upgrade(v->second);
            break;
        }
        case rest::Call::cnxsimRestart: answer = lifecycle_->restart(); break;
        case rest::Call::cnxsimReset: {
            if (ring_) ring_->clear();
            auto done = c.done;
            return lifecycle_->reset([done, &req, json](LifecycleAnswer a) {
                done(a.ok ? json(200, Json{{"result", a.text}}) : error(req, 500, a.text), nullptr);
            });
        }
        default: return c.reply(error(req, 404, "HTTP 404 Not Found"));
    }
    c.reply(answer.ok ? json(200, Json{{"result", answer.text}}) : error(req, 400, answer.text));
}

// GET /cnxsim/trace?last=N: the newest N decisions (404 without a decision ring).
void AdminRoutes::cnxsimTrace(const Routed& c) {
    const auto& req = c.req;
    if (!ring_) return c.reply(error(req, 404, "HTTP 404 Not Found"));
    std::size_t last = 20;
    if (auto it = c.target.query.find("last"); it != c.target.query.end()) {
        const auto& text = it->second;
        std::size_t n = 0;
        auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
        if (text.empty() || ec != std::errc() || p != text.data() + text.size() || n == 0)
            return c.reply(error(req, 400, "last must be a whole number of decisions, at least 1 (got '" + text + "')"));
        last = n;
    }
    c.reply(makeResponse(req.version(), req.keep_alive(), 200, dumpJson(ring_->newest(last))));
}

}  // namespace cnx::serve::http
