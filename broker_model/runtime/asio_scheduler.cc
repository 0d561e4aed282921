#include "broker_model/runtime/asio_scheduler.h"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>

namespace cnx {

AsioScheduler::~AsioScheduler() {
    state_->alive = false;
    state_->pending = 0;
}

// Only the origin travels with the continuation: nothing here reads a stage's names.
void AsioScheduler::enqueue(const StageRef& /*ref*/, const Origin& origin, Continuation&& fn) {
    ++state_->pending;
    boost::asio::post(io_, [this, state = state_, epoch = state_->epoch, origin,
                            fn = std::move(fn)]() mutable {
        if (!state->alive || epoch != state->epoch) return;  // discarded, or the scheduler is gone
        --state->pending;
        ++state->executed;
        runContinuation(origin, fn);
    });
}

std::int64_t AsioScheduler::nowMs() const {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

void AsioScheduler::enqueueAt(std::int64_t dueMs, const StageRef& ref, const Origin& origin, Continuation&& fn) {
    auto wait = dueMs - nowMs();
    if (wait <= 0) {
        enqueue(ref, origin, std::move(fn));
        return;
    }
    // The timer holds itself until it fires; the scheduler's state says whether
    // its continuation may still run (a discard or the scheduler's end drops it).
    auto timer = std::make_shared<boost::asio::steady_timer>(io_, std::chrono::milliseconds(wait));
    ++state_->pending;
    timer->async_wait([this, timer, state = state_, epoch = state_->epoch, origin,
                       fn = std::move(fn)](const boost::system::error_code&) mutable {
        if (!state->alive || epoch != state->epoch) return;
        --state->pending;
        ++state->executed;
        runContinuation(origin, fn);
    });
}

std::size_t AsioScheduler::discardPending() {
    auto n = state_->pending;
    ++state_->epoch;
    state_->pending = 0;
    return n;
}

}  // namespace cnx
