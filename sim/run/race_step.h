#pragma once
// A `concurrently` step: its schedules explored on fresh runs of the scenario
// (the steps before it replayed, earlier races along their canonical
// schedule), every distinct outcome with a minimal schedule that reaches it,
// the invariants checked at the end of each schedule, and the verdict against
// `outcomes` and `reachable`. The run that goes on afterwards takes the
// canonical schedule (the branches as written, each before the next), or the
// one `--schedule STEP:CHOICES` forces.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "broker_model/core/fast_paths.h"
#include "broker_model/core/release_version.h"
#include "broker_model/profile/profile.h"
#include "sim/race/explorer.h"
#include "sim/scenario/observed.h"
#include "sim/runtime/chooser.h"
#include "sim/scenario/scenario.h"

namespace cnx::sim {

class ScenarioRun;
class TopicNameCache;

/// Where a race runs and how it is explored.
struct RaceSetting {
    const Scenario* scenario = nullptr;
    std::size_t stepIndex = 0;  // 0-based in the scenario
    const BehaviourProfile* profile = nullptr;
    std::string version;
    TopicNameCache* topicNames = nullptr;  // must be set: the run's, which its races' runs parse with too
    ScheduleMode mode = ScheduleMode::fifo;  // of the steps outside races
    std::uint64_t seed = 1;                  // the run's --seed
    FastPaths fastPaths = FastPaths::on;     // the run's (core/fast_paths.h)
    /// Schedules given with --schedule, by step index: that race runs only that schedule.
    std::map<std::size_t, std::vector<std::size_t>> forced;
    std::size_t maxInterleavings = 100000;
    std::optional<std::chrono::milliseconds> maxExploreTime;  // --max-explore-time; nullopt: none
    bool reduce = true;
    int shardIndex = 0;  // 1-based; 0: the whole exploration
    int shardCount = 0;
};

/// One distinct outcome of a race.
struct RaceOutcome {
    std::vector<Observed> results;        // per branch, on the minimal schedule
    std::vector<std::string> rendered;    // per branch, as YAML flow text
    std::vector<std::string> broken;      // invariants broken on the minimal schedule
    std::size_t schedules = 0;            // explored schedules that reach it
    std::vector<std::size_t> choices;     // the minimal one: fewest context switches, then first found
    std::vector<std::string> stages;      // its stages, one line each
    std::size_t switches = 0;
    bool allowed = true;
    std::string replay;                   // the command line that runs exactly its minimal schedule

    /// "[ok, { error: IncompatibleSchema }]".
    std::string text() const;
};

struct RaceReport {
    std::string exploration;  // "exhaustive", "random 200 (seed 7)", "the schedule 3.0.1 (--schedule)"
    race::ExploreStats stats;
    std::vector<RaceOutcome> outcomes;  // in the order first reached
    bool outcomesAsserted = false;      // an `outcomes` list applies to this version
    bool outcomesCovered = true;        // false: a per-version map has no key for it
    bool outcomesSkipped = false;       // `outcomes` is `~` for this version: deliberately not asserted
    std::vector<std::string> unreached; // `reachable` sets not reached, rendered
    std::string stuck;                  // a schedule in which the race could not finish
    std::vector<std::string> notes;     // what this exploration could not judge
    /// How far an exhaustive exploration that stopped at a bound got, e.g.
    /// "explored 1 of at most 100000 schedules in 0.0 s (time bound
    /// --max-explore-time 0ms reached); 0 of the race's 2 first moves covered";
    /// empty when it was complete (or not exhaustive by design: random, a shard, --schedule).
    std::string stopped;
    bool passed = true;
    std::string why;                    // the first reason it failed
};

/// Explores the race at `setting.stepIndex` (whose body is `race`) and judges it for `release`.
RaceReport exploreRace(const RaceSetting& setting, const ConcurrentlyStep& race, const ReleaseVersion& release,
                       bool strict);

/// Runs `race` on `run` along `choices` (the canonical schedule past their end)
/// and returns each branch's outcome; `log` gets the schedule's stages.
std::vector<Observed> runRace(ScenarioRun& run, const ConcurrentlyStep& race, const std::vector<std::size_t>& choices,
                              std::vector<std::string>* log = nullptr, std::vector<std::size_t>* ran = nullptr,
                              std::string* stuck = nullptr);

/// A branch's outcome as YAML flow text, without the broker's message.
std::string renderRaceResult(const Observed& o, const Step& branch);

/// The topics the branches of `race` work on (full names; handles looked up on `run`).
std::vector<std::string> racedTopics(const ScenarioRun& run, const ConcurrentlyStep& race);

}  // namespace cnx::sim
