#pragma once
// The messages of a topic, in memory: a managed ledger's entries as the
// producers sent them (metadata and payload stored as sent, a batch being one
// entry), and each subscription's cursor over them (§3.5 "the topic has
// data"; delivery for `cnxsim serve`). A persistent topic's log and durable
// cursors live in its ManagedLedgerState and survive unloads and restarts; a
// non-persistent topic keeps its log only while loaded.

#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "proto/PulsarApi.pb.h"

namespace cnx {

struct Position {
    std::uint64_t ledgerId = 0;
    std::uint64_t entryId = 0;
    auto operator<=>(const Position&) const = default;
};

struct Entry {
    Position position;
    pulsar::proto::MessageMetadata metadata;
    std::string payload;
};

/// What every message log of a broker holds together, against a bound
/// (Broker::setMaxLogBytes): the model keeps messages in memory, so a topic
/// never acknowledged would grow until the process is killed (issue 40 item 5).
struct LogBudget {
    std::uint64_t held = 0;
    std::uint64_t limit = 0;  // 0: no bound
    bool admits(std::uint64_t bytes) const { return limit == 0 || held + bytes <= limit; }
};

/// A topic's entries. Entry ids count from 0 for the ledger's life; the
/// entries every subscription has acknowledged are dropped from the front
/// (trimTo), as the broker trims the ledgers its cursors have passed, so
/// `first()` is the oldest entry still held.
class MessageLog {
public:
    MessageLog() = default;
    ~MessageLog() { release(held_); }
    MessageLog(const MessageLog&) = delete;
    MessageLog& operator=(const MessageLog&) = delete;

    std::uint64_t ledgerId = 0;

    /// Counts what this log holds in `budget` from now on (set once, before the first append).
    void setBudget(std::shared_ptr<LogBudget> budget) { budget_ = std::move(budget); }
    /// Whether `bytes` more fit in the broker's bound.
    bool admits(std::uint64_t bytes) const { return !budget_ || budget_->admits(bytes); }

    /// Copies the entry in place: a protobuf message moved is built, swapped and
    /// destroyed, so taking it by value cost two more of those per message.
    /// `bytes`: what the entry counts against the budget.
    Position append(const pulsar::proto::MessageMetadata& metadata, std::string_view payload, std::uint64_t bytes) {
        Position p{ledgerId, size()};
        auto& e = entries_.emplace_back();
        e.entry.position = p;
        e.entry.metadata = metadata;
        e.entry.payload.assign(payload);
        e.bytes = bytes;
        held_ += bytes;
        if (budget_) budget_->held += bytes;
        return p;
    }
    /// The next entry id: every entry ever appended, trimmed or not.
    std::uint64_t size() const { return first_ + entries_.size(); }
    /// The oldest entry id still held (size() when none is).
    std::uint64_t first() const { return first_; }
    bool empty() const { return entries_.empty(); }
    /// Whether entry `id` is held (not trimmed, not past the end).
    bool holds(std::uint64_t id) const { return id >= first_ && id < size(); }
    /// Entry `id`; holds(id) must be true.
    const Entry& at(std::uint64_t id) const { return entries_[id - first_].entry; }
    const Entry& back() const { return entries_.back().entry; }
    /// The entry ids [first(), size()) in order, to search.
    template <typename Pred>
    std::uint64_t findFirst(Pred pred) const {
        for (std::size_t i = 0; i < entries_.size(); ++i)
            if (pred(entries_[i].entry)) return first_ + i;
        return size();
    }
    /// Drops the entries before `id`.
    void trimTo(std::uint64_t id) {
        while (first_ < id && !entries_.empty()) {
            release(entries_.front().bytes);
            held_ -= entries_.front().bytes;
            entries_.pop_front();
            ++first_;
        }
    }

private:
    struct Held {
        Entry entry;
        std::uint64_t bytes = 0;
    };
    void release(std::uint64_t bytes) {
        if (budget_) budget_->held -= std::min(budget_->held, bytes);
    }

    std::deque<Held> entries_;
    std::uint64_t first_ = 0;
    std::uint64_t held_ = 0;
    std::shared_ptr<LogBudget> budget_;
};

/// A subscription's cursor: entries before `markDelete` are acknowledged,
/// `acked` holds the ones acknowledged individually after it; `readPosition`
/// is the next entry never dispatched; `replay` the entries to dispatch again
/// (redelivery, or their consumer went away), each with its redelivery count.
struct Cursor {
    std::uint64_t markDelete = 0;
    std::uint64_t readPosition = 0;
    std::set<std::uint64_t> acked;
    std::set<std::uint64_t> replay;
    std::map<std::uint64_t, std::uint32_t> redeliveryCount;
    /// Batch-index acknowledgement: the batch entries acknowledged in part, each
    /// with its ack set (CommandAck.ack_set: the words of a BitSet whose set bits
    /// are the messages still unacknowledged), as the cursor's
    /// batchDeletedIndexes (ManagedCursorImpl) hold them.
    std::map<std::uint64_t, std::vector<std::int64_t>> ackSets;
    /// Delayed delivery: the entries held until their deliver_at_time (ms since
    /// the epoch), as the dispatcher's DelayedDeliveryTracker holds them.
    std::map<std::uint64_t, std::int64_t> delayed;

    bool isAcked(std::uint64_t entry) const { return entry < markDelete || acked.count(entry) > 0; }
    /// Moves markDelete over a run of individually acknowledged entries.
    void advance() {
        while (acked.count(markDelete)) acked.erase(markDelete++);
    }
};

}  // namespace cnx
