#pragma once
// The messages of a topic, in memory: a managed ledger's entries as the
// producers sent them (metadata and payload stored as sent, a batch being one
// entry), and each subscription's cursor over them (§3.5 "the topic has
// data"; delivery for `cnxsim serve`). A persistent topic's log and durable
// cursors live in its ManagedLedgerState and survive unloads and restarts; a
// non-persistent topic keeps its log only while loaded.

#include <cstdint>
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

struct MessageLog {
    std::uint64_t ledgerId = 0;
    std::vector<Entry> entries;  // entry id = index

    /// Copies the entry in place: a protobuf message moved is built, swapped and
    /// destroyed, so taking it by value cost two more of those per message.
    Position append(const pulsar::proto::MessageMetadata& metadata, std::string_view payload) {
        Position p{ledgerId, entries.size()};
        auto& e = entries.emplace_back();
        e.position = p;
        e.metadata = metadata;
        e.payload.assign(payload);
        return p;
    }
    std::uint64_t size() const { return entries.size(); }
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

    bool isAcked(std::uint64_t entry) const { return entry < markDelete || acked.count(entry) > 0; }
    /// Moves markDelete over a run of individually acknowledged entries.
    void advance() {
        while (acked.count(markDelete)) acked.erase(markDelete++);
    }
};

}  // namespace cnx
