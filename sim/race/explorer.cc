#include "sim/race/explorer.h"

#include <algorithm>
#include <charconv>
#include <unordered_map>
#include <unordered_set>

#include "sim/runtime/rng.h"

namespace cnx::sim::race {
namespace {

struct Asleep {
    std::uint64_t id = 0;
    Footprint footprint;
};

bool asleep(const std::vector<Asleep>& set, std::uint64_t id) {
    return std::any_of(set.begin(), set.end(), [&](const Asleep& a) { return a.id == id; });
}

// A state on the current path: what was enabled, what sleeps there, the
// children explored so far and the one being explored.
struct Node {
    std::vector<Transition> enabled;
    std::vector<Asleep> sleep;
    std::vector<Asleep> done;
    std::vector<std::uint64_t> backtrack;  // ids to explore from here (source sets)
    std::size_t chosen = 0;
};

bool contains(const std::vector<std::uint64_t>& v, std::uint64_t id) { return std::find(v.begin(), v.end(), id) != v.end(); }

// The next transition to explore from `n`: one in its backtrack set (every
// enabled one without reduction) that is neither asleep nor done. A fresh
// state's backtrack set starts with its first transition that is not asleep.
std::optional<std::size_t> nextCandidate(Node& n, bool reduce, bool sourceSets = true) {
    if (!sourceSets) {
        for (std::size_t i = 0; i < n.enabled.size(); ++i) {
            const auto id = n.enabled[i].id;
            if (!(reduce && asleep(n.sleep, id)) && !asleep(n.done, id)) return i;
        }
        return std::nullopt;
    }
    if (reduce && n.backtrack.empty()) {
        for (const auto& t : n.enabled)
            if (!asleep(n.sleep, t.id)) {
                n.backtrack.push_back(t.id);
                break;
            }
    }
    for (std::size_t i = 0; i < n.enabled.size(); ++i) {
        const auto id = n.enabled[i].id;
        if (reduce && !contains(n.backtrack, id)) continue;
        if (!asleep(n.sleep, id) && !asleep(n.done, id)) return i;
    }
    return std::nullopt;
}

// Source-DPOR (Abdulla, Aronis, Jonsson, Sagonas 2014): for every pair of
// events of the schedule in a reversible race (they conflict, are not
// causally ordered, and nothing happens between them in the happens-before
// order), the state before the first must also explore a schedule in which
// the second comes first: add one of the initials of "the events after the
// first that do not depend on it, then the second" to its backtrack set.
void addBacktracks(std::vector<Node>& path, const std::vector<Transition>& ran) {
    const std::size_t n = std::min(path.size(), ran.size());
    std::vector<std::vector<char>> conflict(n, std::vector<char>(n, 0)), hb(n, std::vector<char>(n, 0));
    std::vector<std::vector<char>> causal(n, std::vector<char>(n, 0));
    for (std::size_t j = 0; j < n; ++j) {
        for (std::size_t i = 0; i < j; ++i) {
            const auto& after = ran[j].after;
            causal[i][j] = std::find(after.begin(), after.end(), ran[i].id) != after.end();
            conflict[i][j] = !independent(ran[i].footprint, ran[j].footprint);
            if (causal[i][j] || conflict[i][j]) {
                hb[i][j] = 1;
                for (std::size_t k = 0; k < i; ++k)
                    if (hb[k][i]) hb[k][j] = 1;
            }
        }
    }
    for (std::size_t j = 0; j < n; ++j) {
        for (std::size_t i = 0; i < j; ++i) {
            if (!conflict[i][j] || causal[i][j]) continue;
            bool between = false;
            for (std::size_t k = i + 1; k < j && !between; ++k) between = hb[i][k] && hb[k][j];
            if (between) continue;
            std::vector<std::size_t> v;
            for (std::size_t k = i + 1; k < j; ++k)
                if (!hb[i][k]) v.push_back(k);
            v.push_back(j);
            auto& node = path[i];
            std::optional<std::uint64_t> pick;
            bool covered = false;
            for (std::size_t a = 0; a < v.size() && !covered; ++a) {
                bool initial = true;
                for (std::size_t b = 0; b < a && initial; ++b) initial = !hb[v[b]][v[a]];
                if (!initial) continue;
                auto id = ran[v[a]].id;
                if (contains(node.backtrack, id)) covered = true;
                else if (!pick && std::any_of(node.enabled.begin(), node.enabled.end(),
                                              [&](const Transition& t) { return t.id == id; }))
                    pick = id;
            }
            if (!covered && pick) node.backtrack.push_back(*pick);
        }
    }
}

// The sleep set of the child reached by running `t` from `n`.
std::vector<Asleep> childSleep(const Node& n, const Transition& t, bool reduce) {
    std::vector<Asleep> out;
    if (!reduce) return out;
    for (const auto* set : {&n.sleep, &n.done})
        for (const auto& a : *set)
            if (a.id != t.id && independent(a.footprint, t.footprint)) out.push_back(a);
    return out;
}

// Counting: a happens-before order as predecessor bit masks (at most 64 events).
std::optional<std::vector<std::uint64_t>> predecessors(const std::vector<Transition>& ran) {
    if (ran.size() > 64) return std::nullopt;
    std::vector<std::uint64_t> pred(ran.size(), 0);
    for (std::size_t j = 0; j < ran.size(); ++j) {
        for (std::size_t i = 0; i < j; ++i) {
            const auto& after = ran[j].after;
            bool causal = std::find(after.begin(), after.end(), ran[i].id) != after.end();
            if (causal || !independent(ran[i].footprint, ran[j].footprint)) pred[j] |= std::uint64_t{1} << i;
        }
    }
    return pred;
}

class ExtensionCounter {
public:
    explicit ExtensionCounter(std::vector<std::uint64_t> pred) : pred_(std::move(pred)) {
        full_ = pred_.size() == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << pred_.size()) - 1;
    }
    std::optional<double> count() { return from(0); }

private:
    static constexpr std::size_t kMaxStates = std::size_t{1} << 20;
    std::optional<double> from(std::uint64_t mask) {
        if (mask == full_) return 1.0;
        if (auto it = memo_.find(mask); it != memo_.end()) return it->second;
        if (memo_.size() >= kMaxStates) return std::nullopt;
        double total = 0;
        for (std::size_t e = 0; e < pred_.size(); ++e) {
            auto bit = std::uint64_t{1} << e;
            if ((mask & bit) || (pred_[e] & ~mask)) continue;
            auto n = from(mask | bit);
            if (!n) return std::nullopt;
            total += *n;
        }
        memo_.emplace(mask, total);
        return total;
    }
    std::vector<std::uint64_t> pred_;
    std::uint64_t full_ = 0;
    std::unordered_map<std::uint64_t, double> memo_;
};

class Counting {
public:
    void add(const std::vector<Transition>& ran, ExploreStats& stats) {
        if (!seen_.insert(traceHash(ran)).second) return;  // an equivalent schedule was counted
        ++stats.traces;
        auto n = equivalentInterleavings(ran);
        if (n) stats.naive += *n;
        else stats.naiveExact = false;
    }

private:
    std::unordered_set<std::uint64_t> seen_;
};

}  // namespace

void Footprint::finish() {
    for (auto* v : {&reads, &writes}) {
        std::sort(v->begin(), v->end());
        v->erase(std::unique(v->begin(), v->end()), v->end());
    }
}

namespace {
bool intersect(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
    auto i = a.begin();
    auto j = b.begin();
    while (i != a.end() && j != b.end()) {
        if (*i == *j) return true;
        if (*i < *j) ++i;
        else ++j;
    }
    return false;
}
}  // namespace

bool independent(const Footprint& a, const Footprint& b) {
    if (a.global || b.global) return false;
    return !intersect(a.writes, b.writes) && !intersect(a.writes, b.reads) && !intersect(b.writes, a.reads);
}

std::uint64_t keyOf(const std::string& text) {
    std::uint64_t h = 1469598103934665603ULL;  // FNV-1a
    for (unsigned char c : text) {
        h ^= c;
        h *= 1099511628211ULL;
    }
    return h;
}

std::uint64_t mixIds(std::uint64_t a, std::uint64_t b) {
    std::uint64_t z = a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;  // splitmix64 finaliser
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

Leaf runSchedule(Execution& execution, const std::vector<std::size_t>& choices) {
    Leaf leaf;
    leaf.execution = &execution;
    for (std::size_t step = 0;; ++step) {
        auto enabled = execution.enabled();
        if (enabled.empty()) break;
        std::size_t i = step < choices.size() ? std::min(choices[step], enabled.size() - 1) : 0;
        leaf.choices.push_back(i);
        leaf.ran.push_back(enabled[i]);
        leaf.ran.back().footprint = execution.execute(i);
    }
    return leaf;
}

std::string_view to_string_view(Stopped s) {
    switch (s) {
        case Stopped::no: return "no";
        case Stopped::interleavings: return "interleavings";
        case Stopped::time: return "time";
    }
    return "?";
}

ExploreStats exploreExhaustive(const ExecutionFactory& make, const ExploreLimits& limits, const LeafHandler& onLeaf) {
    ExploreStats stats;
    const auto started = std::chrono::steady_clock::now();
    auto elapsed = [&] {
        return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
    };
    Counting counting;
    std::vector<Node> path;
    std::vector<Asleep> sleep;  // of the state being entered
    std::unique_ptr<Execution> exec = make();
    Leaf leaf;
    const bool sharded = limits.shardCount > 1;
    const bool sourceSets = limits.reduce && !sharded;
    // Sharded: the split depth is where the first path's branching reaches
    // 32 states per shard; states reached at that depth are dealt round-robin.
    std::size_t splitDepth = 0, arrivals = 0;
    bool splitKnown = !sharded;
    double width = 1;
    // Runs the n's transition i: the leaf and the sleep set of the state it leads to.
    auto take = [&](Node& n, std::size_t i) {
        n.chosen = i;
        leaf.choices.push_back(i);
        leaf.ran.push_back(n.enabled[i]);
        n.enabled[i].footprint = leaf.ran.back().footprint = exec->execute(i);
        sleep = childSleep(n, n.enabled[i], limits.reduce);
        ++stats.transitions;
    };
    for (;;) {
        // Descend from the current state, taking the first candidate each time.
        bool complete = false;
        bool foreign = false;  // a state at the split depth that another shard explores
        for (;;) {
            Node n;
            n.enabled = exec->enabled();
            n.sleep = std::move(sleep);
            if (!splitKnown) {
                width *= static_cast<double>(std::max<std::size_t>(1, n.enabled.size()));
                if (width >= 32.0 * static_cast<double>(limits.shardCount) || n.enabled.empty()) {
                    splitDepth = path.size();
                    splitKnown = true;
                }
            }
            if (sharded && splitKnown && path.size() == splitDepth) {
                bool mine = arrivals++ % limits.shardCount == limits.shardIndex;
                if (!mine) {
                    foreign = true;
                    break;
                }
            }
            if (n.enabled.empty()) {
                complete = true;
                break;
            }
            auto i = nextCandidate(n, limits.reduce, sourceSets);
            if (!i) {  // every enabled transition sleeps: this schedule is equivalent to an explored one
                path.push_back(std::move(n));
                break;
            }
            take(n, *i);
            path.push_back(std::move(n));
        }
        if (!complete && !foreign) path.pop_back();  // the blocked state itself has nothing to explore
        if (sourceSets) addBacktracks(path, leaf.ran);
        if (complete) {
            ++stats.explored;
            counting.add(leaf.ran, stats);
            leaf.execution = exec.get();
            onLeaf(leaf);
        } else if (!foreign) {
            ++stats.blocked;
        }
        if (!path.empty() && stats.firstMoves == 0) stats.firstMoves = path.front().enabled.size();
        const bool atBound = stats.explored >= limits.maxInterleavings;
        const bool outOfTime = !atBound && stats.explored > 0 && limits.maxTime && elapsed() >= *limits.maxTime;
        if (atBound || outOfTime) {
            // Stop, unless nothing is left anyway.
            bool more = false, moreBelowRoot = false;
            for (std::size_t d = 0; d < path.size(); ++d) {
                Node copy = path[d];
                copy.done.push_back({copy.enabled[copy.chosen].id, copy.enabled[copy.chosen].footprint});
                if (!nextCandidate(copy, limits.reduce, sourceSets)) continue;
                more = true;
                moreBelowRoot = moreBelowRoot || d > 0;
            }
            stats.exhaustive = !more;
            if (more) stats.stopped = atBound ? Stopped::interleavings : Stopped::time;
            // The first moves covered: those done at the root, and the one under way when nothing is left under it.
            stats.firstMovesDone = !more || path.empty() ? stats.firstMoves
                                                         : path.front().done.size() + (moreBelowRoot ? 0 : 1);
            stats.elapsed = elapsed();
            return stats;
        }
        // Back up to the deepest state with a candidate left.
        std::optional<std::size_t> next;
        while (!path.empty()) {
            auto& n = path.back();
            n.done.push_back({n.enabled[n.chosen].id, n.enabled[n.chosen].footprint});
            if ((next = nextCandidate(n, limits.reduce, sourceSets))) break;
            path.pop_back();
        }
        if (path.empty()) {
            stats.firstMovesDone = stats.firstMoves;
            stats.elapsed = elapsed();
            return stats;
        }
        // Re-execute the path up to that state, then take the candidate.
        exec = make();
        leaf = Leaf{};
        for (std::size_t d = 0; d + 1 < path.size(); ++d) {
            leaf.choices.push_back(path[d].chosen);
            leaf.ran.push_back(path[d].enabled[path[d].chosen]);
            exec->enabled();
            leaf.ran.back().footprint = exec->execute(path[d].chosen);
            ++stats.transitions;
        }
        exec->enabled();  // the state's enabled list, as the execution expects before execute()
        take(path.back(), *next);
    }
}

ExploreStats exploreRandom(const ExecutionFactory& make, std::size_t runs, std::uint64_t seed,
                           const LeafHandler& onLeaf) {
    ExploreStats stats;
    Counting counting;
    for (std::size_t r = 0; r < runs; ++r) {
        Rng rng(mixIds(seed, r));
        auto exec = make();
        Leaf leaf;
        leaf.execution = exec.get();
        for (;;) {
            auto enabled = exec->enabled();
            if (enabled.empty()) break;
            auto i = static_cast<std::size_t>(rng.below(enabled.size()));
            leaf.choices.push_back(i);
            leaf.ran.push_back(enabled[i]);
            leaf.ran.back().footprint = exec->execute(i);
            ++stats.transitions;
        }
        ++stats.explored;
        counting.add(leaf.ran, stats);
        onLeaf(leaf);
    }
    stats.exhaustive = false;
    return stats;
}

std::optional<double> equivalentInterleavings(const std::vector<Transition>& ran) {
    auto pred = predecessors(ran);
    if (!pred) return std::nullopt;
    return ExtensionCounter(std::move(*pred)).count();
}

std::uint64_t traceHash(const std::vector<Transition>& ran) {
    // Foata normal form: each event at the length of its longest chain of
    // predecessors, ordered by (level, id); equivalent schedules agree on it.
    std::vector<std::size_t> level(ran.size(), 0);
    for (std::size_t j = 0; j < ran.size(); ++j) {
        for (std::size_t i = 0; i < j; ++i) {
            const auto& after = ran[j].after;
            bool causal = std::find(after.begin(), after.end(), ran[i].id) != after.end();
            if (causal || !independent(ran[i].footprint, ran[j].footprint)) level[j] = std::max(level[j], level[i] + 1);
        }
    }
    std::vector<std::pair<std::size_t, std::uint64_t>> order;
    order.reserve(ran.size());
    for (std::size_t i = 0; i < ran.size(); ++i) order.emplace_back(level[i], ran[i].id);
    std::sort(order.begin(), order.end());
    std::uint64_t h = ran.size();
    for (const auto& [l, id] : order) h = mixIds(h, mixIds(l, id));
    return h;
}

std::string formatChoices(const std::vector<std::size_t>& choices) {
    std::size_t n = choices.size();
    while (n > 0 && choices[n - 1] == 0) --n;
    std::string out;
    for (std::size_t i = 0; i < n; ++i) {
        if (i) out += '.';
        out += std::to_string(choices[i]);
    }
    return out;
}

std::optional<std::vector<std::size_t>> parseChoices(const std::string& text) {
    std::vector<std::size_t> out;
    if (text.empty()) return out;
    std::size_t start = 0;
    while (start <= text.size()) {
        auto dot = text.find('.', start);
        auto end = dot == std::string::npos ? text.size() : dot;
        if (end == start || end - start > 6) return std::nullopt;
        std::size_t v = 0;
        auto [p, ec] = std::from_chars(text.data() + start, text.data() + end, v);
        if (ec != std::errc() || p != text.data() + end) return std::nullopt;
        out.push_back(v);
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    return out;
}

}  // namespace cnx::sim::race
