#include "broker_model/runtime/large_stack.h"

#include <pthread.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "broker_model/runtime/stack_switch.h"

namespace cnx::compat {
namespace {

struct Start {
    void (*body)(void*);
    void* arg;
};

void* trampoline(void* p) {
    auto* s = static_cast<Start*>(p);
    s->body(s->arg);
    return nullptr;
}

// The first way, and the fallback: a thread of its own with a stack of
// `stackBytes`, created and joined for the one call (≈ 40 µs of CPU and more
// wall time, most of a deep schema's warm check).
void runOnNewThread(std::size_t stackBytes, void (*body)(void*), void* arg) {
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) return body(arg);
    Start start{body, arg};
    pthread_t thread;
    bool started = pthread_attr_setstacksize(&attr, stackBytes) == 0 &&
                   pthread_create(&thread, &attr, &trampoline, &start) == 0;
    pthread_attr_destroy(&attr);
    if (!started) return body(arg);
    pthread_join(thread, nullptr);
}

// The usual way: the calling thread switches to a stack of its own (mapped
// once per thread, pages committed as touched) and back, as sim/race's fibers
// do. Thread-local caches stay warm, and no thread is made per call.
class SideStack {
public:
    SideStack() = default;
    SideStack(const SideStack&) = delete;
    SideStack& operator=(const SideStack&) = delete;
    ~SideStack() {
        if (bottom_ != nullptr) munmap(bottom_ - pageBytes_, pageBytes_ + stackBytes_);
    }

    /// False (nothing run) when this stack cannot take the call: another size,
    /// already in use (a nested call), or no memory for it.
    bool run(std::size_t stackBytes, void (*body)(void*), void* arg) {
        if (busy_ || !reserve(stackBytes)) return false;
        busy_ = true;
        job_ = {body, arg};
        getcontext(&side_);
        side_.uc_stack.ss_sp = bottom_;
        side_.uc_stack.ss_size = stackBytes_;
        side_.uc_link = nullptr;
        current() = this;
        makecontext(&side_, &SideStack::entry, 0);
        void* fake = nullptr;
        startStackSwitch(&fake, bottom_, stackBytes_);
        swapcontext(&caller_, &side_);
        finishStackSwitch(fake, nullptr, nullptr);
        busy_ = false;
        release();
        return true;
    }

private:
    static SideStack*& current() {
        thread_local SideStack* s = nullptr;
        return s;
    }

    bool reserve(std::size_t stackBytes) {
        if (bottom_ != nullptr) return stackBytes == stackBytes_;
        const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
        std::size_t bytes = (stackBytes + page - 1) / page * page;
        void* m = mmap(nullptr, bytes + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
        if (m == MAP_FAILED) return false;
        if (mprotect(m, page, PROT_NONE) != 0) {  // a guard page below, as a thread's stack has
            munmap(m, bytes + page);
            return false;
        }
        bottom_ = static_cast<char*>(m) + page;
        stackBytes_ = bytes;
        pageBytes_ = page;
        return true;
    }

    // Hands back the pages a deep call touched, keeping the top of the stack
    // (every call's first frames) committed: a thread's stack went with the
    // thread; this one must not keep a deep call's hundreds of MiB. Only when
    // the page just below the kept part holds anything but zeros (a call that
    // went deeper left frames in it; untouched or handed back, it reads as
    // zeros without being committed): madvise over the whole mapping costs
    // more than a shallow call.
    void release() {
        constexpr std::size_t kKeep = 1 << 20;
        if (stackBytes_ <= kKeep + pageBytes_) return;
        const auto* below = reinterpret_cast<const std::uint64_t*>(bottom_ + (stackBytes_ - kKeep - pageBytes_));
        std::uint64_t bits = 0;
        for (std::size_t i = 0; i < pageBytes_ / sizeof(std::uint64_t); ++i) bits |= below[i];
        if (bits == 0) return;
        madvise(bottom_, stackBytes_ - kKeep, MADV_DONTNEED);
    }

    static void entry() {
        SideStack* self = current();
        finishStackSwitch(nullptr, &self->callerBottom_, &self->callerSize_);
        self->job_.body(self->job_.arg);  // never throws (onCheckerStack catches)
        startStackSwitch(nullptr, self->callerBottom_, self->callerSize_);
        swapcontext(&self->side_, &self->caller_);
        std::abort();  // a finished call is never resumed: run() makes a new context each time
    }

    char* bottom_ = nullptr;  // above the guard page; nullptr until mapped
    std::size_t stackBytes_ = 0;
    std::size_t pageBytes_ = 0;
    bool busy_ = false;
    Start job_{};
    ucontext_t caller_{}, side_{};
    const void* callerBottom_ = nullptr;
    std::size_t callerSize_ = 0;
};

}  // namespace

void runWithStack(std::size_t stackBytes, void (*body)(void*), void* arg) {
    if constexpr (!kThreadSanitizer) {  // it does not follow swapcontext
        thread_local SideStack side;
        if (side.run(stackBytes, body, arg)) return;
    }
    runOnNewThread(stackBytes, body, arg);
}

std::size_t jsonNesting(std::string_view text) {
    std::size_t depth = 0, deepest = 0;
    bool inString = false, escaped = false;
    for (char c : text) {
        if (inString) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') inString = false;
            continue;
        }
        if (c == '"') inString = true;
        else if (c == '{' || c == '[') deepest = std::max(deepest, ++depth);
        else if ((c == '}' || c == ']') && depth > 0) --depth;
    }
    return deepest;
}

}  // namespace cnx::compat
