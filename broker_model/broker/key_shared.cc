// Who receives an entry when a subscription has several consumers: Key_Shared
// routing by the entry's key (PersistentStickyKeyDispatcherMultipleConsumers
// with HashRangeAutoSplitStickyKeyConsumerSelector, the default while
// subscriptionKeySharedUseConsistentHashing=false, or
// HashRangeExclusiveStickyKeyConsumerSelector for STICKY consumers), and the
// active consumer of a Failover subscription
// (AbstractDispatcherSingleActiveConsumer.pickAndScheduleActiveConsumer).
// Not modelled (#41): the consistent-hashing selector, Key_Shared's
// "recently joined consumers" hold-back (allowOutOfOrderDelivery=false), and
// the Failover switch delay (activeConsumerFailoverDelayTimeMillis): the
// change is notified and takes effect at once.

#include <algorithm>

#include "broker_model/broker/broker.h"
#include "broker_model/broker/sticky_key.h"
#include "broker_model/broker/topic.h"

namespace cnx {
namespace {

using ConsumerKey = std::pair<std::uint64_t, std::uint64_t>;

ConsumerKey keyOf(const AttachedConsumer& c) { return {c.connectionId, c.consumerId}; }

bool overlaps(const std::pair<std::int32_t, std::int32_t>& a, const std::pair<std::int32_t, std::int32_t>& b) {
    return std::max(a.first, b.first) <= std::min(a.second, b.second);
}

}  // namespace

// HashRangeExclusiveStickyKeyConsumerSelector.validateKeySharedMeta and
// HashRangeAutoSplitStickyKeyConsumerSelector.addConsumer/splitRange: a
// refusal is a ConsumerAssignException, ConsumerAssignError on the wire.
std::optional<BrokerError> Topic::assignKeyRange(Subscription& sub, const AttachedConsumer& consumer) {
    if (consumer.sticky) {
        if (consumer.hashRanges.empty())
            return BrokerError{RefusalKind::consumerAssign, "Ranges for KeyShared policy must not be empty."};
        for (const auto& range : consumer.hashRanges) {
            if (range.first > range.second)
                return BrokerError{RefusalKind::consumerAssign, "Fixed hash range start > end"};
            for (const auto& other : sub.consumers) {
                if (!other.sticky) continue;
                for (const auto& taken : other.hashRanges)
                    if (overlaps(range, taken))
                        return BrokerError{RefusalKind::consumerAssign, "Range conflict with consumer " + other.name};
            }
        }
        return std::nullopt;
    }
    if (sub.splitRanges.empty()) {
        sub.splitRanges[sticky::kRangeSize] = keyOf(consumer);
        return std::nullopt;
    }
    // findBiggestRange: the first widest part, by its end; then split it in two,
    // the new consumer taking the lower half.
    std::uint32_t widest = 0, end = sticky::kRangeSize, lower = 0;
    std::uint32_t previous = 0;
    for (const auto& [at, _] : sub.splitRanges) {
        if (at - previous > widest) {
            widest = at - previous;
            end = at;
            lower = previous;
        }
        previous = at;
    }
    if (end - lower <= 1)
        return BrokerError{RefusalKind::consumerAssign, "No more range can assigned to new consumer, assigned consumers " +
                                                            std::to_string(sub.splitRanges.size())};
    sub.splitRanges[end - ((end - lower) >> 1)] = keyOf(consumer);
    return std::nullopt;
}

// HashRangeAutoSplitStickyKeyConsumerSelector.removeConsumer: the part ending
// at the top goes to the consumer just below it; any other part joins the one above.
void Topic::releaseKeyRange(Subscription& sub, const AttachedConsumer& consumer) {
    auto it = std::find_if(sub.splitRanges.begin(), sub.splitRanges.end(),
                           [&](const auto& kv) { return kv.second == keyOf(consumer); });
    if (it == sub.splitRanges.end()) return;
    if (it->first == sticky::kRangeSize && sub.splitRanges.size() > 1) {
        auto below = std::prev(it);
        it->second = below->second;
        sub.splitRanges.erase(below);
        return;
    }
    sub.splitRanges.erase(it);
}

AttachedConsumer* Topic::consumerForSlot(Subscription& sub, std::uint32_t slot) {
    auto find = [&](const ConsumerKey& key) -> AttachedConsumer* {
        for (auto& c : sub.consumers)
            if (keyOf(c) == key) return &c;
        return nullptr;
    };
    // A STICKY consumer's ranges are its own; a slot no range holds has no consumer.
    for (auto& c : sub.consumers) {
        if (!c.sticky) continue;
        for (const auto& range : c.hashRanges)
            if (static_cast<std::int64_t>(slot) >= range.first && static_cast<std::int64_t>(slot) <= range.second)
                return &c;
    }
    auto it = sub.splitRanges.lower_bound(slot);  // ceilingEntry(slot)
    return it == sub.splitRanges.end() ? nullptr : find(it->second);
}

// PersistentStickyKeyDispatcherMultipleConsumers.sendMessagesToConsumers: each
// entry goes to the consumer its key selects; an entry whose consumer has no
// permits (or no writable connection) waits in the replay set, and the entries
// of the other keys go on. Entries to replay go first, oldest first.
void Topic::dispatchByKey(Subscription& sub) {
    releaseDue(sub);  // delayed entries whose time came wait in the replay set (holdForLater)
    const auto& entries = log();
    auto anyReady = [&] {
        return std::any_of(sub.consumers.begin(), sub.consumers.end(), [&](const auto& c) { return readyForEntry(c); });
    };
    auto& cursor = sub.cursor;
    for (auto it = cursor.replay.begin(); it != cursor.replay.end() && anyReady();) {
        auto entry = *it;
        if (cursor.isAcked(entry) || !entries.holds(entry)) {
            it = cursor.replay.erase(it);
            continue;
        }
        auto* consumer = consumerForSlot(sub, sticky::slotOf(entries.at(entry).metadata));
        if (!consumer || !readyForEntry(*consumer)) {
            ++it;
            continue;
        }
        it = cursor.replay.erase(it);
        sendEntry(sub, *consumer, entry);
    }
    cursor.readPosition = std::max(cursor.readPosition, entries.first());
    while (cursor.readPosition < entries.size() && anyReady()) {
        auto entry = cursor.readPosition++;
        if (cursor.isAcked(entry) || holdForLater(sub, entry)) continue;
        auto* consumer = consumerForSlot(sub, sticky::slotOf(entries.at(entry).metadata));
        if (consumer && readyForEntry(*consumer) && !cursor.replay.count(entry)) sendEntry(sub, *consumer, entry);
        else cursor.replay.insert(entry);  // waits for its consumer, in order with its key's others
    }
}

AttachedConsumer* Topic::activeConsumerOf(Subscription& sub) {
    if (sub.consumers.empty()) return nullptr;
    if (sub.subType != "Failover" || !sub.active) return &sub.consumers.front();
    for (auto& c : sub.consumers)
        if (keyOf(c) == *sub.active) return &c;
    return &sub.consumers.front();
}

// pickAndScheduleActiveConsumer: consumers sorted by priority level, then
// name; on a partitioned topic the active one is partitionIndex % (the number
// of the highest priority); on a non-partitioned topic the first to subscribe,
// or (failoverNonPartitionedHashRing) the one whose names' hash ring holds the
// topic name's hash. A change is notified to every consumer
// (notifyActiveConsumerChanged, Failover only, from scheduleReadOnActiveConsumer
// of the persistent dispatcher); a consumer that joined without a change is
// told who is active (addConsumer).
void Topic::pickActiveConsumer(Subscription& sub, const AttachedConsumer* added) {
    if (sub.subType != "Failover" || sub.consumers.empty()) {
        sub.active.reset();
        return;
    }
    std::vector<const AttachedConsumer*> sorted;
    for (const auto& c : sub.consumers) sorted.push_back(&c);
    int partition = name_.partitionIndex();
    bool hashRing = partition < 0 && broker_.profile().failoverNonPartitionedHashRing;
    if (partition >= 0 || hashRing) {
        std::stable_sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) {
            if (a->priorityLevel != b->priorityLevel) return a->priorityLevel < b->priorityLevel;
            return a->name < b->name;
        });
    }
    std::size_t size = sorted.size();
    for (std::size_t i = 1; i < sorted.size(); ++i)
        if (sorted[i]->priorityLevel != sorted[0]->priorityLevel) {
            size = i;
            break;
        }
    std::size_t index = 0;
    if (partition >= 0) {
        index = static_cast<std::size_t>(partition) % size;
    } else if (hashRing) {
        std::map<std::uint32_t, std::size_t> ring;  // makeHashRing: 100 points per consumer
        for (std::size_t i = 0; i < size; ++i)
            for (int j = 0; j < 100; ++j) ring[sticky::murmur3(sorted[i]->name + std::to_string(j))] = i;
        auto at = ring.lower_bound(sticky::murmur3(name_.toString()));
        index = at != ring.end() ? at->second : ring.begin()->second;
    }
    auto chosen = keyOf(*sorted[index]);
    bool changed = !sub.active || *sub.active != chosen;
    sub.active = chosen;
    auto notify = [&](const AttachedConsumer& c) {
        if (auto* connection = broker_.connections().find(c.connectionId))
            connection->activeConsumerChange(c.consumerId, keyOf(c) == chosen);
    };
    if (changed) {
        if (!persistent()) return;  // NonPersistentDispatcherSingleActiveConsumer: scheduleReadOnActiveConsumer is a no-op
        for (const auto& c : sub.consumers) notify(c);
        // The new active consumer reads from the first unacknowledged entry (cursor.rewind()).
        for (auto& c : sub.consumers) releasePending(sub, c, false);
        return;
    }
    if (added) notify(*added);
}

void Topic::consumerLeaving(Subscription& sub, const AttachedConsumer& consumer) {
    if (sub.subType == "Key_Shared") releaseKeyRange(sub, consumer);
    if (sub.active && *sub.active == keyOf(consumer)) sub.active.reset();
}

void Topic::consumersLeft(Subscription& sub) {
    if (sub.subType == "Failover" && !sub.consumers.empty()) pickActiveConsumer(sub, nullptr);
}

}  // namespace cnx
