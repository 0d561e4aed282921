// ServerCnx: the consumer's admission (reference §2): SUBSCRIBE from the topic
// name to SUCCESS or the refusal, with its schema step, and CLOSE_CONSUMER.
// What a consumer does once attached is in consumer_commands.cc.

#include "broker_model/core/concat.h"
#include "broker_model/protocol/server_cnx_internal.h"
#include "broker_model/wire/commands.h"
#include "broker_model/wire/enum_names.h"
#include "broker_model/wire/schema_wire.h"

namespace cnx {

using server_cnx_internal::topicNotFound;

// What a SUBSCRIBE asks for, as the continuations keep it.
std::shared_ptr<ServerCnx::SubscribeRequest> ServerCnx::subscribeRequestOf(const pulsar::proto::CommandSubscribe& cmd,
                                                                          Trace& trace) {
    auto request = std::make_shared<SubscribeRequest>();
    request->consumerId = cmd.consumer_id();
    request->requestId = cmd.request_id();
    request->consumerName = cmd.consumer_name();
    request->subscription = cmd.subscription();
    request->subType = cmd.subtype();
    request->durable = cmd.durable();
    request->start.earliest = cmd.initialposition() == pulsar::proto::CommandSubscribe::Earliest;
    request->start.readCompacted = cmd.read_compacted();
    if (cmd.has_start_message_id()) {
        // Java longs on the wire: MessageId.earliest is -1:-1.
        request->start.messageId = SubscriptionStart::MessageId{static_cast<std::int64_t>(cmd.start_message_id().ledgerid()),
                                                                static_cast<std::int64_t>(cmd.start_message_id().entryid())};
    }
    if (cmd.has_start_message_rollback_duration_sec() && cmd.start_message_rollback_duration_sec() > 0) {
        trace.notModelled("§2.1", "not modelled: #41 start_message_rollback_duration_sec",
                          "the model keeps no clock: the subscription starts at its initial position");
    }
    request->priorityLevel = cmd.priority_level();
    if (cmd.has_keysharedmeta()) request->keySharedMeta = cmd.keysharedmeta();
    if (cmd.has_schema()) request->schema = wire::fromProto(cmd.schema());
    return request;
}

// §2.1: consumer-id de-duplication on the connection. True when the
// connection already has an entry for the id and answered from it.
bool ServerCnx::answeredByConsumerEntry(const pulsar::proto::CommandSubscribe& cmd, Trace& trace) {
    auto it = consumers_.find(cmd.consumer_id());
    if (it == consumers_.end()) return false;
    switch (it->second.state) {
        case State::pending:
            trace.add("§2.1", "consumer-id de-duplication", "subscribe pending -> ServiceNotReady");
            sendError(cmd.request_id(), serverErrorOf(RefusalKind::requestPending), "Consumer is already present on the connection");
            return true;
        case State::ready: {
            trace.add("§2.1", "consumer-id de-duplication", "already subscribed -> SUCCESS");
            send(wire::success(cmd.request_id()));
            return true;
        }
        case State::failed:
            // The failed entry stays: every retry with this id fails the same way.
            trace.add("§2.1", "consumer-id de-duplication", "earlier subscribe failed -> its code");
            sendError(cmd.request_id(), it->second.error.code(), "Consumer that failed is already present on the connection");
            return true;
    }
    return false;
}

void ServerCnx::handleSubscribe(const pulsar::proto::CommandSubscribe& cmd) {
    auto scope = handling(cmd.request_id());
    auto trace = newTrace(cmd.request_id());
    std::string parseError;
    std::optional<TopicName> parsed;
    const auto* name = topicNameOf(cmd.topic(), parsed, parseError);
    if (!name) {
        sendError(cmd.request_id(), serverErrorOf(RefusalKind::invalidTopicName), parseError);
        return;
    }
    noteMissingNamespace(*name, "§2.1", *trace);
    // ServerCnx.handleSubscribe: isTopicOperationAllowed(CONSUME) with the subscription first.
    if (auto refused = refuseTopicOperation(*name, auth::TopicOperation::CONSUME, "Client is not authorized to subscribe",
                                            *trace, cmd.subscription())) {
        sendError(cmd.request_id(), pulsar::proto::AuthorizationError, *refused);
        return;
    }
    if (answeredByConsumerEntry(cmd, *trace)) return;
    consumers_[cmd.consumer_id()] = {State::pending, name->toString(), {}, name->partitionIndex(), std::nullopt};
    if (auto refused = broker_.partitionBeyondCount(*name)) {
        failConsumer(cmd.consumer_id(), cmd.request_id(), *refused, trace);
        return;
    }
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
    auto request = subscribeRequestOf(cmd, *trace);
    auto next = [self = lifetime_.guard(), shared = std::shared_ptr<const SubscribeRequest>(std::move(request)), topic,
                 trace] {
        if (auto* cnx = self.get()) cnx->subscribeWithSchema(shared, topic, trace);
    };
    afterTopicLoad(topic, Continuation::inPlace(std::move(next)));
}

// §2.2 / §2.3: the schema step of a subscribe, once the topic is loaded.
void ServerCnx::subscribeWithSchema(std::shared_ptr<const SubscribeRequest> req, std::shared_ptr<Topic> topic,
                                    TracePtr trace) {
    if (!req->schema) {
        trace->add("§2.2", "handleSubscribe", "no schema -> subscribe directly (recorded as no schema)");
        attachConsumer(req, topic, SchemaType::NONE, trace);
        return;
    }
    const auto& schema = *req->schema;
    if (schema.type == SchemaType::AUTO_CONSUME && broker_.profile().autoConsumeSkipsSchema) {
        trace->add("§2.3", "handleSubscribe", "AUTO_CONSUME -> no schema logic, recorded as AUTO_CONSUME (PIP-236)");
        attachConsumer(req, topic, SchemaType::AUTO_CONSUME, trace);
        return;
    }
    trace->add("§2.2", "handleSubscribe", [&] {
        return concat("consumer with ", to_string_view(schema.type), " schema -> addSchemaIfIdleOrCheckCompatible");
    });
    topic->addSchemaIfIdleOrCheckCompatible(schema, trace, [self = lifetime_.guard(), req, topic, type = schema.type,
                                                            trace](std::optional<BrokerError> err) {
        auto* cnx = self.get();
        if (!cnx) return;
        if (err) {
            cnx->failConsumer(req->consumerId, req->requestId, *err, trace);
            return;
        }
        cnx->attachConsumer(req, topic, type, trace);
    });
}

void ServerCnx::attachConsumer(std::shared_ptr<const SubscribeRequest> req, std::shared_ptr<Topic> topic,
                               SchemaType type, TracePtr trace) {
    const StageRef stage{StageKind::subscribe, topic->name().toString(), {}};
    broker_.scheduler().post(stage, [self = lifetime_.guard(), req, topic, type, trace] {
        if (auto* cnx = self.get()) cnx->subscribeNow(*req, *topic, type, trace);
    });
}

void ServerCnx::subscribeNow(const SubscribeRequest& req, Topic& topic, SchemaType type, const TracePtr& trace) {
    AttachedConsumer c;
    c.name = req.consumerName;
    c.connectionId = id_;
    c.consumerId = req.consumerId;
    c.schemaType = type;
    c.priorityLevel = req.priorityLevel;
    if (req.keySharedMeta && req.keySharedMeta->keysharedmode() == pulsar::proto::KeySharedMode::STICKY) {
        c.sticky = true;
        for (const auto& r : req.keySharedMeta->hashranges()) c.hashRanges.emplace_back(r.start(), r.end());
    }
    const auto& subType = wire::subTypeName(req.subType);
    if (auto err = topic.subscribe(req.subscription, subType, req.durable, c, req.start)) {
        failConsumer(req.consumerId, req.requestId, *err, trace);
        return;
    }
    trace->add("§2.1", "topic.subscribe", [&] {
        return concat("consumer '", c.name, "' attached to subscription '", req.subscription, "' (", subType, ")");
    });
    auto& slot = consumers_[req.consumerId];
    slot.state = State::ready;
    send(wire::success(req.requestId));
    if (auto notice = std::exchange(slot.activeNotice, std::nullopt))
        send(wire::activeConsumerChange(req.consumerId, *notice));
}

void ServerCnx::failConsumer(std::uint64_t consumerId, std::uint64_t requestId, const BrokerError& error,
                             TracePtr trace) {
    auto& slot = consumers_[consumerId];
    slot.state = State::failed;
    slot.error = error;
    trace->add("§2.1", "subscribe failed", [&] { return wire::serverErrorName(error.code()) + ": " + error.message; });
    sendError(requestId, error.code(), error.message);  // consumers see the root message (§2.1)
}

void ServerCnx::handleCloseConsumer(const pulsar::proto::CommandCloseConsumer& cmd) {
    if (auto it = consumers_.find(cmd.consumer_id()); it != consumers_.end()) {
        if (auto* topic = broker_.findTopic(it->second.topic))
            topic->removeConsumer(id_, cmd.consumer_id());
        consumers_.erase(it);
    }
    send(wire::success(cmd.request_id()));
}

}  // namespace cnx
