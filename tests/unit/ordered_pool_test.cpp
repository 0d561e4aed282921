// sim/parallel/ordered_pool.h: results come back in index order on the calling
// thread whatever the threads do; a striped deal fixes which thread takes
// which item; an exception comes back in its item's turn.

#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "sim/parallel/ordered_pool.h"

using cnx::sim::Deal;
using cnx::sim::forEachOrdered;

TEST_CASE("forEachOrdered hands every result over in index order, on the calling thread", "[parallel]") {
    for (Deal deal : {Deal::nextFree, Deal::striped}) {
        for (unsigned jobs : {1u, 2u, 3u, 8u}) {
            const std::size_t n = 200;
            std::vector<std::size_t> taken;
            std::set<std::thread::id> takers;
            std::atomic<int> worked{0};
            forEachOrdered(
                n, jobs, deal,
                [&](std::size_t i, unsigned) {
                    // Early items take longest, so later ones finish first on other threads.
                    if (i < 4) std::this_thread::sleep_for(std::chrono::milliseconds(5 * (4 - static_cast<int>(i))));
                    ++worked;
                    return i * 3;
                },
                [&](std::size_t i, std::size_t r) {
                    CHECK(r == i * 3);
                    taken.push_back(i);
                    takers.insert(std::this_thread::get_id());
                });
            REQUIRE(taken.size() == n);
            for (std::size_t i = 0; i < n; ++i) REQUIRE(taken[i] == i);
            CHECK(worked == static_cast<int>(n));
            REQUIRE(takers.size() == 1);
            CHECK(*takers.begin() == std::this_thread::get_id());
        }
    }
}

TEST_CASE("forEachOrdered with one job or one item works on the calling thread alone", "[parallel]") {
    for (auto [n, jobs] : {std::pair<std::size_t, unsigned>{5, 1}, {1, 4}, {0, 4}}) {
        std::set<std::thread::id> workers;
        std::size_t taken = 0;
        forEachOrdered(
            n, jobs, Deal::nextFree,
            [&](std::size_t, unsigned w) {
                CHECK(w == 0);
                workers.insert(std::this_thread::get_id());
                return 1;
            },
            [&](std::size_t, int) { ++taken; });
        CHECK(taken == n);
        CHECK(workers.size() <= 1);
        if (!workers.empty()) CHECK(*workers.begin() == std::this_thread::get_id());
    }
}

TEST_CASE("a striped deal gives thread w the items w, w + T, w + 2T", "[parallel]") {
    const std::size_t n = 50;
    const unsigned jobs = 3;
    std::vector<unsigned> workerOf(n, 99);
    std::vector<std::thread::id> threadOf(jobs);
    std::mutex mu;
    forEachOrdered(
        n, jobs, Deal::striped,
        [&](std::size_t i, unsigned w) {
            std::lock_guard<std::mutex> lock(mu);
            workerOf[i] = w;
            if (threadOf[w] == std::thread::id()) threadOf[w] = std::this_thread::get_id();
            CHECK(threadOf[w] == std::this_thread::get_id());  // a worker index is one thread
            return 0;
        },
        [](std::size_t, int) {});
    for (std::size_t i = 0; i < n; ++i) CHECK(workerOf[i] == i % jobs);
}

TEST_CASE("an exception of one item is rethrown in its turn, after the earlier items are taken", "[parallel]") {
    for (Deal deal : {Deal::nextFree, Deal::striped}) {
        for (unsigned jobs : {1u, 2u, 4u}) {
            std::vector<std::size_t> taken;
            auto call = [&] {
                forEachOrdered(
                    40, jobs, deal,
                    [](std::size_t i, unsigned) -> int {
                        if (i == 17) throw std::runtime_error("item 17");
                        return static_cast<int>(i);
                    },
                    [&](std::size_t i, int) { taken.push_back(i); });
            };
            CHECK_THROWS_WITH(call(), "item 17");
            REQUIRE(taken.size() == 17);
            for (std::size_t i = 0; i < taken.size(); ++i) CHECK(taken[i] == i);
        }
    }
}

TEST_CASE("defaultJobs is at least one", "[parallel]") {
    CHECK(cnx::sim::defaultJobs() >= 1);
    CHECK(cnx::sim::defaultJobs() <= 64);
}
