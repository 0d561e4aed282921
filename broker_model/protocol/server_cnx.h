#pragma once
// One client connection's handler, as `ServerCnx` in the broker (reference
// §1, §2, §8): frames in, frames out. Every scenario connect goes through
// here as a wire command; there is no other path into the model.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "broker_model/auth/authentication.h"
#include "broker_model/broker/broker.h"
#include "broker_model/broker/connection_registry.h"
#include "broker_model/runtime/lifetime.h"
#include "broker_model/core/trace.h"
#include "broker_model/wire/command_pool.h"
#include "broker_model/wire/frame.h"

namespace cnx {

class ServerCnx final : public BrokerConnection {
public:
    /// Called with every frame the broker sends to this client.
    using Sender = std::function<void(std::string frame)>;
    /// For a client in the same process (sim/clients/client_session.h): every
    /// command the broker sends, handed over with its frame. The frame is empty
    /// when decoding it would give back the command and nothing else
    /// (wire::decodesToItself): it is not encoded then, and the client reads
    /// the command as it is. Otherwise it is the frame the command went out as
    /// (valid during the call), which the client decodes.
    using Receiver = std::function<void(wire::PooledCommand command, std::string_view frame)>;
    /// Shown every command the broker sends, before it is encoded (`cnxsim serve --trace`).
    using Observer = std::function<void(const pulsar::proto::BaseCommand& command)>;
    /// How many requests' traces a connection keeps (the newest): trace() of an
    /// older request is empty, so a long-lived connection's memory stays bounded.
    static constexpr std::size_t kKeptTraces = 1024;

    /// `broker` must outlive the connection, which registers with it (the
    /// broker's connection registry) until it closes. The broker-wide
    /// enforcement flag is read once, here (§1.3).
    ServerCnx(Broker& broker, Sender send);
    ServerCnx(Broker& broker, Receiver receive);
    ~ServerCnx() override;
    ServerCnx(const ServerCnx&) = delete;
    ServerCnx& operator=(const ServerCnx&) = delete;

    /// Handles one frame from the client. A malformed or out-of-protocol frame
    /// closes the connection: the reason is returned and later frames are refused.
    std::optional<std::string> receive(std::string_view frame);
    /// The same for a frame already decoded (by a wire::FrameStream reading a
    /// byte stream): every BaseCommand type is handled or refused, none crashes.
    std::optional<std::string> receive(const wire::Frame& frame);
    /// The same for a command from a client in the same process: handled as
    /// receive(wire::encodeFrame(command)), without the encode and the decode
    /// when the decode would give back the command (wire::decodesToItself).
    std::optional<std::string> receive(const pulsar::proto::BaseCommand& command);
    /// The same for a payload command (SEND) from a client in the same process:
    /// handled as receive(wire::encodePayloadFrame(command, metadata, payload)),
    /// without the encode and the decode when the decode would give back the
    /// three (wire::payloadFrameDecodesToItself).
    std::optional<std::string> receive(const pulsar::proto::BaseCommand& command,
                                       const pulsar::proto::MessageMetadata& metadata, std::string_view payload);

    /// The decision trace of the request `requestId` (empty if unknown).
    TracePtr trace(std::uint64_t requestId) const;
    /// The same, handed over: the connection keeps it no longer (trace() of
    /// `requestId` is empty from now on). For a caller that reads each
    /// request's trace once, when its answer is in, and keeps it itself.
    TracePtr takeTrace(std::uint64_t requestId);
    /// Negotiated protocol version (0 before CONNECTED).
    int protocolVersion() const { return protocolVersion_; }
    /// CONNECT's client_version (what topic stats show as a producer's or consumer's clientVersion).
    const std::string& clientVersion() const override { return clientVersion_; }
    std::uint64_t id() const override { return id_; }
    bool closed() const { return closed_; }
    /// The broker dropped the connection (a restart, or a CLOSE the client's
    /// protocol predates): the transport should close once what was sent is out.
    bool droppedByBroker() const { return droppedByBroker_; }
    /// Called once when the broker drops the connection (never from close()).
    void setOnDropped(std::function<void()> onDropped) { onDropped_ = std::move(onDropped); }
    void setObserver(Observer observer) { observer_ = std::move(observer); }
    /// The client certificate the TLS handshake verified: the transport calls
    /// it right after making the connection, before any frame (issue 44).
    void setPeerCertificate(auth::PeerCertificate peer) { peer_ = std::move(peer); }
    /// The role CONNECT authenticated (or the anonymous role); empty when
    /// authentication is off or the connection is not connected yet.
    /// Authorization checks it (policy/authorization.h).
    const std::string& authRole() const { return authRole_; }
    /// The method the client authenticated with (`token`, `basic`, `tls`, `none`).
    const std::string& authMethod() const { return authMethod_; }
    /// The connection drops: every producer and consumer it holds is detached
    /// and the connection leaves the broker's registry.
    void close();

    // BrokerConnection: the broker closes this connection's producers and
    // consumers (CLOSE_PRODUCER / CLOSE_CONSUMER go to the client, which may
    // reconnect with the same ids), or drops the connection.
    /// Those on `topic`: a partitioned topic's base name covers its partitions.
    void closeTopic(const TopicName& topic) override;
    void closeAll() override;
    void closeProducers(const TopicName& topic) override;
    void closeConsumer(std::uint64_t consumerId) override;
    void closeProducer(std::uint64_t producerId) override;
    void disconnect() override;
    void brokerGone() override;
    void deliver(std::uint64_t consumerId, const Entry& entry, std::uint32_t redeliveryCount,
                 const std::vector<std::int64_t>& ackSet) override;
    void activeConsumerChange(std::uint64_t consumerId, bool isActive) override;
    bool isWritable() const override { return writable_; }
    /// The transport's writability: false while the bytes waiting to go to the
    /// peer are over its high-water mark, true again once they drained below the
    /// low one, which resumes dispatch to this connection's consumers (as
    /// Netty's channel writability does in the broker). Always true for a
    /// client in the same process.
    void setWritable(bool writable);

private:
    enum class State { pending, ready, failed };
    struct ProducerSlot {
        State state = State::pending;
        std::string topic;
        std::string name;
        std::string schemaVersion;  // wire bytes
        BrokerError error;
    };
    struct ConsumerSlot {
        State state = State::pending;
        std::string topic;
        BrokerError error;
        int partition = -1;  // the topic's partition index, carried by every MESSAGE's id
        std::optional<bool> activeNotice;  // ACTIVE_CONSUMER_CHANGE owed once SUBSCRIBE is answered
    };
    // What the continuations of one PRODUCER or SUBSCRIBE read of it, taken
    // when the command arrives and shared by them (the schema in the model's
    // form), rather than a copy of the whole command.
    struct ProducerRequest {
        std::uint64_t producerId = 0;
        std::uint64_t requestId = 0;
        pulsar::proto::ProducerAccessMode accessMode = pulsar::proto::Shared;
        std::string name;  // given, or generated when the command has none
        std::optional<SchemaData> schema;
        std::string initialSubscription;  // initial_subscription_name (PIP-124), empty when none
    };
    struct SubscribeRequest {
        std::uint64_t consumerId = 0;
        std::uint64_t requestId = 0;
        std::string consumerName;
        std::string subscription;
        pulsar::proto::CommandSubscribe::SubType subType = pulsar::proto::CommandSubscribe::Exclusive;
        bool durable = true;
        SubscriptionStart start;  // initialPosition, start_message_id, read_compacted
        std::int32_t priorityLevel = 0;
        std::optional<pulsar::proto::KeySharedMeta> keySharedMeta;  // Key_Shared: the consumer's mode and ranges
        std::optional<SchemaData> schema;
    };

    // `frame` is the decoded frame `c` came in, null for a command handed over
    // as it is (never a payload command). accept refuses it on a closed
    // connection and closes the connection when dispatch refuses it.
    std::optional<std::string> accept(const pulsar::proto::BaseCommand& c, const wire::Frame* frame);
    std::optional<std::string> dispatch(const pulsar::proto::BaseCommand& c, const wire::Frame* frame);
    void handleConnect(const pulsar::proto::CommandConnect& cmd);
    // Authentication (issue 44): ServerCnx.handleConnect / doAuthentication /
    // completeConnect / authenticationFailed / refreshAuthenticationCredentials.
    void completeConnect(const pulsar::proto::CommandConnect& cmd);
    void authenticationFailed(const std::string& why);
    void handleAuthResponse(const pulsar::proto::CommandAuthResponse& cmd);
    /// The next refresh check, when the credentials expire (a token's `exp`).
    void scheduleAuthRefreshCheck();
    void refreshAuthenticationCredentials();
    void noteMissingNamespace(const TopicName& name, TraceText section, Trace& trace) const;
    /// The topic a command names: the loaded topic's own name when `text` is
    /// its full name (a name parses to itself), else the parse of `text`, kept
    /// in `parsed`; nullptr, with `error` set, when `text` does not parse.
    const TopicName* topicNameOf(const std::string& text, std::optional<TopicName>& parsed, std::string& error);
    void afterTopicLoad(const std::shared_ptr<Topic>& topic, Continuation&& next);
    void subscribeWithSchema(std::shared_ptr<const SubscribeRequest> req, std::shared_ptr<Topic> topic, TracePtr trace);
    void handleProducer(const pulsar::proto::CommandProducer& cmd);
    void handleSubscribe(const pulsar::proto::CommandSubscribe& cmd);
    bool answeredByProducerEntry(const pulsar::proto::CommandProducer& cmd, Trace& trace);
    bool answeredByConsumerEntry(const pulsar::proto::CommandSubscribe& cmd, Trace& trace);
    static std::shared_ptr<const ProducerRequest> producerRequestOf(const pulsar::proto::CommandProducer& cmd,
                                                                    std::string name);
    static std::shared_ptr<SubscribeRequest> subscribeRequestOf(const pulsar::proto::CommandSubscribe& cmd, Trace& trace);
    void handleSend(const pulsar::proto::CommandSend& cmd, const wire::Frame& frame);
    void handleCloseProducer(const pulsar::proto::CommandCloseProducer& cmd);
    void handleCloseConsumer(const pulsar::proto::CommandCloseConsumer& cmd);
    void handleGetSchema(const pulsar::proto::CommandGetSchema& cmd);
    // Delivery (consumer_commands.cc).
    void handleFlow(const pulsar::proto::CommandFlow& cmd);
    void handleAck(const pulsar::proto::CommandAck& cmd);
    void handleRedeliver(const pulsar::proto::CommandRedeliverUnacknowledgedMessages& cmd);
    void handleUnsubscribe(const pulsar::proto::CommandUnsubscribe& cmd);
    void handleGetLastMessageId(const pulsar::proto::CommandGetLastMessageId& cmd);
    /// GET_LAST_MESSAGE_ID's consumer_mark_delete_position: (ledger, entry), nullopt when none is sent.
    std::optional<std::pair<std::int64_t, std::int64_t>> markDeletePosition(const Topic& topic,
                                                                           std::uint64_t consumerId) const;
    void handleSeek(const pulsar::proto::CommandSeek& cmd);
    // stats_commands.cc
    void handleConsumerStats(const pulsar::proto::CommandConsumerStats& cmd);
    /// The loaded topic a ready consumer of this connection is attached to, or nullptr.
    Topic* consumerTopic(std::uint64_t consumerId);
    // lookup.cc: where a topic is served and what a namespace holds.
    void handleLookup(const pulsar::proto::CommandLookupTopic& cmd);
    void handlePartitionedMetadata(const pulsar::proto::CommandPartitionedTopicMetadata& cmd);
    void handleGetTopicsOfNamespace(const pulsar::proto::CommandGetTopicsOfNamespace& cmd);
    void handleGetOrCreateSchema(const pulsar::proto::CommandGetOrCreateSchema& cmd);
    /// The "registry read" stage of GET_SCHEMA.
    void answerGetSchema(std::uint64_t requestId, const std::string& id, std::optional<std::int64_t> wanted,
                         const std::string& topic, Trace& trace);
    void answerGetOrCreateSchema(std::uint64_t requestId, const Result<SchemaVersion>& r, Trace& trace);

    void noteProducerGaps(const pulsar::proto::CommandProducer& cmd, const TopicName& topic,
                          const std::string& producerName, Trace& trace) const;
    bool isReplicator(const std::string& producerName) const;
    /// §1.3; `replicator`: the producer's name marks it as a geo-replicator (#25012 gap).
    void producerWithoutSchema(std::shared_ptr<Topic> topic, bool replicator,
                               std::function<void(Result<SchemaVersion>)> done, TracePtr trace);
    /// The decision of producerWithoutSchema, once the topic's schema has been looked up.
    void decideWithoutSchema(const Topic& topic, bool replicator, const std::function<void(Result<SchemaVersion>)>& done,
                             Trace& trace) const;
    void attachProducer(const ProducerRequest& req, Topic& topic, std::optional<SchemaVersion> version, TracePtr trace);
    /// PIP-124: creates the producer's initial subscription where the broker does;
    /// the refusal when auto subscription creation is off.
    std::optional<BrokerError> createInitialSubscription(const ProducerRequest& req, Topic& topic, Trace& trace);
    void failProducer(std::uint64_t producerId, std::uint64_t requestId, const BrokerError& error, TracePtr trace,
                      bool schemaStage = true);
    void attachConsumer(std::shared_ptr<const SubscribeRequest> req, std::shared_ptr<Topic> topic, SchemaType type,
                        TracePtr trace);
    /// The "subscribe" stage: attaches the consumer to its subscription.
    void subscribeNow(const SubscribeRequest& req, Topic& topic, SchemaType type, const TracePtr& trace);
    void failConsumer(std::uint64_t consumerId, std::uint64_t requestId, const BrokerError& error, TracePtr trace);
    /// §1.5: the text a producer-path failure carries.
    std::string producerErrorText(const BrokerError& error) const;
    TracePtr newTrace(std::uint64_t requestId);

    void sendError(std::uint64_t requestId, ServerError code, const std::string& message);
    void send(wire::PooledCommand cmd);
    /// The command's frame to the Sender, or both to the Receiver.
    void transmit(wire::PooledCommand cmd, std::string frame);

    Broker& broker_;
    Sender send_;
    Receiver receive_;
    std::string out_;  // the frame being handed to a Receiver: one buffer, reused
    Observer observer_;
    std::function<void()> onDropped_;
    bool droppedByBroker_ = false;
    std::uint64_t id_;
    bool schemaValidationEnforced_;  // broker flag, read at connection creation (§1.3)
    bool connected_ = false;
    bool closed_ = false;
    bool writable_ = true;
    int protocolVersion_ = 0;
    std::string clientVersion_;
    auth::PeerCertificate peer_;
    std::string authRole_;
    std::string authMethod_;
    std::optional<std::int64_t> authExpiresAtMs_;  // when the credentials expire, if they do
    std::int64_t authCheckOriginMs_ = 0;           // the refresh check's period counts from CONNECT
    bool supportsAuthRefresh_ = false;             // CONNECT's feature_flags.supports_auth_refresh
    bool pendingAuthChallengeResponse_ = false;
    bool authRefreshScheduled_ = false;
    /// ServerCnx.isTopicOperationAllowed with `authorizationEnabled`: nullopt
    /// when allowed, else the refusal's text (`denied`, or the failed check's
    /// message, as a missing tenant's); both are AuthorizationError.
    std::optional<std::string> refuseTopicOperation(const TopicName& topic, auth::TopicOperation op,
                                                    const std::string& denied, Trace& trace,
                                                    std::string_view subscription = {},
                                                    const std::string& failed = {}) const;
    std::uint64_t generatedNames_ = 0;
    std::map<std::uint64_t, ProducerSlot> producers_;
    std::map<std::uint64_t, ConsumerSlot> consumers_;
    // Request id and trace, oldest first; a taken trace leaves an empty slot.
    std::deque<std::pair<std::uint64_t, TracePtr>> traces_;
    // The newest slot of each request id in traces_, by its position counted
    // from the first slot ever kept (tracesDropped_ slots have left the front):
    // a search of every kept slot per request made a producer on 100,000
    // partitions spend most of its time here (issue 40 item 19).
    std::unordered_map<std::uint64_t, std::uint64_t> traceSlots_;
    std::uint64_t tracesDropped_ = 0;
    /// Where in traces_ the kept trace of `requestId` is (nullopt when none or taken).
    std::optional<std::size_t> keptTrace(std::uint64_t requestId) const;
    /// Closes the slots whose topic `which` selects, telling the client.
    void closeSlots(const std::function<bool(const std::string& topic)>& which, bool consumersToo = true);
    /// The synchronous handling of request `requestId`: stages posted meanwhile are its.
    Scheduler::OriginScope handling(std::uint64_t requestId) {
        return Scheduler::OriginScope(broker_.scheduler(), Origin{id_, requestId});
    }

    // Continuations hold a guard of this, never `this`: once the connection
    // has closed they do nothing.
    Lifetime<ServerCnx> lifetime_{this};
};

}  // namespace cnx
