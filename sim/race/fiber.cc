#include "sim/race/fiber.h"

namespace cnx::sim::race {
namespace {

thread_local Fiber* tCurrent = nullptr;

// Thrown by suspend() of a fiber being destroyed; caught in Fiber::main only.
struct Unwind {};

}  // namespace

Fiber::Fiber(std::function<void()> body) : body_(std::move(body)) {}

Fiber::~Fiber() {
    if (!thread_.joinable()) return;
    {
        std::unique_lock lock(mutex_);
        if (!finished_) {
            cancelled_ = true;
            turn_ = Turn::fiber;
            changed_.notify_all();
            waitFor(Turn::controller, lock);
        }
    }
    thread_.join();
}

Fiber* Fiber::current() { return tCurrent; }

void Fiber::waitFor(Turn turn, std::unique_lock<std::mutex>& lock) {
    changed_.wait(lock, [&] { return turn_ == turn; });
}

void Fiber::resume() {
    std::unique_lock lock(mutex_);
    if (finished_) return;
    turn_ = Turn::fiber;
    if (!started_) {
        started_ = true;
        thread_ = std::thread([this] { main(); });
    } else {
        changed_.notify_all();
    }
    waitFor(Turn::controller, lock);
}

void Fiber::suspend() {
    std::unique_lock lock(mutex_);
    turn_ = Turn::controller;
    changed_.notify_all();
    waitFor(Turn::fiber, lock);
    if (cancelled_) throw Unwind{};
}

void Fiber::main() {
    {
        std::unique_lock lock(mutex_);
        waitFor(Turn::fiber, lock);
    }
    tCurrent = this;
    if (!cancelled_) {
        try {
            body_();
        } catch (const Unwind&) {
        }
    }
    tCurrent = nullptr;
    std::unique_lock lock(mutex_);
    finished_ = true;
    turn_ = Turn::controller;
    changed_.notify_all();
}

}  // namespace cnx::sim::race
