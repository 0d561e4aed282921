#pragma once
// A fiber: a body of client code that runs in turns with its controller, one
// of them at a time, so a race's branches can wait for the broker's answers in
// the middle of a step while the explorer decides what the broker does next.
// Each fiber is a thread, but never runs at the same time as its controller:
// resume() hands it the turn and blocks until it suspends or ends, so every
// run is as deterministic as single-threaded code (and sanitizer-friendly,
// unlike swapcontext).

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace cnx::sim::race {

class Fiber {
public:
    explicit Fiber(std::function<void()> body);
    /// A fiber destroyed while suspended is unwound first (its suspend() throws
    /// an exception only this class catches), so no thread outlives it.
    ~Fiber();
    Fiber(const Fiber&) = delete;
    Fiber& operator=(const Fiber&) = delete;

    /// Controller: runs the body until it suspends or returns. Not after finished().
    void resume();
    /// Inside the body: gives the turn back to the controller until the next resume().
    void suspend();
    bool started() const { return started_; }
    bool finished() const { return finished_; }

    /// The fiber whose body is running on this thread, or nullptr.
    static Fiber* current();

private:
    enum class Turn { controller, fiber };
    void main();
    void waitFor(Turn turn, std::unique_lock<std::mutex>& lock);

    std::function<void()> body_;
    std::mutex mutex_;
    std::condition_variable changed_;
    Turn turn_ = Turn::controller;
    bool started_ = false;
    bool finished_ = false;
    bool cancelled_ = false;
    std::thread thread_;
};

}  // namespace cnx::sim::race
