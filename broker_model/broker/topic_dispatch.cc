// Message delivery on a topic: FLOW permits, dispatch of entries to the
// consumers of each subscription, acknowledgements, redelivery, unsubscribe.
// Exclusive and Failover subscriptions deliver to their active consumer;
// Shared round-robins over the consumers with permits, Key_Shared routes by
// key (key_shared.cc).

#include <algorithm>
#include <limits>

#include "broker_model/broker/broker.h"
#include "broker_model/broker/topic.h"

namespace cnx {

MessageLog& Topic::log() { return persistent() ? broker_.ledger(name_).log : liveLog_; }

const MessageLog& Topic::log() const {
    if (!persistent()) return liveLog_;
    const auto* ledger = broker_.findLedger(name_);
    return ledger ? ledger->log : liveLog_;
}

Position Topic::lastPosition() const {
    const auto& l = log();
    if (l.size() == 0) return {l.ledgerId, static_cast<std::uint64_t>(-1)};
    return {l.ledgerId, l.size() - 1};
}

const Entry* Topic::lastEntry() const {
    const auto& l = log();
    return l.empty() ? nullptr : &l.back();
}

std::pair<Subscription*, AttachedConsumer*> Topic::findConsumer(std::uint64_t connectionId, std::uint64_t consumerId) {
    for (auto& [_, sub] : subscriptions_) {
        for (auto& c : sub.consumers)
            if (c.connectionId == connectionId && c.consumerId == consumerId) return {&sub, &c};
    }
    return {nullptr, nullptr};
}

void Topic::persistCursor(const Subscription& sub) {
    if (fenced_ || !sub.durable || !persistent()) return;
    persistCursor(sub, broker_.ledger(name_));
}

void Topic::persistCursor(const Subscription& sub, ManagedLedgerState& ledger) {
    auto& state = ledger.cursorState[sub.name];
    state.markDelete = sub.cursor.markDelete;
    state.acked = sub.cursor.acked;
    state.ackSets = sub.cursor.ackSets;
}

// A consumer takes an entry when it has permits and its connection is
// writable: the broker's dispatchers read no batch for a consumer whose
// channel is not writable (PersistentDispatcherSingleActiveConsumer.
// calculateToRead, "the connection is not currently writable"), and the
// transport resumes dispatch once it drained (resumeDispatch).
bool Topic::readyForEntry(const AttachedConsumer& c) const {
    if (c.permits <= 0) return false;
    const auto* connection = broker_.connections().find(c.connectionId);
    return connection && connection->isWritable();
}

void Topic::dispatch(Subscription& sub) {
    touched(true);
    if (fenced_ || sub.consumers.empty()) return;
    if (sub.subType == "Key_Shared") {
        dispatchByKey(sub);
        return;
    }
    releaseDue(sub);
    const auto& entries = log();
    bool single = sub.subType == "Exclusive" || sub.subType == "Failover";
    auto pick = [&]() -> AttachedConsumer* {
        if (single) {
            auto* active = activeConsumerOf(sub);
            return active && readyForEntry(*active) ? active : nullptr;
        }
        for (std::size_t i = 0; i < sub.consumers.size(); ++i) {
            auto& c = sub.consumers[(sub.nextConsumer + i) % sub.consumers.size()];
            if (readyForEntry(c)) {
                sub.nextConsumer = (sub.nextConsumer + i + 1) % sub.consumers.size();
                return &c;
            }
        }
        return nullptr;
    };
    while (true) {
        // Entries to dispatch again come first, oldest first; then new ones.
        std::uint64_t entry = 0;
        bool replayed = false;
        while (!sub.cursor.replay.empty() &&
               (sub.cursor.isAcked(*sub.cursor.replay.begin()) || !entries.holds(*sub.cursor.replay.begin())))
            sub.cursor.replay.erase(sub.cursor.replay.begin());
        sub.cursor.readPosition = std::max(sub.cursor.readPosition, entries.first());  // trimmed: acknowledged by all
        if (!sub.cursor.replay.empty()) {
            entry = *sub.cursor.replay.begin();
            replayed = true;
        } else {
            while (sub.cursor.readPosition < entries.size() &&
                   (sub.cursor.isAcked(sub.cursor.readPosition) || holdForLater(sub, sub.cursor.readPosition)))
                ++sub.cursor.readPosition;
            if (sub.cursor.readPosition >= entries.size()) return;
            entry = sub.cursor.readPosition;
        }
        auto* consumer = pick();
        if (!consumer) return;
        if (replayed) sub.cursor.replay.erase(sub.cursor.replay.begin());
        else ++sub.cursor.readPosition;
        sendEntry(sub, *consumer, entry);
    }
}

// Delayed delivery (PIP-26): PersistentDispatcherMultipleConsumers, the
// dispatcher of Shared subscriptions, gives an entry whose deliver_at_time is
// still ahead to its DelayedDeliveryTracker (AbstractBaseDispatcher.
// filterEntriesForConsumer -> trackDelayedDelivery) and reads it again once
// due; Key_Shared's PersistentStickyKeyDispatcherMultipleConsumers extends it
// and holds them alike (the Go client's TestConsumerKeySharedWithDelayedMessages
// expects the delay on a Key_Shared subscription). Exclusive and Failover
// (single active consumer) and non-persistent topics deliver at once
// ("Delayed message delivery only works in Shared subscription type",
// Pulsar's documentation). delayedDeliveryEnabled (broker.conf, default true)
// turns it off. The time is the scheduler's clock, so a simulated run stays
// deterministic. Not modelled (#41): the tracker's tick (delayedDeliveryTickTimeMillis).
bool Topic::holdForLater(Subscription& sub, std::uint64_t entry) {
    bool shared = sub.subType == "Shared" || sub.subType == "Key_Shared";
    if (!persistent() || !shared || !broker_.policies().broker.delayedDeliveryEnabled) return false;
    if (sub.cursor.replay.count(entry)) return false;  // its time came already
    const auto& meta = log().at(entry).metadata;
    if (!meta.has_deliver_at_time()) return false;
    auto due = meta.deliver_at_time();
    if (due <= broker_.scheduler().nowMs()) return false;
    if (sub.cursor.delayed.emplace(entry, due).second) {
        broker_.scheduler().postAt(due, stage(StageKind::delivery),
                                   [self = shared_from_this(), name = sub.name] { self->deliverDue(name); });
    }
    return true;
}

void Topic::releaseDue(Subscription& sub) {
    if (sub.cursor.delayed.empty()) return;
    auto now = broker_.scheduler().nowMs();
    for (auto it = sub.cursor.delayed.begin(); it != sub.cursor.delayed.end();) {
        if (it->second > now) {
            ++it;
            continue;
        }
        if (!sub.cursor.isAcked(it->first)) sub.cursor.replay.insert(it->first);
        it = sub.cursor.delayed.erase(it);
    }
}

void Topic::deliverDue(const std::string& subscription) {
    touched(true);
    auto it = subscriptions_.find(subscription);
    if (it != subscriptions_.end()) dispatch(it->second);
}

void Topic::sendEntry(Subscription& sub, AttachedConsumer& consumer, std::uint64_t entry) {
    auto* connection = broker_.connections().find(consumer.connectionId);
    if (!connection) return;  // closing: readyForEntry said no already
    // A batch entry uses one permit per message in it, as Pulsar's dispatcher
    // counts them (AbstractBaseDispatcher.filterEntriesForConsumer: the batch
    // size; a chunk is an entry of its own and costs one). The permits may go
    // below zero; no more is sent until FLOW brings them above it again.
    const auto& stored = log().at(entry);
    const auto& meta = stored.metadata;
    consumer.permits -= meta.has_num_messages_in_batch() && meta.num_messages_in_batch() > 1
                            ? meta.num_messages_in_batch()
                            : 1;
    consumer.pending.insert(entry);
    auto counted = sub.cursor.redeliveryCount.find(entry);  // never added for a first delivery
    auto count = counted == sub.cursor.redeliveryCount.end() ? 0 : counted->second;
    // The batch's messages still unacknowledged (Consumer.sendMessages: the
    // cursor's deleted batch indexes, EntryBatchIndexesAcks), for the client to skip the others.
    static const std::vector<std::int64_t> kNone;
    auto ackSet = sub.cursor.ackSets.find(entry);
    connection->deliver(consumer.consumerId, stored, count, ackSet == sub.cursor.ackSets.end() ? kNone : ackSet->second);
}

// Only the dispatchers of Shared and Key_Shared subscriptions of a persistent
// topic count redeliveries; Exclusive and Failover (single active consumer)
// and non-persistent ones use RedeliveryTrackerDisabled: always 0.
bool Topic::tracksRedelivery(const Subscription& sub) const {
    return persistent() && (sub.subType == "Shared" || sub.subType == "Key_Shared");
}

void Topic::releasePending(Subscription& sub, AttachedConsumer& consumer, bool countRedelivery) {
    countRedelivery = countRedelivery && tracksRedelivery(sub);
    for (auto entry : consumer.pending) {
        if (sub.cursor.isAcked(entry)) continue;
        sub.cursor.replay.insert(entry);
        if (countRedelivery) ++sub.cursor.redeliveryCount[entry];
    }
    consumer.pending.clear();
}

void Topic::flow(std::uint64_t connectionId, std::uint64_t consumerId, std::uint32_t permits) {
    touched(true);
    auto [sub, consumer] = findConsumer(connectionId, consumerId);
    if (!consumer) return;
    consumer->permits += permits;
    dispatch(*sub);
}

void Topic::resumeDispatch(std::uint64_t connectionId, std::uint64_t consumerId) {
    touched(true);
    auto [sub, consumer] = findConsumer(connectionId, consumerId);
    if (consumer) dispatch(*sub);
}

namespace {

/// BitSet.and of two ack sets (the words past the shorter one are 0).
std::vector<std::int64_t> intersect(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
    std::vector<std::int64_t> out(std::min(a.size(), b.size()));
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = a[i] & b[i];
    return out;
}

bool allClear(const std::vector<std::int64_t>& set) {
    return std::all_of(set.begin(), set.end(), [](std::int64_t w) { return w == 0; });
}

}  // namespace

// Batch-index acknowledgement (PIP-54, acknowledgmentAtBatchIndexLevelEnabled):
// an ACK whose message id carries an ack_set acknowledges the batch's messages
// whose bits are clear; the cursor keeps the intersection of the sets it got
// (ManagedCursorImpl batchDeletedIndexes) and deletes the entry once none is
// left. A cumulative one acknowledges every entry before it and those messages
// of it. Without the setting the broker reads the message id alone: the whole
// entry (Consumer.individualMsgAcknowledge / PersistentSubscription.acknowledgeMessage).
bool Topic::acknowledgeBatchIndexes(Cursor& cursor, bool cumulative, std::uint64_t entry,
                                    const std::vector<std::int64_t>& ackSet) {
    if (cumulative && entry >= cursor.markDelete) {
        cursor.markDelete = entry;
        cursor.acked.erase(cursor.acked.begin(), cursor.acked.lower_bound(cursor.markDelete));
    }
    if (cursor.isAcked(entry)) return true;
    auto it = cursor.ackSets.find(entry);
    auto remaining = it == cursor.ackSets.end() ? ackSet : intersect(it->second, ackSet);
    if (!allClear(remaining)) {
        cursor.ackSets[entry] = std::move(remaining);
        return true;
    }
    if (it != cursor.ackSets.end()) cursor.ackSets.erase(it);
    return false;  // every message of it acknowledged: the entry goes as a whole
}

bool Topic::acknowledge(std::uint64_t connectionId, std::uint64_t consumerId, bool cumulative,
                        const std::vector<Position>& positions, const std::vector<std::vector<std::int64_t>>& ackSets) {
    touched(true);
    auto [sub, consumer] = findConsumer(connectionId, consumerId);
    if (!consumer) return false;
    auto& cursor = sub->cursor;
    bool batchIndexLevel =
        broker_.profile().batchIndexAck && broker_.policies().broker.acknowledgmentAtBatchIndexLevelEnabled;
    // Each ACK costs what it acknowledges, never the whole pending set or
    // redelivery map: 40,000 individual ACKs were quadratic (issue 40 item 6).
    std::vector<std::uint64_t> individual;
    for (std::size_t i = 0; i < positions.size(); ++i) {
        const auto& p = positions[i];
        if (p.ledgerId != log().ledgerId || p.entryId >= log().size()) continue;  // not an entry of this log
        if (batchIndexLevel && i < ackSets.size() && !ackSets[i].empty() &&
            acknowledgeBatchIndexes(cursor, cumulative, p.entryId, ackSets[i]))
            continue;  // part of the batch stays unacknowledged
        cursor.ackSets.erase(p.entryId);
        if (cumulative) {
            if (p.entryId >= cursor.markDelete) {
                cursor.markDelete = p.entryId + 1;
                cursor.acked.erase(cursor.acked.begin(), cursor.acked.lower_bound(cursor.markDelete));
            }
        } else if (!cursor.isAcked(p.entryId)) {
            cursor.acked.insert(p.entryId);
            individual.push_back(p.entryId);
        }
    }
    cursor.advance();
    auto forget = [&](auto& sorted) {  // a set or map by entry id: what is now acknowledged goes
        sorted.erase(sorted.begin(), sorted.lower_bound(cursor.markDelete));
        for (auto e : individual) sorted.erase(e);
    };
    for (auto& c : sub->consumers) forget(c.pending);
    forget(cursor.redeliveryCount);
    forget(cursor.ackSets);
    persistAcks(*sub, individual);
    return true;
}

void Topic::persistAcks(const Subscription& sub, const std::vector<std::uint64_t>& individual) {
    if (fenced_ || !sub.durable || !persistent()) return;
    auto& state = broker_.ledger(name_).cursorState[sub.name];
    state.markDelete = sub.cursor.markDelete;
    state.acked.erase(state.acked.begin(), state.acked.lower_bound(state.markDelete));
    for (auto e : individual)
        if (e >= state.markDelete) state.acked.insert(e);
    state.ackSets = sub.cursor.ackSets;  // the batches acknowledged in part (few)
}

// The broker deletes the ledgers every cursor has passed (retention 0, the
// default: ManagedLedgerImpl.internalTrimLedgers), and never the ledger being
// written, so a SEEK back or an Earliest subscriber reads acknowledged entries
// of it. The model keeps one ledger: it drops the entries before the slowest
// subscription's markDelete only when the broker's log bound needs the room
// (Topic::publish). A topic without subscriptions keeps its entries.
void Topic::trimAcknowledged() {
    if (subscriptions_.empty()) return;
    std::uint64_t slowest = std::numeric_limits<std::uint64_t>::max();
    for (const auto& [_, sub] : subscriptions_) slowest = std::min(slowest, sub.cursor.markDelete);
    auto& l = log();
    if (l.size() == 0) return;
    l.trimTo(std::min(slowest, l.size() - 1));
}

void Topic::redeliver(std::uint64_t connectionId, std::uint64_t consumerId, const std::vector<Position>& positions) {
    touched(true);
    auto [sub, consumer] = findConsumer(connectionId, consumerId);
    if (!consumer) return;
    if (positions.empty()) {
        releasePending(*sub, *consumer, true);
    } else {
        for (const auto& p : positions) {
            if (!consumer->pending.erase(p.entryId) || sub->cursor.isAcked(p.entryId)) continue;
            sub->cursor.replay.insert(p.entryId);
            if (tracksRedelivery(*sub)) ++sub->cursor.redeliveryCount[p.entryId];
        }
    }
    dispatch(*sub);
}

std::optional<std::vector<std::pair<std::uint64_t, std::uint64_t>>> Topic::seekConsumers(std::uint64_t connectionId,
                                                                                           std::uint64_t consumerId,
                                                                                           std::string* subscription) {
    touched(true);
    auto [sub, consumer] = findConsumer(connectionId, consumerId);
    if (!consumer) return std::nullopt;
    *subscription = sub->name;
    sub->resetting = true;  // until resetCursor: closing its consumers keeps a reader's cursor
    std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
    for (const auto& c : sub->consumers) out.emplace_back(c.connectionId, c.consumerId);
    return out;
}

void Topic::resetCursor(const std::string& subscription, const SeekTarget& target) {
    touched(true);
    auto it = subscriptions_.find(subscription);
    auto kept = keptReaderCursors_.find(subscription);
    if (it == subscriptions_.end() && kept == keptReaderCursors_.end()) return;
    const auto& l = log();
    std::uint64_t entry = l.size();
    if (target.messageId) {
        // Ids of an older ledger (MessageId.earliest is -1:-1) mean the start,
        // of a newer one (MessageId.latest) the end.
        auto ledger = static_cast<std::int64_t>(target.messageId->ledgerId);
        if (ledger < static_cast<std::int64_t>(l.ledgerId)) entry = 0;
        else if (target.messageId->ledgerId == l.ledgerId) entry = std::min(target.messageId->entryId, l.size());
    } else if (target.publishTime) {
        entry = l.findFirst([&](const Entry& e) { return e.metadata.publish_time() >= *target.publishTime; });
    }
    entry = std::max(entry, l.first());  // a trimmed entry: the oldest one held
    auto reset = [entry](Cursor& cursor) {
        cursor.markDelete = entry;
        cursor.readPosition = entry;
        cursor.acked.clear();
        cursor.replay.clear();
        cursor.redeliveryCount.clear();
        cursor.ackSets.clear();
        cursor.delayed.clear();  // read again from the new position, held again if still ahead
    };
    if (it == subscriptions_.end()) {  // a reader whose consumers the SEEK closed: its kept cursor
        reset(kept->second);
        return;
    }
    auto& sub = it->second;
    sub.resetting = false;
    reset(sub.cursor);
    for (auto& c : sub.consumers) c.pending.clear();
    persistCursor(sub);
    dispatch(sub);
}

std::optional<BrokerError> Topic::unsubscribe(std::uint64_t connectionId, std::uint64_t consumerId, bool force) {
    touched(true);
    auto [sub, consumer] = findConsumer(connectionId, consumerId);
    if (!consumer) return BrokerError{RefusalKind::subscriptionBusy, "Consumer is not attached"};
    if (sub->consumers.size() > 1 && !force)
        return BrokerError{RefusalKind::subscriptionBusy, "Unconnected or shared consumer attempting to unsubscribe"};
    auto name = sub->name;
    subscriptions_.erase(name);
    if (persistent()) {
        auto& ledger = broker_.ledger(name_);
        ledger.durableCursors.erase(name);
        ledger.cursorState.erase(name);
    }
    return std::nullopt;
}

}  // namespace cnx
