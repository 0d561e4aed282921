#pragma once
// Our checkers recurse once per level of a schema (the Avro resolver models
// Java's StackOverflowError only at depth 20,000, kMaxDepth in avro_resolve_rules.h),
// and under ASan a level costs several KiB of native stack: a 10,000-deep
// reference chain overflowed the 8 MiB main stack (issue 7 item 9). Deep work
// runs on a stack large enough for the deepest recursion the
// models allow; the pages are only committed as they are touched.

#include <cstddef>
#include <exception>
#include <optional>
#include <string_view>
#include <utility>

namespace cnx::compat {

/// Stack for the checkers: enough for kMaxDepth levels of the Avro resolver
/// with ASan's frames (measured: see tests/unit/hostile_schema_test.cpp).
inline constexpr std::size_t kCheckerStackBytes = std::size_t{1} << 30;

/// Nesting depth of a JSON text (objects and arrays; string contents skipped).
/// Schemas nested at most kShallowNesting deep are checked on the caller's
/// stack: a new thread per check costs more than the check.
std::size_t jsonNesting(std::string_view text);
inline constexpr std::size_t kShallowNesting = 64;

/// Runs `body(arg)` on a stack of `stackBytes`: the calling thread's side
/// stack (mapped once per thread, switched to and back), or a new thread with
/// such a stack, joined, for a nested call and under ThreadSanitizer. Runs it
/// on the calling thread's own stack when neither can be had.
void runWithStack(std::size_t stackBytes, void (*body)(void*), void* arg);

/// `fn()` on a kCheckerStackBytes stack; its result or its exception comes back to the caller.
template <class F>
auto onCheckerStack(F&& fn) -> decltype(fn()) {
    using R = decltype(fn());
    struct Job {
        F* fn;
        std::optional<R> result;
        std::exception_ptr failure;
    } job{&fn, std::nullopt, nullptr};
    runWithStack(kCheckerStackBytes, [](void* p) {
        auto* j = static_cast<Job*>(p);
        try {
            j->result.emplace((*j->fn)());
        } catch (...) {
            j->failure = std::current_exception();
        }
    }, &job);
    if (job.failure) std::rethrow_exception(job.failure);
    return std::move(*job.result);
}

}  // namespace cnx::compat
