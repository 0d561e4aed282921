// ServerCnx: the commands of a consumer after SUBSCRIBE (FLOW, ACK,
// REDELIVER_UNACKNOWLEDGED_MESSAGES, UNSUBSCRIBE, GET_LAST_MESSAGE_ID) and
// the MESSAGE frames the topic dispatches to this connection's consumers.
// Commands for a consumer id that is not ready are ignored, as the broker
// ignores them (answered with an error where the command has a request id).

#include "broker_model/protocol/server_cnx.h"
#include "broker_model/profile/protocol.h"
#include "broker_model/wire/commands.h"

namespace cnx {
namespace {

std::vector<Position> positionsOf(const google::protobuf::RepeatedPtrField<pulsar::proto::MessageIdData>& ids) {
    std::vector<Position> out;
    out.reserve(static_cast<std::size_t>(ids.size()));
    for (const auto& id : ids) out.push_back({id.ledgerid(), id.entryid()});
    return out;
}

}  // namespace

Topic* ServerCnx::consumerTopic(std::uint64_t consumerId) {
    auto it = consumers_.find(consumerId);
    if (it == consumers_.end() || it->second.state != State::ready) return nullptr;
    auto name = TopicName::parse(it->second.topic);
    return name ? broker_.findTopic(*name) : nullptr;
}

void ServerCnx::deliver(std::uint64_t consumerId, const Entry& entry, std::uint32_t redeliveryCount,
                        const std::vector<std::int64_t>& ackSet) {
    if (closed_) return;
    auto slot = consumers_.find(consumerId);
    int partition = slot == consumers_.end() ? -1 : slot->second.partition;
    auto command = wire::message(consumerId, entry.position.ledgerId, entry.position.entryId, redeliveryCount, partition);
    for (auto word : ackSet) command->mutable_message()->add_ack_set(word);
    if (observer_) observer_(command);
    // A consumer before v11 mishandles the checksum: the broker skips it (PulsarCommandSenderImpl).
    auto checksum = protocol::consumerVerifiesChecksum(protocolVersion_) ? wire::Checksum::crc32c : wire::Checksum::none;
    auto frame = wire::encodePayloadFrame(command, entry.metadata, entry.payload, checksum);
    transmit(std::move(command), std::move(frame));
}

// Consumer.notifyActiveConsumerChange -> PulsarCommandSenderImpl.sendActiveConsumerChange,
// which sends nothing to a client before v12.
void ServerCnx::activeConsumerChange(std::uint64_t consumerId, bool isActive) {
    if (closed_ || protocolVersion_ < protocol::kActiveConsumerChange) return;
    auto it = consumers_.find(consumerId);
    if (it != consumers_.end() && it->second.state == State::pending) {
        // Being attached: the notice follows the SUBSCRIBE's SUCCESS, as the
        // broker's comes from the dispatcher's read scheduled after addConsumer.
        it->second.activeNotice = isActive;
        return;
    }
    send(wire::activeConsumerChange(consumerId, isActive));
}

void ServerCnx::setWritable(bool writable) {
    bool resumed = writable && !writable_;
    writable_ = writable;
    if (!resumed || closed_) return;
    std::vector<std::uint64_t> ready;  // the slots, copied: a dispatch may change them
    for (const auto& [id, slot] : consumers_)
        if (slot.state == State::ready) ready.push_back(id);
    for (auto consumerId : ready) {
        if (!writable_ || closed_) return;  // full again: the next drain resumes the rest
        if (auto* topic = consumerTopic(consumerId)) topic->resumeDispatch(id_, consumerId);
    }
}

void ServerCnx::handleFlow(const pulsar::proto::CommandFlow& cmd) {
    if (auto* topic = consumerTopic(cmd.consumer_id())) topic->flow(id_, cmd.consumer_id(), cmd.messagepermits());
}

void ServerCnx::handleAck(const pulsar::proto::CommandAck& cmd) {
    auto* topic = consumerTopic(cmd.consumer_id());
    bool cumulative = cmd.ack_type() == pulsar::proto::CommandAck::Cumulative;
    std::vector<std::vector<std::int64_t>> ackSets;  // MessageIdData.ack_set, one per message id
    for (const auto& id : cmd.message_id()) ackSets.emplace_back(id.ack_set().begin(), id.ack_set().end());
    bool acked = topic && topic->acknowledge(id_, cmd.consumer_id(), cumulative, positionsOf(cmd.message_id()), ackSets);
    if (!cmd.has_request_id()) return;  // ACK_RESPONSE only for a client that asked for a receipt
    if (acked) {
        send(wire::ackResponse(cmd.consumer_id(), cmd.request_id()));
    } else {
        send(wire::ackResponseError(cmd.consumer_id(), cmd.request_id(), pulsar::proto::ConsumerNotFound,
                                    "Consumer not found"));
    }
}

void ServerCnx::handleRedeliver(const pulsar::proto::CommandRedeliverUnacknowledgedMessages& cmd) {
    if (auto* topic = consumerTopic(cmd.consumer_id())) topic->redeliver(id_, cmd.consumer_id(), positionsOf(cmd.message_ids()));
}

void ServerCnx::handleUnsubscribe(const pulsar::proto::CommandUnsubscribe& cmd) {
    auto* topic = consumerTopic(cmd.consumer_id());
    if (!topic) {
        send(wire::error(cmd.request_id(), pulsar::proto::MetadataError, "Consumer not found"));
        return;
    }
    if (auto err = topic->unsubscribe(id_, cmd.consumer_id(), cmd.force())) {
        send(wire::error(cmd.request_id(), pulsar::proto::MetadataError, err->message));
        return;
    }
    consumers_.erase(cmd.consumer_id());
    send(wire::success(cmd.request_id()));
}

void ServerCnx::handleGetLastMessageId(const pulsar::proto::CommandGetLastMessageId& cmd) {
    auto* topic = consumerTopic(cmd.consumer_id());
    if (!topic) {  // ServerCnx.handleGetLastMessageId: MetadataError, as for UNSUBSCRIBE
        send(wire::error(cmd.request_id(), pulsar::proto::MetadataError, "Consumer not found"));
        return;
    }
    // ServerCnx.getLargestBatchIndexWhenPossible: a topic without entries answers -1:-1.
    auto last = topic->lastPosition();
    int batchIndex = -1;
    const auto* entry = topic->lastEntry();
    if (!entry) last = {static_cast<std::uint64_t>(-1), static_cast<std::uint64_t>(-1)};
    if (entry && entry->metadata.has_num_messages_in_batch() && entry->metadata.num_messages_in_batch() > 1)
        batchIndex = entry->metadata.num_messages_in_batch() - 1;
    send(wire::getLastMessageIdResponse(cmd.request_id(), last.ledgerId, last.entryId, topic->name().partitionIndex(),
                                        batchIndex, markDeletePosition(*topic, cmd.consumer_id())));
}

// The subscription's cursor's mark-delete position (the last entry it counts as
// acknowledged: entry -1 before the first), sent for a persistent subscription.
std::optional<std::pair<std::int64_t, std::int64_t>> ServerCnx::markDeletePosition(const Topic& topic,
                                                                                   std::uint64_t consumerId) const {
    const auto* cursor = topic.persistent() ? topic.cursorOf(id_, consumerId) : nullptr;
    if (!cursor) return std::nullopt;
    auto ledger = static_cast<std::int64_t>(topic.lastPosition().ledgerId);
    return std::pair(ledger, static_cast<std::int64_t>(cursor->markDelete) - 1);
}

// SEEK (ServerCnx.handleSeek, PersistentSubscription.resetCursor): the
// subscription's consumers are closed (CLOSE_CONSUMER: the clients reconnect),
// the cursor is reset, then SUCCESS.
void ServerCnx::handleSeek(const pulsar::proto::CommandSeek& cmd) {
    if (!cmd.has_message_id() && !cmd.has_message_publish_time()) {
        send(wire::error(cmd.request_id(), pulsar::proto::MetadataError,
                         "Message id and message publish time were not present"));
        return;
    }
    auto* topic = consumerTopic(cmd.consumer_id());
    if (topic && !topic->persistent() && topic->cursorOf(id_, cmd.consumer_id())) {
        send(wire::error(cmd.request_id(), pulsar::proto::UnknownError,
                         "Error when resetting subscription: Seek command on non-persistent topic is not supported"));
        return;
    }
    std::string subscription;
    auto attached = topic ? topic->seekConsumers(id_, cmd.consumer_id(), &subscription) : std::nullopt;
    if (!attached) {
        send(wire::error(cmd.request_id(), pulsar::proto::MetadataError, "Consumer not found"));
        return;
    }
    Topic::SeekTarget target;
    if (cmd.has_message_id()) target.messageId = Position{cmd.message_id().ledgerid(), cmd.message_id().entryid()};
    else target.publishTime = cmd.message_publish_time();
    auto keep = topic->shared_from_this();
    for (const auto& [connection, consumer] : *attached) {
        if (auto* c = broker_.connections().find(connection)) c->closeConsumer(consumer);
    }
    keep->resetCursor(subscription, target);
    send(wire::success(cmd.request_id()));
}

}  // namespace cnx
