#include "sim/run/scenario_run.h"

#include <algorithm>

#include <boost/container/small_vector.hpp>

#include "broker_model/policy/policy_resolution.h"
#include "broker_model/profile/profile.h"
#include "broker_model/profile/protocol.h"
#include "broker_model/wire/enum_names.h"
#include "broker_model/wire/frame.h"
#include "broker_model/wire/schema_wire.h"
#include "sim/clients/admin_client.h"
#include "sim/run/broker_setup.h"
#include "sim/run/race_driver.h"

namespace cnx::sim {
namespace {

using pulsar::proto::BaseCommand;

// What a client sees from one request: success (false), or the refusal it
// sets on `out` (true): ok, error and message; the rest of `out` is kept.
bool refusedBy(const Received& response, Observed& out) {
    if (response && response->type() != BaseCommand::ERROR) return false;
    out.ok = false;
    if (!response) {
        out.error = "NoResponse";
        out.message = "the broker sent no response";
    } else {
        out.error = wire::serverErrorName(response->error().error());
        out.message = response->error().message();
    }
    return true;
}

std::optional<std::int64_t> versionOf(const std::string& bytes) { return wire::decodeSchemaVersion(bytes); }

// A visitor of one lambda per alternative (ScenarioRun::run).
template <class... F>
struct Overloaded : F... {
    using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

// Each request's trace is read once, when its answer is in: it is taken from
// the connection, and moved rather than copied unless a continuation still holds it.
void appendTrace(Trace& into, const TracePtr& from, const std::string& prefix) {
    if (from.use_count() == 1) into.append(std::move(*from), prefix);
    else into.append(*from, prefix);
}

}  // namespace

const TopicName& ScenarioRun::topicOf(const std::string& name) const { return topicNames_.parsed(name); }

Observed ScenarioRun::observed() const {
    Observed o;
    o.trace = Trace(broker_->traceDetail());
    return o;
}

void ScenarioRun::setTraceDetail(TraceDetail detail) { broker_->setTraceDetail(detail); }

Observed Observed::failure(std::string error, std::string message) {
    Observed o;
    o.ok = false;
    o.error = std::move(error);
    o.message = std::move(message);
    return o;
}

ScenarioRun::ScenarioRun(const Scenario& scenario, const BehaviourProfile& profile, std::string version,
                         TopicNameCache& topicNames, ScheduleMode mode, std::uint64_t seed, FastPaths fastPaths)
    : topicNames_(topicNames),
      scenario_(scenario),
      profile_(&profile),
      version_(std::move(version)),
      rng_(seed),
      scheduler_(mode == ScheduleMode::random ? static_cast<Chooser*>(&random_) : nullptr) {
    startRelease_ = profile.release;
    scheduler_.keepStageNames(false);  // until a race's driver reads them (setRace)
    broker_ = std::make_unique<Broker>(*profile_, scheduler_, fastPaths);
    admin_ = std::make_unique<AdminApi>(*broker_);
}

// The members' order does the teardown: the broker goes before the clients'
// sessions, with its topics, and lets go of their connections (Broker::~Broker).
ScenarioRun::~ScenarioRun() = default;

std::optional<std::string> ScenarioRun::setUp() { return applyBrokerSetup(scenario_, *broker_, *admin_); }

void ScenarioRun::settle() {
    if (race_ && race_->onFiber()) race_->settle();
    else scheduler_.runUntilIdle();
}

void ScenarioRun::reserveOrder(const std::string& key) {
    const auto& open = key[0] == 'p' ? producers_ : consumers_;
    if (open.count(key.substr(2))) return;  // open already: it keeps its order
    if (reservedOrder_.try_emplace(key, nextOrder_).second) ++nextOrder_;
}

std::vector<std::string> ScenarioRun::unansweredRequests() const {
    std::vector<std::string> out;
    for (const auto& [client, s] : sessions_)
        for (auto& line : s->unanswered()) out.push_back((client.empty() ? "default client" : "client " + client) + ": " + line);
    return out;
}

std::vector<ScenarioRun::OpenProducer> ScenarioRun::openProducers() const {
    std::vector<OpenProducer> out;
    for (const auto& [name, h] : producers_) out.push_back({h.topic(), h.wireSchema == nullptr});
    return out;
}

std::optional<std::string> ScenarioRun::topicOfHandle(const std::string& name) const {
    for (const auto* map : {&producers_, &consumers_})
        if (auto it = map->find(name); it != map->end()) return it->second.topic();
    return std::nullopt;
}

ClientSession& ScenarioRun::session(const std::string& client) {
    auto it = sessions_.find(client);
    if (it != sessions_.end() && !it->second->cnx().closed()) return *it->second;
    auto model = clientModels_.find(client);
    if (model == clientModels_.end()) {
        // A client's library and version are fixed when it first connects; a
        // broker upgrade does not change the application.
        ClientDecl decl;
        if (auto d = scenario_.clients.find(client); d != scenario_.clients.end()) decl = d->second;
        model = clientModels_.emplace(client, makeClientModel(decl, version_)).first;
    }
    // A client's connection is its own in a race: turns of different clients commute.
    auto made = std::make_unique<ClientSession>(*broker_, model->second);
    auto& ref = *made;
    sessions_[client] = std::move(made);
    return ref;
}

std::string ScenarioRun::describeClient(const std::string& client) const {
    auto it = sessions_.find(client);
    if (it == sessions_.end()) return client;
    const auto& m = it->second->model();
    return std::string(libraryName(m.library)) + " client, protocol v" +
           std::to_string(it->second->negotiatedProtocol());
}

Observed ScenarioRun::run(const Step& step) {
    // One handler per step kind and no generic one: a kind added to Action
    // without a handler here does not compile.
    Observed o = std::visit(
        Overloaded{
            [this](const ProducerStep& s) { return producer(s); },
            [this](const SubscribeStep& s) { return subscribe(s); },
            [this](const CloseStep& s) { return close(s); },
            [this](const PublishStep& s) { return publish(s); },
            [this](const UploadSchemaStep& s) { return uploadSchema(s); },
            [this](const GetSchemaStep& s) { return getSchema(s); },
            [this](const GetSchemaVersionStep& s) { return getSchemaVersion(s); },
            [this](const DeleteSchemaStep& s) { return deleteSchema(s); },
            [this](const DeleteTopicStep& s) { return deleteTopic(s); },
            [this](const TestCompatibilityStep& s) { return testCompatibility(s); },
            [this](const SetPolicyStep& s) { return setPolicy(s); },
            [this](const SetBrokerConfigStep& s) { return setBrokerConfig(s); },
            [this](const CheckStep& s) { return check(s); },
            [this](const UpgradeBrokerStep& s) { return upgradeBroker(s); },
            [this](const RestartBrokerStep&) { return restartBroker(); },
            [this](const UnloadStep& s) { return unload(s); },
            // A race is run by its caller (runRace, sim/run/race_step.h), never as one step.
            [](const ConcurrentlyStep&) {
                return Observed::failure("InternalError", "a concurrently step runs through runRace, not ScenarioRun::run");
            },
        },
        step.body);
    if (!o.ok) o.problems = o.trace.problems();
    return o;
}

// §1.7: AUTO_PRODUCE_BYTES looks the topic's schema up first (GET_SCHEMA) and
// connects with it, or without schema when there is none.
std::optional<pulsar::proto::Schema> ScenarioRun::autoProduceSchema(ClientSession& s, const TopicName& topic,
                                                                    Trace& trace) {
    BaseCommand get;
    get.set_type(BaseCommand::GET_SCHEMA);
    auto rid = s.nextRequestId();
    get.mutable_getschema()->set_request_id(rid);
    get.mutable_getschema()->set_topic(topic.toString());
    s.send(get);
    settle();
    auto response = s.takeResponse(rid);
    appendTrace(trace, s.cnx().takeTrace(rid), "client GET_SCHEMA: ");
    if (!response || response->getschemaresponse().has_error_code() || !response->getschemaresponse().has_schema()) {
        trace.add("§1.7", "AUTO_PRODUCE_BYTES", "no schema found -> connect without schema");
        return std::nullopt;
    }
    trace.add("§1.7", "AUTO_PRODUCE_BYTES", "connect with the topic's latest schema");
    return response->getschemaresponse().schema();
}

// `get-schema: { via: wire }`: CommandGetSchema as a consumer sends it, answered
// by the same ServerCnx the `serve` adapter puts on a socket (§1.9).
Observed ScenarioRun::getSchemaOnWire(const GetSchemaStep& st, const TopicName& topic) {
    auto& s = session(st.client);
    BaseCommand get;
    get.set_type(BaseCommand::GET_SCHEMA);
    auto rid = s.nextRequestId();
    get.mutable_getschema()->set_request_id(rid);
    get.mutable_getschema()->set_topic(topic.toString());
    if (st.version) get.mutable_getschema()->set_schema_version(wire::encodeSchemaVersion(*st.version));
    s.send(get);
    settle();
    auto response = s.takeResponse(rid);
    Observed out = observed();
    appendTrace(out.trace, s.cnx().takeTrace(rid), "");
    if (!response || !response->has_getschemaresponse()) {
        out = Observed::failure("NoResponse", "no GET_SCHEMA_RESPONSE arrived");
        return out;
    }
    const auto& r = response->getschemaresponse();
    if (r.has_error_code()) {
        Trace trace = std::move(out.trace);
        out = Observed::failure(wire::serverErrorName(r.error_code()), r.error_message());
        out.trace = std::move(trace);
        return out;
    }
    if (r.has_schema()) out.schema = wire::fromProto(r.schema());
    if (r.has_schema_version()) out.schemaVersion = wire::decodeSchemaVersion(r.schema_version());
    return out;
}

Observed ScenarioRun::producer(const ProducerStep& st) {
    auto& s = session(st.client);
    Observed out = observed();
    std::optional<pulsar::proto::Schema> schema;
    switch (st.schema.kind) {
        case SchemaRef::Kind::none:
        case SchemaRef::Kind::autoConsume:
            break;
        case SchemaRef::Kind::autoProduceBytes:
            schema = autoProduceSchema(s, topicOf(st.topic), out.trace);  // open() parses the name for the rest
            break;
        case SchemaRef::Kind::definition:
            schema = producerSchemaField(s.model(), st.schema.data);
            if (!schema) out.trace.add("§1.7", "client", [&] {
                return describeClient(st.client) + " omits the schema field for " +
                       std::string(to_string_view(st.schema.data.type));
            });
            break;
    }
    OpenHandle handle;
    handle.producer = true;
    handle.client = st.client;
    handle.name = st.name;
    handle.producerStep = &st;
    if (schema) handle.wireSchema = std::make_shared<const pulsar::proto::Schema>(std::move(*schema));
    return open(std::move(handle), std::move(out.trace));
}

Observed ScenarioRun::subscribe(const SubscribeStep& st) {
    OpenHandle handle;
    handle.producer = false;
    handle.client = st.client;
    handle.name = st.consumer;
    handle.subscribeStep = &st;
    return open(std::move(handle), Trace(broker_->traceDetail()));
}

wire::PooledCommand ScenarioRun::openCommand(OpenHandle& h, ClientSession& s, const TopicName& part,
                                                    Trace& trace) {
    wire::PooledCommand cmd;
    if (h.producer) {
        const auto& st = *h.producerStep;
        cmd->set_type(BaseCommand::PRODUCER);
        auto* p = cmd->mutable_producer();
        p->set_topic(part.toString());
        p->set_producer_id(s.nextProducerId());
        p->set_request_id(s.nextRequestId());
        p->set_producer_name(st.name);
        pulsar::proto::ProducerAccessMode mode{};
        wire::parseAccessMode(st.accessMode, &mode);
        p->set_producer_access_mode(mode);
        if (h.wireSchema) *p->mutable_schema() = *h.wireSchema;
        return cmd;
    }
    const auto& st = *h.subscribeStep;
    // What the client sends depends on the protocol negotiated with this broker (§2.3).
    auto schema = subscribeSchemaField(s.model(), st.schema, s.negotiatedProtocol());
    // The first partition's full name is firstPart() without parsing it again.
    const bool first = part.toString() == h.parts.front().first;
    if (first && st.schema.kind == SchemaRef::Kind::autoConsume && !schema)
        trace.add("§2.3", "client", [&] { return describeClient(st.client) + " sends no schema for AUTO_CONSUME"; });
    if (first && st.schema.kind == SchemaRef::Kind::definition && !schema)
        trace.add("§1.7", "client", [&] {
            return describeClient(st.client) + " omits the schema field for " +
                   std::string(to_string_view(st.schema.data.type));
        });
    cmd->set_type(BaseCommand::SUBSCRIBE);
    auto* c = cmd->mutable_subscribe();
    c->set_topic(part.toString());
    c->set_subscription(st.subscription);
    pulsar::proto::CommandSubscribe::SubType type{};
    wire::parseSubType(st.subType, &type);
    c->set_subtype(type);
    c->set_consumer_id(s.nextConsumerId());
    c->set_request_id(s.nextRequestId());
    c->set_consumer_name(st.consumer);
    c->set_durable(st.durable);
    if (schema) *c->mutable_schema() = std::move(*schema);  // swapped in, not copied
    return cmd;
}

// Creates the producer or consumer of `h` on every partition, as clients do:
// all requests first, then the scheduler runs; the first partition's error
// fails the whole handle and the partitions that succeeded are closed again.
Observed ScenarioRun::open(OpenHandle h, Trace trace) {
    auto& s = session(h.client);
    Observed out = observed();
    out.trace = std::move(trace);
    // Request ids of the partitions: one, kept in place, for a topic that is not partitioned.
    boost::container::small_vector<std::uint64_t, 4> requests;
    h.parts.clear();
    std::optional<std::string> refused;
    forEachPartition(topicOf(h.topic()), [&](const TopicName& part) {
        h.parts.emplace_back(part.toString(), 0);  // firstPart() needs the list
        auto cmd = openCommand(h, s, part, out.trace);
        h.parts.back().second = h.producer ? cmd->producer().producer_id() : cmd->subscribe().consumer_id();
        requests.push_back(h.producer ? cmd->producer().request_id() : cmd->subscribe().request_id());
        refused = s.send(cmd);
        return !refused;
    });
    // One Observed is built and returned (no moves of it): a refusal is set on it.
    if (refused) {
        out = Observed{};  // refused before the broker saw it: no trace
        out.ok = false;
        out.error = "ConnectionClosed";
        out.message = std::move(*refused);
        return out;
    }
    settle();
    bool failed = false;  // the first refusal is the handle's
    for (std::size_t i = 0; i < requests.size(); ++i) {
        auto response = s.takeResponse(requests[i]);
        std::string prefix = requests.size() > 1 ? h.parts[i].first + ": " : "";
        appendTrace(out.trace, s.cnx().takeTrace(requests[i]), prefix);
        if (failed) continue;
        if (refusedBy(response, out)) failed = true;
        else if (i == 0 && h.producer) h.schemaVersion = response->producer_success().schema_version();
    }
    if (failed) {
        closeParts(h);
        forget(h.producer, h.name);
        return out;
    }
    if (h.producer) out.schemaVersion = versionOf(h.schemaVersion);
    remember(std::move(h));
    return out;
}

void ScenarioRun::closeParts(const OpenHandle& h) {
    auto& s = session(h.client);
    std::vector<std::uint64_t> requests;
    requests.reserve(h.parts.size());
    for (const auto& [part, id] : h.parts) {
        wire::PooledCommand c;
        const auto rid = s.nextRequestId();
        if (h.producer) {
            c->set_type(BaseCommand::CLOSE_PRODUCER);
            c->mutable_close_producer()->set_producer_id(id);
            c->mutable_close_producer()->set_request_id(rid);
        } else {
            c->set_type(BaseCommand::CLOSE_CONSUMER);
            c->mutable_close_consumer()->set_consumer_id(id);
            c->mutable_close_consumer()->set_request_id(rid);
        }
        s.send(c);
        requests.push_back(rid);
    }
    settle();
    // Nothing reads the answers (unanswered() counts them as they arrive):
    // taken, they do not lengthen the searches of the inbox after them.
    for (auto rid : requests) s.takeResponse(rid);
}

// Handles are kept in the order they first connected (reconnects follow it).
// A handle open already (a reconnect) keeps its order, a reserved one takes
// its reservation, any other comes last.
void ScenarioRun::remember(OpenHandle&& h) {
    auto& map = h.producer ? producers_ : consumers_;
    auto it = map.lower_bound(h.name);
    if (it != map.end() && it->first == h.name) {
        h.order = it->second.order;
        it->second = std::move(h);
        return;
    }
    if (auto r = reservedOrder_.empty() ? reservedOrder_.end()
                                        : reservedOrder_.find((h.producer ? "p/" : "c/") + h.name);
        r != reservedOrder_.end()) {
        h.order = r->second;
        reservedOrder_.erase(r);
    } else {
        h.order = nextOrder_++;
    }
    // Moved into its node as it is built (the key is copied from the name first).
    map.emplace_hint(it, std::piecewise_construct, std::forward_as_tuple(h.name), std::forward_as_tuple(std::move(h)));
}

void ScenarioRun::forget(bool producer, const std::string& name) {
    (producer ? producers_ : consumers_).erase(name);
    if (!reservedOrder_.empty()) reservedOrder_.erase((producer ? "p/" : "c/") + name);
}

Observed ScenarioRun::close(const CloseStep& st) {
    Observed out = observed();
    for (bool producer : {true, false}) {
        auto& map = producer ? producers_ : consumers_;
        auto it = map.find(st.name);
        if (it == map.end()) continue;
        closeParts(it->second);
        out.trace.add("§8.3", producer ? "CLOSE_PRODUCER" : "CLOSE_CONSUMER",
                      [&] { return std::string(producer ? "producer '" : "consumer '") + st.name + "' closed"; });
        forget(producer, st.name);
        return out;
    }
    return Observed::failure("NotConnected", "no open producer or consumer named '" + st.name + "'");
}

Observed ScenarioRun::publish(const PublishStep& st) {
    auto it = producers_.find(st.producer);
    if (it == producers_.end())
        return Observed::failure("NotConnected", "no open producer named '" + st.producer + "'");
    auto& h = it->second;
    auto& s = session(h.client);
    Observed out = observed();
    std::string version = h.schemaVersion;
    if (st.schema) {
        if (!protocol::supportsGetOrCreateSchema(s.negotiatedProtocol())) {
            return Observed::failure("NotSupported", "multi-schema producers need GET_OR_CREATE_SCHEMA (protocol v" +
                                                         std::to_string(protocol::kGetOrCreateSchema) + "); negotiated v" +
                                                         std::to_string(s.negotiatedProtocol()));
        }
        BaseCommand cmd;
        cmd.set_type(BaseCommand::GET_OR_CREATE_SCHEMA);
        auto rid = s.nextRequestId();
        cmd.mutable_getorcreateschema()->set_request_id(rid);
        cmd.mutable_getorcreateschema()->set_topic(h.parts.front().first);
        *cmd.mutable_getorcreateschema()->mutable_schema() = getOrCreateSchemaField(st.schema->data);
        s.send(cmd);
        settle();
        appendTrace(out.trace, s.cnx().takeTrace(rid), "");
        auto response = s.takeResponse(rid);
        if (!response) return Observed::failure("NoResponse", "no GET_OR_CREATE_SCHEMA_RESPONSE");
        const auto& r = response->getorcreateschemaresponse();
        if (r.has_error_code()) {
            auto o = Observed::failure(wire::serverErrorName(r.error_code()), r.error_message());
            o.trace = std::move(out.trace);
            return o;
        }
        version = r.schema_version();
        out.schemaVersion = versionOf(version);
    }
    for (int i = 0; i < st.count; ++i) {
        // Messages without a key go round-robin over the partitions, starting at 0.
        const auto& [part, id] = h.parts[static_cast<std::size_t>(i) % h.parts.size()];
        auto seq = h.nextSequence++;
        s.sendMessage(id, seq, h.name, version);
        settle();
        auto receipt = s.takeReceipt(id, seq);
        if (!receipt || receipt->type() == BaseCommand::SEND_ERROR) {
            auto o = receipt ? Observed::failure(wire::serverErrorName(receipt->send_error().error()),
                                                 receipt->send_error().message())
                             : Observed::failure("NoResponse", "no SEND_RECEIPT");
            o.trace = std::move(out.trace);
            return o;
        }
    }
    out.trace.add("§3.5", "publish", [&] {
        return std::to_string(st.count) + " message(s) written; the topic has data";
    });
    return out;
}

}  // namespace cnx::sim
