#pragma once
// A fiber: a body of client code that runs in turns with its controller, one
// of them at a time, so a race's branches can wait for the broker's answers in
// the middle of a step while the explorer decides what the broker does next.
// A fiber has a stack of its own and switches with swapcontext (POSIX
// ucontext), on the controller's thread: no locks, no kernel scheduling, so a
// race explorer can run millions of turns; the switches are announced to
// AddressSanitizer (its fiber API) so that sanitized builds stay exact.
// Single-threaded: a fiber is resumed on the thread that created it.

#include <cstddef>
#include <functional>
#include <memory>

#include <ucontext.h>

namespace cnx::sim::race {

class Fiber {
public:
    explicit Fiber(std::function<void()> body);
    /// A fiber destroyed while suspended is unwound first (its suspend() throws
    /// an exception only this class catches), so its stack holds nothing live.
    ~Fiber();
    Fiber(const Fiber&) = delete;
    Fiber& operator=(const Fiber&) = delete;

    /// Controller: runs the body until it suspends or returns. Not after finished().
    void resume();
    /// Inside the body: gives the turn back to the controller until the next resume().
    void suspend();
    bool started() const { return started_; }
    bool finished() const { return finished_; }

    /// The fiber whose body is running now, or nullptr.
    static Fiber* current();

private:
    static void entry();
    void switchIn();
    void switchOut(bool exiting);

    std::function<void()> body_;
    std::unique_ptr<char[]> stack_;
    ucontext_t context_{};
    ucontext_t controller_{};
    Fiber* outer_ = nullptr;  // the fiber that resumed this one (nullptr: plain code)
    void* fakeStack_ = nullptr;
    const void* controllerBottom_ = nullptr;
    std::size_t controllerSize_ = 0;
    bool started_ = false;
    bool finished_ = false;
    bool cancelled_ = false;
};

}  // namespace cnx::sim::race
