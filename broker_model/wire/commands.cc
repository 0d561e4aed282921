#include "broker_model/wire/commands.h"

#include <algorithm>

#include "broker_model/wire/command_types.h"

namespace cnx::wire {
namespace {

using T = BaseCommand;

// Reads a varint at `at`; false past the end or beyond 10 bytes.
bool readVarint(std::string_view s, std::size_t& at, std::uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 70 && at < s.size(); shift += 7) {
        const auto byte = static_cast<unsigned char>(s[at++]);
        v |= static_cast<std::uint64_t>(byte & 0x7f) << (shift < 64 ? shift : 63);
        if (!(byte & 0x80)) return true;
    }
    return false;
}

// Whether the command's encoding carries no top-level field but its type (1)
// and its own message (field number == type value). A parsed command of that
// shape has every required field exactly when its type is set and its message
// (if any) is initialised. Groups and anything unexpected say no.
bool onlyTypeAndBody(std::string_view bytes, std::uint64_t bodyNumber) {
    std::size_t at = 0;
    while (at < bytes.size()) {
        std::uint64_t tag = 0, value = 0;
        if (!readVarint(bytes, at, tag)) return false;
        const auto number = tag >> 3;
        if (number != 1 && number != bodyNumber) return false;
        switch (tag & 7) {
            case 0:
                if (!readVarint(bytes, at, value)) return false;
                break;
            case 1: at += 8; break;
            case 2:
                if (!readVarint(bytes, at, value) || value > bytes.size() - std::min(at, bytes.size())) return false;
                at += static_cast<std::size_t>(value);
                break;
            case 5: at += 4; break;
            default: return false;
        }
    }
    return at == bytes.size();
}

// The request a command answers: the request_id of what a broker sends in
// answer to one (SUCCESS, ERROR, LOOKUP_RESPONSE, ...). Requests carry their
// own id but answer nothing; pushes and session-keyed updates (MESSAGE,
// WATCH_TOPIC_UPDATE) have no request id.
template <Sender sender, typename Body>
std::optional<std::uint64_t> answeredRequestId(const Body& body) {
    if constexpr (sender == Sender::broker && requires { body.request_id(); }) return body.request_id();
    else return std::nullopt;
}

}  // namespace

Sender senderOf(BaseCommand::Type type) {
    switch (type) {
#define X(type, field, sender) \
    case T::type: return Sender::sender;
        CNX_WIRE_COMMANDS(X)
#undef X
    }
    return Sender::either;  // not reached: the switch names every type
}

bool hasBody(const BaseCommand& c) {
    // PING and PONG are valid without their (empty) message, as the broker reads them (§8.2).
    if (c.type() == T::PING || c.type() == T::PONG) return true;
    switch (c.type()) {
#define X(type, field, sender) \
    case T::type: return c.has_##field();
        CNX_WIRE_COMMANDS(X)
#undef X
    }
    return false;
}

const google::protobuf::MessageLite* bodyOf(const BaseCommand& c) {
    switch (c.type()) {
#define X(type, field, sender) \
    case T::type: return c.has_##field() ? &c.field() : nullptr;
        CNX_WIRE_COMMANDS(X)
#undef X
    }
    return nullptr;
}

bool commandInitialized(const BaseCommand& c, std::string_view encoded) {
    if (!c.has_type() || !onlyTypeAndBody(encoded, static_cast<std::uint64_t>(c.type()))) return c.IsInitialized();
    const auto* body = bodyOf(c);
    return body == nullptr || body->IsInitialized();
}

bool isPayloadCommand(BaseCommand::Type type) { return type == T::SEND || type == T::MESSAGE; }

std::optional<std::uint64_t> requestIdOf(const BaseCommand& c) {
    // ACK_RESPONSE's request_id is optional: an ack sent without one is answered without one.
    if (c.type() == T::ACK_RESPONSE && !c.ackresponse().has_request_id()) return std::nullopt;
    switch (c.type()) {
#define X(type, field, sender) \
    case T::type: return answeredRequestId<Sender::sender>(c.field());
        CNX_WIRE_COMMANDS(X)
#undef X
    }
    return std::nullopt;
}

// --- responses ---------------------------------------------------------------------

PooledCommand connected(const std::string& serverVersion, int protocolVersion, int maxMessageSize) {
    PooledCommand out;
    out->set_type(T::CONNECTED);
    auto* c = out->mutable_connected();
    c->set_server_version(serverVersion);
    c->set_protocol_version(protocolVersion);
    c->set_max_message_size(maxMessageSize);
    return out;
}

PooledCommand ping() {
    PooledCommand out;
    out->set_type(T::PING);
    out->mutable_ping();
    return out;
}

PooledCommand pong() {
    PooledCommand out;
    out->set_type(T::PONG);
    out->mutable_pong();
    return out;
}

PooledCommand error(std::uint64_t requestId, pulsar::proto::ServerError code, const std::string& message) {
    PooledCommand out;
    out->set_type(T::ERROR);
    auto* e = out->mutable_error();
    e->set_request_id(requestId);
    e->set_error(code);
    e->set_message(message);
    return out;
}

PooledCommand success(std::uint64_t requestId) {
    PooledCommand out;
    out->set_type(T::SUCCESS);
    out->mutable_success()->set_request_id(requestId);
    return out;
}

PooledCommand producerSuccess(std::uint64_t requestId, const std::string& producerName, const std::string& schemaVersion) {
    PooledCommand out = producerSuccessRepeated(requestId, producerName, schemaVersion);
    out->mutable_producer_success()->set_last_sequence_id(-1);
    out->mutable_producer_success()->set_producer_ready(true);
    return out;
}

PooledCommand producerSuccessRepeated(std::uint64_t requestId, const std::string& producerName,
                                    const std::string& schemaVersion) {
    PooledCommand out;
    out->set_type(T::PRODUCER_SUCCESS);
    auto* s = out->mutable_producer_success();
    s->set_request_id(requestId);
    s->set_producer_name(producerName);
    s->set_schema_version(schemaVersion);
    return out;
}

PooledCommand sendReceipt(std::uint64_t producerId, std::uint64_t sequenceId, std::uint64_t ledgerId,
                        std::uint64_t entryId, std::uint64_t highestSequenceId) {
    PooledCommand out;
    out->set_type(T::SEND_RECEIPT);
    auto* r = out->mutable_send_receipt();
    r->set_producer_id(producerId);
    r->set_sequence_id(sequenceId);
    r->set_highest_sequence_id(std::max(sequenceId, highestSequenceId));
    r->mutable_message_id()->set_ledgerid(ledgerId);
    r->mutable_message_id()->set_entryid(entryId);
    return out;
}

PooledCommand sendError(std::uint64_t producerId, std::uint64_t sequenceId, pulsar::proto::ServerError code,
                      const std::string& message) {
    PooledCommand out;
    out->set_type(T::SEND_ERROR);
    auto* e = out->mutable_send_error();
    e->set_producer_id(producerId);
    e->set_sequence_id(sequenceId);
    e->set_error(code);
    e->set_message(message);
    return out;
}

PooledCommand closeProducer(std::uint64_t producerId) {
    PooledCommand out;
    out->set_type(T::CLOSE_PRODUCER);
    out->mutable_close_producer()->set_producer_id(producerId);
    out->mutable_close_producer()->set_request_id(static_cast<std::uint64_t>(-1));
    return out;
}

PooledCommand closeConsumer(std::uint64_t consumerId) {
    PooledCommand out;
    out->set_type(T::CLOSE_CONSUMER);
    out->mutable_close_consumer()->set_consumer_id(consumerId);
    out->mutable_close_consumer()->set_request_id(static_cast<std::uint64_t>(-1));
    return out;
}

PooledCommand getSchemaResponse(std::uint64_t requestId, const pulsar::proto::Schema& schema,
                              const std::string& schemaVersion) {
    PooledCommand out;
    out->set_type(T::GET_SCHEMA_RESPONSE);
    auto* r = out->mutable_getschemaresponse();
    r->set_request_id(requestId);
    *r->mutable_schema() = schema;
    r->set_schema_version(schemaVersion);
    return out;
}

PooledCommand getSchemaResponseError(std::uint64_t requestId, pulsar::proto::ServerError code,
                                   const std::string& message) {
    PooledCommand out;
    out->set_type(T::GET_SCHEMA_RESPONSE);
    auto* r = out->mutable_getschemaresponse();
    r->set_request_id(requestId);
    r->set_error_code(code);
    r->set_error_message(message);
    return out;
}

PooledCommand getOrCreateSchemaResponse(std::uint64_t requestId, const std::string& schemaVersion) {
    PooledCommand out;
    out->set_type(T::GET_OR_CREATE_SCHEMA_RESPONSE);
    auto* r = out->mutable_getorcreateschemaresponse();
    r->set_request_id(requestId);
    r->set_schema_version(schemaVersion);
    return out;
}

PooledCommand getOrCreateSchemaResponseError(std::uint64_t requestId, pulsar::proto::ServerError code,
                                           const std::string& message) {
    PooledCommand out;
    out->set_type(T::GET_OR_CREATE_SCHEMA_RESPONSE);
    auto* r = out->mutable_getorcreateschemaresponse();
    r->set_request_id(requestId);
    r->set_error_code(code);
    r->set_error_message(message);
    return out;
}

PooledCommand message(std::uint64_t consumerId, std::uint64_t ledgerId, std::uint64_t entryId,
                    std::uint32_t redeliveryCount, int partition) {
    PooledCommand out;
    out->set_type(T::MESSAGE);
    auto* m = out->mutable_message();
    m->set_consumer_id(consumerId);
    m->mutable_message_id()->set_ledgerid(ledgerId);
    m->mutable_message_id()->set_entryid(entryId);
    m->mutable_message_id()->set_partition(partition);
    m->set_redelivery_count(redeliveryCount);
    return out;
}

PooledCommand activeConsumerChange(std::uint64_t consumerId, bool isActive) {
    PooledCommand out;
    out->set_type(T::ACTIVE_CONSUMER_CHANGE);
    out->mutable_active_consumer_change()->set_consumer_id(consumerId);
    out->mutable_active_consumer_change()->set_is_active(isActive);
    return out;
}

PooledCommand ackResponse(std::uint64_t consumerId, std::uint64_t requestId) {
    PooledCommand out;
    out->set_type(T::ACK_RESPONSE);
    out->mutable_ackresponse()->set_consumer_id(consumerId);
    out->mutable_ackresponse()->set_request_id(requestId);
    return out;
}

PooledCommand ackResponseError(std::uint64_t consumerId, std::uint64_t requestId, pulsar::proto::ServerError code,
                             const std::string& message) {
    PooledCommand out = ackResponse(consumerId, requestId);
    out->mutable_ackresponse()->set_error(code);
    out->mutable_ackresponse()->set_message(message);
    return out;
}

PooledCommand getLastMessageIdResponse(std::uint64_t requestId, std::uint64_t ledgerId, std::uint64_t entryId,
                                     int partition, int batchIndex,
                                     std::optional<std::pair<std::int64_t, std::int64_t>> markDelete) {
    PooledCommand out;
    out->set_type(T::GET_LAST_MESSAGE_ID_RESPONSE);
    auto* r = out->mutable_getlastmessageidresponse();
    r->set_request_id(requestId);
    r->mutable_last_message_id()->set_ledgerid(ledgerId);
    r->mutable_last_message_id()->set_entryid(entryId);
    r->mutable_last_message_id()->set_partition(partition);
    if (batchIndex >= 0) r->mutable_last_message_id()->set_batch_index(batchIndex);
    if (markDelete && markDelete->first >= 0) {
        r->mutable_consumer_mark_delete_position()->set_ledgerid(static_cast<std::uint64_t>(markDelete->first));
        r->mutable_consumer_mark_delete_position()->set_entryid(static_cast<std::uint64_t>(markDelete->second));
    }
    return out;
}

PooledCommand lookupConnect(std::uint64_t requestId, const std::string& brokerServiceUrl) {
    PooledCommand out;
    out->set_type(T::LOOKUP_RESPONSE);
    auto* r = out->mutable_lookuptopicresponse();
    r->set_request_id(requestId);
    r->set_response(pulsar::proto::CommandLookupTopicResponse::Connect);
    r->set_authoritative(true);
    r->set_brokerserviceurl(brokerServiceUrl);
    return out;
}

PooledCommand lookupFailed(std::uint64_t requestId, pulsar::proto::ServerError code, const std::string& message) {
    PooledCommand out;
    out->set_type(T::LOOKUP_RESPONSE);
    auto* r = out->mutable_lookuptopicresponse();
    r->set_request_id(requestId);
    r->set_response(pulsar::proto::CommandLookupTopicResponse::Failed);
    r->set_error(code);
    r->set_message(message);
    return out;
}

PooledCommand partitionedMetadata(std::uint64_t requestId, std::uint32_t partitions) {
    PooledCommand out;
    out->set_type(T::PARTITIONED_METADATA_RESPONSE);
    auto* r = out->mutable_partitionmetadataresponse();
    r->set_request_id(requestId);
    r->set_partitions(partitions);
    r->set_response(pulsar::proto::CommandPartitionedTopicMetadataResponse::Success);
    return out;
}

PooledCommand partitionedMetadataFailed(std::uint64_t requestId, pulsar::proto::ServerError code,
                                      const std::string& message) {
    PooledCommand out;
    out->set_type(T::PARTITIONED_METADATA_RESPONSE);
    auto* r = out->mutable_partitionmetadataresponse();
    r->set_request_id(requestId);
    r->set_response(pulsar::proto::CommandPartitionedTopicMetadataResponse::Failed);
    r->set_error(code);
    r->set_message(message);
    return out;
}

PooledCommand topicsOfNamespace(std::uint64_t requestId, const std::vector<std::string>& topics) {
    PooledCommand out;
    out->set_type(T::GET_TOPICS_OF_NAMESPACE_RESPONSE);
    auto* r = out->mutable_gettopicsofnamespaceresponse();
    r->set_request_id(requestId);
    for (const auto& t : topics) r->add_topics(t);
    r->set_filtered(false);
    r->set_changed(true);
    return out;
}

std::optional<std::uint64_t> requestIdOfRequest(const BaseCommand& c) {
    switch (c.type()) {
        case T::PRODUCER: return c.producer().request_id();
        case T::SUBSCRIBE: return c.subscribe().request_id();
        case T::UNSUBSCRIBE: return c.unsubscribe().request_id();
        case T::CLOSE_PRODUCER: return c.close_producer().request_id();
        case T::CLOSE_CONSUMER: return c.close_consumer().request_id();
        case T::SEEK: return c.seek().request_id();
        case T::LOOKUP: return c.lookuptopic().request_id();
        case T::PARTITIONED_METADATA: return c.partitionmetadata().request_id();
        case T::CONSUMER_STATS: return c.consumerstats().request_id();
        case T::GET_LAST_MESSAGE_ID: return c.getlastmessageid().request_id();
        case T::GET_TOPICS_OF_NAMESPACE: return c.gettopicsofnamespace().request_id();
        case T::GET_SCHEMA: return c.getschema().request_id();
        case T::GET_OR_CREATE_SCHEMA: return c.getorcreateschema().request_id();
        case T::ACK:
            if (!c.ack().has_request_id()) return std::nullopt;
            return c.ack().request_id();
        // Answers, pushes and requests without a request id.
        case T::CONNECT: case T::CONNECTED: case T::SEND: case T::SEND_RECEIPT: case T::SEND_ERROR: case T::MESSAGE:
        case T::FLOW: case T::SUCCESS: case T::ERROR: case T::PRODUCER_SUCCESS: case T::PING: case T::PONG:
        case T::REDELIVER_UNACKNOWLEDGED_MESSAGES: case T::PARTITIONED_METADATA_RESPONSE: case T::LOOKUP_RESPONSE:
        case T::CONSUMER_STATS_RESPONSE: case T::REACHED_END_OF_TOPIC: case T::GET_LAST_MESSAGE_ID_RESPONSE:
        case T::ACTIVE_CONSUMER_CHANGE: case T::GET_TOPICS_OF_NAMESPACE_RESPONSE: case T::GET_SCHEMA_RESPONSE:
        case T::AUTH_CHALLENGE: case T::AUTH_RESPONSE: case T::ACK_RESPONSE: case T::GET_OR_CREATE_SCHEMA_RESPONSE:
        case T::NEW_TXN: case T::NEW_TXN_RESPONSE: case T::ADD_PARTITION_TO_TXN:
        case T::ADD_PARTITION_TO_TXN_RESPONSE: case T::ADD_SUBSCRIPTION_TO_TXN:
        case T::ADD_SUBSCRIPTION_TO_TXN_RESPONSE: case T::END_TXN: case T::END_TXN_RESPONSE:
        case T::END_TXN_ON_PARTITION: case T::END_TXN_ON_PARTITION_RESPONSE: case T::END_TXN_ON_SUBSCRIPTION:
        case T::END_TXN_ON_SUBSCRIPTION_RESPONSE: case T::TC_CLIENT_CONNECT_REQUEST:
        case T::TC_CLIENT_CONNECT_RESPONSE: case T::WATCH_TOPIC_LIST: case T::WATCH_TOPIC_LIST_SUCCESS:
        case T::WATCH_TOPIC_UPDATE: case T::WATCH_TOPIC_LIST_CLOSE: case T::TOPIC_MIGRATED:
        case T::SCALABLE_TOPIC_LOOKUP: case T::SCALABLE_TOPIC_UPDATE: case T::SCALABLE_TOPIC_CLOSE:
        case T::SCALABLE_TOPIC_SUBSCRIBE: case T::SCALABLE_TOPIC_SUBSCRIBE_RESPONSE:
        case T::SCALABLE_TOPIC_ASSIGNMENT_UPDATE: case T::WATCH_SCALABLE_TOPICS: case T::WATCH_SCALABLE_TOPICS_UPDATE:
        case T::WATCH_SCALABLE_TOPICS_CLOSE: case T::WATCH_TC_ASSIGNMENTS: case T::WATCH_TC_ASSIGNMENTS_UPDATE:
        case T::WATCH_TC_ASSIGNMENTS_CLOSE:
            return std::nullopt;
    }
    return std::nullopt;  // not reached: the switch names every type
}

bool hasErrorAnswer(BaseCommand::Type type) {
    switch (type) {
        case T::CONNECT: case T::PRODUCER: case T::SUBSCRIBE: case T::SEND: case T::ACK: case T::UNSUBSCRIBE:
        case T::CLOSE_PRODUCER: case T::CLOSE_CONSUMER: case T::SEEK: case T::LOOKUP: case T::PARTITIONED_METADATA:
        case T::CONSUMER_STATS: case T::GET_LAST_MESSAGE_ID: case T::GET_TOPICS_OF_NAMESPACE: case T::GET_SCHEMA:
        case T::GET_OR_CREATE_SCHEMA: return true;
        // Answers, pushes and commands a broker answers no error to.
        case T::CONNECTED: case T::SEND_RECEIPT: case T::SEND_ERROR: case T::MESSAGE: case T::FLOW: case T::SUCCESS:
        case T::ERROR: case T::PRODUCER_SUCCESS: case T::PING: case T::PONG:
        case T::REDELIVER_UNACKNOWLEDGED_MESSAGES: case T::PARTITIONED_METADATA_RESPONSE: case T::LOOKUP_RESPONSE:
        case T::CONSUMER_STATS_RESPONSE: case T::REACHED_END_OF_TOPIC: case T::GET_LAST_MESSAGE_ID_RESPONSE:
        case T::ACTIVE_CONSUMER_CHANGE: case T::GET_TOPICS_OF_NAMESPACE_RESPONSE: case T::GET_SCHEMA_RESPONSE:
        case T::AUTH_CHALLENGE: case T::AUTH_RESPONSE: case T::ACK_RESPONSE: case T::GET_OR_CREATE_SCHEMA_RESPONSE:
        case T::NEW_TXN: case T::NEW_TXN_RESPONSE: case T::ADD_PARTITION_TO_TXN:
        case T::ADD_PARTITION_TO_TXN_RESPONSE: case T::ADD_SUBSCRIPTION_TO_TXN:
        case T::ADD_SUBSCRIPTION_TO_TXN_RESPONSE: case T::END_TXN: case T::END_TXN_RESPONSE:
        case T::END_TXN_ON_PARTITION: case T::END_TXN_ON_PARTITION_RESPONSE: case T::END_TXN_ON_SUBSCRIPTION:
        case T::END_TXN_ON_SUBSCRIPTION_RESPONSE: case T::TC_CLIENT_CONNECT_REQUEST:
        case T::TC_CLIENT_CONNECT_RESPONSE: case T::WATCH_TOPIC_LIST: case T::WATCH_TOPIC_LIST_SUCCESS:
        case T::WATCH_TOPIC_UPDATE: case T::WATCH_TOPIC_LIST_CLOSE: case T::TOPIC_MIGRATED:
        case T::SCALABLE_TOPIC_LOOKUP: case T::SCALABLE_TOPIC_UPDATE: case T::SCALABLE_TOPIC_CLOSE:
        case T::SCALABLE_TOPIC_SUBSCRIBE: case T::SCALABLE_TOPIC_SUBSCRIBE_RESPONSE:
        case T::SCALABLE_TOPIC_ASSIGNMENT_UPDATE: case T::WATCH_SCALABLE_TOPICS: case T::WATCH_SCALABLE_TOPICS_UPDATE:
        case T::WATCH_SCALABLE_TOPICS_CLOSE: case T::WATCH_TC_ASSIGNMENTS: case T::WATCH_TC_ASSIGNMENTS_UPDATE:
        case T::WATCH_TC_ASSIGNMENTS_CLOSE:
            return false;
    }
    return false;  // not reached: the switch names every type
}

std::optional<BaseCommand> errorAnswerTo(const BaseCommand& request, pulsar::proto::ServerError code,
                                         const std::string& message) {
    switch (request.type()) {
        case T::CONNECT: return error(static_cast<std::uint64_t>(-1), code, message);
        case T::SEND: return sendError(request.send().producer_id(), request.send().sequence_id(), code, message);
        case T::LOOKUP: return lookupFailed(request.lookuptopic().request_id(), code, message);
        case T::PARTITIONED_METADATA:
            return partitionedMetadataFailed(request.partitionmetadata().request_id(), code, message);
        case T::GET_SCHEMA: return getSchemaResponseError(request.getschema().request_id(), code, message);
        case T::GET_OR_CREATE_SCHEMA:
            return getOrCreateSchemaResponseError(request.getorcreateschema().request_id(), code, message);
        case T::ACK:
            if (!request.ack().has_request_id()) return std::nullopt;
            return ackResponseError(request.ack().consumer_id(), request.ack().request_id(), code, message);
        // The other requests hasErrorAnswer names: a plain ERROR with their request id.
        case T::PRODUCER: case T::SUBSCRIBE: case T::UNSUBSCRIBE: case T::CLOSE_PRODUCER: case T::CLOSE_CONSUMER:
        case T::SEEK: case T::CONSUMER_STATS: case T::GET_LAST_MESSAGE_ID: case T::GET_TOPICS_OF_NAMESPACE:
            if (auto id = requestIdOfRequest(request)) return error(*id, code, message);
            return std::nullopt;
        // Answers, pushes and commands a broker answers no error to.
        case T::CONNECTED: case T::SEND_RECEIPT: case T::SEND_ERROR: case T::MESSAGE: case T::FLOW: case T::SUCCESS:
        case T::ERROR: case T::PRODUCER_SUCCESS: case T::PING: case T::PONG:
        case T::REDELIVER_UNACKNOWLEDGED_MESSAGES: case T::PARTITIONED_METADATA_RESPONSE: case T::LOOKUP_RESPONSE:
        case T::CONSUMER_STATS_RESPONSE: case T::REACHED_END_OF_TOPIC: case T::GET_LAST_MESSAGE_ID_RESPONSE:
        case T::ACTIVE_CONSUMER_CHANGE: case T::GET_TOPICS_OF_NAMESPACE_RESPONSE: case T::GET_SCHEMA_RESPONSE:
        case T::AUTH_CHALLENGE: case T::AUTH_RESPONSE: case T::ACK_RESPONSE: case T::GET_OR_CREATE_SCHEMA_RESPONSE:
        case T::NEW_TXN: case T::NEW_TXN_RESPONSE: case T::ADD_PARTITION_TO_TXN:
        case T::ADD_PARTITION_TO_TXN_RESPONSE: case T::ADD_SUBSCRIPTION_TO_TXN:
        case T::ADD_SUBSCRIPTION_TO_TXN_RESPONSE: case T::END_TXN: case T::END_TXN_RESPONSE:
        case T::END_TXN_ON_PARTITION: case T::END_TXN_ON_PARTITION_RESPONSE: case T::END_TXN_ON_SUBSCRIPTION:
        case T::END_TXN_ON_SUBSCRIPTION_RESPONSE: case T::TC_CLIENT_CONNECT_REQUEST:
        case T::TC_CLIENT_CONNECT_RESPONSE: case T::WATCH_TOPIC_LIST: case T::WATCH_TOPIC_LIST_SUCCESS:
        case T::WATCH_TOPIC_UPDATE: case T::WATCH_TOPIC_LIST_CLOSE: case T::TOPIC_MIGRATED:
        case T::SCALABLE_TOPIC_LOOKUP: case T::SCALABLE_TOPIC_UPDATE: case T::SCALABLE_TOPIC_CLOSE:
        case T::SCALABLE_TOPIC_SUBSCRIBE: case T::SCALABLE_TOPIC_SUBSCRIBE_RESPONSE:
        case T::SCALABLE_TOPIC_ASSIGNMENT_UPDATE: case T::WATCH_SCALABLE_TOPICS: case T::WATCH_SCALABLE_TOPICS_UPDATE:
        case T::WATCH_SCALABLE_TOPICS_CLOSE: case T::WATCH_TC_ASSIGNMENTS: case T::WATCH_TC_ASSIGNMENTS_UPDATE:
        case T::WATCH_TC_ASSIGNMENTS_CLOSE:
            return std::nullopt;
    }
    return std::nullopt;  // not reached: the switch names every type
}

}  // namespace cnx::wire
