#include "sim/live/live_run.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <thread>

#include <nlohmann/json.hpp>

#include "broker_model/admin/schema_payload.h"
#include "broker_model/core/schema_type.h"
#include "broker_model/core/topic_name.h"
#include "broker_model/profile/protocol.h"
#include "broker_model/wire/enum_names.h"
#include "broker_model/wire/frame.h"
#include "broker_model/wire/schema_wire.h"
#include "sim/clients/admin_client.h"
#include "sim/clients/client_library.h"
#include "sim/run/reconnect_outcome.h"

namespace cnx::sim::live {

using pulsar::proto::BaseCommand;
using Json = nlohmann::json;

namespace {

// Pulsar's Codec.encode of a path segment (URLEncoder), as the route table encodes it.
std::string encodePathPart(std::string_view s) { return rest::encodeSegment(s); }

std::optional<TopicName> parsed(const std::string& full) { return TopicName::parse(full); }

// /admin/v2/{persistent|non-persistent}/{tenant}/{ns}/{topic}: the set-up's and tear-down's topic path.
std::string topicPath(const TopicName& t) {
    auto r = adminRequest(rest::Call::createTopic, topicParams(t));
    return r ? r->target : std::string();
}

// A PostSchemaPayload as pulsar-admin sends it (§7.2).
std::string postSchemaPayload(const SchemaData& schema) {
    Json props = Json::object();
    for (const auto& [k, v] : schema.properties) props[k] = v;
    Json body = {{"type", std::string(to_string_view(schema.type))},
                 {"schema", renderAdminSchemaData(schema)},
                 {"properties", props}};
    return body.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Observed notSupported(const std::string& why) { return Observed::failure("NotExecutable", why); }

constexpr const char* kNotExecutable = "NotExecutable";

}  // namespace

std::string NameMap::namespaceName(const std::string& ns) const {
    auto slash = ns.find('/');
    if (slash == std::string::npos) return ns;
    return tenant(ns.substr(0, slash)) + ns.substr(slash);
}

std::string NameMap::topic(const std::string& full) const {
    auto t = parsed(full);
    if (!t) return full;
    return std::string(t->persistent() ? "persistent://" : "non-persistent://") + tenant(std::string(t->tenant())) + "/" +
           std::string(t->namespacePortion()) + "/" + std::string(t->localName());
}

std::string NameMap::unmap(std::string text) const {
    const std::string suffix = "-" + token_;
    for (auto at = text.find(suffix); at != std::string::npos; at = text.find(suffix, at)) text.erase(at, suffix.size());
    return text;
}

std::set<std::string> namespacesNamed(const Scenario& scenario) {
    std::set<std::string> out;
    auto addTopic = [&](const std::string& full) {
        if (auto t = parsed(full)) out.insert(t->namespaceName());
    };
    for (const auto& ns : scenario.namespaces) out.insert(ns.name);
    for (const auto& t : scenario.topics) addTopic(t.name);
    for (const auto& step : scenario.steps) {
        std::visit(
            [&](const auto& b) {
                using T = std::decay_t<decltype(b)>;
                if constexpr (std::is_same_v<T, SetPolicyStep>) {
                    if (b.namespaceName) out.insert(*b.namespaceName);
                    if (b.topic) addTopic(*b.topic);
                } else if constexpr (requires { b.topic; }) {
                    if constexpr (std::is_same_v<std::decay_t<decltype(b.topic)>, std::string>) addTopic(b.topic);
                }
            },
            step.body);
    }
    return out;
}

LiveRun::LiveRun(const Scenario& scenario, const LiveTarget& target, std::string version, std::string token)
    : scenario_(scenario),
      target_(target),
      version_(std::move(version)),
      names_(std::move(token)),
      admin_(target.admin, target.timeout) {}

LiveRun::~LiveRun() { tearDown(); }

Observed LiveRun::admin(int call, const std::string& method, const std::string& target,
                        const std::optional<std::string>& body) {
    auto r = admin_.call(method, target, body);
    if (r.status == 0) return Observed::failure("Unreachable", r.reason);
    r.reason = names_.unmap(r.reason);
    auto o = observeAdmin(static_cast<AdminCall>(call), std::move(r));
    o.message = names_.unmap(o.message);
    return o;
}

// An admin step's request, built from the route table (sim/clients/admin_client.h).
Observed LiveRun::send(AdminCall call, const std::optional<AdminRequest>& request) {
    if (!request) return notSupported("no REST route of the live broker takes this step's names");
    return admin(static_cast<int>(call), request->method, request->target, request->body);
}

std::optional<std::string> LiveRun::setUp() {
    auto must = [&](const std::string& what, const AdminResponse& r) -> std::optional<std::string> {
        if (r.ok()) return std::nullopt;
        if (r.status == 0) return what + ": " + r.reason;
        return what + ": HTTP " + std::to_string(r.status) + " " + r.reason;
    };
    // A topic policy on a namespace's own __change_events is stored in that topic: a real 4.2.4
    // broker did not answer it within 30 s (issue 42), so such a scenario is not executable.
    for (const auto& t : scenario_.topics)
        if (!t.policies.empty() && t.name.find("/__change_events") != std::string::npos)
            return std::string(kSetUpNotExecutable) + "a topic policy on " + t.name +
                   " (a real broker did not answer one within 30 s: it stores topic policies in that topic)";
    if (!clusterKnown_) {
        auto clusters = admin_.call("GET", "/admin/v2/clusters");
        if (clusters.status == 0) return "the admin API cannot be reached: " + clusters.reason;
        if (clusters.ok() && clusters.body.is_array() && !clusters.body.empty() && clusters.body[0].is_string())
            cluster_ = clusters.body[0].get<std::string>();
        clusterKnown_ = true;
    }
    // Which tenants and namespaces exist: the listed ones, or every one the scenario names.
    std::set<std::string> tenants, namespaces;
    if (scenario_.explicitMetadata) {
        tenants.insert(scenario_.existingTenants.begin(), scenario_.existingTenants.end());
        namespaces.insert(scenario_.existingNamespaces.begin(), scenario_.existingNamespaces.end());
        for (const auto& ns : scenario_.namespaces) namespaces.insert(ns.name);
        for (const auto& t : scenario_.topics)
            if (auto n = parsed(t.name)) namespaces.insert(n->namespaceName());
    } else {
        namespaces = namespacesNamed(scenario_);
    }
    for (const auto& ns : namespaces) tenants.insert(ns.substr(0, ns.find('/')));
    for (const auto& t : tenants) {
        auto live = names_.tenant(t);
        Json info = {{"adminRoles", Json::array()}, {"allowedClusters", Json::array({cluster_})}};
        if (auto e = must("creating tenant " + live, admin_.call("PUT", "/admin/v2/tenants/" + live, info.dump())))
            return e;
        createdTenants_.push_back(live);
    }
    for (const auto& ns : namespaces) {
        auto live = names_.namespaceName(ns);
        if (auto e = must("creating namespace " + live, admin_.call("PUT", "/admin/v2/namespaces/" + live)))
            return e;
        createdNamespaces_.push_back(live);
    }
    for (const auto& ns : scenario_.namespaces) {
        SetPolicyStep s;
        s.namespaceName = ns.name;
        s.settings = ns.policies;
        if (s.settings.empty()) continue;
        auto o = setPolicy(s);
        if (!o.ok) return "namespace " + ns.name + " policies: " + o.error + " " + o.message;
    }
    for (const auto& t : scenario_.topics) {
        auto name = parsed(names_.topic(t.name));
        if (!name) return "invalid topic name '" + t.name + "'";
        // A declared topic exists (doc/scenario-format.md, topics): created as an operator creates it.
        if (t.partitions > 0) {
            if (auto e = must("creating partitioned topic " + name->toString(),
                              admin_.call("PUT", topicPath(*name) + "/partitions", std::to_string(t.partitions))))
                return e;
        } else if (auto e = must("creating topic " + name->toString(), admin_.call("PUT", topicPath(*name)))) {
            return e;
        }
        if (t.policies.empty()) continue;
        SetPolicyStep s;
        s.topic = t.name;
        s.settings = t.policies;
        auto o = setPolicy(s);
        if (!o.ok) return "topic " + t.name + " policies: " + o.error + " " + o.message;
    }
    return std::nullopt;
}

void LiveRun::tearDown() {
    for (auto& [_, s] : sessions_) s.conn.reset();
    sessions_.clear();
    producers_.clear();
    consumers_.clear();
    for (const auto& [key, value] : changedConfig_) {
        if (value) admin_.call("POST", "/admin/v2/brokers/configuration/" + key + "/" + encodePathPart(*value));
        else admin_.call("DELETE", "/admin/v2/brokers/configuration/" + key);
    }
    changedConfig_.clear();
    if (keepCreated_) {
        createdNamespaces_.clear();
        createdTenants_.clear();
        return;
    }
    // Best effort: the topics of each namespace, then the namespaces and tenants.
    for (const auto& ns : createdNamespaces_) {
        for (const char* list : {"/admin/v2/persistent/", "/admin/v2/non-persistent/"}) {
            auto partitioned = admin_.call("GET", list + ns + "/partitioned");
            if (partitioned.ok() && partitioned.body.is_array())
                for (const auto& t : partitioned.body)
                    if (auto n = t.is_string() ? parsed(t.get<std::string>()) : std::nullopt)
                        admin_.call("DELETE", topicPath(*n) + "/partitions?force=true&deleteSchema=true");
            auto topics = admin_.call("GET", list + ns);
            if (topics.ok() && topics.body.is_array())
                for (const auto& t : topics.body)
                    if (auto n = t.is_string() ? parsed(t.get<std::string>()) : std::nullopt)
                        admin_.call("DELETE", topicPath(*n) + "?force=true&deleteSchema=true");
        }
        admin_.call("DELETE", "/admin/v2/namespaces/" + ns);
    }
    for (const auto& t : createdTenants_) admin_.call("DELETE", "/admin/v2/tenants/" + t);
    createdNamespaces_.clear();
    createdTenants_.clear();
}

std::variant<LiveRun::Session*, std::string> LiveRun::session(const std::string& client) {
    auto it = sessions_.find(client);
    if (it != sessions_.end() && !it->second.conn->closed()) return &it->second;
    auto model = clientModels_.find(client);
    if (model == clientModels_.end()) {
        ClientDecl decl;
        if (auto d = scenario_.clients.find(client); d != scenario_.clients.end()) decl = d->second;
        model = clientModels_.emplace(client, makeClientModel(decl, version_)).first;
    }
    auto opened = LiveConnection::open(io_, target_.broker, model->second, target_.timeout);
    if (auto* why = std::get_if<std::string>(&opened)) return *why;
    Session s;
    s.conn = std::move(std::get<std::unique_ptr<LiveConnection>>(opened));
    s.model = model->second;
    auto& slot = sessions_[client];
    slot = std::move(s);
    return &slot;
}

Observed LiveRun::fromFrame(const wire::Frame& f) {
    const auto& c = f.command;
    if (c.type() == BaseCommand::ERROR)
        return Observed::failure(wire::serverErrorName(c.error().error()), names_.unmap(c.error().message()));
    return Observed::success();
}

LiveOutcome LiveRun::run(const Step& step) {
    LiveOutcome out;
    auto notExecutable = [&](std::string why) {
        out.kind = LiveOutcome::Kind::notExecutable;
        out.why = std::move(why);
        return out;
    };
    Observed o = std::visit(
        [&](const auto& b) -> Observed {
            using T = std::decay_t<decltype(b)>;
            if constexpr (std::is_same_v<T, ProducerStep>) return producer(b);
            else if constexpr (std::is_same_v<T, SubscribeStep>) return subscribe(b);
            else if constexpr (std::is_same_v<T, CloseStep>) return close(b);
            else if constexpr (std::is_same_v<T, PublishStep>) return publish(b);
            else if constexpr (std::is_same_v<T, UploadSchemaStep>) {
                auto t = parsed(names_.topic(b.topic));
                return send(AdminCall::uploadSchema,
                            adminRequest(rest::Call::postSchema, topicParams(*t), postSchemaPayload(b.schema.data)));
            } else if constexpr (std::is_same_v<T, GetSchemaStep>) {
                if (b.via == "wire") return getSchemaOnWire(b);
                auto params = topicParams(*parsed(names_.topic(b.topic)));
                if (b.version) params["version"] = std::to_string(*b.version);
                return send(AdminCall::getSchema,
                            adminRequest(b.version ? rest::Call::getSchemaAtVersion : rest::Call::getSchema, params));
            } else if constexpr (std::is_same_v<T, GetSchemaVersionStep>) {
                auto t = parsed(names_.topic(b.topic));
                return send(AdminCall::getSchemaVersion, adminRequest(rest::Call::getVersionBySchema, topicParams(*t),
                                                                      postSchemaPayload(b.schema.data)));
            } else if constexpr (std::is_same_v<T, TestCompatibilityStep>) {
                auto t = parsed(names_.topic(b.topic));
                return send(AdminCall::testCompatibility, adminRequest(rest::Call::testCompatibility, topicParams(*t),
                                                                       postSchemaPayload(b.schema.data)));
            } else if constexpr (std::is_same_v<T, DeleteSchemaStep>) {
                auto t = parsed(names_.topic(b.topic));
                std::vector<std::pair<std::string, std::string>> flags;
                if (b.force) flags.emplace_back("force", "true");
                return send(AdminCall::deleteSchema,
                            adminRequest(rest::Call::deleteSchema, topicParams(*t), std::nullopt, flags));
            } else if constexpr (std::is_same_v<T, DeleteTopicStep>) return deleteTopic(b);
            else if constexpr (std::is_same_v<T, SetPolicyStep>) return setPolicy(b);
            else if constexpr (std::is_same_v<T, SetBrokerConfigStep>) return setBrokerConfig(b);
            else if constexpr (std::is_same_v<T, UnloadStep>) return unload(b);
            else if constexpr (std::is_same_v<T, CheckStep>)
                return notSupported("`check` reads the model's own state; a live broker has no such view");
            else if constexpr (std::is_same_v<T, ConcurrentlyStep>)
                return notSupported("a `concurrently` race explores the model's schedules; a live broker runs one");
            else if constexpr (std::is_same_v<T, UpgradeBrokerStep>)
                return notSupported("`upgrade-broker` restarts the broker on another release: run --against does not "
                                    "start or stop brokers (tests/oracle/upgrade_check.py upgrades real ones with --data)");
            else if constexpr (std::is_same_v<T, RestartBrokerStep>)
                return notSupported("`restart-broker` restarts the broker: run --against does not start or stop brokers");
            else return notSupported("this step has no live form");
        },
        step.body);
    if (!o.ok && o.error == kNotExecutable) return notExecutable(o.message);
    if (!o.ok && (o.error == "Unreachable" || o.error == "ConnectionFailed")) {
        out.kind = LiveOutcome::Kind::error;
        out.why = o.message;
    }
    out.observed = std::move(o);
    return out;
}

std::variant<wire::Frame, Observed> LiveRun::request(Session& s, const BaseCommand& cmd, std::uint64_t requestId,
                                                    const char* what) {
    if (auto e = s.conn->send(cmd)) return Observed::failure("ConnectionFailed", *e);
    auto r = s.conn->waitForRequest(requestId, target_.timeout);
    if (auto* why = std::get_if<std::string>(&r)) return Observed::failure("NoResponse", std::string(what) + ": " + *why);
    auto& f = std::get<wire::Frame>(r);
    if (f.command.type() == BaseCommand::ERROR) return fromFrame(f);
    return std::move(f);
}

std::variant<int, Observed> LiveRun::partitionsOf(Session& s, const std::string& liveTopic) {
    BaseCommand cmd;
    cmd.set_type(BaseCommand::PARTITIONED_METADATA);
    auto rid = s.conn->nextRequestId();
    cmd.mutable_partitionmetadata()->set_topic(liveTopic);
    cmd.mutable_partitionmetadata()->set_request_id(rid);
    auto r = request(s, cmd, rid, "PARTITIONED_METADATA");
    if (auto* o = std::get_if<Observed>(&r)) return std::move(*o);
    const auto& m = std::get<wire::Frame>(r).command.partitionmetadataresponse();
    if (m.has_response() && m.response() == pulsar::proto::CommandPartitionedTopicMetadataResponse::Failed)
        return Observed::failure(wire::serverErrorName(m.error()), names_.unmap(m.message()));
    return static_cast<int>(m.partitions());
}

std::optional<pulsar::proto::Schema> LiveRun::autoProduceSchema(Session& s, const std::string& liveTopic) {
    BaseCommand get;
    get.set_type(BaseCommand::GET_SCHEMA);
    auto rid = s.conn->nextRequestId();
    get.mutable_getschema()->set_request_id(rid);
    get.mutable_getschema()->set_topic(liveTopic);
    if (s.conn->send(get)) return std::nullopt;
    auto r = s.conn->waitForRequest(rid, target_.timeout);
    auto* f = std::get_if<wire::Frame>(&r);
    if (!f || !f->command.has_getschemaresponse()) return std::nullopt;
    const auto& resp = f->command.getschemaresponse();
    if (resp.has_error_code() || !resp.has_schema()) return std::nullopt;
    return resp.schema();
}

Observed LiveRun::producer(const ProducerStep& st) {
    auto got = session(st.client);
    if (auto* why = std::get_if<std::string>(&got)) return Observed::failure("ConnectionFailed", *why);
    auto& s = *std::get<Session*>(got);
    Handle h;
    h.producer = true;
    h.client = st.client;
    h.name = st.name;
    h.producerStep = &st;
    switch (st.schema.kind) {
        case SchemaRef::Kind::none:
        case SchemaRef::Kind::autoConsume: break;
        case SchemaRef::Kind::autoProduceBytes: h.wireSchema = autoProduceSchema(s, names_.topic(st.topic)); break;
        case SchemaRef::Kind::definition: h.wireSchema = producerSchemaField(s.model, st.schema.data); break;
    }
    return open(std::move(h));
}

Observed LiveRun::subscribe(const SubscribeStep& st) {
    Handle h;
    h.producer = false;
    h.client = st.client;
    h.name = st.consumer;
    h.subscribeStep = &st;
    return open(std::move(h));
}

// As a client creates a producer or consumer: PARTITIONED_METADATA, a LOOKUP of
// each partition (the broker takes the bundle on a lookup), then PRODUCER or
// SUBSCRIBE on every partition; the first refusal fails the handle and the
// partitions that succeeded are closed again.
Observed LiveRun::open(Handle h) {
    auto got = session(h.client);
    if (auto* why = std::get_if<std::string>(&got)) return Observed::failure("ConnectionFailed", *why);
    auto& s = *std::get<Session*>(got);
    const auto live = names_.topic(h.topic());
    auto n = partitionsOf(s, live);
    if (auto* o = std::get_if<Observed>(&n)) return *o;
    const int partitions = std::get<int>(n);
    std::vector<std::string> parts;
    if (partitions == 0) parts.push_back(live);
    for (int i = 0; i < partitions; ++i) parts.push_back(live + "-partition-" + std::to_string(i));
    h.parts.clear();
    Observed out;
    for (const auto& part : parts) {
        BaseCommand lookup;
        lookup.set_type(BaseCommand::LOOKUP);
        auto lrid = s.conn->nextRequestId();
        lookup.mutable_lookuptopic()->set_topic(part);
        lookup.mutable_lookuptopic()->set_request_id(lrid);
        lookup.mutable_lookuptopic()->set_authoritative(false);
        auto lr = request(s, lookup, lrid, "LOOKUP");
        if (auto* o = std::get_if<Observed>(&lr)) return std::move(*o);
        const auto& l = std::get<wire::Frame>(lr).command.lookuptopicresponse();
        if (l.response() == pulsar::proto::CommandLookupTopicResponse::Failed)
            return Observed::failure(wire::serverErrorName(l.error()), names_.unmap(l.message()));
    }
    std::vector<std::uint64_t> requests;
    for (const auto& part : parts) {
        BaseCommand cmd;
        auto rid = s.conn->nextRequestId();
        std::uint64_t id = 0;
        if (h.producer) {
            const auto& st = *h.producerStep;
            cmd.set_type(BaseCommand::PRODUCER);
            auto* p = cmd.mutable_producer();
            p->set_topic(part);
            id = s.conn->nextProducerId();
            p->set_producer_id(id);
            p->set_request_id(rid);
            p->set_producer_name(st.name);
            pulsar::proto::ProducerAccessMode mode{};
            wire::parseAccessMode(st.accessMode, &mode);
            p->set_producer_access_mode(mode);
            if (h.wireSchema) *p->mutable_schema() = *h.wireSchema;
        } else {
            const auto& st = *h.subscribeStep;
            cmd.set_type(BaseCommand::SUBSCRIBE);
            auto* c = cmd.mutable_subscribe();
            c->set_topic(part);
            c->set_subscription(st.subscription);
            pulsar::proto::CommandSubscribe::SubType type{};
            wire::parseSubType(st.subType, &type);
            c->set_subtype(type);
            id = s.conn->nextConsumerId();
            c->set_consumer_id(id);
            c->set_request_id(rid);
            c->set_consumer_name(st.consumer);
            c->set_durable(st.durable);
            if (auto schema = subscribeSchemaField(s.model, st.schema, s.conn->negotiatedProtocol()))
                *c->mutable_schema() = std::move(*schema);
        }
        h.parts.emplace_back(part, id);
        requests.push_back(rid);
        if (auto e = s.conn->send(cmd)) return Observed::failure("ConnectionClosed", *e);
    }
    bool failed = false;
    for (std::size_t i = 0; i < requests.size(); ++i) {
        auto r = s.conn->waitForRequest(requests[i], target_.timeout);
        if (failed) continue;
        if (auto* why = std::get_if<std::string>(&r)) {
            out = Observed::failure("NoResponse", *why);
            failed = true;
            continue;
        }
        auto& f = std::get<wire::Frame>(r);
        // A WaitForExclusive producer is answered twice: not ready (queued), then ready once
        // the topic's other producers are gone. The run waits a little for the second answer.
        if (f.command.type() == BaseCommand::PRODUCER_SUCCESS && f.command.producer_success().has_producer_ready() &&
            !f.command.producer_success().producer_ready()) {
            auto again = s.conn->waitForRequest(requests[i], std::min(target_.timeout, kQueuedProducerWait));
            if (std::holds_alternative<std::string>(again)) {
                out = Observed::failure("NoResponse", "the broker queued the producer (WaitForExclusive) and did "
                                                          "not make it ready within " +
                                                              std::to_string(kQueuedProducerWait.count()) + " ms");
                failed = true;
                continue;
            }
            f = std::move(std::get<wire::Frame>(again));
        }
        if (f.command.type() == BaseCommand::ERROR) {
            out = fromFrame(f);
            failed = true;
        } else if (i == 0 && h.producer) {
            h.schemaVersion = f.command.producer_success().schema_version();
        }
    }
    if (failed) {
        closeParts(h);
        (h.producer ? producers_ : consumers_).erase(h.name);
        return out;
    }
    if (h.producer) out.schemaVersion = wire::decodeSchemaVersion(h.schemaVersion);
    auto& map = h.producer ? producers_ : consumers_;
    if (auto it = map.find(h.name); it != map.end()) h.order = it->second.order;
    else h.order = nextOrder_++;
    map[h.name] = std::move(h);
    return out;
}

void LiveRun::closeParts(const Handle& h) {
    auto it = sessions_.find(h.client);
    if (it == sessions_.end() || it->second.conn->closed()) return;
    auto& conn = *it->second.conn;
    std::vector<std::uint64_t> requests;
    for (const auto& [part, id] : h.parts) {
        BaseCommand c;
        auto rid = conn.nextRequestId();
        if (h.producer) {
            c.set_type(BaseCommand::CLOSE_PRODUCER);
            c.mutable_close_producer()->set_producer_id(id);
            c.mutable_close_producer()->set_request_id(rid);
        } else {
            c.set_type(BaseCommand::CLOSE_CONSUMER);
            c.mutable_close_consumer()->set_consumer_id(id);
            c.mutable_close_consumer()->set_request_id(rid);
        }
        if (conn.send(c)) return;
        requests.push_back(rid);
    }
    for (auto rid : requests) conn.waitForRequest(rid, target_.timeout);
}

Observed LiveRun::close(const CloseStep& st) {
    for (bool producer : {true, false}) {
        auto& map = producer ? producers_ : consumers_;
        auto it = map.find(st.name);
        if (it == map.end()) continue;
        closeParts(it->second);
        map.erase(it);
        return Observed::success();
    }
    return Observed::failure("NotConnected", "no open producer or consumer named '" + st.name + "'");
}

Observed LiveRun::publish(const PublishStep& st) {
    auto it = producers_.find(st.producer);
    if (it == producers_.end())
        return Observed::failure("NotConnected", "no open producer named '" + st.producer + "'");
    auto& h = it->second;
    auto got = session(h.client);
    if (auto* why = std::get_if<std::string>(&got)) return Observed::failure("ConnectionFailed", *why);
    auto& s = *std::get<Session*>(got);
    Observed out;
    std::string version = h.schemaVersion;
    if (st.schema) {
        if (!protocol::supportsGetOrCreateSchema(s.conn->negotiatedProtocol()))
            return Observed::failure("NotSupported", "multi-schema producers need GET_OR_CREATE_SCHEMA (protocol v" +
                                                         std::to_string(protocol::kGetOrCreateSchema) +
                                                         "); negotiated v" +
                                                         std::to_string(s.conn->negotiatedProtocol()));
        BaseCommand cmd;
        cmd.set_type(BaseCommand::GET_OR_CREATE_SCHEMA);
        auto rid = s.conn->nextRequestId();
        cmd.mutable_getorcreateschema()->set_request_id(rid);
        cmd.mutable_getorcreateschema()->set_topic(h.parts.front().first);
        *cmd.mutable_getorcreateschema()->mutable_schema() = getOrCreateSchemaField(st.schema->data);
        auto r = request(s, cmd, rid, "GET_OR_CREATE_SCHEMA");
        if (auto* o = std::get_if<Observed>(&r)) return std::move(*o);
        const auto& resp = std::get<wire::Frame>(r).command.getorcreateschemaresponse();
        if (resp.has_error_code())
            return Observed::failure(wire::serverErrorName(resp.error_code()), names_.unmap(resp.error_message()));
        version = resp.schema_version();
        out.schemaVersion = wire::decodeSchemaVersion(version);
    }
    for (int i = 0; i < st.count; ++i) {
        const auto& [part, id] = h.parts[static_cast<std::size_t>(i) % h.parts.size()];
        const auto seq = h.nextSequence++;
        BaseCommand send;
        send.set_type(BaseCommand::SEND);
        send.mutable_send()->set_producer_id(id);
        send.mutable_send()->set_sequence_id(seq);
        pulsar::proto::MessageMetadata meta;
        meta.set_producer_name(h.name);
        meta.set_sequence_id(seq);
        meta.set_publish_time(static_cast<std::uint64_t>(
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
                .count()));
        if (!version.empty()) meta.set_schema_version(version);
        if (auto e = s.conn->sendPayload(send, meta, "cnxsim-message")) return Observed::failure("ConnectionClosed", *e);
        const auto pid = id;
        auto r = s.conn->waitFor(
            [pid, seq](const BaseCommand& c) {
                if (c.type() == BaseCommand::SEND_RECEIPT)
                    return c.send_receipt().producer_id() == pid && c.send_receipt().sequence_id() == seq;
                if (c.type() == BaseCommand::SEND_ERROR)
                    return c.send_error().producer_id() == pid && c.send_error().sequence_id() == seq;
                return false;
            },
            target_.timeout);
        if (auto* why = std::get_if<std::string>(&r)) return Observed::failure("NoResponse", "no SEND_RECEIPT: " + *why);
        const auto& c = std::get<wire::Frame>(r).command;
        if (c.type() == BaseCommand::SEND_ERROR)
            return Observed::failure(wire::serverErrorName(c.send_error().error()), names_.unmap(c.send_error().message()));
    }
    return out;
}

Observed LiveRun::getSchemaOnWire(const GetSchemaStep& st) {
    auto got = session(st.client);
    if (auto* why = std::get_if<std::string>(&got)) return Observed::failure("ConnectionFailed", *why);
    auto& s = *std::get<Session*>(got);
    BaseCommand get;
    get.set_type(BaseCommand::GET_SCHEMA);
    auto rid = s.conn->nextRequestId();
    get.mutable_getschema()->set_request_id(rid);
    get.mutable_getschema()->set_topic(names_.topic(st.topic));
    if (st.version) get.mutable_getschema()->set_schema_version(wire::encodeSchemaVersion(*st.version));
    auto r = request(s, get, rid, "GET_SCHEMA");
    if (auto* o = std::get_if<Observed>(&r)) return std::move(*o);
    const auto& c = std::get<wire::Frame>(r).command;
    if (!c.has_getschemaresponse()) return Observed::failure("NoResponse", "no GET_SCHEMA_RESPONSE arrived");
    const auto& resp = c.getschemaresponse();
    if (resp.has_error_code())
        return Observed::failure(wire::serverErrorName(resp.error_code()), names_.unmap(resp.error_message()));
    Observed out;
    if (resp.has_schema()) out.schema = wire::fromProto(resp.schema());
    if (resp.has_schema_version()) out.schemaVersion = wire::decodeSchemaVersion(resp.schema_version());
    return out;
}

std::set<std::string> LiveRun::closedByBroker() {
    std::set<std::string> keys;
    for (auto& [client, s] : sessions_) {
        s.conn->drain(std::chrono::milliseconds(300));
        auto closes = s.conn->takeBrokerCloses();
        const bool dropped = s.conn->closed();
        for (const auto* map : {&producers_, &consumers_}) {
            for (const auto& [name, h] : *map) {
                if (h.client != client) continue;
                bool hit = dropped;
                for (const auto& c : closes)
                    for (const auto& [part, id] : h.parts) hit = hit || (c.producer == h.producer && c.id == id);
                if (hit) keys.insert((h.producer ? "p/" : "c/") + name);
            }
        }
    }
    return keys;
}

// The clients reconnect what the broker closed, in the order it first
// connected (as the model's runner does, sim/run/scenario_run_reconnect.cc).
Observed LiveRun::reconnect(const std::set<std::string>& keys) {
    std::vector<Handle> handles;
    for (const auto* map : {&producers_, &consumers_})
        for (const auto& [_, h] : *map)
            if (keys.count((h.producer ? "p/" : "c/") + h.name)) handles.push_back(h);
    std::sort(handles.begin(), handles.end(), [](const Handle& a, const Handle& b) { return a.order < b.order; });
    Observed out;
    for (auto& h : handles) {
        auto name = h.name;
        addReconnectOutcome(out, name, open(std::move(h)));
    }
    return out;
}

Observed LiveRun::unload(const UnloadStep& st) {
    auto base = parsed(names_.topic(st.topic))->partitionedBase();
    auto o = send(AdminCall::unloadTopic, adminRequest(rest::Call::unloadTopic, topicParams(base)));
    if (!o.ok) return o;
    return reconnect(closedByBroker());
}

Observed LiveRun::deleteTopic(const DeleteTopicStep& st) {
    auto t = parsed(names_.topic(st.topic));
    bool partitioned = false;
    for (const auto& d : scenario_.topics)
        if (d.name == st.topic && d.partitions > 0) partitioned = true;
    std::vector<std::pair<std::string, std::string>> flags;
    if (st.force) flags.emplace_back("force", "true");
    if (st.deleteSchema) flags.emplace_back("deleteSchema", "true");
    auto o = send(AdminCall::deleteTopic, adminRequest(partitioned ? rest::Call::deletePartitionedTopic : rest::Call::deleteTopic,
                                                       topicParams(*t), std::nullopt, flags));
    if (!o.ok) return o;
    for (const auto& key : closedByBroker()) (key[0] == 'p' ? producers_ : consumers_).erase(key.substr(2));
    return o;
}

Observed LiveRun::setPolicy(const SetPolicyStep& st) {
    Observed out;
    out.httpStatus = 204;
    for (const auto& s : st.settings) {
        bool topicLevel = !st.namespaceName;
        const auto* policy =
            rest::policyByKey(topicLevel ? rest::Call::setTopicPolicy : rest::Call::setNamespacePolicy, s.key);
        if (!policy) return notSupported("no REST call of the live broker is known for the policy '" + s.key + "'");
        auto params = topicLevel ? topicParams(*parsed(names_.topic(*st.topic)))
                                 : namespaceParams(names_.namespaceName(*st.namespaceName));
        auto request = policyRequest(*policy, topicLevel, params, s.value);
        if (!request) return notSupported("cnxsim knows no REST call of Pulsar's that unsets '" + s.key + "'");
        Observed o = send(AdminCall::setPolicy, request);
        if (!o.ok) return o;
        out.httpStatus = o.httpStatus;
    }
    if (st.namespaceName) std::this_thread::sleep_for(kPolicySettle);
    return out;
}

Observed LiveRun::setBrokerConfig(const SetBrokerConfigStep& st) {
    Observed out;
    out.httpStatus = 204;
    for (const auto& s : st.settings) {
        if (!changedConfig_.count(s.key)) {
            auto runtime = admin_.call("GET", "/admin/v2/brokers/configuration/runtime");
            std::optional<std::string> was;
            if (runtime.ok() && runtime.body.is_object() && runtime.body.contains(s.key) && runtime.body[s.key].is_string())
                was = runtime.body[s.key].get<std::string>();
            changedConfig_[s.key] = was;
        }
        auto request = s.value ? adminRequest(rest::Call::setBrokerConfig, {{"key", s.key}, {"value", *s.value}})
                               : adminRequest(rest::Call::deleteBrokerConfig, {{"key", s.key}});
        Observed o = send(AdminCall::setBrokerConfig, request);
        if (!o.ok) return o;
        out.httpStatus = o.httpStatus;
    }
    std::this_thread::sleep_for(kPolicySettle);
    return out;
}

}  // namespace cnx::sim::live
