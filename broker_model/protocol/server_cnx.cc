#include "broker_model/protocol/server_cnx.h"

#include "broker_model/policy/policy_resolution.h"
#include "broker_model/wire/schema_wire.h"

namespace cnx {
namespace {

using pulsar::proto::BaseCommand;
BrokerError topicNotFound(const std::string& message) { return {RefusalKind::topicNotFound, message}; }

}  // namespace

ServerCnx::ServerCnx(Broker& broker, Sender send)
    : broker_(broker),
      send_(std::move(send)),
      id_(broker.nextConnectionId()),
      schemaValidationEnforced_(broker.policies().broker.isSchemaValidationEnforced),
      ledgerId_(id_ * 1000) {}

ServerCnx::~ServerCnx() { close(); }

void ServerCnx::close() {
    if (closed_) return;
    closed_ = true;
    *alive_ = false;
    for (const auto& [name, topic] : broker_.loadedTopics()) topic->removeConnection(id_);
}

void ServerCnx::closeTopic(const TopicName& base) {
    auto onTopic = [&](const std::string& topic) {
        auto name = TopicName::parse(topic);
        return name && name->partitionedBase() == base;
    };
    // Detaches each slot on `base` and tells the client, which may reconnect with the same id.
    auto closeSlots = [&](auto& slots, bool producers) {
        for (auto it = slots.begin(); it != slots.end();) {
            if (!onTopic(it->second.topic)) {
                ++it;
                continue;
            }
            BaseCommand out;
            if (auto* t = broker_.findTopic(*TopicName::parse(it->second.topic))) {
                producers ? t->removeProducer(id_, it->first) : t->removeConsumer(id_, it->first);
            }
            if (producers) {
                out.set_type(BaseCommand::CLOSE_PRODUCER);
                out.mutable_close_producer()->set_producer_id(it->first);
                out.mutable_close_producer()->set_request_id(0);
            } else {
                out.set_type(BaseCommand::CLOSE_CONSUMER);
                out.mutable_close_consumer()->set_consumer_id(it->first);
                out.mutable_close_consumer()->set_request_id(0);
            }
            send(out);
            it = slots.erase(it);
        }
    };
    closeSlots(producers_, true);
    closeSlots(consumers_, false);
}

TracePtr ServerCnx::trace(std::uint64_t requestId) const {
    auto it = traces_.find(requestId);
    return it == traces_.end() ? std::make_shared<Trace>() : it->second;
}

TracePtr ServerCnx::newTrace(std::uint64_t requestId) {
    auto t = std::make_shared<Trace>();
    traces_[requestId] = t;
    return t;
}

void ServerCnx::send(const BaseCommand& cmd) {
    if (!closed_) send_(wire::encodeFrame(cmd));
}

void ServerCnx::sendError(std::uint64_t requestId, ServerError code, const std::string& message) {
    BaseCommand out;
    out.set_type(BaseCommand::ERROR);
    auto* e = out.mutable_error();
    e->set_request_id(requestId);
    e->set_error(code);
    e->set_message(message);
    send(out);
}

std::optional<std::string> ServerCnx::receive(std::string_view bytes) {
    if (closed_) return "the connection is closed";
    std::string error;
    auto frame = wire::decodeFrame(bytes, &error);
    if (!frame) {
        close();
        return "malformed frame: " + error;
    }
    auto refused = dispatch(*frame);
    if (refused) close();
    return refused;
}

std::optional<std::string> ServerCnx::dispatch(const wire::Frame& frame) {
    const auto& c = frame.command;
    if (!connected_ && c.type() != BaseCommand::CONNECT) {
        return "received " + BaseCommand::Type_Name(c.type()) + " before CONNECT";
    }
    switch (c.type()) {
        case BaseCommand::CONNECT:
            if (connected_) return "received a second CONNECT";
            handleConnect(c.connect());
            return std::nullopt;
        case BaseCommand::PRODUCER: handleProducer(c.producer()); return std::nullopt;
        case BaseCommand::SUBSCRIBE:
            // §2.3 (derived, UNCONFIRMED): a broker before 3.0 has no proto value 21, so
            // a required Schema.type of AutoConsume fails to parse and the frame is refused.
            if (c.subscribe().has_schema() && c.subscribe().schema().type() == pulsar::proto::Schema::AutoConsume &&
                broker_.profile().maxProtocolVersion < 21)
                return "malformed frame: CommandSubscribe.schema.type 21 is unknown to this broker's protocol";
            handleSubscribe(c.subscribe());
            return std::nullopt;
        case BaseCommand::SEND: handleSend(c.send(), frame); return std::nullopt;
        case BaseCommand::CLOSE_PRODUCER: handleCloseProducer(c.close_producer()); return std::nullopt;
        case BaseCommand::CLOSE_CONSUMER: handleCloseConsumer(c.close_consumer()); return std::nullopt;
        case BaseCommand::GET_SCHEMA: handleGetSchema(c.getschema()); return std::nullopt;
        case BaseCommand::GET_OR_CREATE_SCHEMA:
            if (protocolVersion_ < 15)  // the negotiated version, min(client, broker)
                return "GET_OR_CREATE_SCHEMA needs protocol v15 (negotiated v" + std::to_string(protocolVersion_) + ")";
            handleGetOrCreateSchema(c.getorcreateschema());
            return std::nullopt;
        case BaseCommand::PING: {
            BaseCommand pong;
            pong.set_type(BaseCommand::PONG);
            pong.mutable_pong();
            send(pong);
            return std::nullopt;
        }
        case BaseCommand::PONG: return std::nullopt;
        case BaseCommand::CONNECTED:
        case BaseCommand::SEND_RECEIPT:
        case BaseCommand::SEND_ERROR:
        case BaseCommand::SUCCESS:
        case BaseCommand::ERROR:
        case BaseCommand::PRODUCER_SUCCESS:
        case BaseCommand::GET_SCHEMA_RESPONSE:
        case BaseCommand::GET_OR_CREATE_SCHEMA_RESPONSE:
            return "a client may not send " + BaseCommand::Type_Name(c.type());
    }
    return "unsupported command";
}

// §8.6: CONNECTED with min(client, broker) protocol version.
void ServerCnx::handleConnect(const pulsar::proto::CommandConnect& cmd) {
    connected_ = true;
    protocolVersion_ = std::min(cmd.protocol_version(), broker_.profile().maxProtocolVersion);
    BaseCommand out;
    out.set_type(BaseCommand::CONNECTED);
    auto* c = out.mutable_connected();
    c->set_server_version("Pulsar Server" + broker_.profile().release.toString());
    c->set_protocol_version(protocolVersion_);
    c->set_max_message_size(5 * 1024 * 1024);
    send(out);
}

std::string ServerCnx::producerErrorText(const BrokerError& error) const {
    std::string root = error.text();
    if (!broker_.profile().producerErrorCausedBy) return root;
    return root + " caused by " + root;
}

// --- §1 producer -----------------------------------------------------------------

void ServerCnx::handleProducer(const pulsar::proto::CommandProducer& cmd) {
    auto trace = newTrace(cmd.request_id());
    std::string parseError;
    auto name = TopicName::parse(cmd.topic(), &parseError);
    if (!name) {
        trace->add("§1.1", "handleProducer", "topic name does not parse");
        sendError(cmd.request_id(), serverErrorOf(RefusalKind::invalidTopicName), parseError);
        return;
    }
    // §1.1 step 3: producer-id de-duplication on the connection.
    if (auto it = producers_.find(cmd.producer_id()); it != producers_.end()) {
        const auto& slot = it->second;
        switch (slot.state) {
            case State::pending:
                trace->add("§1.1", "producer-id de-duplication", "creation pending -> ServiceNotReady");
                sendError(cmd.request_id(), serverErrorOf(RefusalKind::requestPending), "Producer is already present on the connection");
                return;
            case State::ready: {
                trace->add("§1.1", "producer-id de-duplication", "already created -> repeat PRODUCER_SUCCESS");
                BaseCommand out;
                out.set_type(BaseCommand::PRODUCER_SUCCESS);
                auto* s = out.mutable_producer_success();
                s->set_request_id(cmd.request_id());
                s->set_producer_name(slot.name);
                s->set_schema_version(slot.schemaVersion);
                send(out);
                return;
            }
            case State::failed: {
                // The failed entry is dropped, so a later retry starts afresh.
                trace->add("§1.1", "producer-id de-duplication", "earlier creation failed -> its code, entry removed");
                auto code = slot.error.code();
                producers_.erase(it);
                sendError(cmd.request_id(), code, "Producer is already failed to register present on the connection");
                return;
            }
        }
    }
    producers_[cmd.producer_id()] = {State::pending, name->toString(), "", "", {}};
    auto topic = broker_.loadTopic(*name, broker_.policies().broker.allowAutoTopicCreation);
    if (!topic) {
        failProducer(cmd.producer_id(), cmd.request_id(), topicNotFound("Topic not found " + name->toString()), trace);
        return;
    }
    std::string producerName = cmd.has_producer_name() && !cmd.producer_name().empty()
                                   ? cmd.producer_name()
                                   : "cnxsim-" + std::to_string(id_) + "-" + std::to_string(++generatedNames_);
    noteProducerGaps(cmd, *name, producerName, *trace);
    auto alive = alive_;
    auto done = [this, alive, cmd, topic, producerName, trace](Result<SchemaVersion> r) {
        if (!*alive) return;
        if (!r.ok()) {
            failProducer(cmd.producer_id(), cmd.request_id(), r.error(), trace);
            return;
        }
        auto v = r.value();
        attachProducer(cmd, *topic, producerName, v == kNoVersion ? std::nullopt : std::optional(v), trace);
    };
    if (!cmd.has_schema()) {
        producerWithoutSchema(topic, isReplicator(producerName), done, trace);
        return;
    }
    auto schema = wire::fromProto(cmd.schema());
    trace->add("§1.4", "handleProducer", "producer with " + std::string(to_string_view(schema.type)) + " schema -> addSchema");
    topic->addSchema(schema, trace, done);
}

bool ServerCnx::isReplicator(const std::string& producerName) const {
    return producerName.starts_with(broker_.policies().broker.replicatorPrefix + ".");
}

// #25461: a replicator producer with a schema on a topic where auto-update is off.
void ServerCnx::noteProducerGaps(const pulsar::proto::CommandProducer& cmd, const TopicName& topic,
                                 const std::string& producerName, Trace& trace) const {
    if (!cmd.has_schema() || !isReplicator(producerName)) return;
    if (!effectiveAutoUpdate(broker_.profile(), broker_.policies(), topic, nullptr))
        noteGap(broker_.profile(), Gap::replicatorAutoUpdateDisabled, &trace,
                "replicator producer '" + producerName + "' with auto-update disabled");
}

// §1.3: rejected iff the topic has a schema and enforcement is on.
void ServerCnx::producerWithoutSchema(std::shared_ptr<Topic> topic, bool replicator,
                                      std::function<void(Result<SchemaVersion>)> done, TracePtr trace) {
    broker_.executor().post("schema lookup", [this, topic, replicator, done, trace, alive = alive_] {
        if (!*alive) return;
        bool has = topic->hasSchema();
        bool topicFlag = topicValidationEnforced(broker_.profile(), broker_.policies(), topic->name());
        bool enforced = schemaValidationEnforced_ || topicFlag;
        trace->add("§1.3", "producer without schema",
                   std::string("hasSchema=") + (has ? "true" : "false") + " enforced=(broker " +
                       (schemaValidationEnforced_ ? "true" : "false") + " || topic " + (topicFlag ? "true" : "false") +
                       ") -> " + (has && enforced ? "reject" : "accept with empty schema version"));
        if (has && enforced) {
            if (replicator) noteGap(broker_.profile(), Gap::replicatorValidationEnforced, trace.get(), "replicator producer refused");
            done(BrokerError{RefusalKind::incompatibleSchema, broker_.profile().producerWithoutSchemaMessage});
            return;
        }
        done(kNoVersion);
    });
}

void ServerCnx::attachProducer(const pulsar::proto::CommandProducer& cmd, Topic& topic, const std::string& name,
                               std::optional<SchemaVersion> version, TracePtr trace) {
    AttachedProducer p;
    p.name = name;
    p.connectionId = id_;
    p.producerId = cmd.producer_id();
    p.accessMode = pulsar::proto::ProducerAccessMode_Name(cmd.producer_access_mode());
    p.replicator = name.starts_with(broker_.policies().broker.replicatorPrefix + ".");
    p.schemaVersion = version;
    if (auto err = topic.addProducer(p)) {
        trace->add("§1.1", "topic.addProducer", "refused: " + err->message);
        failProducer(cmd.producer_id(), cmd.request_id(), *err, trace, /*schemaStage=*/false);
        return;
    }
    std::string versionBytes = version ? wire::encodeSchemaVersion(*version) : std::string();
    trace->add("§1.6", "PRODUCER_SUCCESS",
               "producer '" + name + "' attached, schema_version=" + (version ? std::to_string(*version) : "empty"));
    auto& slot = producers_[cmd.producer_id()];
    slot = {State::ready, topic.name().toString(), name, versionBytes, {}};
    BaseCommand out;
    out.set_type(BaseCommand::PRODUCER_SUCCESS);
    auto* s = out.mutable_producer_success();
    s->set_request_id(cmd.request_id());
    s->set_producer_name(name);
    s->set_last_sequence_id(-1);
    s->set_schema_version(versionBytes);
    s->set_producer_ready(true);
    send(out);
}

// §1.5: failures of the schema stage carry "<class>: <msg> caused by <class>: <msg>"
// (2.8+); later failures (addProducer) carry the CompletionException's "<class>: <msg>".
void ServerCnx::failProducer(std::uint64_t producerId, std::uint64_t requestId, const BrokerError& error,
                             TracePtr trace, bool schemaStage) {
    auto& slot = producers_[producerId];
    slot.state = State::failed;
    slot.error = error;
    trace->add("§1.5", "producer failed", pulsar::proto::ServerError_Name(error.code()) + ": " + error.message);
    std::string text = schemaStage ? producerErrorText(error) : error.text();
    sendError(requestId, error.code(), text);
}

// --- §2 subscribe ----------------------------------------------------------------

void ServerCnx::handleSubscribe(const pulsar::proto::CommandSubscribe& cmd) {
    auto trace = newTrace(cmd.request_id());
    std::string parseError;
    auto name = TopicName::parse(cmd.topic(), &parseError);
    if (!name) {
        sendError(cmd.request_id(), serverErrorOf(RefusalKind::invalidTopicName), parseError);
        return;
    }
    if (auto it = consumers_.find(cmd.consumer_id()); it != consumers_.end()) {
        switch (it->second.state) {
            case State::pending:
                trace->add("§2.1", "consumer-id de-duplication", "subscribe pending -> ServiceNotReady");
                sendError(cmd.request_id(), serverErrorOf(RefusalKind::requestPending), "Consumer is already present on the connection");
                return;
            case State::ready: {
                trace->add("§2.1", "consumer-id de-duplication", "already subscribed -> SUCCESS");
                BaseCommand out;
                out.set_type(BaseCommand::SUCCESS);
                out.mutable_success()->set_request_id(cmd.request_id());
                send(out);
                return;
            }
            case State::failed:
                // The failed entry stays: every retry with this id fails the same way.
                trace->add("§2.1", "consumer-id de-duplication", "earlier subscribe failed -> its code");
                sendError(cmd.request_id(), it->second.error.code(), "Consumer that failed is already present on the connection");
                return;
        }
    }
    consumers_[cmd.consumer_id()] = {State::pending, name->toString(), {}};
    bool create = cmd.force_topic_creation() && broker_.policies().broker.allowAutoTopicCreation;
    auto topic = broker_.loadTopic(*name, create);
    if (!topic) {
        failConsumer(cmd.consumer_id(), cmd.request_id(), topicNotFound("Topic " + name->toString() + " does not exist"),
                     trace);
        return;
    }
    if (cmd.durable() && topic->persistent() && !broker_.policies().broker.allowAutoSubscriptionCreation &&
        !topic->hasSubscription(cmd.subscription())) {
        failConsumer(cmd.consumer_id(), cmd.request_id(),
                     {RefusalKind::subscriptionNotFound, "Subscription does not exist"},
                     trace);
        return;
    }
    if (!cmd.has_schema()) {
        trace->add("§2.2", "handleSubscribe", "no schema -> subscribe directly (recorded as no schema)");
        attachConsumer(cmd, topic, SchemaType::NONE, trace);
        return;
    }
    auto schema = wire::fromProto(cmd.schema());
    if (schema.type == SchemaType::AUTO_CONSUME && broker_.profile().autoConsumeSkipsSchema) {
        trace->add("§2.3", "handleSubscribe", "AUTO_CONSUME -> no schema logic, recorded as AUTO_CONSUME (PIP-236)");
        attachConsumer(cmd, topic, SchemaType::AUTO_CONSUME, trace);
        return;
    }
    trace->add("§2.2", "handleSubscribe",
               "consumer with " + std::string(to_string_view(schema.type)) + " schema -> addSchemaIfIdleOrCheckCompatible");
    topic->addSchemaIfIdleOrCheckCompatible(schema, trace, [this, alive = alive_, cmd, topic, type = schema.type,
                                                            trace](std::optional<BrokerError> err) {
        if (!*alive) return;
        if (err) {
            failConsumer(cmd.consumer_id(), cmd.request_id(), *err, trace);
            return;
        }
        attachConsumer(cmd, topic, type, trace);
    });
}

void ServerCnx::attachConsumer(const pulsar::proto::CommandSubscribe& cmd, std::shared_ptr<Topic> topic,
                               SchemaType type, TracePtr trace) {
    broker_.executor().post("subscribe", [this, alive = alive_, cmd, topic, type, trace] {
        if (!*alive) return;
        AttachedConsumer c;
        c.name = cmd.consumer_name();
        c.connectionId = id_;
        c.consumerId = cmd.consumer_id();
        c.schemaType = type;
        auto subType = pulsar::proto::CommandSubscribe::SubType_Name(cmd.subtype());
        if (auto err = topic->subscribe(cmd.subscription(), subType, cmd.durable(), c)) {
            failConsumer(cmd.consumer_id(), cmd.request_id(), *err, trace);
            return;
        }
        trace->add("§2.1", "topic.subscribe", "consumer '" + c.name + "' attached to subscription '" +
                                                  cmd.subscription() + "' (" + subType + ")");
        consumers_[cmd.consumer_id()].state = State::ready;
        BaseCommand out;
        out.set_type(BaseCommand::SUCCESS);
        out.mutable_success()->set_request_id(cmd.request_id());
        send(out);
    });
}

void ServerCnx::failConsumer(std::uint64_t consumerId, std::uint64_t requestId, const BrokerError& error,
                             TracePtr trace) {
    auto& slot = consumers_[consumerId];
    slot.state = State::failed;
    slot.error = error;
    trace->add("§2.1", "subscribe failed", pulsar::proto::ServerError_Name(error.code()) + ": " + error.message);
    sendError(requestId, error.code(), error.message);  // consumers see the root message (§2.1)
}

// --- SEND, CLOSE ---------------------------------------------------------------

void ServerCnx::handleSend(const pulsar::proto::CommandSend& cmd, const wire::Frame& frame) {
    auto it = producers_.find(cmd.producer_id());
    Topic* topic = nullptr;
    if (it != producers_.end() && it->second.state == State::ready) {
        topic = broker_.findTopic(*TopicName::parse(it->second.topic));
    }
    BaseCommand out;
    if (!topic) {
        out.set_type(BaseCommand::SEND_ERROR);
        auto* e = out.mutable_send_error();
        e->set_producer_id(cmd.producer_id());
        e->set_sequence_id(cmd.sequence_id());
        e->set_error(serverErrorOf(RefusalKind::producerNotFound));
        e->set_message("Producer not found");
        send(out);
        return;
    }
    // §8.3: the broker stores metadata and payload as sent; schema_version is not validated (#20022).
    std::size_t bytes = frame.payload.size() + (frame.metadata ? frame.metadata->ByteSizeLong() : 0);
    topic->publish(bytes == 0 ? 1 : bytes);
    out.set_type(BaseCommand::SEND_RECEIPT);
    auto* r = out.mutable_send_receipt();
    r->set_producer_id(cmd.producer_id());
    r->set_sequence_id(cmd.sequence_id());
    r->mutable_message_id()->set_ledgerid(ledgerId_);
    r->mutable_message_id()->set_entryid(nextEntryId_++);
    send(out);
}

void ServerCnx::handleCloseProducer(const pulsar::proto::CommandCloseProducer& cmd) {
    if (auto it = producers_.find(cmd.producer_id()); it != producers_.end()) {
        if (auto* topic = broker_.findTopic(*TopicName::parse(it->second.topic)))
            topic->removeProducer(id_, cmd.producer_id());
        producers_.erase(it);
    }
    BaseCommand out;
    out.set_type(BaseCommand::SUCCESS);
    out.mutable_success()->set_request_id(cmd.request_id());
    send(out);
}

void ServerCnx::handleCloseConsumer(const pulsar::proto::CommandCloseConsumer& cmd) {
    if (auto it = consumers_.find(cmd.consumer_id()); it != consumers_.end()) {
        if (auto* topic = broker_.findTopic(*TopicName::parse(it->second.topic)))
            topic->removeConsumer(id_, cmd.consumer_id());
        consumers_.erase(it);
    }
    BaseCommand out;
    out.set_type(BaseCommand::SUCCESS);
    out.mutable_success()->set_request_id(cmd.request_id());
    send(out);
}

// --- §1.9 GET_SCHEMA ---------------------------------------------------------------

void ServerCnx::handleGetSchema(const pulsar::proto::CommandGetSchema& cmd) {
    auto trace = newTrace(cmd.request_id());
    BaseCommand out;
    out.set_type(BaseCommand::GET_SCHEMA_RESPONSE);
    auto* r = out.mutable_getschemaresponse();
    r->set_request_id(cmd.request_id());
    std::string parseError;
    auto name = TopicName::parse(cmd.topic(), &parseError);
    if (!name) {
        r->set_error_code(serverErrorOf(RefusalKind::invalidTopicName));
        r->set_error_message(parseError);
        send(out);
        return;
    }
    std::optional<std::int64_t> wanted;
    if (cmd.has_schema_version()) {
        wanted = wire::decodeSchemaVersion(cmd.schema_version());
        if (!wanted && broker_.profile().getSchemaEmptyVersionIsError) {
            trace->add("§1.9", "handleGetSchema", "schema_version present but not 8 bytes -> Empty schema version");
            r->set_error_code(serverErrorOf(RefusalKind::emptySchemaVersion));
            r->set_error_message("Empty schema version");
            send(out);
            return;
        }
    }
    // §1.9: until 2.6.1/2.7.0 (#7708) the id kept a `-partition-N` suffix.
    std::string id = broker_.profile().getSchemaStripsPartition
                         ? name->schemaId()
                         : name->tenant() + "/" + name->namespacePortion() + "/" + name->localName();
    broker_.executor().post("registry read", [this, alive = alive_, out, id, wanted,
                                              topic = cmd.topic(), trace]() mutable {
        if (!*alive) return;
        auto* r = out.mutable_getschemaresponse();
        auto found = wanted ? broker_.registry().byVersion(id, *wanted) : broker_.registry().latest(id);
        if (!found) {
            trace->add("§1.9", "handleGetSchema", "no live schema for " + id + " -> TopicNotFound");
            noteGap(broker_.profile(), Gap::getSchemaNotFoundRecycledField, trace.get(), "not-found answer");
            r->set_error_code(serverErrorOf(RefusalKind::schemaOrTopicNotFound));
            r->set_error_message(broker_.profile().getSchemaNotFoundIncludesTopic
                                     ? "Topic not found or no-schema " + topic
                                     : "Topic not found or no-schema");
            send(out);
            return;
        }
        trace->add("§1.9", "handleGetSchema", "found version " + std::to_string(found->version));
        *r->mutable_schema() = wire::toProto(found->schema, id);
        r->set_schema_version(wire::encodeSchemaVersion(found->version));
        send(out);
    });
}

// --- §1.8 GET_OR_CREATE_SCHEMA -------------------------------------------------------

void ServerCnx::handleGetOrCreateSchema(const pulsar::proto::CommandGetOrCreateSchema& cmd) {
    auto trace = newTrace(cmd.request_id());
    auto respond = [this, alive = alive_, requestId = cmd.request_id(), trace](Result<SchemaVersion> r) {
        if (!*alive) return;
        BaseCommand out;
        out.set_type(BaseCommand::GET_OR_CREATE_SCHEMA_RESPONSE);
        auto* resp = out.mutable_getorcreateschemaresponse();
        resp->set_request_id(requestId);
        if (!r.ok()) {
            // Schema-step failures carry the §1.5 wrapping; the handler's own
            // refusals (topic not found) are sent as plain text.
            const auto& e = r.error();
            trace->add("§1.8", "GET_OR_CREATE_SCHEMA", "failed: " + e.message);
            resp->set_error_code(e.code());
            resp->set_error_message(e.exceptionClass().empty() ? e.message : producerErrorText(e));
        } else {
            auto v = r.value();
            resp->set_schema_version(v == kNoVersion ? std::string() : wire::encodeSchemaVersion(v));
            trace->add("§1.8", "GET_OR_CREATE_SCHEMA", "schema_version=" + (v == kNoVersion ? std::string("empty") : std::to_string(v)));
        }
        send(out);
    };
    std::string parseError;
    auto name = TopicName::parse(cmd.topic(), &parseError);
    auto topic = name ? broker_.loadTopic(*name, false) : nullptr;  // getTopicIfExists: no auto-creation
    if (!topic) {
        std::string shown = name ? name->toString() : cmd.topic();
        std::string message = broker_.profile().getOrCreateNotFoundIncludesTopic ? "Topic not found " + shown
                                                                                  : std::string("Topic not found");
        trace->add("§1.8", "GET_OR_CREATE_SCHEMA", "topic does not exist -> TopicNotFound");
        respond(BrokerError{RefusalKind::topicNotFound, message, std::string()});  // the handler's own answer: no class
        return;
    }
    auto schema = wire::fromProto(cmd.schema());
    if (cmd.schema().type() == pulsar::proto::Schema::None) {
        trace->add("§1.8", "GET_OR_CREATE_SCHEMA", "proto type None -> producer-without-schema path");
        producerWithoutSchema(topic, /*replicator=*/false, respond, trace);
        return;
    }
    topic->addSchema(schema, trace, respond);
}

}  // namespace cnx
