#pragma once
// Bounds of the scenario format that writers of scenarios must keep to as well
// as the loader (doc/scenario-format.md "Limits").

namespace cnx::sim {

/// The most messages one publish step sends (the loader's bound on `count`).
constexpr int kMaxPublishCount = 1'000'000;

}  // namespace cnx::sim
