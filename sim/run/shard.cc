#include "sim/run/shard.h"

#include <charconv>

#include "sim/run/runner.h"

namespace cnx::sim {
namespace {

// Decimal digits only (no sign, no spaces); a number too long for an int
// counts as one past kMaxShards, so it is refused as too large.
std::optional<int> wholeNumber(std::string_view text) {
    if (text.empty()) return std::nullopt;
    for (char c : text)
        if (c < '0' || c > '9') return std::nullopt;
    int value = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc::result_out_of_range) return kMaxShards + 1;
    if (ec != std::errc() || p != text.data() + text.size()) return std::nullopt;
    return value;
}

}  // namespace

std::optional<Shard> parseShard(std::string_view text, std::string* error) {
    auto fail = [&](const std::string& why) -> std::optional<Shard> {
        if (error) *error = why + " (got '" + std::string(text) + "')";
        return std::nullopt;
    };
    auto slash = text.find('/');
    if (slash == std::string_view::npos) return fail("--shard takes K/N, e.g. 2/3");
    auto k = wholeNumber(text.substr(0, slash));
    auto n = wholeNumber(text.substr(slash + 1));
    if (!k || !n) return fail("--shard takes K/N, two whole numbers, e.g. 2/3");
    if (*n < 1 || *n > kMaxShards) return fail("--shard K/N needs 1 <= N <= " + std::to_string(kMaxShards));
    if (*k < 1 || *k > *n) return fail("--shard K/N needs 1 <= K <= N");
    return Shard{*k, *n};
}

std::string to_string(const Shard& shard) {
    return std::to_string(shard.index) + "/" + std::to_string(shard.count);
}

bool inShard(std::size_t position, const Shard& shard) {
    return position % static_cast<std::size_t>(shard.count) == static_cast<std::size_t>(shard.index - 1);
}

std::size_t shardSize(std::size_t total, const Shard& shard) {
    auto n = static_cast<std::size_t>(shard.count), k = static_cast<std::size_t>(shard.index - 1);
    return total / n + (k < total % n ? 1 : 0);
}

std::vector<PlannedRun> planRuns(const std::vector<const std::pair<std::string, Scenario>*>& selected,
                                 const std::optional<std::string>& onlyVersion) {
    std::vector<PlannedRun> plan;
    for (const auto* entry : selected) {
        auto versions = onlyVersion ? std::vector<std::string>{*onlyVersion} : versionsOf(entry->second);
        for (auto& v : versions) plan.push_back({entry, std::move(v)});
    }
    return plan;
}

}  // namespace cnx::sim
