#include "sim/live/live_run.h"

#include <algorithm>
#include <chrono>

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
#include "sim/live/live_rest.h"
#include "sim/run/reconnect_outcome.h"

namespace cnx::sim::live {

using pulsar::proto::BaseCommand;
using Json = nlohmann::json;

namespace {

// A PostSchemaPayload as pulsar-admin sends it (§7.2).
std::string postSchemaPayload(const SchemaData& schema) {
    Json props = Json::object();
    for (const auto& [k, v] : schema.properties) props[k] = v;
    Json body = {{"type", std::string(to_string_view(schema.type))},
                 {"schema", renderAdminSchemaData(schema)},
                 {"properties", props}};
    return body.dump(-1, ' ', false, Json::error_handler_t::replace);
}

constexpr const char* kNotExecutable = "NotExecutable";

// PRODUCER for one partition of a producer step.
BaseCommand producerCommand(const ProducerStep& st, const std::optional<pulsar::proto::Schema>& wireSchema,
                            const std::string& part, std::uint64_t id, std::uint64_t rid) {
    BaseCommand cmd;
    cmd.set_type(BaseCommand::PRODUCER);
    auto* p = cmd.mutable_producer();
    p->set_topic(part);
    p->set_producer_id(id);
    p->set_request_id(rid);
    p->set_producer_name(st.name);
    pulsar::proto::ProducerAccessMode mode{};
    wire::parseAccessMode(st.accessMode, &mode);
    p->set_producer_access_mode(mode);
    if (wireSchema) *p->mutable_schema() = *wireSchema;
    return cmd;
}

// SUBSCRIBE for one partition of a subscribe step, with the schema field the client sends.
BaseCommand subscribeCommand(const SubscribeStep& st, const ClientModel& model, int protocol, const std::string& part,
                             std::uint64_t id, std::uint64_t rid) {
    BaseCommand cmd;
    cmd.set_type(BaseCommand::SUBSCRIBE);
    auto* c = cmd.mutable_subscribe();
    c->set_topic(part);
    c->set_subscription(st.subscription);
    pulsar::proto::CommandSubscribe::SubType type{};
    wire::parseSubType(st.subType, &type);
    c->set_subtype(type);
    c->set_consumer_id(id);
    c->set_request_id(rid);
    c->set_consumer_name(st.consumer);
    c->set_durable(st.durable);
    if (auto schema = subscribeSchemaField(model, st.schema, protocol))
        *c->mutable_schema() = std::move(*schema);
    return cmd;
}

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
    if (auto refused = lookUp(s, parts)) return std::move(*refused);
    std::vector<std::uint64_t> requests;
    for (const auto& part : parts) {
        auto rid = s.conn->nextRequestId();
        std::uint64_t id = h.producer ? s.conn->nextProducerId() : s.conn->nextConsumerId();
        BaseCommand cmd = h.producer ? producerCommand(*h.producerStep, h.wireSchema, part, id, rid)
                                     : subscribeCommand(*h.subscribeStep, s.model, s.conn->negotiatedProtocol(), part, id, rid);
        h.parts.emplace_back(part, id);
        requests.push_back(rid);
        if (auto e = s.conn->send(cmd)) return Observed::failure("ConnectionClosed", *e);
    }
    if (auto refused = awaitOpened(s, h, requests)) {
        closeParts(h);
        (h.producer ? producers_ : consumers_).erase(h.name);
        return std::move(*refused);
    }
    Observed out;
    if (h.producer) out.schemaVersion = wire::decodeSchemaVersion(h.schemaVersion);
    auto& map = h.producer ? producers_ : consumers_;
    if (auto it = map.find(h.name); it != map.end()) h.order = it->second.order;
    else h.order = nextOrder_++;
    map[h.name] = std::move(h);
    return out;
}

std::optional<Observed> LiveRun::lookUp(Session& s, const std::vector<std::string>& parts) {
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
    return std::nullopt;
}

// Every request is waited for, also after the first refusal (their answers are
// not left for a later step to read).
std::optional<Observed> LiveRun::awaitOpened(Session& s, Handle& h, const std::vector<std::uint64_t>& requests) {
    std::optional<Observed> refused;
    for (std::size_t i = 0; i < requests.size(); ++i) {
        auto r = s.conn->waitForRequest(requests[i], target_.timeout);
        if (refused) continue;
        if (auto* why = std::get_if<std::string>(&r)) {
            refused = Observed::failure("NoResponse", *why);
            continue;
        }
        auto& f = std::get<wire::Frame>(r);
        // A WaitForExclusive producer is answered twice: not ready (queued), then ready once
        // the topic's other producers are gone. The run waits a little for the second answer.
        if (f.command.type() == BaseCommand::PRODUCER_SUCCESS && f.command.producer_success().has_producer_ready() &&
            !f.command.producer_success().producer_ready()) {
            auto again = s.conn->waitForRequest(requests[i], std::min(target_.timeout, kQueuedProducerWait));
            if (std::holds_alternative<std::string>(again)) {
                refused = Observed::failure("NoResponse", "the broker queued the producer (WaitForExclusive) and did "
                                                          "not make it ready within " +
                                                              std::to_string(kQueuedProducerWait.count()) + " ms");
                continue;
            }
            f = std::move(std::get<wire::Frame>(again));
        }
        if (f.command.type() == BaseCommand::ERROR) {
            refused = fromFrame(f);
        } else if (i == 0 && h.producer) {
            h.schemaVersion = f.command.producer_success().schema_version();
        }
    }
    return refused;
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

}  // namespace cnx::sim::live
