// ServerCnx: the connection itself: its life and the broker's closing of it,
// the traces it keeps, the frames it sends, and dispatch, which hands each
// command to its handler. The handlers are in files by concern: CONNECT and
// authentication (connect_commands.cc), the producer (producer_commands.cc),
// the consumer's admission (subscribe_commands.cc) and its delivery
// (consumer_commands.cc), the schema commands (schema_commands.cc), lookups
// (lookup.cc) and stats (stats_commands.cc).

#include "broker_model/protocol/server_cnx.h"

#include "broker_model/core/concat.h"
#include "broker_model/core/text_bound.h"
#include "broker_model/profile/protocol.h"
#include "broker_model/wire/command_types.h"
#include "broker_model/wire/commands.h"
#include "broker_model/wire/frame_pool.h"
#include "broker_model/wire/frame_stream.h"

namespace cnx {
namespace {

using pulsar::proto::BaseCommand;

// The broker's text in an answer, where one is carried (nullptr: none).
std::string* answerText(BaseCommand& c) {
    switch (c.type()) {
        case BaseCommand::ERROR: return c.mutable_error()->mutable_message();
        case BaseCommand::SEND_ERROR: return c.mutable_send_error()->mutable_message();
        case BaseCommand::ACK_RESPONSE: return c.mutable_ackresponse()->mutable_message();
        case BaseCommand::LOOKUP_RESPONSE: return c.mutable_lookuptopicresponse()->mutable_message();
        case BaseCommand::PARTITIONED_METADATA_RESPONSE: return c.mutable_partitionmetadataresponse()->mutable_message();
        case BaseCommand::GET_SCHEMA_RESPONSE: return c.mutable_getschemaresponse()->mutable_error_message();
        case BaseCommand::GET_OR_CREATE_SCHEMA_RESPONSE: return c.mutable_getorcreateschemaresponse()->mutable_error_message();
        default: return nullptr;
    }
}

// An answer never passes the frame limit the broker announced in CONNECTED
// (max_message_size) plus Pulsar's padding: a client's frame decoder drops a
// bigger frame (Java: LengthFieldBasedFrameDecoder with maxMessageSize +
// Commands.MESSAGE_SIZE_FRAME_PADDING, TooLongFrameException) and the
// connection with it, so the answer would never reach it (issue 40 items 8,
// 9). A refusal whose text embeds the schemas (Avro's SchemaValidationException
// prints the writer and reader schemas, pretty, twice with "caused by") keeps
// its code and the beginning of its text, cut where the frame limit falls. An
// answer with nothing to cut (GET_TOPICS_OF_NAMESPACE of a huge namespace) is
// refused, naming the frame limit: the broker has no paging on this command
// and a real client would lose the connection instead.
void fitFrameLimit(wire::PooledCommand& cmd, std::size_t frameLimit) {
    const std::size_t kLimit = frameLimit - 4;  // totalSize = 4 + commandSize
    constexpr std::size_t kLengthSlack = 16;                 // the text's varint length shrinks with it
    std::size_t size = cmd->ByteSizeLong();
    if (size <= kLimit) return;
    std::size_t over = size - kLimit + kLengthSlack;
    if (auto* text = answerText(*cmd); text && text->size() > over + 1024) {
        *text = boundedText(*text, text->size() - over);
        return;
    }
    auto requestId = wire::requestIdOf(*cmd).value_or(static_cast<std::uint64_t>(-1));
    cmd = wire::error(requestId, pulsar::proto::UnknownError,
                      concat("not modelled: #40 (an answer of ", std::to_string(size),
                             " bytes passes the frame limit of ", std::to_string(kLimit),
                             " bytes; a real broker sends it and the client drops the connection)"));
}

// The refusal of a SUBSCRIBE this broker cannot parse, if it is one.
// §2.3 (derived, UNCONFIRMED): a broker before 3.0 has no proto value 21, so a
// required Schema.type of AutoConsume fails to parse and the frame is refused.
std::optional<std::string> unparsedSubscribe(const pulsar::proto::CommandSubscribe& cmd, int brokerMaxProtocolVersion) {
    if (cmd.has_schema() && cmd.schema().type() == pulsar::proto::Schema::AutoConsume &&
        !protocol::supportsAutoConsumeSchemaType(brokerMaxProtocolVersion))
        return "malformed frame: CommandSubscribe.schema.type 21 is unknown to this broker's protocol";
    return std::nullopt;
}

// The refusal of GET_OR_CREATE_SCHEMA on a connection whose negotiated
// version, min(client, broker), predates it.
std::optional<std::string> getOrCreateSchemaUnsupported(int negotiatedVersion) {
    if (protocol::supportsGetOrCreateSchema(negotiatedVersion)) return std::nullopt;
    return "GET_OR_CREATE_SCHEMA needs protocol v" + std::to_string(protocol::kGetOrCreateSchema) + " (negotiated v" +
           std::to_string(negotiatedVersion) + ")";
}

std::string notModelled(BaseCommand::Type type, std::string_view what) {
    return concat(BaseCommand::Type_Name(type), " is not modelled by this cnxsim (not modelled: ", what, ")");
}

}  // namespace

ServerCnx::ServerCnx(Broker& broker, Sender send)
    : broker_(broker),
      send_(std::move(send)),
      id_(broker.nextConnectionId()),
      schemaValidationEnforced_(broker.policies().broker.isSchemaValidationEnforced) {
    broker_.connections().add(*this);
}

ServerCnx::ServerCnx(Broker& broker, Receiver receive) : ServerCnx(broker, Sender{}) {
    receive_ = std::move(receive);
}

ServerCnx::~ServerCnx() { close(); }

void ServerCnx::close() {
    if (closed_) return;
    closed_ = true;
    lifetime_.end();
    broker_.connections().remove(id_);
    for (const auto& [name, topic] : broker_.loadedTopics()) topic->removeConnection(id_);
}

void ServerCnx::brokerGone() {
    closed_ = true;  // close() does nothing from now on: the broker is not there to reach
    lifetime_.end();
}

void ServerCnx::disconnect() {
    if (closed_) return;
    droppedByBroker_ = true;
    close();
    if (onDropped_) onDropped_();
}

void ServerCnx::closeTopic(const TopicName& topic) {
    auto wanted = topic.toString();
    closeSlots([&](const std::string& slotTopic) {
        if (slotTopic == wanted) return true;
        auto name = TopicName::parse(slotTopic);
        return name && name->partitionedBase() == topic;
    });
}

void ServerCnx::closeAll() {
    closeSlots([](const std::string&) { return true; });
}

void ServerCnx::closeProducers(const TopicName& topic) {
    auto wanted = topic.toString();
    closeSlots([&](const std::string& slotTopic) { return slotTopic == wanted; }, /*consumersToo=*/false);
}

void ServerCnx::closeConsumer(std::uint64_t consumerId) {
    auto it = consumers_.find(consumerId);
    if (it == consumers_.end() || it->second.state != State::ready) return;
    if (protocolVersion_ < protocol::kCloseWithoutDisconnect) {
        disconnect();
        return;
    }
    if (auto* t = broker_.findTopic(it->second.topic)) t->removeConsumer(id_, consumerId);
    send(wire::closeConsumer(consumerId));
    consumers_.erase(it);
}

void ServerCnx::closeProducer(std::uint64_t producerId) {
    auto it = producers_.find(producerId);
    if (it == producers_.end() || it->second.state != State::ready) return;
    if (protocolVersion_ < protocol::kCloseWithoutDisconnect) {
        disconnect();
        return;
    }
    if (auto* t = broker_.findTopic(it->second.topic)) t->removeProducer(id_, producerId);
    send(wire::closeProducer(producerId));
    producers_.erase(it);
}

void ServerCnx::closeSlots(const std::function<bool(const std::string& topic)>& which, bool consumersToo) {
    // Detaches each attached producer or consumer selected and tells the client,
    // which may reconnect with the same id. One still pending is not attached
    // yet: its continuation finds the topic fenced and answers the request.
    // A client before v5 knows no CLOSE_PRODUCER / CLOSE_CONSUMER: the broker
    // drops its connection instead (ServerCnx.closeProducer).
    if (protocolVersion_ < protocol::kCloseWithoutDisconnect) {
        auto selected = [&](const auto& slots) {
            for (const auto& [_, slot] : slots)
                if (slot.state == State::ready && which(slot.topic)) return true;
            return false;
        };
        if (selected(producers_) || (consumersToo && selected(consumers_))) disconnect();
        return;
    }
    auto closeEach = [&](auto& slots, bool producers) {
        for (auto it = slots.begin(); it != slots.end();) {
            if (it->second.state != State::ready || !which(it->second.topic)) {
                ++it;
                continue;
            }
            if (auto* t = broker_.findTopic(it->second.topic)) {
                producers ? t->removeProducer(id_, it->first) : t->removeConsumer(id_, it->first);
            }
            send(producers ? wire::closeProducer(it->first) : wire::closeConsumer(it->first));
            it = slots.erase(it);
        }
    };
    closeEach(producers_, true);
    if (consumersToo) closeEach(consumers_, false);
}

// A request id has at most one trace that is not taken, in its newest slot:
// newTrace fills a slot whose trace is still there and adds one only when the
// last was taken.
std::optional<std::size_t> ServerCnx::keptTrace(std::uint64_t requestId) const {
    auto it = traceSlots_.find(requestId);
    if (it == traceSlots_.end()) return std::nullopt;
    auto at = static_cast<std::size_t>(it->second - tracesDropped_);
    if (!traces_[at].second) return std::nullopt;
    return at;
}

TracePtr ServerCnx::trace(std::uint64_t requestId) const {
    auto at = keptTrace(requestId);
    return at ? traces_[*at].second : broker_.newTrace();
}

TracePtr ServerCnx::takeTrace(std::uint64_t requestId) {
    auto at = keptTrace(requestId);
    if (!at) return broker_.newTrace();
    // The emptied slot keeps its place until it is the oldest and dropped.
    return std::move(traces_[*at].second);
}

TracePtr ServerCnx::newTrace(std::uint64_t requestId) {
    auto t = broker_.newTrace();
    if (auto at = keptTrace(requestId)) {
        traces_[*at].second = t;
        return t;
    }
    traceSlots_[requestId] = tracesDropped_ + traces_.size();
    traces_.emplace_back(requestId, t);
    while (traces_.size() > kKeptTraces) {
        auto it = traceSlots_.find(traces_.front().first);
        if (it != traceSlots_.end() && it->second == tracesDropped_) traceSlots_.erase(it);
        traces_.pop_front();
        ++tracesDropped_;
    }
    return t;
}

void ServerCnx::send(wire::PooledCommand cmd) {
    if (closed_) return;
    fitFrameLimit(cmd, wire::frameLimit(broker_.policies().broker.maxMessageSize));
    if (observer_) observer_(*cmd);
    if (receive_) {
        if (enabled(broker_.fastPaths()) && wire::decodesToItself(*cmd)) {
            receive_(std::move(cmd), std::string_view());
            return;
        }
        wire::encodeFrameInto(*cmd, out_);
        receive_(std::move(cmd), out_);
        return;
    }
    send_(wire::encodeFrame(*cmd));
}

void ServerCnx::transmit(wire::PooledCommand cmd, std::string frame) {
    if (receive_) receive_(std::move(cmd), frame);
    else send_(std::move(frame));
}

void ServerCnx::sendError(std::uint64_t requestId, ServerError code, const std::string& message) {
    send(wire::error(requestId, code, message));
}

std::optional<std::string> ServerCnx::receive(std::string_view bytes) {
    if (closed_) return "the connection is closed";
    std::string error;
    auto frame = wire::decodePooledFrame(bytes, &error);
    if (!frame) {
        close();
        return "malformed frame: " + error;
    }
    return receive(*frame);
}

std::optional<std::string> ServerCnx::receive(const wire::Frame& frame) {
    return accept(frame.command, &frame);
}

std::optional<std::string> ServerCnx::receive(const BaseCommand& command) {
    // Fast paths off: every command is encoded and decoded, as on a socket.
    if (!closed_ && (!enabled(broker_.fastPaths()) || !wire::decodesToItself(command)))
        return receive(wire::encodeFrame(command));
    return accept(command, nullptr);
}

std::optional<std::string> ServerCnx::receive(const BaseCommand& command, const pulsar::proto::MessageMetadata& metadata,
                                              std::string_view payload) {
    if (closed_) return accept(command, nullptr);  // refused as closed
    if (!enabled(broker_.fastPaths()) || !wire::payloadFrameDecodesToItself(command, metadata, payload.size()))
        return receive(wire::encodePayloadFrame(command, metadata, payload));
    auto frame = wire::pooledPayloadFrame(command, metadata, payload);
    return accept(frame->command, frame.get());
}

std::optional<std::string> ServerCnx::accept(const BaseCommand& c, const wire::Frame* frame) {
    if (closed_) return "the connection is closed";
    auto refused = dispatch(c, frame);
    if (refused) close();
    return refused;
}

std::optional<std::string> ServerCnx::dispatch(const BaseCommand& c, const wire::Frame* frame) {
    const auto type = c.type();
    if (!connected_ && type != BaseCommand::CONNECT) return "received " + BaseCommand::Type_Name(type) + " before CONNECT";
    switch (type) {
        // Refused before its handler, by a rule of the command's own.
        case BaseCommand::CONNECT:
            if (connected_) return "received a second CONNECT";
            handleConnect(c.connect());
            return std::nullopt;
        case BaseCommand::SUBSCRIBE:
            if (auto refused = unparsedSubscribe(c.subscribe(), broker_.profile().maxProtocolVersion)) return refused;
            handleSubscribe(c.subscribe());
            return std::nullopt;
        case BaseCommand::SEND:
            if (frame == nullptr) return "a SEND without its payload";  // never handed over (decodesToItself)
            handleSend(c.send(), *frame);
            return std::nullopt;
        case BaseCommand::GET_OR_CREATE_SCHEMA:
            if (auto refused = getOrCreateSchemaUnsupported(protocolVersion_)) return refused;
            handleGetOrCreateSchema(c.getorcreateschema());
            return std::nullopt;
        // Always handled.
        case BaseCommand::PRODUCER: handleProducer(c.producer()); return std::nullopt;
        case BaseCommand::CLOSE_PRODUCER: handleCloseProducer(c.close_producer()); return std::nullopt;
        case BaseCommand::CLOSE_CONSUMER: handleCloseConsumer(c.close_consumer()); return std::nullopt;
        case BaseCommand::GET_SCHEMA: handleGetSchema(c.getschema()); return std::nullopt;
        case BaseCommand::PING: send(wire::pong()); return std::nullopt;
        case BaseCommand::PONG: return std::nullopt;
        case BaseCommand::FLOW: handleFlow(c.flow()); return std::nullopt;
        case BaseCommand::ACK: handleAck(c.ack()); return std::nullopt;
        case BaseCommand::REDELIVER_UNACKNOWLEDGED_MESSAGES: handleRedeliver(c.redeliverunacknowledgedmessages()); return std::nullopt;
        case BaseCommand::UNSUBSCRIBE: handleUnsubscribe(c.unsubscribe()); return std::nullopt;
        case BaseCommand::GET_LAST_MESSAGE_ID: handleGetLastMessageId(c.getlastmessageid()); return std::nullopt;
        case BaseCommand::LOOKUP: handleLookup(c.lookuptopic()); return std::nullopt;
        case BaseCommand::PARTITIONED_METADATA: handlePartitionedMetadata(c.partitionmetadata()); return std::nullopt;
        case BaseCommand::GET_TOPICS_OF_NAMESPACE: handleGetTopicsOfNamespace(c.gettopicsofnamespace()); return std::nullopt;
        case BaseCommand::SEEK: handleSeek(c.seek()); return std::nullopt;
        case BaseCommand::CONSUMER_STATS: handleConsumerStats(c.consumerstats()); return std::nullopt;
        case BaseCommand::AUTH_RESPONSE: handleAuthResponse(c.authresponse()); return std::nullopt;
        // What a client may send and this model does not serve yet: the
        // connection closes with that reason, never a parse error (issue 9).
        case BaseCommand::WATCH_TOPIC_LIST:
        case BaseCommand::WATCH_TOPIC_LIST_CLOSE: return notModelled(type, "topic watchers");
        case BaseCommand::NEW_TXN:
        case BaseCommand::ADD_PARTITION_TO_TXN:
        case BaseCommand::ADD_SUBSCRIPTION_TO_TXN:
        case BaseCommand::END_TXN:
        case BaseCommand::END_TXN_ON_PARTITION:
        case BaseCommand::END_TXN_ON_SUBSCRIPTION:
        case BaseCommand::TC_CLIENT_CONNECT_REQUEST:
        case BaseCommand::SCALABLE_TOPIC_LOOKUP:
        case BaseCommand::SCALABLE_TOPIC_CLOSE:
        case BaseCommand::SCALABLE_TOPIC_SUBSCRIBE:
        case BaseCommand::WATCH_SCALABLE_TOPICS:
        case BaseCommand::WATCH_SCALABLE_TOPICS_CLOSE:
        case BaseCommand::WATCH_TC_ASSIGNMENTS:
        case BaseCommand::WATCH_TC_ASSIGNMENTS_CLOSE: return notModelled(type, "transactions and scalable topics");
        // What only a broker sends (wire::Sender::broker), every such type.
        CNX_WIRE_COMMANDS(CNX_WIRE_BROKER_CASE) return "a client may not send " + BaseCommand::Type_Name(type);
    }
    return "unsupported command";
}

}  // namespace cnx
