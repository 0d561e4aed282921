#pragma once
// The seam between the model and time: every asynchronous stage of the real
// broker (schema lookup, registry read, registry write, subscribe) is a
// continuation posted here, never run inline. The simulator owns the executor
// and decides the order in which pending continuations run: first-in first-out
// for sequential steps, chosen by the explorer for races.

#include <boost/asio/io_context.hpp>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace cnx {

class Executor {
public:
    /// Queues `fn` as one asynchronous stage labelled `stage` (for traces and
    /// the race explorer). Never runs it inline.
    void post(std::string_view stage, std::function<void()> fn);

    /// Number of continuations waiting to run.
    std::size_t pending() const { return queue_.size(); }

    /// Runs pending continuation `i` on the Asio loop; it may post more.
    void runOne(std::size_t i = 0);
    /// Runs continuations oldest first until none is pending. Returns how many ran.
    std::size_t runUntilIdle();
    /// Drops every pending continuation without running it (its owner is
    /// going away). Returns how many were dropped.
    std::size_t discardPending();
    /// Total continuations run since construction.
    std::size_t executed() const { return executed_; }

private:
    struct Task {
        std::string stage;
        std::function<void()> fn;
    };
    boost::asio::io_context io_;
    std::vector<Task> queue_;
    std::size_t executed_ = 0;
};

}  // namespace cnx
