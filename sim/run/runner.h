#pragma once
// Runs scenarios against the model: one run per scenario and broker version,
// each step matched against the expectation that applies to that version.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/scenario/loader.h"
#include "sim/scenario/observed.h"
#include "sim/runtime/chooser.h"
#include "sim/scenario/scenario.h"
#include "sim/run/race_step.h"
#include "sim/run/topic_name_cache.h"

namespace cnx::sim {

enum class StepStatus {
    passed,
    failed,
    unasserted,   // the step has no `expect` (under --strict a step with an outcome then fails)
    notAsserted,  // per-profile `expect` with no key for this version, or `~` for it
};

struct StepResult {
    std::size_t index = 0;  // 0-based in the scenario
    const Step* step = nullptr;
    /// "step 3 (producer)", after the step's id when it has one ("cold: step 3
    /// (producer)"); made when asked, since only reports read it.
    std::string label() const;
    Observed observed;
    std::optional<Expect> expected;
    StepStatus status = StepStatus::unasserted;
    std::string why;  // mismatch explanation
    /// The known gaps the step's decision met (`not modelled: #NNNN (...)`):
    /// its answer is what the model says on a path it does not implement.
    std::vector<std::string> notModelled;
    /// A `concurrently` step: what its exploration found (its `observed` holds the
    /// canonical schedule's branch traces, which the rest of the run went on from).
    std::shared_ptr<const RaceReport> race;
};

struct ScenarioResult {
    std::string file;
    const Scenario* scenario = nullptr;
    std::string version;  // as asked ("4.2"), or the newest profile's release
    std::string profile;  // profile name
    bool passed = true;
    std::string setupError;  // the scenario could not be set up (invalid input)
    std::vector<StepResult> steps;
    double seconds = 0;
    std::size_t continuations = 0;
    /// A failed scenario run again for its traces (RunOptions::traces): how the
    /// re-run's outcomes differ from the first run's (outcomeDifference); empty
    /// when they agree, as a deterministic run's must, or when it ran once.
    std::string rerunDifference;
};

struct RunOptions {
    std::vector<std::string> tags;         // run scenarios carrying any of these (empty: all)
    std::vector<std::string> excludeTags;  // ... except those carrying any of these
    bool strict = false;  // a step with an outcome (hasOutcome) but no expectation for a profile fails, and so
                          // does a step whose answer met a known gap (not modelled)
    std::uint64_t seed = 1;         // the run's one seeded random source (sim/runtime/rng.h)
    ScheduleMode schedule = ScheduleMode::fifo;  // the order ready continuations run in (--schedule)
    /// `--schedule [DOC/]STEP:CHOICES`: that race runs only that schedule.
    struct RaceSchedule {
        int document = 0;       // 1-based document of its file; 0: every document
        std::size_t step = 0;   // 1-based step
        std::vector<std::size_t> choices;
    };
    std::vector<RaceSchedule> raceSchedules;
    std::size_t maxInterleavings = 100000;  // --max-interleavings: bound of an exhaustive race
    /// --max-explore-time: the time an exhaustive race may take (checked after each
    /// schedule, at least one runs); nullopt: no time bound.
    std::optional<std::chrono::milliseconds> maxExploreTime;
    bool reduce = true;  // false (--explore-all): every interleaving, no partial-order reduction
    /// `--shard K/N --shard-by interleavings`: every exhaustive race explores only
    /// shard K (1-based) of N of its interleavings. 0: not sharded.
    int raceShardIndex = 0;
    int raceShardCount = 0;
    /// Set per scenario by the caller: its 1-based document in a file of several (0: the only one).
    /// Races' replay lines name it.
    int document = 0;
    /// Which steps keep their decision traces. The console and JUnit print a failed step's
    /// trace, the Markdown and HTML reports every step of a failed scenario, `explain`
    /// every step; a passing step is read only for its outcome. So by default
    /// (`failedSteps`) a scenario runs keeping outcomes only (TraceDetail::outcomesOnly: the
    /// gaps met and a refusal's problems), but for its `check` steps, which keep every
    /// detail (they are cheap); if a step that kept outcomes only fails, the scenario runs
    /// once more keeping every detail. `failedScenarios` runs every failed scenario once
    /// more; `always` keeps every detail from the start. The run is deterministic: the
    /// second run's result is the first one's, with the traces. A scenario with a race
    /// always keeps every detail: the race driver reads its tasks' traces.
    enum class Traces { failedSteps, failedScenarios, always };
    Traces traces = Traces::failedSteps;
    /// `--no-fast-paths` or CNXSIM_FAST_PATHS=off: every broker of the run takes
    /// no fast path, only the references (broker_model/core/fast_paths.h). The
    /// results are the same; the ctest scenarios.fast_paths_off holds them to it.
    FastPaths fastPaths = FastPaths::on;
    /// The caller's cache of parsed topic names (one per worker thread, used by
    /// one run at a time); nullptr: each runScenario call has its own.
    TopicNameCache* topicNames = nullptr;
};

/// Parses the value of `--schedule`: a comma-separated list of `fifo`,
/// `random` and `[DOC/]STEP:CHOICES` (CHOICES as a race's failure prints it,
/// e.g. `3:0.1.1` or `2/3:1` ; empty = the canonical schedule). The error text, or nullopt.
std::optional<std::string> parseScheduleOption(const std::string& text, RunOptions& options);


/// Whether `scenario` carries one of `tags` (all scenarios when `tags` is empty).
bool selectedByTags(const Scenario& scenario, const std::vector<std::string>& tags);

/// Whether `scenario` carries one of `excludeTags` (none when it is empty).
bool excludedByTags(const Scenario& scenario, const std::vector<std::string>& excludeTags);

/// Whether a step has an outcome that --strict requires an expectation for:
/// every client, admin and policy step (producer, subscribe, close, publish,
/// upload/get/delete-schema, get-schema-version, delete-topic,
/// test-compatibility, set-policy, set-broker-config: each one answers), and
/// upgrade-broker, restart-broker and unload when they reconnected a client
/// or failed. A `check` never has one: its assertions are the step itself.
bool hasOutcome(const Step& step, const Observed& observed);

/// The broker versions a scenario runs on (its list, or the newest profile's release).
std::vector<std::string> versionsOf(const Scenario& scenario);

/// How `rerun` fails differently from `first` (the outcomes-only run it repeats
/// for the traces): the first step whose status, outcome or reason differs.
/// Empty when they fail the same way.
std::string outcomeDifference(const ScenarioResult& first, const ScenarioResult& rerun);

/// Runs `scenario` on `version`; RunOptions::traces says which steps keep their traces.
ScenarioResult runScenario(const Scenario& scenario, const std::string& file, const std::string& version,
                           const RunOptions& options);

}  // namespace cnx::sim
