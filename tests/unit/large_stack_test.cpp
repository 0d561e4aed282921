// compat::runWithStack / onCheckerStack: deep recursion on the checker stack,
// nested calls, exceptions brought back, and the pages of a deep call handed
// back afterwards (the stack is kept per thread, not made per call).

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <stdexcept>
#include <thread>

#include "broker_model/runtime/large_stack.h"

using namespace cnx::compat;

namespace {

// About 1 KiB of stack per level (more under ASan); `volatile` keeps the frame.
int recurse(int depth) {
    volatile char frame[1024];
    frame[0] = static_cast<char>(depth);
    frame[sizeof frame - 1] = frame[0];
    if (depth == 0) return frame[0];
    return recurse(depth - 1) + (frame[sizeof frame - 1] & 1);
}

constexpr int kDeep = 64 * 1024;  // ≈ 64 MiB: far past the 8 MiB main stack

long residentKiB() {
    long pages = 0, resident = 0;
    FILE* f = std::fopen("/proc/self/statm", "r");
    if (f == nullptr) return -1;
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = -1;
    std::fclose(f);
    return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

}  // namespace

TEST_CASE("the checker stack takes recursion far deeper than a thread's own stack", "[large_stack]") {
    int result = onCheckerStack([] { return recurse(kDeep); });
    CHECK(result == kDeep / 2);
    // Again: the stack is reused, and still deep enough.
    CHECK(onCheckerStack([] { return recurse(kDeep); }) == kDeep / 2);
}

TEST_CASE("a call on the checker stack from the checker stack gets a deep stack too", "[large_stack]") {
    int result = onCheckerStack([] { return recurse(16) + onCheckerStack([] { return recurse(kDeep); }); });
    CHECK(result == 8 + kDeep / 2);
}

TEST_CASE("an exception on the checker stack reaches the caller", "[large_stack]") {
    CHECK_THROWS_WITH(onCheckerStack([]() -> int { throw std::runtime_error("from the side stack"); }), "from the side stack");
    CHECK(onCheckerStack([] { return 7; }) == 7);  // and the stack is usable afterwards
}

TEST_CASE("each thread has a checker stack of its own", "[large_stack]") {
    int a = 0, b = 0;
    std::thread ta([&] { a = onCheckerStack([] { return recurse(kDeep); }); });
    std::thread tb([&] { b = onCheckerStack([] { return recurse(kDeep); }); });
    ta.join();
    tb.join();
    CHECK(a == kDeep / 2);
    CHECK(b == kDeep / 2);
}

TEST_CASE("the pages a deep call touched are handed back once it returns", "[large_stack]") {
    // On a thread of its own, so its checker stack is new whatever ran before.
    long before = 0, after = 0;
    std::thread t([&] {
        onCheckerStack([] { return recurse(16); });  // the stack mapped, its top committed
        before = residentKiB();
        onCheckerStack([] { return recurse(kDeep); });  // touches ≥ 64 MiB
        after = residentKiB();
    });
    t.join();
    REQUIRE(before > 0);
    INFO("resident before " << before << " KiB, after " << after << " KiB");
    CHECK(after - before < 16 * 1024);
}
