#pragma once
// The scheduler of a network server: each stage is posted on a Boost.Asio
// io_context and runs in the order the io_context runs handlers (FIFO on one
// thread). All model calls and continuations must run on that io_context's
// single thread (or one strand).

#include <boost/asio/io_context.hpp>
#include <cstdint>
#include <memory>

#include "broker_model/runtime/scheduler.h"

namespace cnx {

class AsioScheduler final : public Scheduler {
public:
    /// `io` must outlive the scheduler.
    explicit AsioScheduler(boost::asio::io_context& io) : io_(io) {}
    ~AsioScheduler() override;

    std::size_t discardPending() override;
    /// The system clock.
    std::int64_t nowMs() const override;
    /// Continuations posted and neither run nor discarded yet.
    std::size_t pending() const { return state_->pending; }
    std::size_t executed() const { return state_->executed; }

private:
    // Shared with the posted handlers, which may outlive the scheduler in the io_context's queue.
    struct State {
        std::uint64_t epoch = 0;  // discardPending() moves it: handlers of an older epoch do nothing
        std::size_t pending = 0;
        std::size_t executed = 0;
        bool alive = true;
    };
    void enqueue(const StageRef& ref, const Origin& origin, Continuation&& fn) override;
    void enqueueAt(std::int64_t dueMs, const StageRef& ref, const Origin& origin, Continuation&& fn) override;

    boost::asio::io_context& io_;
    std::shared_ptr<State> state_ = std::make_shared<State>();
};

}  // namespace cnx
