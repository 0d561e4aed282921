// The race explorer on toy programs (sim/race): processes of reads and writes
// of shared cells. Exploring with source-DPOR and sleep sets reaches exactly
// the final states full enumeration reaches, explores one schedule per
// Mazurkiewicz trace, counts the naive interleavings exactly, and replays any
// schedule; fibers take turns with their controller and unwind when dropped.

#include <catch2/catch.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sim/race/explorer.h"
#include "sim/race/fiber.h"
#include "sim/runtime/rng.h"

namespace {

using namespace cnx::sim::race;
using cnx::sim::keyOf;   // footprints are the runtime's (sim/runtime/footprint.h)
using cnx::sim::mixIds;

struct Op {
    int cell = 0;
    bool write = false;
};

// Each process runs its ops in order; a write sets the cell to
// cell * 31 + (process + 1) + what the process read last, so every order of
// conflicting ops leaves its mark in the final state.
class Toy final : public Execution {
public:
    explicit Toy(const std::vector<std::vector<Op>>& programs) : programs_(programs), next_(programs.size(), 0),
                                                                  seen_(programs.size(), 0) {}
    std::vector<Transition> enabled() override {
        std::vector<Transition> out;
        for (std::size_t p = 0; p < programs_.size(); ++p) {
            if (next_[p] >= programs_[p].size()) continue;
            Transition t;
            t.id = mixIds(p + 1, next_[p]);
            if (next_[p] > 0) t.after.push_back(mixIds(p + 1, next_[p] - 1));
            out.push_back(t);
            procs_.push_back(p);
        }
        offered_.assign(procs_.end() - static_cast<std::ptrdiff_t>(out.size()), procs_.end());
        return out;
    }
    Footprint execute(std::size_t index) override {
        auto p = offered_.at(index);
        const auto& op = programs_[p][next_[p]++];
        Footprint f;
        auto key = keyOf("cell" + std::to_string(op.cell));
        if (op.write) {
            cells_[op.cell] = cells_[op.cell] * 31 + static_cast<long>(p) + 1 + seen_[p];
            f.write(key);
        } else {
            seen_[p] = cells_[op.cell];
            f.read(key);
        }
        f.finish();
        return f;
    }
    std::string state() const {
        std::string s;
        for (const auto& [c, v] : cells_) s += std::to_string(c) + "=" + std::to_string(v) + ";";
        for (auto v : seen_) s += std::to_string(v) + ",";
        return s;
    }

private:
    const std::vector<std::vector<Op>>& programs_;
    std::vector<std::size_t> next_;
    std::vector<long> seen_;
    std::map<int, long> cells_;
    std::vector<std::size_t> procs_;
    std::vector<std::size_t> offered_;
};

struct Explored {
    std::set<std::string> states;
    ExploreStats stats;
};

Explored explore(const std::vector<std::vector<Op>>& programs, bool reduce) {
    Explored out;
    ExploreLimits limits;
    limits.reduce = reduce;
    limits.maxInterleavings = 1'000'000;
    out.stats = exploreExhaustive([&] { return std::make_unique<Toy>(programs); }, limits,
                                  [&](const Leaf& leaf) { out.states.insert(static_cast<Toy*>(leaf.execution)->state()); });
    return out;
}

std::vector<std::vector<Op>> randomPrograms(cnx::sim::Rng& rng) {
    std::vector<std::vector<Op>> programs(2 + rng.below(2));
    for (auto& p : programs) {
        p.resize(1 + rng.below(3));
        for (auto& op : p) op = {static_cast<int>(rng.below(3)), rng.below(2) == 1};
    }
    return programs;
}

}  // namespace

TEST_CASE("reduced exploration reaches every final state that full enumeration reaches", "[race]") {
    cnx::sim::Rng rng(20261201);
    for (int round = 0; round < 200; ++round) {
        auto programs = randomPrograms(rng);
        auto full = explore(programs, false);
        auto reduced = explore(programs, true);
        INFO("round " << round);
        CHECK(reduced.states == full.states);
        CHECK(reduced.stats.exhaustive);
        CHECK(reduced.stats.explored <= full.stats.explored);
        // One schedule per trace, and the naive count is the full enumeration's.
        CHECK(reduced.stats.explored == reduced.stats.traces);
        CHECK(reduced.stats.naiveExact);
        CHECK(reduced.stats.naive == Approx(static_cast<double>(full.stats.explored)));
        CHECK(full.stats.traces == reduced.stats.traces);
    }
}

TEST_CASE("independent processes are explored once, conflicting ones in every order", "[race]") {
    // Three processes on three cells: one trace out of 6!/(2!2!2!) = 90 interleavings.
    std::vector<std::vector<Op>> apart{{{0, true}, {0, true}}, {{1, true}, {1, false}}, {{2, false}, {2, true}}};
    auto a = explore(apart, true);
    CHECK(a.stats.explored == 1);
    CHECK(a.stats.naive == Approx(90));
    // Three writers of one cell: 3! orders, each its own final state.
    std::vector<std::vector<Op>> together{{{0, true}}, {{0, true}}, {{0, true}}};
    auto t = explore(together, true);
    CHECK(t.stats.explored == 6);
    CHECK(t.states.size() == 6);
    // Readers commute.
    std::vector<std::vector<Op>> readers{{{0, false}}, {{0, false}}, {{0, false}}, {{0, false}}};
    CHECK(explore(readers, true).stats.explored == 1);
}

TEST_CASE("a bound stops exhaustive exploration and says so", "[race]") {
    std::vector<std::vector<Op>> together{{{0, true}}, {{0, true}}, {{0, true}}};
    ExploreLimits limits;
    limits.maxInterleavings = 2;
    auto stats = exploreExhaustive([&] { return std::make_unique<Toy>(together); }, limits, [](const Leaf&) {});
    CHECK(stats.explored == 2);
    CHECK_FALSE(stats.exhaustive);
}

// Issue 40 item 18: a bounded exploration says how far it got, and a time
// bound stops it beside the interleaving bound. A time bound of 0 stops after
// the first schedule whatever the machine's speed (checked after each one).
TEST_CASE("a bounded exhaustive exploration says which bound stopped it and how far it got", "[race][issue40]") {
    std::vector<std::vector<Op>> together{{{0, true}}, {{0, true}}, {{0, true}}};
    auto make = [&] { return std::make_unique<Toy>(together); };
    ExploreLimits limits;
    limits.maxInterleavings = 2;
    auto bound = exploreExhaustive(make, limits, [](const Leaf&) {});
    CHECK(bound.stopped == Stopped::interleavings);
    CHECK(bound.firstMoves == 3);
    CHECK(bound.firstMovesDone == 1);  // the first writer's two orders of the others: 1 of 3 first moves covered
    limits.maxInterleavings = 100;
    auto all = exploreExhaustive(make, limits, [](const Leaf&) {});
    CHECK(all.exhaustive);
    CHECK(all.stopped == Stopped::no);
    CHECK(all.explored == 6);
    CHECK(all.firstMovesDone == 3);
    // At the bound exactly, with nothing left: exhaustive, not stopped.
    limits.maxInterleavings = 6;
    CHECK(exploreExhaustive(make, limits, [](const Leaf&) {}).stopped == Stopped::no);
}

TEST_CASE("a time bound of 0 stops an exhaustive exploration after exactly the first schedule", "[race][issue40]") {
    std::vector<std::vector<Op>> together{{{0, true}}, {{0, true}}, {{0, true}}};
    ExploreLimits limits;
    limits.maxTime = std::chrono::milliseconds(0);
    std::vector<std::string> leaves;
    auto stats = exploreExhaustive([&] { return std::make_unique<Toy>(together); }, limits,
                                   [&](const Leaf& leaf) { leaves.push_back(formatChoices(leaf.choices)); });
    CHECK(stats.explored == 1);
    CHECK(leaves == std::vector<std::string>{""});  // the canonical schedule
    CHECK_FALSE(stats.exhaustive);
    CHECK(stats.stopped == Stopped::time);
    CHECK(stats.firstMoves == 3);
    CHECK(stats.firstMovesDone == 0);
    // A race with one schedule is exhaustive under any time bound.
    std::vector<std::vector<Op>> one{{{0, true}, {0, true}}};
    auto single = exploreExhaustive([&] { return std::make_unique<Toy>(one); }, limits, [](const Leaf&) {});
    CHECK(single.exhaustive);
    CHECK(single.stopped == Stopped::no);
}

TEST_CASE("a schedule replays to the same state, and random exploration is seeded", "[race]") {
    std::vector<std::vector<Op>> together{{{0, false}, {0, true}}, {{0, false}, {0, true}}};
    std::map<std::string, std::string> byChoices;
    ExploreLimits limits;
    exploreExhaustive([&] { return std::make_unique<Toy>(together); }, limits, [&](const Leaf& leaf) {
        byChoices[formatChoices(leaf.choices)] = static_cast<Toy*>(leaf.execution)->state();
    });
    REQUIRE(byChoices.size() > 1);
    for (const auto& [text, state] : byChoices) {
        auto choices = parseChoices(text);
        REQUIRE(choices);
        Toy again(together);
        runSchedule(again, *choices);
        CHECK(again.state() == state);
    }
    auto sample = [&](std::uint64_t seed) {
        std::vector<std::string> seen;
        exploreRandom([&] { return std::make_unique<Toy>(together); }, 20, seed,
                      [&](const Leaf& leaf) { seen.push_back(formatChoices(leaf.choices)); });
        return seen;
    };
    CHECK(sample(7) == sample(7));
    CHECK(sample(7) != sample(8));
}

TEST_CASE("schedules print and parse", "[race]") {
    CHECK(formatChoices({0, 1, 2, 0, 0}) == "0.1.2");
    CHECK(formatChoices({0, 0}).empty());
    CHECK(parseChoices("0.1.2") == std::vector<std::size_t>{0, 1, 2});
    CHECK(parseChoices("")->empty());
    CHECK_FALSE(parseChoices("1..2"));
    CHECK_FALSE(parseChoices("a"));
    CHECK_FALSE(parseChoices("1.-2"));
    CHECK_FALSE(parseChoices("1.2."));
}

TEST_CASE("fibers take turns with their controller and unwind when dropped", "[race]") {
    std::vector<std::string> log;
    Fiber* self = nullptr;
    Fiber f([&] {
        self = Fiber::current();
        log.push_back("a");
        Fiber::current()->suspend();
        log.push_back("b");
    });
    CHECK(Fiber::current() == nullptr);
    f.resume();
    CHECK(self == &f);
    CHECK(log == std::vector<std::string>{"a"});
    CHECK_FALSE(f.finished());
    f.resume();
    CHECK(f.finished());
    CHECK(log == std::vector<std::string>{"a", "b"});

    struct Guard {
        bool* flag;
        ~Guard() { *flag = true; }
    };
    bool unwound = false;
    {
        auto g = std::make_unique<Fiber>([&] {
            Guard guard{&unwound};
            Fiber::current()->suspend();
            FAIL("a dropped fiber must not go on");
        });
        g->resume();
        CHECK_FALSE(unwound);
    }
    CHECK(unwound);
}
