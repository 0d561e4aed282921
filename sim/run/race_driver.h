#pragma once
// One schedule of a race (a `concurrently` step) on a ScenarioRun. Each
// branch runs as a fiber (sim/race/fiber.h) through the same step code as a
// sequential run; where that code waits for the broker (ScenarioRun::settle)
// the fiber stops, and the explorer decides what runs next: one of the
// broker's ready continuations (a stage of §4.11: topic load, schema lookup,
// registry read, registry write, subscribe) or a branch whose answers are all
// in (its client code goes on). A reconnecting branch (unload, restart,
// upgrade) runs each client's reconnect as a fiber of its own, so the
// reconnects race each other and the other branches.
//
// What commutes: continuations and client turns carry the schema id of the
// topic they work on and the client they belong to; two transitions commute
// when they share neither. Policy and broker-config changes, unloads and
// restarts touch everything.
//
// Canonical order: the branches as written, each before the next (the
// schedule a sequential run takes), continuations oldest first.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "sim/race/explorer.h"
#include "sim/race/fiber.h"
#include "broker_model/core/trace.h"
#include "broker_model/runtime/stage.h"
#include "sim/scenario/observed.h"
#include "sim/scenario/scenario.h"

namespace cnx::sim {

class ScenarioRun;

class RaceDriver final : public race::Execution {
public:
    /// Starts (but runs nothing of) the branches of `step` on `run`, which must
    /// outlive the driver and be between steps.
    RaceDriver(ScenarioRun& run, const ConcurrentlyStep& step);
    ~RaceDriver() override;

    std::vector<race::Transition> enabled() override;
    Footprint execute(std::size_t index) override;

    /// Whether every branch finished (false with nothing enabled: the race is stuck).
    bool finished() const;
    /// Each branch's outcome, in branch order (after the race is over).
    const std::vector<Observed>& results() const { return results_; }
    /// The schedule so far, one line per transition: "p2: registry write (re-run the decision)".
    const std::vector<std::string>& log() const { return log_; }

    // --- called on a branch's fiber, by ScenarioRun ---

    /// Whether the calling code runs on one of this driver's fibers.
    bool onFiber() const;
    /// Waits until no continuation of the calling fiber is pending.
    void settle();
    /// A fiber to fork: who it is in schedules, the client it acts for, its topic.
    struct Fork {
        std::string who;
        std::string client;
        std::string topic;
    };
    /// Runs body(i) for each of `forks`, each on a fiber of its own that races
    /// the others, and returns when all are done.
    void forkJoin(const std::vector<Fork>& forks, const std::function<void(std::size_t)>& body);

private:
    enum class Wait { start, settle, join, done };
    struct FiberState {
        std::string who;
        int branch = 0;
        int ordinal = 0;  // 0 for a branch; i + 1 for its i-th forked fiber
        int parent = -1;
        std::uint64_t key = 0;
        std::uint64_t turns = 0;
        Footprint footprint;  // what every turn touches besides what the model reports
        std::string client;         // whose connection its turns use (none for admin steps)
        bool admin = false;
        std::unique_ptr<race::Fiber> fiber;
        Wait wait = Wait::start;
        std::vector<std::uint64_t> after;  // what its next turn causally follows
        std::vector<int> children;
    };
    struct Offer {
        bool task = false;
        int fiber = -1;
        std::tuple<int, int, int, std::uint64_t> order;
        race::Transition transition;
    };

    int addFiber(std::string who, int branch, int ordinal, int parent, std::uint64_t key, Footprint footprint,
                 std::function<void()> body);
    int currentFiber() const;
    bool turnEnabled(std::size_t fiber) const;
    Footprint footprintOfStage(const Stage& stage) const;
    Footprint footprintOfBranch(const Step& step) const;
    std::string whoOf(const Step& step) const;
    std::string handleClient(const std::string& name) const;
    std::string describeTask(const Offer& offer, const Stage& stage, std::size_t traceBefore,
                             const std::string& before) const;
    std::string registryStateOf(const Stage& stage) const;
    const Trace* requestTrace(const Stage& stage) const;

    ScenarioRun& run_;
    const ConcurrentlyStep& step_;
    std::vector<std::unique_ptr<FiberState>> fibers_;
    std::vector<Offer> offers_;
    std::vector<Observed> results_;
    std::vector<std::string> log_;
};

/// The key of a schema id in footprints.
std::uint64_t schemaKey(const std::string& schemaId);
/// The key of a client (the runner's handles of it) in footprints.
std::uint64_t clientKey(const std::string& client);


}  // namespace cnx::sim
