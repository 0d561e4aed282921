#include "sim/runtime/sim_scheduler.h"

#include "sim/runtime/footprint.h"

namespace cnx::sim {

SimScheduler::~SimScheduler() = default;

void SimScheduler::enqueue(const StageRef& ref, const Origin& origin, Continuation&& fn) {
    // Built where it waits, its Stage too: a Task is a Stage, a function and
    // its ids, and moving one costs.
    auto& task = ready_.emplace_back(std::move(fn), mixIds(currentId_, ++posted_), currentId_, currentFiber_,
                                     nextSeq_++);
    keptStage(task.stage, ref, origin);
}

void SimScheduler::setTransition(std::uint64_t id, int fiber) {
    currentId_ = id;
    posted_ = 0;
    currentFiber_ = fiber;
}

std::vector<ReadyTask> SimScheduler::readyTasks() const {
    std::vector<ReadyTask> out;
    out.reserve(ready_.size());
    for (const auto& t : ready_) out.push_back({t.id, t.parent, t.fiber, t.seq, &t.stage});
    return out;
}

bool SimScheduler::runTask(std::uint64_t id) {
    for (std::size_t i = 0; i < ready_.size(); ++i) {
        if (ready_[i].id != id) continue;
        schedule_.push_back({i, ready_.size()});
        run(i);
        return true;
    }
    return false;
}

void SimScheduler::beginFootprint() {
    tracking_ = true;
    footprint_ = {};
}

Footprint SimScheduler::endFootprint() {
    tracking_ = false;
    return std::move(footprint_);
}

void SimScheduler::touch(std::string_view what, std::string_view key, bool write) {
    if (!tracking_) return;
    std::uint64_t h = 1469598103934665603ULL;  // FNV-1a of "what:key", as keyOf
    auto mix = [&h](std::string_view text) {
        for (unsigned char c : text) {
            h ^= c;
            h *= 1099511628211ULL;
        }
    };
    mix(what);
    mix(":");
    mix(key);
    if (write) footprint_.write(h);
    else footprint_.read(h);
}

std::size_t SimScheduler::pendingOf(int fiber) const {
    std::size_t n = 0;
    for (const auto& t : ready_) n += t.fiber == fiber;
    return n;
}

void SimScheduler::run(std::size_t i) {
    // Only what the continuation needs leaves the list: its function, its
    // origin and its ids, not the whole Task with the stage's two strings.
    auto& t = ready_[i];
    if (recordStages_) ranStages_.push_back(describe(t.stage));
    Continuation fn = std::move(t.fn);
    const Origin origin = t.stage.origin;
    const auto id = t.id;
    const int fiber = t.fiber;
    ready_.erase(ready_.begin() + static_cast<std::ptrdiff_t>(i));
    ++executed_;
    auto savedId = currentId_;
    auto savedPosted = posted_;
    auto savedFiber = currentFiber_;
    currentId_ = id;
    posted_ = 0;
    currentFiber_ = fiber;
    runContinuation(origin, fn);
    currentId_ = savedId;
    posted_ = savedPosted;
    currentFiber_ = savedFiber;
}

std::vector<const Stage*> SimScheduler::ready() const {
    std::vector<const Stage*> out;
    out.reserve(ready_.size());
    for (const auto& t : ready_) out.push_back(&t.stage);
    return out;
}

void SimScheduler::enqueueAt(std::int64_t dueMs, const StageRef& ref, const Origin& origin, Continuation&& fn) {
    if (dueMs <= nowMs_) {
        enqueue(ref, origin, std::move(fn));
        return;
    }
    auto& timer = timers_.emplace(dueMs, Timer{})->second;
    timer.stage.kind = ref.kind;
    timer.stage.topic = ref.topic;
    timer.stage.schemaId = ref.schemaId;
    timer.origin = origin;
    timer.fn = std::move(fn);
}

bool SimScheduler::fireTimers() {
    if (timers_.empty()) return false;
    nowMs_ = timers_.begin()->first;
    while (!timers_.empty() && timers_.begin()->first <= nowMs_) {
        auto node = timers_.extract(timers_.begin());
        auto& t = node.mapped();
        enqueue(StageRef{t.stage.kind, t.stage.topic, t.stage.schemaId}, t.origin, std::move(t.fn));
    }
    return true;
}

bool SimScheduler::runOne() {
    if (ready_.empty() && !fireTimers()) return false;
    std::size_t i = 0;
    if (chooser_ != &fifo_) {  // asked even with one ready, so a scripted schedule stays aligned
        i = chooser_->choose(ready());
        if (i >= ready_.size()) i = ready_.size() - 1;
    }
    schedule_.push_back({i, ready_.size()});
    run(i);
    return true;
}

std::size_t SimScheduler::runUntilIdle() {
    std::size_t ran = 0;
    while (runOne()) ++ran;
    return ran;
}

std::size_t SimScheduler::discardPending() {
    auto n = ready_.size() + timers_.size();
    ready_.clear();
    timers_.clear();
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
