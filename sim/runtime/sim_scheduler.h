#pragma once
// The simulator's scheduler: continuations wait in a ready list and run one
// at a time, in the order a Chooser picks. It records every choice (the
// schedule), so that any run can be printed stage by stage and replayed with
// a ScriptedChooser.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "broker_model/runtime/scheduler.h"
#include "sim/runtime/footprint.h"
#include "sim/runtime/chooser.h"

namespace cnx::sim {

/// One step of a schedule: which of how many ready continuations ran.
struct ScheduleStep {
    std::size_t choice = 0;
    std::size_t ready = 0;
};

/// A ready continuation as a race explorer sees it (SimScheduler::readyTasks).
struct ReadyTask {
    std::uint64_t id = 0;      // stable: derived from the posting transition and its post count
    std::uint64_t parent = 0;  // id of the transition that posted it
    int fiber = -1;            // the race branch it works for (-1: none)
    std::uint64_t seq = 0;     // post order
    const Stage* stage = nullptr;
};

class SimScheduler final : public Scheduler {
public:
    /// `chooser` (FIFO when null) must outlive the scheduler.
    explicit SimScheduler(Chooser* chooser = nullptr) : chooser_(chooser ? chooser : &fifo_) {
        schedule_.reserve(64);
    }
    ~SimScheduler() override;

    void setChooser(Chooser* chooser) { chooser_ = chooser ? chooser : &fifo_; }
    /// Keeps a description of every stage run (`ranStages`); off by default (it costs a string per stage).
    void recordStages(bool on) { recordStages_ = on; }
    /// Whether stages keep their topic and schema id (Scheduler::keepsStageNames).
    /// On by default. Only a race explorer (readyTasks) and recordStages read
    /// them; a run that uses neither turns this off and saves two strings a stage.
    void keepStageNames(bool on) { keepStageNames_ = on; }
    bool keepsStageNames() const override { return keepStageNames_ || recordStages_; }

    std::size_t pending() const { return ready_.size(); }
    /// The stages waiting to run, oldest first.
    std::vector<const Stage*> ready() const;

    /// Runs the continuation the chooser picks; it may post more. False when none is ready.
    bool runOne();
    /// Runs until nothing is ready. Returns how many ran.
    std::size_t runUntilIdle();
    std::size_t discardPending() override;
    /// The simulated clock: 0 at the start, moved on to a timer's due time only
    /// when nothing else is ready (runOne).
    std::int64_t nowMs() const override { return nowMs_; }

    /// Total continuations run since construction.
    std::size_t executed() const { return executed_; }
    /// Every choice made so far, in order (replay with ScriptedChooser(choices())).
    const std::vector<ScheduleStep>& schedule() const { return schedule_; }
    std::vector<std::size_t> choices() const;
    /// describe(stage) of every continuation run while recordStages was on.
    const std::vector<std::string>& ranStages() const { return ranStages_; }

    // --- race exploration (sim/run/race_driver.h) ---

    /// Marks what runs from now on outside a continuation (a branch's client
    /// code): continuations posted meanwhile get ids derived from `id` and the
    /// fiber tag `fiber`. Continuations inherit the tag of the one that posts them.
    void setTransition(std::uint64_t id, int fiber);
    /// The ready continuations with their ids and tags, oldest first.
    std::vector<ReadyTask> readyTasks() const;
    /// Runs the ready continuation with this id (no chooser); false when none has it.
    bool runTask(std::uint64_t id);
    /// Ready continuations tagged `fiber`.
    std::size_t pendingOf(int fiber) const;
    /// Starts recording what the model touches (Scheduler::touch) ...
    void beginFootprint();
    /// ... and returns it (unsorted keys: "what:key" hashed).
    Footprint endFootprint();
    void touch(std::string_view what, std::string_view key, bool write) override;

private:
    struct Task {
        Task(Continuation&& fn_, std::uint64_t id_, std::uint64_t parent_, int fiber_, std::uint64_t seq_)
            : fn(std::move(fn_)), id(id_), parent(parent_), fiber(fiber_), seq(seq_) {}
        Stage stage;
        Continuation fn;
        std::uint64_t id = 0;
        std::uint64_t parent = 0;
        int fiber = -1;
        std::uint64_t seq = 0;
    };
    void run(std::size_t index);
    void enqueue(const StageRef& ref, const Origin& origin, Continuation&& fn) override;
    void enqueueAt(std::int64_t dueMs, const StageRef& ref, const Origin& origin, Continuation&& fn) override;
    /// Nothing ready: the clock moves to the earliest timer, whose continuations become ready.
    bool fireTimers();

    FifoChooser fifo_;
    Chooser* chooser_;
    // A deque: the FIFO order takes the oldest, which a vector would pay for
    // with a move of every other waiting task (a producer on 100,000
    // partitions posts 100,000 at once: issue 40 item 19).
    std::deque<Task> ready_;
    std::vector<ScheduleStep> schedule_;
    std::vector<std::string> ranStages_;
    std::size_t executed_ = 0;
    bool recordStages_ = false;
    bool keepStageNames_ = true;
    // The transition running now (a continuation, or the client code set by setTransition).
    std::uint64_t currentId_ = 0;
    std::uint64_t posted_ = 0;  // by the current transition
    int currentFiber_ = -1;
    std::uint64_t nextSeq_ = 0;
    bool tracking_ = false;
    Footprint footprint_;
    struct Timer {
        Stage stage;  // kind and names, copied when posted
        Origin origin;
        Continuation fn;
    };
    std::int64_t nowMs_ = 0;
    std::multimap<std::int64_t, Timer> timers_;  // by due time, then posting order
};

/// "fifo" / "random" -> the mode; nullopt for anything else.
std::optional<ScheduleMode> parseScheduleMode(std::string_view text);

}  // namespace cnx::sim
