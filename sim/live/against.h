#pragma once
// `cnxsim run PATH... --against pulsar://HOST:PORT --admin http://HOST:PORT`:
// every selected scenario runs on a real broker (live_run.h) and on the model
// of the same release, and each step is judged three ways: the expectation,
// the real broker's answer, the model's answer. A step agrees when the real
// answer meets the expectation and equals the model's. The broker's own
// configuration is read first (GET /admin/v2/brokers/configuration/runtime):
// a scenario whose broker.config differs from it in a key the broker cannot
// change at run time is not executable there, and says which key.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "sim/explore/explore.h"
#include "sim/live/live_run.h"
#include "sim/run/runner.h"

namespace cnx::sim::live {

struct AgainstOptions {
    LiveTarget target;
    std::optional<std::string> version;  // --version; else the broker's own (GET /admin/v2/brokers/version)
    bool strict = false;                 // not executable steps fail the run too
    bool verbose = false;                // every step's three columns, not only the disagreeing ones
    std::optional<std::filesystem::path> json;  // --json FILE: the verdict of every step
    // --explore N --seed S -o DIR: a differential search instead of the scenarios.
    std::optional<std::uint64_t> explore;
    std::uint64_t seed = 1;
    std::optional<std::filesystem::path> outDir;
    bool keepCreated = false;  // leave each run's tenants on the broker (a search on a throwaway broker)
};

/// Where the real broker and the model part on one step: empty when they agree.
std::string disagreement(const Observed& real, const Observed& model);

/// The broker the runs compare with, read once: its release, the profile of
/// it, its runtime configuration and its dynamic keys.
struct LiveBroker {
    std::string release;  // as the model resolves it ("4.2.4")
    const BehaviourProfile* profile = nullptr;
    std::map<std::string, std::string> runtime;  // runtime configuration (key -> text)
    std::vector<std::string> dynamicKeys;
    std::string cluster = "standalone";  // GET /admin/v2/clusters' first
};
/// Reads the broker; the error text when it cannot be reached or its release is not modelled.
std::variant<LiveBroker, std::string> describeBroker(const AgainstOptions& options);

/// The verdict of one step.
struct StepVerdict {
    /// explained: the answers differ in a known way (known_differences.h), reported `not modelled`.
    enum class Kind { agreed, disagreed, explained, notExecutable, error };
    Kind kind = Kind::agreed;
    std::size_t index = 0;
    std::string action;
    std::string expected;  // rendered, "-" when the step has none for this release
    std::string real;
    std::string model;
    std::string why;  // what disagreed, or why it could not run
    std::optional<Observed> realObserved;   // executed steps: the real broker's answer
    std::optional<Observed> modelObserved;  // ... and the model's
};
struct ScenarioVerdict {
    std::string file;
    std::string name;
    std::string writtenFor;  // the releases the scenario lists when the broker's line is not among them
    bool executable = true;
    std::string why;  // not executable / error
    /// Not executable for the broker's settings: every key it would need, with its value.
    std::map<std::string, std::string> needs;
    bool error = false;
    std::vector<StepVerdict> steps;
    /// The real broker's answers are the model's in another order of the broker's concurrent
    /// work (orderThatAgrees), not the default one: that order's seed.
    std::optional<std::uint64_t> otherOrderSeed;
    bool agreed() const;
};

/// A broker answers some sessions two ways: work it does concurrently (a partitioned
/// consumer's SUBSCRIBEs, each checking and registering the topic's schema) finishes in
/// either order. The model runs one order by default (fifo); its other orders are its
/// random schedules (`--schedule random --seed K`). When a session's real answers
/// differ from the default order's, the first K in 1..kOtherOrdersTried whose run
/// gives every real answer of `steps` (each step with realObserved) is returned, with that run.
inline constexpr std::uint64_t kOtherOrdersTried = 32;
struct OtherOrder {
    std::uint64_t seed = 0;
    ScenarioResult result;  // the model's run in that order
};
std::optional<OtherOrder> orderThatAgrees(const Scenario& scenario, const std::string& file,
                                             const std::string& release, const RunOptions& runOptions,
                                             const std::vector<StepVerdict>& steps);
/// `runOptions` with the other order `seed` (random schedule, that seed).
RunOptions otherOrder(const RunOptions& runOptions, std::uint64_t seed);
/// How to replay the other order `seed`: "--schedule random --seed K".
std::string otherOrderArgs(std::uint64_t seed);

/// Runs one scenario on both sides.
ScenarioVerdict compareScenario(const Scenario& scenario, const std::string& file, const LiveBroker& broker,
                                const AgainstOptions& options, const RunOptions& runOptions);

/// The judge of a differential search on the live broker (sim/explore/explore.h): each
/// session runs on both sides; the first step that disagrees is the verdict, its kind the
/// step's action and both outcomes without messages, and acceptedYaml the session with the
/// real broker's answers as its expectations. `broker`, `options` and `runOptions` outlive it.
explore::Judge liveJudge(const LiveBroker& broker, const AgainstOptions& options, const RunOptions& runOptions);

/// The `run --against` command over the selected scenarios; the exit status.
int runAgainst(const std::vector<const std::pair<std::string, Scenario>*>& selected, const RunOptions& runOptions,
               const AgainstOptions& options, std::ostream& out, std::ostream& err);

}  // namespace cnx::sim::live
