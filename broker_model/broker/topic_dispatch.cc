// Message delivery on a topic: FLOW permits, dispatch of entries to the
// consumers of each subscription, acknowledgements, redelivery, unsubscribe.
// Exclusive and Failover subscriptions deliver to their first consumer;
// Shared and Key_Shared round-robin over the consumers with permits (Key_Shared
// does not route by key in this model).

#include <algorithm>

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
    if (l.entries.empty()) return {l.ledgerId, static_cast<std::uint64_t>(-1)};
    return l.entries.back().position;
}

const Entry* Topic::lastEntry() const {
    const auto& l = log();
    return l.entries.empty() ? nullptr : &l.entries.back();
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
}

void Topic::dispatch(Subscription& sub) {
    touched(true);
    if (fenced_ || sub.consumers.empty()) return;
    const auto& entries = log().entries;
    bool single = sub.subType == "Exclusive" || sub.subType == "Failover";
    auto pick = [&]() -> AttachedConsumer* {
        if (single) return sub.consumers.front().permits > 0 ? &sub.consumers.front() : nullptr;
        for (std::size_t i = 0; i < sub.consumers.size(); ++i) {
            auto& c = sub.consumers[(sub.nextConsumer + i) % sub.consumers.size()];
            if (c.permits > 0) {
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
        while (!sub.cursor.replay.empty() && sub.cursor.isAcked(*sub.cursor.replay.begin()))
            sub.cursor.replay.erase(sub.cursor.replay.begin());
        if (!sub.cursor.replay.empty()) {
            entry = *sub.cursor.replay.begin();
            replayed = true;
        } else {
            while (sub.cursor.readPosition < entries.size() && sub.cursor.isAcked(sub.cursor.readPosition))
                ++sub.cursor.readPosition;
            if (sub.cursor.readPosition >= entries.size()) return;
            entry = sub.cursor.readPosition;
        }
        auto* consumer = pick();
        if (!consumer) return;
        auto* connection = broker_.connections().find(consumer->connectionId);
        if (!connection) return;  // closing: its consumers are being removed
        if (replayed) sub.cursor.replay.erase(sub.cursor.replay.begin());
        else ++sub.cursor.readPosition;
        // A batch entry uses one permit per message in it, as Pulsar's dispatcher
        // counts them (the permits may go below zero; no more is sent until FLOW
        // brings them above it again).
        const auto& meta = entries[entry].metadata;
        consumer->permits -= meta.has_num_messages_in_batch() && meta.num_messages_in_batch() > 1
                                 ? meta.num_messages_in_batch()
                                 : 1;
        consumer->pending.insert(entry);
        auto count = sub.cursor.redeliveryCount[entry];
        connection->deliver(consumer->consumerId, entries[entry], count);
    }
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

bool Topic::acknowledge(std::uint64_t connectionId, std::uint64_t consumerId, bool cumulative,
                        const std::vector<Position>& positions) {
    touched(true);
    auto [sub, consumer] = findConsumer(connectionId, consumerId);
    if (!consumer) return false;
    auto& cursor = sub->cursor;
    for (const auto& p : positions) {
        if (p.ledgerId != log().ledgerId || p.entryId >= log().size()) continue;  // not an entry of this log
        if (cumulative) {
            for (auto e = cursor.markDelete; e <= p.entryId; ++e) cursor.acked.insert(e);
        } else {
            cursor.acked.insert(p.entryId);
        }
    }
    cursor.advance();
    for (auto& c : sub->consumers) std::erase_if(c.pending, [&](std::uint64_t e) { return cursor.isAcked(e); });
    std::erase_if(cursor.redeliveryCount, [&](const auto& kv) { return cursor.isAcked(kv.first); });
    persistCursor(*sub);
    return true;
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
    std::vector<std::pair<std::uint64_t, std::uint64_t>> out;
    for (const auto& c : sub->consumers) out.emplace_back(c.connectionId, c.consumerId);
    return out;
}

void Topic::resetCursor(const std::string& subscription, const SeekTarget& target) {
    touched(true);
    auto it = subscriptions_.find(subscription);
    if (it == subscriptions_.end()) return;  // a reader's subscription went with its consumer
    const auto& l = log();
    std::uint64_t entry = l.size();
    if (target.messageId) {
        // Ids of an older ledger (MessageId.earliest is -1:-1) mean the start,
        // of a newer one (MessageId.latest) the end.
        auto ledger = static_cast<std::int64_t>(target.messageId->ledgerId);
        if (ledger < static_cast<std::int64_t>(l.ledgerId)) entry = 0;
        else if (target.messageId->ledgerId == l.ledgerId) entry = std::min(target.messageId->entryId, l.size());
    } else if (target.publishTime) {
        auto found = std::find_if(l.entries.begin(), l.entries.end(),
                                  [&](const Entry& e) { return e.metadata.publish_time() >= *target.publishTime; });
        entry = static_cast<std::uint64_t>(found - l.entries.begin());
    }
    auto& sub = it->second;
    sub.cursor.markDelete = entry;
    sub.cursor.readPosition = entry;
    sub.cursor.acked.clear();
    sub.cursor.replay.clear();
    sub.cursor.redeliveryCount.clear();
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
