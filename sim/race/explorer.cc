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

namespace {

// One exhaustive exploration: the path of states from the root to the current
// one, the execution along it and the leaf (schedule) being built.
class Exhaustive {
public:
    Exhaustive(const ExecutionFactory& make, const ExploreLimits& limits, const LeafHandler& onLeaf)
        : make_(make), limits_(limits), onLeaf_(onLeaf), exec_(make()) {}

    ExploreStats run() {
        for (;;) {
            endSchedule(descend());
            if (!path_.empty() && stats_.firstMoves == 0) stats_.firstMoves = path_.front().enabled.size();
            if (stopAtLimit()) return stats_;
            auto next = backUp();
            if (!next) {
                stats_.firstMovesDone = stats_.firstMoves;
                stats_.elapsed = elapsed();
                return stats_;
            }
            replayTo(*next);
        }
    }

private:
    // How a descent ends: the schedule ran to the end; every enabled transition
    // of its last state sleeps (it is equivalent to an explored one); or it
    // reached a state at the split depth that another shard explores.
    enum class End { complete, blocked, foreign };

    std::chrono::milliseconds elapsed() const {
        return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started_);
    }

    // Runs the n's transition i: the leaf and the sleep set of the state it leads to.
    void take(Node& n, std::size_t i) {
        n.chosen = i;
        leaf_.choices.push_back(i);
        leaf_.ran.push_back(n.enabled[i]);
        n.enabled[i].footprint = leaf_.ran.back().footprint = exec_->execute(i);
        sleep_ = childSleep(n, n.enabled[i], limits_.reduce);
        ++stats_.transitions;
    }

    // Descends from the current state, taking the first candidate each time.
    End descend() {
        for (;;) {
            Node n;
            n.enabled = exec_->enabled();
            n.sleep = std::move(sleep_);
            if (!splitKnown_) {
                width_ *= static_cast<double>(std::max<std::size_t>(1, n.enabled.size()));
                if (width_ >= 32.0 * static_cast<double>(limits_.shardCount) || n.enabled.empty()) {
                    splitDepth_ = path_.size();
                    splitKnown_ = true;
                }
            }
            if (sharded_ && splitKnown_ && path_.size() == splitDepth_) {
                bool mine = arrivals_++ % limits_.shardCount == limits_.shardIndex;
                if (!mine) return End::foreign;
            }
            if (n.enabled.empty()) return End::complete;
            auto i = nextCandidate(n, limits_.reduce, sourceSets_);
            if (!i) {  // every enabled transition sleeps: this schedule is equivalent to an explored one
                path_.push_back(std::move(n));
                return End::blocked;
            }
            take(n, *i);
            path_.push_back(std::move(n));
        }
    }

    // The backtracks the schedule adds, and the leaf handed on when it is complete.
    void endSchedule(End end) {
        if (end == End::blocked) path_.pop_back();  // the blocked state itself has nothing to explore
        if (sourceSets_) addBacktracks(path_, leaf_.ran);
        if (end == End::complete) {
            ++stats_.explored;
            counting_.add(leaf_.ran, stats_);
            leaf_.execution = exec_.get();
            onLeaf_(leaf_);
        } else if (end == End::blocked) {
            ++stats_.blocked;
        }
    }

    // At --max-interleavings or past --max-explore-time: stop, unless nothing
    // is left anyway; true (with the stats final) when the exploration ends here.
    bool stopAtLimit() {
        const bool atBound = stats_.explored >= limits_.maxInterleavings;
        const bool outOfTime = !atBound && stats_.explored > 0 && limits_.maxTime && elapsed() >= *limits_.maxTime;
        if (!atBound && !outOfTime) return false;
        bool more = false, moreBelowRoot = false;
        for (std::size_t d = 0; d < path_.size(); ++d) {
            Node copy = path_[d];
            copy.done.push_back({copy.enabled[copy.chosen].id, copy.enabled[copy.chosen].footprint});
            if (!nextCandidate(copy, limits_.reduce, sourceSets_)) continue;
            more = true;
            moreBelowRoot = moreBelowRoot || d > 0;
        }
        stats_.exhaustive = !more;
        if (more) stats_.stopped = atBound ? Stopped::interleavings : Stopped::time;
        // The first moves covered: those done at the root, and the one under way when nothing is left under it.
        stats_.firstMovesDone = !more || path_.empty() ? stats_.firstMoves
                                                       : path_.front().done.size() + (moreBelowRoot ? 0 : 1);
        stats_.elapsed = elapsed();
        return true;
    }

    // Backs up to the deepest state with a candidate left: that candidate, or
    // nullopt (an empty path) when none is left.
    std::optional<std::size_t> backUp() {
        std::optional<std::size_t> next;
        while (!path_.empty()) {
            auto& n = path_.back();
            n.done.push_back({n.enabled[n.chosen].id, n.enabled[n.chosen].footprint});
            if ((next = nextCandidate(n, limits_.reduce, sourceSets_))) break;
            path_.pop_back();
        }
        return next;
    }

    // Re-executes the path up to its last state, then takes the candidate `next` there.
    void replayTo(std::size_t next) {
        exec_ = make_();
        leaf_ = Leaf{};
        for (std::size_t d = 0; d + 1 < path_.size(); ++d) {
            leaf_.choices.push_back(path_[d].chosen);
            leaf_.ran.push_back(path_[d].enabled[path_[d].chosen]);
            exec_->enabled();
            leaf_.ran.back().footprint = exec_->execute(path_[d].chosen);
            ++stats_.transitions;
        }
        exec_->enabled();  // the state's enabled list, as the execution expects before execute()
        take(path_.back(), next);
    }

    const ExecutionFactory& make_;
    const ExploreLimits& limits_;
    const LeafHandler& onLeaf_;
    ExploreStats stats_;
    const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
    Counting counting_;
    std::vector<Node> path_;
    std::vector<Asleep> sleep_;  // of the state being entered
    std::unique_ptr<Execution> exec_;
    Leaf leaf_;
    const bool sharded_ = limits_.shardCount > 1;
    const bool sourceSets_ = limits_.reduce && !sharded_;
    // Sharded: the split depth is where the first path's branching reaches
    // 32 states per shard; states reached at that depth are dealt round-robin.
    std::size_t splitDepth_ = 0, arrivals_ = 0;
    bool splitKnown_ = !sharded_;
    double width_ = 1;
};

}  // namespace

ExploreStats exploreExhaustive(const ExecutionFactory& make, const ExploreLimits& limits, const LeafHandler& onLeaf) {
    return Exhaustive(make, limits, onLeaf).run();
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
