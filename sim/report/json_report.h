#pragma once
// `cnxsim run --json FILE`: one JSON object per scenario run, one per line
// (JSON Lines), for tooling. Every field is documented in doc/reports.md.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/run/runner.h"

namespace cnx::sim {

/// The JSON Lines text: one object per run, in run order.
std::string jsonLines(const std::vector<ScenarioResult>& results, std::uint64_t seed);

/// Writes jsonLines() to `path` (creating its folder); an error text otherwise.
std::optional<std::string> writeJsonLines(const std::string& path, const std::vector<ScenarioResult>& results,
                                          std::uint64_t seed);

}  // namespace cnx::sim
