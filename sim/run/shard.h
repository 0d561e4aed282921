#pragma once
// `cnxsim run --shard K/N`: one CI job's part of a run list. The list is built
// in one deterministic order (files sorted as the loader gives them, each
// file's documents in order, each document's versions in its list order) and
// shard K of N takes the entries whose 0-based index i has i % N == K - 1:
// round-robin, so the shards differ in size by at most one and together take
// every entry exactly once.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/scenario/scenario.h"

namespace cnx::sim {

/// The most shards a run list can be split into.
inline constexpr int kMaxShards = 1000;

/// Shard `index` (1-based) of `count`. The same pair can split another list
/// than scenario runs (e.g. one race's interleavings) with inShard().
struct Shard {
    int index = 1;  // K, 1 <= index <= count
    int count = 1;  // N, 1 <= count <= kMaxShards
};

/// Parses "K/N" (decimal integers, 1 <= K <= N <= kMaxShards). On a bad text
/// returns nothing and, when `error` is given, says why.
std::optional<Shard> parseShard(std::string_view text, std::string* error = nullptr);

/// "K/N".
std::string to_string(const Shard& shard);

/// Whether the entry at 0-based `position` of a list belongs to `shard`.
bool inShard(std::size_t position, const Shard& shard);

/// How many of `total` entries `shard` takes.
std::size_t shardSize(std::size_t total, const Shard& shard);

/// One scenario run: a scenario document (with the file it came from) on one
/// broker version.
struct PlannedRun {
    const std::pair<std::string, Scenario>* entry = nullptr;
    std::string version;
};

/// Every run of `selected` (in the loader's order: files sorted, documents in
/// file order), each scenario on the versions its broker.version lists (or the
/// newest profile's line, see versionsOf) in list order, or on `onlyVersion`
/// alone when given (--version). This is the order `cnxsim run` reports and
/// --shard splits.
std::vector<PlannedRun> planRuns(const std::vector<const std::pair<std::string, Scenario>*>& selected,
                                 const std::optional<std::string>& onlyVersion);

/// The entries of `all` that belong to `shard`, in their order.
template <typename T>
std::vector<T> selectShard(const std::vector<T>& all, const Shard& shard) {
    std::vector<T> out;
    out.reserve(shardSize(all.size(), shard));
    for (std::size_t i = 0; i < all.size(); ++i)
        if (inShard(i, shard)) out.push_back(all[i]);
    return out;
}

}  // namespace cnx::sim
