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
    const auto& s = target->segments;
    const auto method = req.method();
    using V = beast_http::verb;
    auto notFound = [&] { reply(error(req, 404, "HTTP 404 Not Found")); };
    auto answer = [&req, done](AdminResponse r) { done(fromAdmin(req, r), r.trace); };

    // --- /metrics, /admin/v2/clusters, /admin/v2/brokers/... ---------------------------
    if (s.size() == 1 && s[0] == "metrics") {
        if (method != V::get) return reply(methodNotAllowed(req, "GET"));
        return reply(makeResponse(req.version(), req.keep_alive(), 200, metricsText(broker_, server_),
                                  "text/plain; version=0.0.4"));
    }
    if (s.size() >= 1 && s[0] == "cnxsim") return handleCnxsim(req, *target, done);
    if (s.size() >= 3 && s[0] == "lookup" && s[1] == "v2" && s[2] == "topic") return handleLookup(req, *target, done);
    if (s.size() < 2 || s[0] != "admin" || s[1] != "v2") return notFound();
    if (s.size() == 4 && s[2] == "brokers" && s[3] == "version") {
        if (method != V::get) return reply(methodNotAllowed(req, "GET"));
        // BrokersBase.version(): the broker's release as plain text.
        return reply(makeResponse(req.version(), req.keep_alive(), 200, broker_.profile().release.toString(), "text/plain"));
    }
    if (s.size() == 3 && s[2] == "clusters") {
        if (method != V::get) return reply(methodNotAllowed(req, "GET"));
        return reply(makeResponse(req.version(), req.keep_alive(), 200, R"(["standalone"])"));
    }
    if (s.size() == 4 && s[2] == "clusters") return handleCluster(req, *target, done);
    if (s.size() >= 3 && s[2] == "brokers") {
        if (s.size() == 4 && s[3] == "health") {
            if (method != V::get) return reply(methodNotAllowed(req, "GET"));
            return reply(makeResponse(req.version(), req.keep_alive(), 200, "ok", "text/plain"));
        }
        if (s.size() >= 4 && s[3] == "configuration") {
            if (s.size() == 4) {
                if (method != V::get) return reply(methodNotAllowed(req, "GET"));
                Json names = Json::array();
                for (auto key : BrokerConfig::keys())
                    if (BrokerConfig::isDynamic(key)) names.push_back(std::string(key));
                return reply(makeResponse(req.version(), req.keep_alive(), 200, dumpJson(names)));
            }
            // Every setting's effective value, as Pulsar answers it (strings); `run --against` reads it.
            if (s.size() == 5 && s[4] == "runtime" && method == V::get) {
                Json values = Json::object();
                for (auto key : BrokerConfig::keys())
                    if (auto text = configValueText(broker_.policies().broker, key)) values[std::string(key)] = *text;
                return reply(makeResponse(req.version(), req.keep_alive(), 200, dumpJson(values)));
            }
            if (s.size() == 5 && s[4] == "values" && method == V::get) {
                Json values = Json::object();
                for (const auto& [key, value] : broker_.configOverrides())
                    if (BrokerConfig::isDynamic(key)) values[key] = value;
                return reply(makeResponse(req.version(), req.keep_alive(), 200, dumpJson(values)));
            }
            if (s.size() == 6 && method == V::post) return answer(admin_.updateDynamicConfig(s[4], s[5]));
            if (s.size() == 5 && method == V::delete_) return answer(admin_.updateDynamicConfig(s[4], std::nullopt));
            if (s.size() == 5 || s.size() == 6) return reply(methodNotAllowed(req, s.size() == 6 ? "POST" : "DELETE"));
        }
        return notFound();
    }

    // --- schemas -------------------------------------------------------------------------
    if (s.size() >= 6 && s[2] == "schemas") {
        std::string error;
        auto topic = TopicName::parse("persistent://" + s[3] + "/" + s[4] + "/" + s[5], &error);
        if (!topic) return reply(http::error(req, 412, "Invalid topic name: " + error));
        auto withPayload = [&](auto&& call) {
            auto parsed = schemaFromPostPayload(req.body());
            if (auto* e = std::get_if<PayloadError>(&parsed)) return reply(http::error(req, e->status, e->reason));
            call(std::get<SchemaData>(std::move(parsed)));
        };
        if (s.size() == 7 && s[6] == "schema") {
            if (method == V::get) return admin_.getSchema(*topic, std::nullopt, answer);
            if (method == V::post)
                return withPayload([&](SchemaData schema) { admin_.postSchema(*topic, schema, answer); });
            if (method == V::delete_) return admin_.deleteSchema(*topic, isTrue(*target, "force"), answer);
            return reply(methodNotAllowed(req, "GET, POST, DELETE"));
        }
        if (s.size() == 8 && s[6] == "schema") {
            if (method != V::get) return reply(methodNotAllowed(req, "GET"));
            std::int64_t version = 0;
            auto [p, ec] = std::from_chars(s[7].data(), s[7].data() + s[7].size(), version);
            // §7.4: a version that is not a decimal long fails in the broker: 500.
            if (ec != std::errc() || p != s[7].data() + s[7].size())
                return reply(http::error(req, 500, "For input string: \"" + s[7] + "\""));
            return admin_.getSchema(*topic, version, answer);
        }
        if (s.size() == 7 && s[6] == "schemas") {
            if (method != V::get) return reply(methodNotAllowed(req, "GET"));
            return admin_.getAllSchemas(*topic, answer);
        }
        if (s.size() == 7 && s[6] == "compatibility") {
            if (method != V::post) return reply(methodNotAllowed(req, "POST"));
            return withPayload([&](SchemaData schema) { admin_.testCompatibility(*topic, schema, answer); });
        }
        if (s.size() == 7 && s[6] == "version") {
            if (method != V::post) return reply(methodNotAllowed(req, "POST"));
            return withPayload([&](SchemaData schema) { admin_.getVersionBySchema(*topic, schema, answer); });
        }
        return notFound();
    }

    if (s.size() >= 3 && s[2] == "tenants") return handleTenants(req, *target, done);
    if (s.size() >= 4 && s[2] == "namespaces") return handleNamespaces(req, *target, done);
    if (s.size() >= 5 && (s[2] == "persistent" || s[2] == "non-persistent")) return handleTopic(req, *target, done);
    notFound();
}

// TopicLookupBase (v2 topic names): GET /lookup/v2/topic/{domain}/{tenant}/{ns}/{topic},
// the listener from ?listenerName= or the X-Pulsar-ListenerName header.
void AdminRoutes::handleLookup(const Request& req, const Target& target, const Answer& done) {
    const auto& s = target.segments;
    if (s.size() != 7 || (s[3] != "persistent" && s[3] != "non-persistent"))
        return done(error(req, 404, "HTTP 404 Not Found"), nullptr);
    if (req.method() != beast_http::verb::get) return done(methodNotAllowed(req, "GET"), nullptr);
    std::string why;
    auto topic = TopicName::parse(s[3] + "://" + s[4] + "/" + s[5] + "/" + s[6], &why);
    if (!topic) return done(error(req, 412, "Invalid topic name: " + why), nullptr);
    std::string listener;
    if (auto it = target.query.find("listenerName"); it != target.query.end()) listener = it->second;
    else if (auto h = req.find("X-Pulsar-ListenerName"); h != req.end()) listener = std::string(h->value());
    auto r = admin_.lookupTopic(*topic, listener);
    done(fromAdmin(req, r), r.trace);
}

// ClustersBase: the broker's one cluster, `standalone`.
void AdminRoutes::handleCluster(const Request& req, const Target& target, const Answer& done) {
    const auto& name = target.segments[3];
    const auto method = req.method();
    using V = beast_http::verb;
    auto reply = [&done](Response r) { done(std::move(r), nullptr); };
    if (method == V::get) {
        if (name != "standalone") return reply(error(req, 404, "Cluster does not exist"));
        auto data = broker_.lookupData({});
        if (auto* e = std::get_if<std::string>(&data)) return reply(error(req, 500, *e));
        const auto& urls = std::get<LookupData>(data);
        return reply(makeResponse(req.version(), req.keep_alive(), 200,
                                  dumpJson(Json{{"serviceUrl", urls.httpUrl}, {"brokerServiceUrl", urls.brokerUrl}})));
    }
    if (method != V::put) return reply(methodNotAllowed(req, "GET, PUT"));
    if (!TopicName::validNamePart(name)) return reply(error(req, 412, "Cluster name is not valid"));
    if (req.body().empty()) return reply(error(req, 400, "cluster data is required"));
    Response refusal;
    auto body = jsonBody(req, &refusal);
    if (!body) return reply(std::move(refusal));
    if (!body->is_object())
        return reply(error(req, 400, "Cannot deserialize value of type `ClusterDataImpl` from " + dumpJson(*body)));
    if (name == "standalone") return reply(error(req, 409, "Cluster already exists"));
    auto r = admin_.notModelled("a cluster besides standalone: the model is one broker of one cluster");
    done(fromAdmin(req, r), r.trace);
}

void AdminRoutes::handleCnxsim(const Request& req, const Target& target, const Answer& done) {
    const auto& s = target.segments;
    const auto method = req.method();
    using V = beast_http::verb;
    auto reply = [&done](Response r) { done(std::move(r), nullptr); };
    auto json = [&req](int status, const Json& body) {
        return makeResponse(req.version(), req.keep_alive(), status, dumpJson(body));
    };
    if (!lifecycle_ || s.size() != 2) return reply(error(req, 404, "HTTP 404 Not Found"));
    const auto& what = s[1];
    if (what == "status") {
        if (method != V::get) return reply(methodNotAllowed(req, "GET"));
        return reply(json(200, lifecycle_->status()));
    }
    if (what == "trace") {
        if (method != V::get) return reply(methodNotAllowed(req, "GET"));
        if (!ring_) return reply(error(req, 404, "HTTP 404 Not Found"));
        std::size_t last = 20;
        if (auto it = target.query.find("last"); it != target.query.end()) {
            const auto& text = it->second;
            std::size_t n = 0;
            auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
            if (text.empty() || ec != std::errc() || p != text.data() + text.size() || n == 0)
                return reply(error(req, 400, "last must be a whole number of decisions, at least 1 (got '" + text + "')"));
            last = n;
        }
        return reply(json(200, ring_->newest(last)));
    }
    if (what == "upgrade" || what == "restart") {
        if (method != V::post) return reply(methodNotAllowed(req, "POST"));
        LifecycleAnswer answer;
        if (what == "upgrade") {
            auto v = target.query.find("version");
            if (v == target.query.end() || v->second.empty()) return reply(error(req, 400, "upgrade needs ?version=RELEASE"));
            answer = lifecycle_->upgrade(v->second);
        } else {
            answer = lifecycle_->restart();
        }
        return reply(answer.ok ? json(200, Json{{"result", answer.text}}) : error(req, 400, answer.text));
    }
    if (what == "reset") {
        if (method != V::post) return reply(methodNotAllowed(req, "POST"));
        if (ring_) ring_->clear();
        return lifecycle_->reset([done, &req, json](LifecycleAnswer answer) {
            done(answer.ok ? json(200, Json{{"result", answer.text}}) : error(req, 500, answer.text), nullptr);
        });
    }
    reply(error(req, 404, "HTTP 404 Not Found"));
}

}  // namespace cnx::serve::http
