#pragma once
// Seeded generator of Avro compatibility cases for the differential tests
// (issue 3): base record schemas and histories of 2-5 versions, each version a
// mutation of the one before (fields added/removed with and without defaults,
// types moved along and against the promotion lattice, records and enums
// renamed with and without aliases, enum symbols edited, union branches
// added/removed/reordered, nesting, recursion through unions/arrays/maps,
// fixed sizes and names, namespaces). Same seed, same cases.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cnx::differential {

enum class Strategy { BACKWARD, FORWARD, FULL };
std::string_view to_string_view(Strategy s);

/// One question put to the broker's validator: may `candidate` be added after
/// `existing` (oldest first) under `strategy`, checked against the latest
/// existing schema only or against all of them.
struct Case {
    int id = 0;
    Strategy strategy = Strategy::BACKWARD;
    bool all = false;
    std::vector<std::string> existing;  // single-line JSON definitions, oldest first
    std::string candidate;
    std::vector<std::string> mutations;  // mutation kinds applied along the history
};

/// `count` cases from `seed`. Deterministic for a given seed.
std::vector<Case> generateCases(std::uint64_t seed, int count);

/// Every mutation kind the generator knows, so tests can require each occurs.
const std::vector<std::string>& mutationKinds();

/// How often each mutation kind occurs in `cases`.
std::map<std::string, int> countMutations(const std::vector<Case>& cases);

}  // namespace cnx::differential
