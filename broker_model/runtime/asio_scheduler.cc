#include "broker_model/runtime/asio_scheduler.h"

#include <boost/asio/post.hpp>

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

std::size_t AsioScheduler::discardPending() {
    auto n = state_->pending;
    ++state_->epoch;
    state_->pending = 0;
    return n;
}

}  // namespace cnx
