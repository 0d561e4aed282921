#pragma once
// "Did you mean" suggestions for misspelt keys and enum values in scenario
// files (doc/scenario-format.md "Files").

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cnx::sim {

/// The candidate closest to `word` by Damerau-Levenshtein distance (optimal
/// string alignment), compared case-insensitively, or nullopt when none is
/// close enough. A candidate qualifies when its distance is at most a third of
/// the shorter length (at least 1); a case-only difference always qualifies.
/// Ties go to the earlier candidate. Pure; safe from any thread.
std::optional<std::string> closestMatch(std::string_view word, std::span<const std::string_view> candidates);

/// The same for owned strings.
std::optional<std::string> closestMatch(std::string_view word, const std::vector<std::string>& candidates);

/// `"; did you mean 'x'?"` for the closest candidate, or an empty string.
std::string didYouMeanSuffix(std::string_view word, std::span<const std::string_view> candidates);

}  // namespace cnx::sim
