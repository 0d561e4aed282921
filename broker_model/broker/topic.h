#pragma once
// A topic (or one partition of a partitioned topic) as the broker holds it
// while loaded: its producers, subscriptions and consumers, and the schema
// operations of `AbstractTopic` / `PersistentTopic` / `NonPersistentTopic`
// (reference §3).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "broker_model/broker/message_log.h"
#include "broker_model/core/broker_error.h"
#include "broker_model/core/compatibility_strategy.h"
#include "broker_model/core/schema_data.h"
#include "broker_model/core/topic_name.h"
#include "broker_model/core/trace.h"
#include "broker_model/runtime/continuation.h"
#include "broker_model/runtime/stage.h"

namespace cnx {

class Broker;
struct ManagedLedgerState;

struct AttachedProducer {
    std::string name;
    std::uint64_t connectionId = 0;
    std::uint64_t producerId = 0;
    std::string accessMode = "Shared";
    bool replicator = false;  // name starts with `<replicatorPrefix>.`
    std::optional<SchemaVersion> schemaVersion;  // nullopt: connected without schema
};

struct AttachedConsumer {
    std::string name;
    std::uint64_t connectionId = 0;
    std::uint64_t consumerId = 0;
    SchemaType schemaType = SchemaType::NONE;  // 3.0+: the type it subscribed with (NONE: no schema)
    std::int64_t permits = 0;  // FLOW permits not used yet: one per message, so a batch may overdraw them
    std::set<std::uint64_t> pending;           // entries dispatched to it and not acknowledged
    std::int32_t priorityLevel = 0;            // Failover: the active consumer is of the highest priority (lowest value)
    // Key_Shared (key_shared.cc): STICKY with the consumer's own hash ranges
    // (KeySharedMeta.hashRanges, inclusive); AUTO_SPLIT (the default) gets a
    // part of the subscription's range.
    bool sticky = false;
    std::vector<std::pair<std::int32_t, std::int32_t>> hashRanges;
};

struct Subscription {
    std::string name;
    std::string subType;  // Exclusive, Shared, Failover, Key_Shared
    bool durable = true;
    std::vector<AttachedConsumer> consumers;
    Cursor cursor;
    std::size_t nextConsumer = 0;  // Shared round robin
    bool resetting = false;        // a SEEK is closing its consumers (PersistentSubscription.resetCursor)
    // Key_Shared AUTO_SPLIT (HashRangeAutoSplitStickyKeyConsumerSelector): the
    // end of each consumer's part of [0, 65536], to (connection id, consumer id).
    std::map<std::uint32_t, std::pair<std::uint64_t, std::uint64_t>> splitRanges;
    // Failover: the active consumer, (connection id, consumer id).
    std::optional<std::pair<std::uint64_t, std::uint64_t>> active;
};

/// Where a new subscription's cursor starts (PersistentTopic.internalSubscribe):
/// SUBSCRIBE's initialPosition, and for a non-durable subscription (a reader)
/// its start_message_id, as the broker reads them (getNonDurableSubscription,
/// NonDurableCursorImpl). A durable subscription ignores the message id.
struct SubscriptionStart {
    bool earliest = false;  // initialPosition Earliest
    /// start_message_id as sent: signed ids (MessageId.earliest is -1:-1,
    /// MessageId.latest Long.MAX:Long.MAX), the batch index it carries or -1.
    struct MessageId {
        std::int64_t ledgerId = -1;
        std::int64_t entryId = -1;
    };
    std::optional<MessageId> messageId;
    /// read_compacted: allowed on Exclusive and Failover subscriptions of a persistent topic only.
    bool readCompacted = false;
};

/// Owned by the broker through `std::shared_ptr`: every continuation a topic
/// posts holds a strong reference to it, as a Java future holds its topic, so
/// a topic unloaded while a continuation is pending stays alive until that
/// continuation has run, fenced (`isFenced` in `AbstractTopic`).
class Topic : public std::enable_shared_from_this<Topic> {
public:
    using VersionCallback = std::function<void(Result<SchemaVersion>)>;
    using CheckCallback = std::function<void(std::optional<BrokerError>)>;

    /// `broker` must outlive the topic.
    Topic(TopicName name, Broker& broker);

    const TopicName& name() const { return name_; }
    /// name().schemaId(), made once: the registry is asked by it on every request.
    const std::string& schemaId() const { return schemaId_; }
    bool persistent() const { return name_.persistent(); }
    /// The broker unloaded (or deleted) the topic: later attachments are refused
    /// with `TopicFencedException` (ServiceNotReady), as a fenced topic's are.
    void fence() { fenced_ = true; }
    bool fenced() const { return fenced_; }
    /// Whether its first load completed: until then a connect waits for it (a
    /// topicLoad stage), as for the future `getOrCreateTopic` returns.
    /// Runs `next` after the topic's first load: the connect that created the
    /// topic waits for it (a topicLoad stage); any other goes on at once. (In
    /// the broker the others wait on the same future and run right after it
    /// completes; letting them run earlier only adds schedules whose steps
    /// the broker can also take later, at their own asynchronous stages.)
    void whenLoaded(Continuation&& next);

    /// §3.2: the latest registry entry exists and is not a delete marker.
    bool hasSchema() const;
    /// §3.3 `addSchema`: register (auto-update allowed) or look up (disallowed).
    void addSchema(const SchemaData& schema, TracePtr trace, VersionCallback done);
    /// §3.5 `addSchemaIfIdleOrCheckCompatible`.
    void addSchemaIfIdleOrCheckCompatible(const SchemaData& schema, TracePtr trace, CheckCallback done);
    /// §3.5: whether a consumer with a schema would be treated as on an idle
    /// topic right now; `why` receives the inputs looked at.
    bool isIdleForSchema(std::string* why) const;

    /// Attaches a producer (access modes, name conflicts); the error on refusal.
    std::optional<BrokerError> addProducer(const AttachedProducer& producer);
    void removeProducer(std::uint64_t connectionId, std::uint64_t producerId);
    /// Attaches a consumer to `subscription`, creating it if needed at `start`
    /// (the next entry, the first when `earliest`, a reader's start message id);
    /// an existing subscription keeps its cursor. The refusal, if any.
    std::optional<BrokerError> subscribe(const std::string& subscription, const std::string& subType, bool durable,
                                         const AttachedConsumer& consumer, const SubscriptionStart& start = {});
    /// PIP-124: creates the durable subscription `subscription` at the first
    /// entry, without consumers (PersistentTopic.createSubscription at
    /// Earliest), unless it exists. Persistent topics only.
    void createSubscription(const std::string& subscription);
    /// The cursor a consumer's subscription holds, or nullptr when it is not attached.
    const Cursor* cursorOf(std::uint64_t connectionId, std::uint64_t consumerId) const;
    void removeConsumer(std::uint64_t connectionId, std::uint64_t consumerId);
    /// Drops every attachment of a connection (the connection closed).
    void removeConnection(std::uint64_t connectionId);
    /// Stores a published entry (§3.5 data test: `bytes` bytes), a copy of
    /// `metadata` and `payload` as sent, and dispatches it to the
    /// subscriptions' consumers that have permits.
    /// nullopt, nothing stored, when the broker's log bound (Broker::setMaxLogBytes) is reached.
    std::optional<Position> publish(std::size_t bytes,
                     const pulsar::proto::MessageMetadata& metadata = pulsar::proto::MessageMetadata::default_instance(),
                     std::string_view payload = {});

    // Delivery (topic_dispatch.cc). A consumer is (connection id, consumer id).
    /// FLOW: adds permits and dispatches.
    void flow(std::uint64_t connectionId, std::uint64_t consumerId, std::uint32_t permits);
    /// The consumer's connection is writable again: dispatch what waited for it.
    void resumeDispatch(std::uint64_t connectionId, std::uint64_t consumerId);
    /// ACK: individual or cumulative; false when the consumer is not attached.
    /// `ackSets[i]`: the ack_set of positions[i] (empty: none), batch-index acknowledgement.
    bool acknowledge(std::uint64_t connectionId, std::uint64_t consumerId, bool cumulative,
                     const std::vector<Position>& positions,
                     const std::vector<std::vector<std::int64_t>>& ackSets = {});
    /// REDELIVER_UNACKNOWLEDGED_MESSAGES: the consumer's pending entries (all when
    /// `positions` is empty) are dispatched again with their redelivery count + 1.
    void redeliver(std::uint64_t connectionId, std::uint64_t consumerId, const std::vector<Position>& positions);
    /// Where SEEK resets a cursor: a message id, or the first entry published
    /// at or after a time (ms since the epoch).
    struct SeekTarget {
        std::optional<Position> messageId;
        std::optional<std::uint64_t> publishTime;
    };
    /// SEEK (PersistentSubscription.resetCursor): the consumers attached to the
    /// seeking consumer's subscription, as (connection id, consumer id), for the
    /// caller to close (CLOSE_CONSUMER) before the cursor is reset with
    /// resetCursor(); nullopt (the error) when the consumer is not attached.
    std::optional<std::vector<std::pair<std::uint64_t, std::uint64_t>>> seekConsumers(std::uint64_t connectionId,
                                                                                        std::uint64_t consumerId,
                                                                                        std::string* subscription);
    /// Resets `subscription`'s cursor to `target`: everything before it counts as
    /// acknowledged, nothing after it does, the next read is at it.
    void resetCursor(const std::string& subscription, const SeekTarget& target);
    /// UNSUBSCRIBE: the subscription goes when this consumer is its only one
    /// (or `force`); the refusal otherwise.
    std::optional<BrokerError> unsubscribe(std::uint64_t connectionId, std::uint64_t consumerId, bool force);
    /// The last entry's position; entry id -1 (as unsigned) when the log is empty.
    Position lastPosition() const;
    /// The last stored entry, or nullptr when the log is empty.
    const Entry* lastEntry() const;

    const std::vector<AttachedProducer>& producers() const {
        touched(false);
        return producers_;
    }
    const std::map<std::string, Subscription>& subscriptions() const {
        touched(false);
        return subscriptions_;
    }
    int consumerCount() const;
    /// Entries of the log `sub` has not acknowledged (msgBacklog in stats).
    std::uint64_t backlogOf(const Subscription& sub) const;
    bool hasSubscription(const std::string& name) const {
        touched(false);
        return subscriptions_.count(name) > 0;
    }

private:
    /// Tells the scheduler that the attachments, subscriptions or log of this
    /// topic are read or written (Scheduler::touch), for a race explorer.
    void touched(bool write) const;
    /// A stage of this topic (its name and schema id).
    StageRef stage(StageKind kind) const { return StageRef{kind, name_.toString(), schemaId_}; }
    bool notIdle(std::string* why) const;
    /// The attached producer whose access mode is not Shared, if any.
    const AttachedProducer* exclusiveHolder() const;
    void attachProducer(const AttachedProducer& producer);
    /// ExclusiveWithFencing: every attached producer is detached and closed
    /// through its connection (CLOSE_PRODUCER), as AbstractTopic fences them.
    void fenceProducers();
    /// Adds subscription `name` (at `hint`) with its cursor at `start`, kept in
    /// the managed ledger when durable on a persistent topic.
    Subscription& addSubscription(std::map<std::string, Subscription>::iterator hint, const std::string& name,
                                  const std::string& subType, bool durable, const SubscriptionStart& start);
    /// Where a new subscription's cursor starts in `entries`: the next entry to read.
    std::uint64_t startEntry(const MessageLog& entries, bool durable, const SubscriptionStart& start) const;
    /// Detaches every producer for which `detach` holds, keeping the name index.
    template <typename Pred>
    void detachProducersIf(Pred detach);
    void checkConsumerLegacy(const SchemaData& schema, CompatibilityStrategy strategy, TracePtr trace,
                             CheckCallback done);
    MessageLog& log();
    const MessageLog& log() const;
    /// Sends what `sub` can deliver to its consumers with permits.
    void dispatch(Subscription& sub);
    /// An ACK with an ack_set on `entry`; true when part of the batch stays unacknowledged.
    bool acknowledgeBatchIndexes(Cursor& cursor, bool cumulative, std::uint64_t entry,
                                 const std::vector<std::int64_t>& ackSet);
    /// Delayed delivery: whether `entry`, read for the first time, waits for its
    /// deliver_at_time (held in the cursor, with a timer that dispatches again).
    bool holdForLater(Subscription& sub, std::uint64_t entry);
    /// The held entries whose time has come go to the replay set.
    void releaseDue(Subscription& sub);
    /// A delivery timer fired: `subscription` dispatches what is due.
    void deliverDue(const std::string& subscription);
    /// Whether `c` takes an entry now: permits, and a writable connection.
    bool readyForEntry(const AttachedConsumer& c) const;
    /// Sends entry `entry` of the log to `consumer` of `sub` (permits, pending, redelivery count, ack set).
    void sendEntry(Subscription& sub, AttachedConsumer& consumer, std::uint64_t entry);
    // key_shared.cc: Key_Shared routing and the Failover active consumer.
    /// Key_Shared dispatch: each entry to the consumer whose range holds its key's hash.
    void dispatchByKey(Subscription& sub);
    /// The consumer of `sub` whose hash range holds `slot` (nullptr: none).
    AttachedConsumer* consumerForSlot(Subscription& sub, std::uint32_t slot);
    /// Assigns a Key_Shared consumer its range; the ConsumerAssignException refusal.
    std::optional<BrokerError> assignKeyRange(Subscription& sub, const AttachedConsumer& consumer);
    /// Gives the leaving consumer's AUTO_SPLIT range to its neighbour.
    void releaseKeyRange(Subscription& sub, const AttachedConsumer& consumer);
    /// Failover: picks the active consumer and notifies (pickAndScheduleActiveConsumer);
    /// `added`: the consumer that just joined (told who is active when nothing changed).
    void pickActiveConsumer(Subscription& sub, const AttachedConsumer* added);
    /// The consumer that receives a single-active-consumer subscription's entries.
    AttachedConsumer* activeConsumerOf(Subscription& sub);
    /// A consumer is leaving `sub`: its key range, and the active consumer, go to the others.
    void consumerLeaving(Subscription& sub, const AttachedConsumer& consumer);
    /// After consumers left `sub`: a Failover subscription picks its active consumer again.
    void consumersLeft(Subscription& sub);
    /// The consumer's entries go back to the replay set (it closed, or asked).
    void releasePending(Subscription& sub, AttachedConsumer& consumer, bool countRedelivery);
    /// Whether redeliveries of `sub` are counted (redelivery_count on MESSAGE).
    bool tracksRedelivery(const Subscription& sub) const;
    /// Keeps a durable subscription's acknowledged state in the managed ledger.
    void persistCursor(const Subscription& sub);
    /// The same into `ledger`, this topic's, found already; `sub` is durable
    /// and the topic persistent and not fenced (the caller checked).
    void persistCursor(const Subscription& sub, ManagedLedgerState& ledger);
    /// After an ACK: the durable state of `sub` gets what changed (markDelete,
    /// the entries acknowledged individually), not a copy of all of it.
    void persistAcks(const Subscription& sub, const std::vector<std::uint64_t>& individual);
    /// Drops the entries every subscription has acknowledged (none without a
    /// subscription), keeping the last one (GET_LAST_MESSAGE_ID reads it).
    void trimAcknowledged();
    std::pair<Subscription*, AttachedConsumer*> findConsumer(std::uint64_t connectionId, std::uint64_t consumerId);
    // The continuations' bodies: each posted lambda holds a strong reference
    // to the topic (shared_from_this) and calls one of these on it.
    void idleOrCheck(const SchemaData& schema, const TracePtr& trace, CheckCallback done);
    void checkConsumerLegacyNow(const SchemaData& schema, CompatibilityStrategy strategy, const TracePtr& trace,
                                const CheckCallback& done);

    TopicName name_;
    std::string schemaId_;  // name_.schemaId()
    Broker& broker_;
    std::vector<AttachedProducer> producers_;
    // Indexes of producers_, so attaching and detaching are O(1) however many
    // are attached: their names (unique on a topic), where each one is (by
    // connection and producer id: a CLOSE_PRODUCER swaps the last one into its
    // place, issue 40 item 6) and how many are not Shared.
    std::unordered_set<std::string> producerNames_;
    struct ProducerKeyHash {
        std::size_t operator()(const std::pair<std::uint64_t, std::uint64_t>& k) const noexcept {
            return std::hash<std::uint64_t>{}(k.first * 0x9E3779B97F4A7C15ull ^ k.second);
        }
    };
    std::unordered_map<std::pair<std::uint64_t, std::uint64_t>, std::size_t, ProducerKeyHash> producerAt_;
    std::size_t nonSharedProducers_ = 0;
    std::map<std::string, Subscription> subscriptions_;
    // The cursors of readers (non-durable subscriptions) whose consumers a SEEK
    // closed: PersistentSubscription.removeConsumer(isResetCursor) keeps the
    // managed ledger's cursor, and a reader that subscribes again by the same
    // name gets it back (ManagedLedgerImpl.newNonDurableCursor), at the reset position.
    std::map<std::string, Cursor> keptReaderCursors_;
    std::uint64_t entriesAdded_ = 0;  // non-persistent: messages added since the topic was loaded
    MessageLog liveLog_;              // non-persistent: the entries while loaded
    bool fenced_ = false;
    bool loadStarted_ = false;
};

}  // namespace cnx
