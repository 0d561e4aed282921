#pragma once
// The invariants a race may name (`invariant:`), checked on the state a
// schedule ends in (doc/scenario-format.md, "Invariants"):
//
// - admitted-schemas-compatible: every live version of each raced topic's
//   schema is compatible with the live versions before it under the topic's
//   effective strategy at the end (transitive strategies: all of them; the
//   others: the one before);
// - no-duplicate-versions: no two live versions are equal by the broker's own
//   equality (§4.5);
// - versions-contiguous: the stored versions are 0..n-1, delete markers included;
// - every-request-answered: each binary-protocol request got exactly one answer
//   (a dropped connection answers its pending ones), each SEND one receipt, and
//   each admin call one response;
// - enforcement-holds: no producer without a schema is attached to a topic that
//   has one while validation enforcement is on for it.

#include <string>
#include <vector>

namespace cnx::sim {

class ScenarioRun;

/// The broken ones of `names` on `run`, one line each: "no-duplicate-versions:
/// public/default/t: v1 equals v0". `schemaIds` are the raced topics' ids.
std::vector<std::string> brokenInvariants(const ScenarioRun& run, const std::vector<std::string>& names,
                                          const std::vector<std::string>& topics);

}  // namespace cnx::sim
