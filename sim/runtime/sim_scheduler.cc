#include "sim/runtime/sim_scheduler.h"

namespace cnx::sim {

SimScheduler::~SimScheduler() = default;

void SimScheduler::enqueue(Stage stage, Continuation fn) { ready_.push_back({std::move(stage), std::move(fn)}); }

std::vector<const Stage*> SimScheduler::ready() const {
    std::vector<const Stage*> out;
    out.reserve(ready_.size());
    for (const auto& t : ready_) out.push_back(&t.stage);
    return out;
}

bool SimScheduler::runOne() {
    if (ready_.empty()) return false;
    std::size_t i = 0;
    if (chooser_ != &fifo_) {  // asked even with one ready, so a scripted schedule stays aligned
        i = chooser_->choose(ready());
        if (i >= ready_.size()) i = ready_.size() - 1;
    }
    schedule_.push_back({i, ready_.size()});
    Task task = std::move(ready_[i]);
    ready_.erase(ready_.begin() + static_cast<std::ptrdiff_t>(i));
    if (recordStages_) ranStages_.push_back(describe(task.stage));
    ++executed_;
    runContinuation(task.stage, task.fn);
    return true;
}

std::size_t SimScheduler::runUntilIdle() {
    std::size_t ran = 0;
    while (runOne()) ++ran;
    return ran;
}

std::size_t SimScheduler::discardPending() {
    auto n = ready_.size();
    ready_.clear();
    return n;
}

std::vector<std::size_t> SimScheduler::choices() const {
    std::vector<std::size_t> out;
    out.reserve(schedule_.size());
    for (const auto& s : schedule_) out.push_back(s.choice);
    return out;
}

std::optional<ScheduleMode> parseScheduleMode(std::string_view text) {
    if (text == "fifo") return ScheduleMode::fifo;
    if (text == "random") return ScheduleMode::random;
    return std::nullopt;
}

}  // namespace cnx::sim
