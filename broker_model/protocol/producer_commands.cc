// ServerCnx: the producer path (reference §1): PRODUCER from the topic name to
// PRODUCER_SUCCESS or the refusal, the schema step a producer without a schema
// takes (shared with GET_OR_CREATE_SCHEMA), then SEND and CLOSE_PRODUCER.

#include "broker_model/core/concat.h"
#include "broker_model/policy/policy_resolution.h"
#include "broker_model/protocol/server_cnx_internal.h"
#include "broker_model/wire/commands.h"
#include "broker_model/wire/enum_names.h"
#include "broker_model/wire/schema_wire.h"

namespace cnx {

using server_cnx_internal::topicNotFound;

std::string ServerCnx::producerErrorText(const BrokerError& error) const {
    // An InvalidSchemaDataException from the validator reaches the handler unwrapped: its own
    // message, no class (PRODUCER and GET_OR_CREATE_SCHEMA, seen on real 3.0.7, 4.0.7 and 4.2.4
    // brokers with `cnxsim run --against`, issue 42). For a definition that does not parse,
    // " caused by <the parser's exception>" follows; that is not modelled (doc/against.md).
    if (error.kind == RefusalKind::invalidSchemaData) return error.message;
    std::string root = error.text();
    if (!broker_.profile().producerErrorCausedBy) return root;
    return root + " caused by " + root;
}

// What a PRODUCER asks for, as the continuations keep it; `name` the producer's.
std::shared_ptr<const ServerCnx::ProducerRequest> ServerCnx::producerRequestOf(const pulsar::proto::CommandProducer& cmd,
                                                                               std::string name) {
    auto request = std::make_shared<ProducerRequest>();
    request->producerId = cmd.producer_id();
    request->requestId = cmd.request_id();
    request->accessMode = cmd.producer_access_mode();
    request->name = std::move(name);
    if (cmd.has_schema()) request->schema = wire::fromProto(cmd.schema());
    if (cmd.has_initial_subscription_name()) request->initialSubscription = cmd.initial_subscription_name();
    return request;
}

// §1.1 step 3: producer-id de-duplication on the connection. True when the
// connection already has an entry for the id and answered from it.
bool ServerCnx::answeredByProducerEntry(const pulsar::proto::CommandProducer& cmd, Trace& trace) {
    auto it = producers_.find(cmd.producer_id());
    if (it == producers_.end()) return false;
    const auto& slot = it->second;
    switch (slot.state) {
        case State::pending:
            trace.add("§1.1", "producer-id de-duplication", "creation pending -> ServiceNotReady");
            sendError(cmd.request_id(), serverErrorOf(RefusalKind::requestPending), "Producer is already present on the connection");
            return true;
        case State::ready: {
            trace.add("§1.1", "producer-id de-duplication", "already created -> repeat PRODUCER_SUCCESS");
            send(wire::producerSuccessRepeated(cmd.request_id(), slot.name, slot.schemaVersion));
            return true;
        }
        case State::failed: {
            // The failed entry is dropped, so a later retry starts afresh.
            trace.add("§1.1", "producer-id de-duplication", "earlier creation failed -> its code, entry removed");
            auto code = slot.error.code();
            producers_.erase(it);
            sendError(cmd.request_id(), code, "Producer is already failed to register present on the connection");
            return true;
        }
    }
    return false;
}

void ServerCnx::handleProducer(const pulsar::proto::CommandProducer& cmd) {
    auto scope = handling(cmd.request_id());
    auto trace = newTrace(cmd.request_id());
    std::string parseError;
    std::optional<TopicName> parsed;
    const auto* name = topicNameOf(cmd.topic(), parsed, parseError);
    if (!name) {
        trace->add("§1.1", "handleProducer", "topic name does not parse");
        sendError(cmd.request_id(), serverErrorOf(RefusalKind::invalidTopicName), parseError);
        return;
    }
    noteMissingNamespace(*name, "§1.1", *trace);
    // §1.1 step 2 (ServerCnx.handleProducer): authorization before anything else.
    if (auto refused = refuseTopicOperation(*name, auth::TopicOperation::PRODUCE, "Client is not authorized to Produce", *trace)) {
        sendError(cmd.request_id(), pulsar::proto::AuthorizationError, *refused);
        return;
    }
    if (answeredByProducerEntry(cmd, *trace)) return;
    producers_[cmd.producer_id()] = {State::pending, name->toString(), {}, {}, {}};
    if (auto refused = broker_.partitionBeyondCount(*name)) {
        trace->add("§1.1", "BrokerService.getTopic", [&] { return "refused (#19086): " + refused->message; });
        failProducer(cmd.producer_id(), cmd.request_id(), *refused, trace, /*schemaStage=*/false);
        return;
    }
    auto topic = broker_.loadTopic(*name, broker_.policies().broker.allowAutoTopicCreation);
    if (!topic) {
        failProducer(cmd.producer_id(), cmd.request_id(), topicNotFound("Topic not found " + name->toString()), trace);
        return;
    }
    std::string producerName = cmd.has_producer_name() && !cmd.producer_name().empty()
                                   ? cmd.producer_name()
                                   : "cnxsim-" + std::to_string(id_) + "-" + std::to_string(++generatedNames_);
    noteProducerGaps(cmd, *name, producerName, *trace);
    std::shared_ptr<const ProducerRequest> shared = producerRequestOf(cmd, std::move(producerName));
    auto done = [self = lifetime_.guard(), shared, topic, trace](Result<SchemaVersion> r) {
        auto* cnx = self.get();
        if (!cnx) return;
        if (!r.ok()) {
            cnx->failProducer(shared->producerId, shared->requestId, r.error(), trace);
            return;
        }
        auto v = r.value();
        cnx->attachProducer(*shared, *topic, v == kNoVersion ? std::nullopt : std::optional(v), trace);
    };
    bool replicator = isReplicator(shared->name);
    auto next = [self = lifetime_.guard(), shared, topic, replicator, done = std::move(done), trace]() mutable {
        auto* cnx = self.get();
        if (!cnx) return;
        if (!shared->schema) {
            cnx->producerWithoutSchema(topic, replicator, std::move(done), trace);  // run once
            return;
        }
        const auto& schema = *shared->schema;
        trace->add("§1.4", "handleProducer",
                   [&] { return concat("producer with ", to_string_view(schema.type), " schema -> addSchema"); });
        topic->addSchema(schema, trace, std::move(done));
    };
    afterTopicLoad(topic, Continuation::inPlace(std::move(next)));  // the largest continuation: it must fit in place
}

bool ServerCnx::isReplicator(const std::string& producerName) const {
    // Starts with "<prefix>.", read in place (no string made for every producer).
    const auto& prefix = broker_.policies().broker.replicatorPrefix;
    return producerName.size() > prefix.size() && producerName.starts_with(prefix) && producerName[prefix.size()] == '.';
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
    const StageRef stage{StageKind::schemaLookup, topic->name().toString(), topic->schemaId()};
    broker_.scheduler().post(stage, [self = lifetime_.guard(), topic = std::move(topic), replicator,
                                                done = std::move(done), trace = std::move(trace)] {
        auto* cnx = self.get();
        if (!cnx) return;
        cnx->decideWithoutSchema(*topic, replicator, done, *trace);
    });
}

void ServerCnx::decideWithoutSchema(const Topic& topic, bool replicator,
                                    const std::function<void(Result<SchemaVersion>)>& done, Trace& trace) const {
    bool has = topic.hasSchema();
    bool topicFlag = topicValidationEnforced(broker_.profile(), broker_.policies(), topic.name());
    bool enforced = schemaValidationEnforced_ || topicFlag;
    trace.add("§1.3", "producer without schema", [&] {
        return concat("hasSchema=", has ? "true" : "false", " enforced=(broker ",
                      schemaValidationEnforced_ ? "true" : "false", " || topic ", topicFlag ? "true" : "false", ") -> ",
                      has && enforced ? "reject" : "accept with empty schema version");
    });
    if (has && enforced) {
        if (replicator) noteGap(broker_.profile(), Gap::replicatorValidationEnforced, &trace, "replicator producer refused");
        done(BrokerError{RefusalKind::incompatibleSchema, broker_.profile().producerWithoutSchemaMessage});
        return;
    }
    done(kNoVersion);
}

void ServerCnx::attachProducer(const ProducerRequest& req, Topic& topic, std::optional<SchemaVersion> version,
                               TracePtr trace) {
    const auto& name = req.name;
    AttachedProducer p;
    p.name = name;
    p.connectionId = id_;
    p.producerId = req.producerId;
    p.accessMode = wire::accessModeName(req.accessMode);
    p.replicator = isReplicator(name);
    p.schemaVersion = version;
    if (auto err = createInitialSubscription(req, topic, *trace)) {
        failProducer(req.producerId, req.requestId, *err, trace, /*schemaStage=*/false);
        return;
    }
    if (auto err = topic.addProducer(p)) {
        trace->add("§1.1", "topic.addProducer", [&] { return "refused: " + err->message; });
        failProducer(req.producerId, req.requestId, *err, trace, /*schemaStage=*/false);
        return;
    }
    std::string versionBytes = version ? wire::encodeSchemaVersion(*version) : std::string();
    trace->add("§1.6", "PRODUCER_SUCCESS", [&] {
        return concat("producer '", name, "' attached, schema_version=",
                      version ? std::to_string(*version) : std::string("empty"));
    });
    // Field by field: the pending slot's strings are reused, not rebuilt.
    auto& slot = producers_[req.producerId];
    slot.state = State::ready;
    slot.topic = topic.name().toString();
    slot.name = name;
    slot.schemaVersion = versionBytes;
    slot.error = {};
    send(wire::producerSuccess(req.requestId, name, versionBytes));
}

// ServerCnx.handleProducer (PIP-124, #13355): after the schema step and before the
// producer is added, a persistent topic without the initial subscription gets it
// (createSubscription at Earliest), unless auto subscription creation is off:
// then NotAllowedError with the exception's message alone.
std::optional<BrokerError> ServerCnx::createInitialSubscription(const ProducerRequest& req, Topic& topic,
                                                               Trace& trace) {
    const auto& sub = req.initialSubscription;
    if (sub.empty() || !topic.persistent() || topic.hasSubscription(sub)) return std::nullopt;
    if (!broker_.profile().producerCreatesInitialSubscription) {
        trace.add("§1.1", "handleProducer", "initial_subscription_name ignored (before #13355)");
        return std::nullopt;
    }
    if (!broker_.policies().broker.allowAutoSubscriptionCreation) {
        return BrokerError{RefusalKind::notAllowed,
                           "Could not create the initial subscription due to the auto subscription creation is not "
                           "allowed.",
                           std::string()};
    }
    trace.add("§1.1", "handleProducer", [&] { return "initial subscription '" + sub + "' created at Earliest"; });
    topic.createSubscription(sub);
    return std::nullopt;
}

// §1.5: failures of the schema stage carry "<class>: <msg> caused by <class>: <msg>"
// (2.8+); later failures (addProducer) carry the CompletionException's "<class>: <msg>".
void ServerCnx::failProducer(std::uint64_t producerId, std::uint64_t requestId, const BrokerError& error,
                             TracePtr trace, bool schemaStage) {
    auto& slot = producers_[producerId];
    slot.state = State::failed;
    slot.error = error;
    trace->add("§1.5", "producer failed", [&] { return wire::serverErrorName(error.code()) + ": " + error.message; });
    std::string text = schemaStage ? producerErrorText(error) : error.text();
    sendError(requestId, error.code(), text);
}
// --- SEND, CLOSE_PRODUCER ---------------------------------------------------------

void ServerCnx::handleSend(const pulsar::proto::CommandSend& cmd, const wire::Frame& frame) {
    auto it = producers_.find(cmd.producer_id());
    Topic* topic = nullptr;
    if (it != producers_.end() && it->second.state == State::ready) {
        topic = broker_.findTopic(it->second.topic);
    }
    if (!topic) {
        send(wire::sendError(cmd.producer_id(), cmd.sequence_id(), serverErrorOf(RefusalKind::producerNotFound), "Producer not found"));
        return;
    }
    // `Producer.publishMessage`: a checksum block that does not match drops the message.
    if (frame.checksumPresent && !frame.checksumValid) {
        send(wire::sendError(cmd.producer_id(), cmd.sequence_id(), pulsar::proto::ChecksumError,
                             "Checksum failed on the broker"));
        return;
    }
    // §8.3: the broker stores metadata and payload as sent; schema_version is not validated (#20022).
    std::size_t bytes = frame.payload.size() + (frame.metadata ? frame.metadata->ByteSizeLong() : 0);
    auto position = topic->publish(
        bytes == 0 ? 1 : bytes,
        frame.metadata ? *frame.metadata : pulsar::proto::MessageMetadata::default_instance(), frame.payload);
    if (!position) {
        // The broker's log bound is reached: the entry is not stored, answered as
        // a failed managed-ledger add is (Producer.MessagePublishContext.getServerError:
        // anything but TopicTerminated / NotAllowed is PersistenceError, with the
        // exception's message). The producer stays; a later SEND may fit.
        send(wire::sendError(cmd.producer_id(), cmd.sequence_id(), pulsar::proto::PersistenceError,
                             "cnxsim: the broker's in-memory message log is full (" +
                                 std::to_string(broker_.logBudget()->limit) +
                                 " bytes not yet acknowledged by every subscription; serve --max-log-bytes)"));
        return;
    }
    send(wire::sendReceipt(cmd.producer_id(), cmd.sequence_id(), position->ledgerId, position->entryId,
                           cmd.highest_sequence_id()));
}

void ServerCnx::handleCloseProducer(const pulsar::proto::CommandCloseProducer& cmd) {
    if (auto it = producers_.find(cmd.producer_id()); it != producers_.end()) {
        if (auto* topic = broker_.findTopic(it->second.topic))
            topic->removeProducer(id_, cmd.producer_id());
        producers_.erase(it);
    }
    send(wire::success(cmd.request_id()));
}

}  // namespace cnx
