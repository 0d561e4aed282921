#pragma once
// The simulator's scheduler: continuations wait in a ready list and run one
// at a time, in the order a Chooser picks. It records every choice (the
// schedule), so that any run can be printed stage by stage and replayed with
// a ScriptedChooser.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker_model/runtime/scheduler.h"
#include "sim/runtime/chooser.h"

namespace cnx::sim {

/// One step of a schedule: which of how many ready continuations ran.
struct ScheduleStep {
    std::size_t choice = 0;
    std::size_t ready = 0;
};

class SimScheduler final : public Scheduler {
public:
    /// `chooser` (FIFO when null) must outlive the scheduler.
    explicit SimScheduler(Chooser* chooser = nullptr) : chooser_(chooser ? chooser : &fifo_) {}
    ~SimScheduler() override;

    void setChooser(Chooser* chooser) { chooser_ = chooser ? chooser : &fifo_; }
    /// Keeps a description of every stage run (`ranStages`); off by default (it costs a string per stage).
    void recordStages(bool on) { recordStages_ = on; }

    std::size_t pending() const { return ready_.size(); }
    /// The stages waiting to run, oldest first.
    std::vector<const Stage*> ready() const;

    /// Runs the continuation the chooser picks; it may post more. False when none is ready.
    bool runOne();
    /// Runs until nothing is ready. Returns how many ran.
    std::size_t runUntilIdle();
    std::size_t discardPending() override;

    /// Total continuations run since construction.
    std::size_t executed() const { return executed_; }
    /// Every choice made so far, in order (replay with ScriptedChooser(choices())).
    const std::vector<ScheduleStep>& schedule() const { return schedule_; }
    std::vector<std::size_t> choices() const;
    /// describe(stage) of every continuation run while recordStages was on.
    const std::vector<std::string>& ranStages() const { return ranStages_; }

private:
    struct Task {
        Stage stage;
        Continuation fn;
    };
    void enqueue(Stage stage, Continuation fn) override;

    FifoChooser fifo_;
    Chooser* chooser_;
    std::vector<Task> ready_;
    std::vector<ScheduleStep> schedule_;
    std::vector<std::string> ranStages_;
    std::size_t executed_ = 0;
    bool recordStages_ = false;
};

/// "fifo" / "random" -> the mode; nullopt for anything else.
std::optional<ScheduleMode> parseScheduleMode(std::string_view text);

}  // namespace cnx::sim
