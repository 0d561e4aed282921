#pragma once
// A judge for the differential search that needs no network (doc/explore.md,
// "Across releases"): each session runs on the model under two releases, and
// the first step whose outcomes differ is the disagreement. It finds what
// changed between two release lines; the tests use it to show that the
// generated sessions reach the rules that differ.

#include <string>

#include "sim/explore/explore.h"
#include "sim/scenario/observed.h"

namespace cnx::sim::explore {

/// Runs a session on the model under `versionA` and `versionB` (release lines or
/// releases, as `broker.version` takes them). The kind is the step's action and
/// each side's outcome without its message, versions as `vN` ("producer: 2.10=ok vN
/// 4.2=IncompatibleSchema"); outcomes that differ only in their versions give
/// "<action>: versions differ (ok vN)", only in their message "<action>: message differs (<outcome>)".
/// acceptedYaml is the session with `broker.version: [A, B]` and each step's
/// expectation per release, so the written file passes `cnxsim run` on both.
/// A session that does not load is not a disagreement (its detail says why).
Judge crossVersionJudge(std::string versionA, std::string versionB);

/// An outcome without its message, as a kind names it: `ok vN` (the version as `vN`
/// unless `exactVersions`; -1 stays), the schema type, the compatibility flag, or the
/// error name; per client for reconnects.
std::string outcomeKey(const Observed& o, bool exactVersions);

}  // namespace cnx::sim::explore
