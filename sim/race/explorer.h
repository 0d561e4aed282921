#pragma once
// Exploring the interleavings of a race, independent of what races: an
// Execution offers the transitions enabled in its current state (each with a
// stable id, the shared state it touches and the transitions it causally
// follows) and runs the one chosen. The explorer re-creates executions from a
// factory and drives them:
//
// - exhaustively, depth first, with sleep sets (Godefroid 1996): after the
//   subtree of transition t has been explored at a state, t "sleeps" in the
//   subtrees of its later siblings until a transition that conflicts with it
//   runs, because any schedule that ran t next there is equivalent (swaps of
//   independent neighbours) to one already explored. Transitions with
//   disjoint footprints commute: different topics and schema ids;
// - at random: N schedules, each choice uniform among the enabled
//   transitions, from a seed;
// - along one given schedule (a replay).
//
// A schedule is the list of choices, each an index into enabled() at its
// point; past its end the first enabled transition runs (the "canonical"
// continuation, which the execution orders as the branches are written).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/runtime/footprint.h"

namespace cnx::sim::race {

using sim::Footprint;

struct Transition {
    std::uint64_t id = 0;     // the same transition has the same id in every schedule that reaches it
    std::vector<std::uint64_t> after;  // ids of the transitions it causally follows (posted it, or it waited for)
    Footprint footprint;      // filled in once it ran
};

class Execution {
public:
    virtual ~Execution() = default;
    /// The transitions that may run next, in canonical order; empty when the race is over.
    virtual std::vector<Transition> enabled() = 0;
    /// Runs enabled()[index] and returns what it touched.
    virtual Footprint execute(std::size_t index) = 0;
};

using ExecutionFactory = std::function<std::unique_ptr<Execution>()>;

/// One finished schedule, handed to the caller with its execution (to read its outcome).
struct Leaf {
    std::vector<std::size_t> choices;   // the whole schedule
    std::vector<Transition> ran;        // the transitions, in order
    Execution* execution = nullptr;
};
using LeafHandler = std::function<void(const Leaf&)>;

struct ExploreLimits {
    std::size_t maxInterleavings = 100000;  // complete schedules; reaching it stops: not exhaustive
    // Time spent exploring, checked after each schedule (complete or cut
    // short): once it is reached the exploration stops, not exhaustive. At
    // least one schedule always runs, so 0 explores exactly the canonical one.
    // nullopt: no time bound (the default: a verdict must not depend on the
    // machine's speed unless asked).
    std::optional<std::chrono::milliseconds> maxTime;
    bool reduce = true;                     // sleep sets (false: every interleaving, for verification)
    // Explore only this shard's part (0-based index of count): the states at
    // the split depth are dealt round-robin in depth-first order and each
    // shard explores the subtrees of its own. Sharded exploration uses sleep
    // sets only (each state tries every enabled transition), whose pruning
    // depends on nothing outside the path, so the shards together explore
    // exactly what one unsharded sleep-set exploration does.
    std::size_t shardIndex = 0;
    std::size_t shardCount = 1;
};

/// Why an exhaustive exploration stopped before it was complete.
enum class Stopped { no, interleavings, time };
std::string_view to_string_view(Stopped s);

struct ExploreStats {
    std::size_t explored = 0;       // complete schedules explored
    std::size_t blocked = 0;        // schedules cut short: every enabled transition asleep (redundant)
    std::size_t transitions = 0;    // transitions run, re-executions included
    bool exhaustive = true;         // false: stopped at maxInterleavings or maxTime (or not exhaustive at all)
    Stopped stopped = Stopped::no;  // which bound stopped an exhaustive exploration
    std::chrono::milliseconds elapsed{0};  // time spent exploring (exhaustively)
    // How far an exhaustive exploration got: of the transitions enabled at
    // the race's start (its first moves), those whose every schedule was
    // explored (all of them when it is exhaustive).
    std::size_t firstMoves = 0;
    std::size_t firstMovesDone = 0;
    /// The number of interleavings without reduction (every order of the
    /// enabled transitions): the sum, over the distinct traces explored, of
    /// their linear extensions. Exact when naiveExact.
    double naive = 0;
    bool naiveExact = true;
    std::size_t traces = 0;         // distinct Mazurkiewicz traces among the explored schedules
};

/// Explores every interleaving up to equivalence; calls `onLeaf` for each complete schedule.
ExploreStats exploreExhaustive(const ExecutionFactory& make, const ExploreLimits& limits, const LeafHandler& onLeaf);

/// Runs `runs` random schedules from `seed`.
ExploreStats exploreRandom(const ExecutionFactory& make, std::size_t runs, std::uint64_t seed,
                           const LeafHandler& onLeaf);

/// Runs `choices` on `execution` (each clamped to the enabled count), then
/// the canonical continuation to the end. Returns the leaf (the schedule as run).
Leaf runSchedule(Execution& execution, const std::vector<std::size_t>& choices);

/// The number of linear extensions of the happens-before order of `ran`
/// (causal `after` edges and conflicting footprints), i.e. how many
/// interleavings are equivalent to it; nullopt when too large to count.
std::optional<double> equivalentInterleavings(const std::vector<Transition>& ran);

/// A hash that is equal for two schedules iff they are the same trace.
std::uint64_t traceHash(const std::vector<Transition>& ran);

/// "0.1.1.0" (trailing canonical zeros dropped; "" for the canonical schedule).
std::string formatChoices(const std::vector<std::size_t>& choices);
/// The inverse; nullopt on anything but dot-separated non-negative integers.
std::optional<std::vector<std::size_t>> parseChoices(const std::string& text);

}  // namespace cnx::sim::race
