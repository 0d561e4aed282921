#include "sim/race/fiber.h"

#include <cstdlib>
#include <vector>

#include "broker_model/runtime/stack_switch.h"

namespace cnx::sim::race {
namespace {

// Enough for the model's paths (schemas nested deeper than kShallowNesting
// are checked on a large stack of their own, broker_model/runtime/large_stack.h);
// pages are committed only as they are touched.
constexpr std::size_t kStackSize = 4 * 1024 * 1024;

// Per thread: `cnxsim run --jobs` runs races on several threads at once.
thread_local Fiber* gCurrent = nullptr;
thread_local Fiber* gStarting = nullptr;

// Thrown by suspend() of a fiber being destroyed; caught in Fiber::entry only.
struct Unwind {};

// Stacks are reused: an exploration starts and ends fibers by the thousand.
std::vector<std::unique_ptr<char[]>>& freeStacks() {
    thread_local std::vector<std::unique_ptr<char[]>> stacks;
    return stacks;
}

std::unique_ptr<char[]> takeStack() {
    auto& free = freeStacks();
    if (free.empty()) return std::unique_ptr<char[]>(new char[kStackSize]);
    auto s = std::move(free.back());
    free.pop_back();
    return s;
}

}  // namespace

Fiber::Fiber(std::function<void()> body) : body_(std::move(body)) {}

Fiber::~Fiber() {
    if (started_ && !finished_) {
        cancelled_ = true;
        resume();  // suspend() throws Unwind; entry() catches it and ends the fiber
    }
    if (stack_ && freeStacks().size() < 64) freeStacks().push_back(std::move(stack_));
}

Fiber* Fiber::current() { return gCurrent; }

void Fiber::resume() {
    if (finished_) return;
    if (!started_) {
        started_ = true;
        stack_ = takeStack();
        getcontext(&context_);
        context_.uc_stack.ss_sp = stack_.get();
        context_.uc_stack.ss_size = kStackSize;
        context_.uc_link = nullptr;
        gStarting = this;
        makecontext(&context_, &Fiber::entry, 0);
    }
    outer_ = gCurrent;
    gCurrent = this;
    void* fake = nullptr;
    startStackSwitch(&fake, stack_.get(), kStackSize);
    swapcontext(&controller_, &context_);
    finishStackSwitch(fake, nullptr, nullptr);
    gCurrent = outer_;
}

void Fiber::suspend() {
    switchOut(false);
    if (cancelled_) throw Unwind{};
}

void Fiber::switchOut(bool exiting) {
    startStackSwitch(exiting ? nullptr : &fakeStack_, controllerBottom_, controllerSize_);
    swapcontext(&context_, &controller_);
    // Back in the fiber (never reached after the exiting switch).
    finishStackSwitch(fakeStack_, &controllerBottom_, &controllerSize_);
}

void Fiber::entry() {
    Fiber* self = gStarting;
    gStarting = nullptr;
    finishStackSwitch(nullptr, &self->controllerBottom_, &self->controllerSize_);
    if (!self->cancelled_) {
        try {
            self->body_();
        } catch (const Unwind&) {
        }
    }
    self->finished_ = true;
    self->switchOut(true);
    std::abort();  // a finished fiber is never resumed
}

}  // namespace cnx::sim::race
