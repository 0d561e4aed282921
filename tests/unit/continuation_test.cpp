// broker_model/runtime/continuation.h: what a scheduler runs. A callable that
// fits is kept in place, a larger one on the heap; either way it runs once per
// call, moves with its owner, and is destroyed exactly once.

#include <catch2/catch.hpp>

#include <array>
#include <memory>
#include <utility>
#include <vector>

#include "broker_model/runtime/continuation.h"

namespace {

using cnx::Continuation;

// Counts the live copies of itself and the calls made on any of them.
struct Counted {
    static inline int live = 0;
    static inline int calls = 0;
    std::array<char, 8> pad{};
    Counted() { ++live; }
    Counted(const Counted&) { ++live; }
    Counted(Counted&&) noexcept { ++live; }
    ~Counted() { --live; }
    void operator()() { ++calls; }
};

// The same, too large to be kept in place.
struct CountedLarge : Counted {
    std::array<char, Continuation::kInlineBytes + 1> big{};
};

// The same, kept on the heap because its move may throw.
struct CountedThrowingMove : Counted {
    CountedThrowingMove() = default;
    CountedThrowingMove(CountedThrowingMove&& other) noexcept(false) : Counted(std::move(other)) {}
};

template <class F>
void runsMovesAndEndsOnce() {
    Counted::live = 0;
    Counted::calls = 0;
    {
        Continuation a{F{}};
        CHECK(Counted::live == 1);
        CHECK(static_cast<bool>(a));
        a();
        CHECK(Counted::calls == 1);

        Continuation b(std::move(a));
        CHECK_FALSE(static_cast<bool>(a));
        CHECK(Counted::live == 1);
        b();
        CHECK(Counted::calls == 2);

        Continuation c;
        CHECK_FALSE(static_cast<bool>(c));
        c = std::move(b);
        CHECK_FALSE(static_cast<bool>(b));
        CHECK(Counted::live == 1);
        c();
        CHECK(Counted::calls == 3);

        Continuation d{F{}};
        CHECK(Counted::live == 2);
        d = std::move(c);  // d's own callable ends, c's moves in
        CHECK(Counted::live == 1);
        d();
        CHECK(Counted::calls == 4);

        auto& self = d;
        d = std::move(self);  // self-move keeps it
        CHECK(static_cast<bool>(d));
        CHECK(Counted::live == 1);
    }
    CHECK(Counted::live == 0);
}

}  // namespace

TEST_CASE("a continuation that fits is kept in place, runs, moves and ends once", "[continuation]") {
    runsMovesAndEndsOnce<Counted>();
}

TEST_CASE("a continuation too large to fit runs, moves and ends once from the heap", "[continuation]") {
    runsMovesAndEndsOnce<CountedLarge>();
}

TEST_CASE("a continuation whose move may throw is kept on the heap and behaves the same", "[continuation]") {
    runsMovesAndEndsOnce<CountedThrowingMove>();
}

TEST_CASE("continuations hold move-only state and keep it through a vector's growth", "[continuation]") {
    std::vector<int> order;
    std::vector<Continuation> queue;
    for (int i = 0; i < 40; ++i) {
        auto owned = std::make_unique<int>(i);
        if (i % 2 == 0) {
            queue.emplace_back([&order, owned = std::move(owned)] { order.push_back(*owned); });
        } else {
            std::array<char, Continuation::kInlineBytes> ballast{};  // this one goes to the heap
            queue.emplace_back([&order, owned = std::move(owned), ballast] { order.push_back(*owned + ballast[0]); });
        }
    }
    queue.erase(queue.begin() + 3);  // shifts every later one down
    for (auto& c : queue) c();
    REQUIRE(order.size() == 39);
    for (int i = 0; i < 39; ++i) CHECK(order[static_cast<std::size_t>(i)] == (i < 3 ? i : i + 1));
}

TEST_CASE("a shared_ptr held by a continuation is released when it ends, not when it runs", "[continuation]") {
    auto token = std::make_shared<int>(7);
    std::weak_ptr<int> watch = token;
    int seen = 0;
    {
        Continuation c([&seen, token = std::move(token)] { seen = *token; });
        c();
        CHECK(seen == 7);
        CHECK_FALSE(watch.expired());
        Continuation moved(std::move(c));
        CHECK_FALSE(watch.expired());
    }
    CHECK(watch.expired());
}
