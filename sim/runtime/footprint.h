#pragma once
// What one step of a run read and wrote, as hashed keys: the simulated
// scheduler (sim_scheduler.h) collects it for the stage it runs, and a race's
// explorer (sim/race/explorer.h) compares two to tell whether they commute.

#include <cstdint>
#include <string>
#include <vector>

namespace cnx::sim {

/// What a transition read and wrote, as hashed keys (a registry entry, a
/// topic's attachments, a connection, a client), or everything (`global`:
/// policies, broker config, unload, restart). Known once it ran.
struct Footprint {
    bool global = false;
    std::vector<std::uint64_t> reads;   // sorted, unique
    std::vector<std::uint64_t> writes;  // sorted, unique

    void read(std::uint64_t key) { reads.push_back(key); }
    void write(std::uint64_t key) { writes.push_back(key); }
    /// Sorts and de-duplicates (call before comparing).
    void finish();
};

/// Whether two transitions commute: neither is global and neither writes
/// what the other reads or writes.
bool independent(const Footprint& a, const Footprint& b);

/// A 64-bit key for a footprint.
std::uint64_t keyOf(const std::string& text);
/// Mixes two ids into one (stable across platforms).
std::uint64_t mixIds(std::uint64_t a, std::uint64_t b);

}  // namespace cnx::sim
