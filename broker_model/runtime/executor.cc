#include "broker_model/runtime/executor.h"

#include <boost/asio/post.hpp>

namespace cnx {

void Executor::post(std::string_view stage, std::function<void()> fn) {
    queue_.push_back({std::string(stage), std::move(fn)});
}

void Executor::runOne(std::size_t i) {
    Task task = std::move(queue_[i]);
    queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(i));
    boost::asio::post(io_, std::move(task.fn));
    io_.restart();
    io_.run_one();
    ++executed_;
}

std::size_t Executor::discardPending() {
    auto n = queue_.size();
    queue_.clear();
    return n;
}

std::size_t Executor::runUntilIdle() {
    std::size_t ran = 0;
    while (!queue_.empty()) {
        runOne(0);
        ++ran;
    }
    return ran;
}

}  // namespace cnx
