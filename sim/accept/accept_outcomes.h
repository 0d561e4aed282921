#pragma once
// What `cnxsim run --accept[=all]` writes: from a run's results, one `expect`
// per step, as the edits accept_writer applies to the files. Contract:
// accepting never turns a version that passed into one that fails, and the
// written file passes under --strict on every version it ran on.

#include <map>
#include <string>
#include <vector>

#include "broker_model/core/release_version.h"
#include "sim/accept/accept_writer.h"
#include "sim/run/runner.h"

namespace cnx::sim {

enum class AcceptMode {
    missing,     // `--accept`: steps without `expect`, and versions no key of a per-version map covers
    mismatches,  // `--accept=all`: ... and versions whose expectation failed
};

/// The edits per file. A step is edited when some version it ran on is
/// taken by `mode` (steps that need no expectation, see hasOutcome, are never
/// edited). Versions taken get the observed outcome; the others keep the
/// expectation that applied to them. When versions disagree, the value is a
/// per-version map of the fewest ranges (see perVersionYaml).
std::map<std::string, std::vector<AcceptEdit>> acceptEdits(const std::vector<ScenarioResult>& results, AcceptMode mode);

/// One version's outcome as YAML flow text.
struct VersionOutcome {
    ReleaseVersion release;  // the exact release the run modelled
    std::string asWritten;   // the scenario's spelling ("2.10" or "2.10.4")
    std::string yaml;
};

/// The outcomes as one `expect` value: the single value when all agree;
/// otherwise one key per run of equal outcomes in release order, `"<B2"` ...
/// `">=Bn"`, where each bound is the first release of its run (written as the
/// line, "3.0", when that still separates it from the run before). Keys are
/// tried in order, so the map covers every release. `outcomes` must not be empty.
std::string perVersionYaml(std::vector<VersionOutcome> outcomes);

/// A short stable substring of a broker message for `message:`: the root
/// message (before Pulsar's " caused by ", after the last Java exception class
/// prefix, before any line break or embedded schema `{`), at most 120 bytes.
/// Empty when nothing stable is left.
std::string rootMessage(const std::string& message);

/// The observed outcome as an accepted expectation: `ok`, `{ schema_version: 0 }`,
/// `{ error: X, message: "<root message>" }`; for get-schema also `type`,
/// `schema` (an alias of `scenario` whose definition is the observed one, or
/// a primitive type name) and `properties`.
std::string renderAccepted(const Observed& observed, const Step& step, const Scenario& scenario);

}  // namespace cnx::sim
