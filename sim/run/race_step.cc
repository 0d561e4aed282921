#include "sim/run/race_step.h"

#include <algorithm>
#include <cstdio>
#include <memory>

#include "sim/run/expectation.h"
#include "sim/run/race_driver.h"
#include "sim/run/race_invariants.h"
#include "sim/run/scenario_run.h"

namespace cnx::sim {
namespace {

// A fresh run of the scenario up to the race, with the race's branches started.
class RaceExecution final : public race::Execution {
public:
    RaceExecution(const RaceSetting& s, const ConcurrentlyStep& race) {
        run_ = std::make_unique<ScenarioRun>(*s.scenario, *s.profile, s.version, *s.topicNames, s.mode, s.seed, s.fastPaths);
        if (auto err = run_->setUp()) setupError_ = *err;
        for (std::size_t i = 0; i < s.stepIndex && setupError_.empty(); ++i) {
            const auto& step = s.scenario->steps[i];
            if (const auto* earlier = std::get_if<ConcurrentlyStep>(&step.body)) {
                auto forced = s.forced.find(i);
                runRace(*run_, *earlier, forced == s.forced.end() ? std::vector<std::size_t>{} : forced->second);
            } else {
                run_->run(step);
            }
        }
        driver_ = std::make_unique<RaceDriver>(*run_, race);
        run_->setRace(driver_.get());
    }
    ~RaceExecution() override {
        driver_.reset();  // fibers first: they run on the ScenarioRun
        run_.reset();
    }
    std::vector<race::Transition> enabled() override { return driver_->enabled(); }
    Footprint execute(std::size_t index) override { return driver_->execute(index); }

    ScenarioRun& run() { return *run_; }
    RaceDriver& driver() { return *driver_; }
    const std::string& setupError() const { return setupError_; }

private:
    std::unique_ptr<ScenarioRun> run_;
    std::unique_ptr<RaceDriver> driver_;
    std::string setupError_;
};

std::size_t switchesOf(const std::vector<std::string>& stages) {
    std::size_t n = 0;
    auto who = [](const std::string& line) { return line.substr(0, line.find(": ")); };
    for (std::size_t i = 1; i < stages.size(); ++i) n += who(stages[i]) != who(stages[i - 1]);
    return n;
}

const std::vector<std::vector<Expect>>* setsFor(const OutcomeSets& sets, const ReleaseVersion& release,
                                                bool* covered) {
    *covered = true;
    if (!sets.present) return nullptr;
    if (sets.perProfile.empty()) return &sets.single;
    const std::vector<std::vector<Expect>>* fallback = nullptr;
    for (const auto& [range, list] : sets.perProfile) {
        if (range.op == VersionRange::Op::any) {
            fallback = &list;
            continue;
        }
        if (rangeCovers(range, release)) return &list;
    }
    if (!fallback) *covered = false;
    return fallback;
}

// `~` in a per-version map: one set of results each deliberately not asserted.
bool skipped(const std::vector<std::vector<Expect>>* sets) {
    if (!sets || sets->size() != 1) return false;
    return std::all_of(sets->front().begin(), sets->front().end(), [](const Expect& e) { return e.notAsserted; });
}

bool setAllows(const std::vector<Expect>& set, const std::vector<Observed>& results) {
    for (std::size_t i = 0; i < set.size() && i < results.size(); ++i)
        if (!mismatch(set[i], results[i]).empty()) return false;
    return set.size() == results.size();
}

// "1500ms" / "2s": a --max-explore-time as the option takes it.
std::string durationText(std::chrono::milliseconds d) {
    return d.count() % 1000 == 0 ? std::to_string(d.count() / 1000) + "s" : std::to_string(d.count()) + "ms";
}

// RaceReport::stopped: how far an exhaustive exploration got before a bound stopped it.
std::string stoppedText(const race::ExploreStats& s, const RaceSetting& setting) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.1f", static_cast<double>(s.elapsed.count()) / 1000.0);
    std::string explored = std::to_string(s.explored) + " of at most " + std::to_string(setting.maxInterleavings) +
                           " schedule" + (setting.maxInterleavings == 1 ? "" : "s");
    std::string out = s.stopped == race::Stopped::time
                          ? "explored " + explored + " in " + seconds + " s (time bound --max-explore-time " +
                                durationText(*setting.maxExploreTime) + " reached)"
                          : "explored " + explored + " (--max-interleavings reached)";
    return out + "; " + std::to_string(s.firstMovesDone) + " of the race's " + std::to_string(s.firstMoves) +
           " first moves covered";
}

std::string renderSet(const std::vector<Expect>& set) {
    std::string out = "[";
    for (std::size_t i = 0; i < set.size(); ++i) out += (i ? ", " : "") + renderExpect(set[i]);
    return out + "]";
}

}  // namespace

std::string RaceOutcome::text() const {
    std::string out = "[";
    for (std::size_t i = 0; i < rendered.size(); ++i) out += (i ? ", " : "") + rendered[i];
    return out + "]";
}

std::string renderRaceResult(const Observed& o, const Step& branch) {
    if (!o.perClient.empty()) {
        std::string out = "{ ";
        bool first = true;
        for (const auto& [name, each] : o.perClient) {
            out += (first ? "" : ", ") + name + ": " + renderRaceResult(each, branch);
            first = false;
        }
        return out + " }";
    }
    if (!o.ok) return "{ error: " + o.error + " }";
    return renderObserved(o, branch);
}

std::vector<std::string> racedTopics(const ScenarioRun& run, const ConcurrentlyStep& race) {
    std::vector<std::string> out;
    for (const auto& b : race.branches) {
        std::visit(
            [&](const auto& s) {
                using T = std::decay_t<decltype(s)>;
                if constexpr (requires { std::string(s.topic); }) {
                    out.push_back(s.topic);
                } else if constexpr (std::is_same_v<T, CloseStep>) {
                    if (auto t = run.topicOfHandle(s.name)) out.push_back(*t);
                } else if constexpr (std::is_same_v<T, PublishStep>) {
                    if (auto t = run.topicOfHandle(s.producer)) out.push_back(*t);
                }
            },
            b.body);
    }
    // Topics the run already knows about take part too (an unload or a policy change races them).
    for (const auto& p : run.openProducers()) out.push_back(p.topic);
    return out;
}

std::vector<Observed> runRace(ScenarioRun& run, const ConcurrentlyStep& race, const std::vector<std::size_t>& choices,
                              std::vector<std::string>* log, std::vector<std::size_t>* ran, std::string* stuck) {
    RaceDriver driver(run, race);
    run.setRace(&driver);
    auto leaf = race::runSchedule(driver, choices);
    run.setRace(nullptr);
    if (log) *log = driver.log();
    if (ran) *ran = leaf.choices;
    if (stuck && !driver.finished()) *stuck = "the race could not finish: a branch waits for an answer that never comes";
    return driver.results();
}

namespace {

// A schedule explored: its outcome (the branches' results as rendered, and the
// invariants it breaks) counted, keeping the schedule with the fewest switches
// between branches as the outcome's example.
void countLeaf(RaceReport& report, std::vector<std::string>& topics, const ConcurrentlyStep& race,
               const race::Leaf& leaf) {
    auto& exec = static_cast<RaceExecution&>(*leaf.execution);
    if (!exec.driver().finished() && report.stuck.empty())
        report.stuck = "the race could not finish along the schedule " + race::formatChoices(leaf.choices);
    const auto& results = exec.driver().results();
    if (topics.empty()) topics = racedTopics(exec.run(), race);
    std::vector<std::string> rendered;
    for (std::size_t i = 0; i < results.size(); ++i) rendered.push_back(renderRaceResult(results[i], race.branches[i]));
    auto broken = brokenInvariants(exec.run(), race.invariants, topics);
    RaceOutcome* slot = nullptr;
    for (auto& o : report.outcomes)
        if (o.rendered == rendered && o.broken == broken) slot = &o;
    const auto& stages = exec.driver().log();
    auto switches = switchesOf(stages);
    if (!slot) {
        report.outcomes.push_back({});
        slot = &report.outcomes.back();
        slot->rendered = rendered;
        slot->broken = broken;
        slot->switches = static_cast<std::size_t>(-1);
    }
    ++slot->schedules;
    if (switches < slot->switches) {
        slot->switches = switches;
        slot->results = results;
        slot->choices = leaf.choices;
        slot->stages = stages;
    }
}

// The schedules explored: the one --schedule forces, random ones, or every one
// (of this shard), each handed to `onLeaf`.
void exploreSchedules(const RaceSetting& setting, const ConcurrentlyStep& race, const race::ExecutionFactory& make,
                      const race::LeafHandler& onLeaf, RaceReport& report) {
    if (auto forced = setting.forced.find(setting.stepIndex); forced != setting.forced.end()) {
        report.exploration = "the schedule '" + race::formatChoices(forced->second) + "' (--schedule)";
        auto exec = make();
        auto leaf = race::runSchedule(*exec, forced->second);
        report.stats.explored = 1;
        report.stats.exhaustive = false;
        onLeaf(leaf);
    } else if (race.randomRuns) {
        std::uint64_t seed = race.randomSeed ? *race.randomSeed : Rng(setting.seed).derive(setting.stepIndex);
        report.exploration = "random " + std::to_string(*race.randomRuns) + " (seed " + std::to_string(seed) + ")";
        report.stats = race::exploreRandom(make, static_cast<std::size_t>(*race.randomRuns), seed, onLeaf);
    } else {
        report.exploration = "exhaustive";
        race::ExploreLimits limits;
        limits.maxInterleavings = setting.maxInterleavings;
        limits.maxTime = setting.maxExploreTime;
        limits.reduce = setting.reduce;
        if (setting.shardCount > 1) {
            limits.shardIndex = static_cast<std::size_t>(setting.shardIndex - 1);
            limits.shardCount = static_cast<std::size_t>(setting.shardCount);
            report.exploration = "exhaustive, shard " + std::to_string(setting.shardIndex) + "/" +
                                 std::to_string(setting.shardCount) + " of the interleavings";
        }
        report.stats = race::exploreExhaustive(make, limits, onLeaf);
        if (report.stats.stopped != race::Stopped::no && setting.shardCount <= 1)
            report.stopped = stoppedText(report.stats, setting);
    }
}

// The verdict: the race finished, every outcome is allowed and breaks no
// invariant, every reachable set was reached; with --strict also exhaustive
// and with outcomes for this release. The first failure is the report's why.
void judgeRace(const RaceSetting& setting, const ConcurrentlyStep& race, const ReleaseVersion& release, bool strict,
               RaceReport& report) {
    auto fail = [&](std::string why) {
        if (report.passed) report.why = std::move(why);
        report.passed = false;
    };
    if (!report.stuck.empty()) fail(report.stuck);
    bool covered = true;
    const auto* allowed = setsFor(race.outcomes, release, &covered);
    report.outcomesCovered = covered;
    report.outcomesSkipped = skipped(allowed);
    if (report.outcomesSkipped) allowed = nullptr;
    report.outcomesAsserted = allowed != nullptr;
    for (auto& o : report.outcomes) {
        if (allowed) {
            o.allowed = false;
            for (const auto& set : *allowed) o.allowed = o.allowed || setAllows(set, o.results);
            if (!o.allowed) fail("the outcome " + o.text() + " is not allowed");
        }
        if (!o.broken.empty()) fail("invariant broken: " + o.broken.front());
    }
    bool reachCovered = true;
    const bool sharded = setting.shardCount > 1 && !race.randomRuns;
    if (sharded && race.reachable.present) report.notes.push_back("reachable sets are not checked on a shard of the interleavings");
    const auto* wanted = sharded ? nullptr : setsFor(race.reachable, release, &reachCovered);
    if (skipped(wanted)) wanted = nullptr;
    if (wanted) {
        for (const auto& set : *wanted) {
            bool hit = false;
            for (const auto& o : report.outcomes) hit = hit || setAllows(set, o.results);
            if (hit) continue;
            report.unreached.push_back(renderSet(set));
            fail("the outcome " + renderSet(set) + " was not reached in " + std::to_string(report.stats.explored) +
                 " schedule(s)");
        }
    }
    if (!report.stopped.empty() && strict) fail("not exhaustive: " + report.stopped + " (--strict)");
    if (!covered && strict) fail("no outcomes cover version " + release.toString() + " (--strict)");
    if (!allowed && covered && !report.outcomesSkipped && strict) fail("the race has no outcomes (--strict)");
}

}  // namespace

RaceReport exploreRace(const RaceSetting& setting, const ConcurrentlyStep& race, const ReleaseVersion& release,
                       bool strict) {
    RaceReport report;
    std::vector<std::string> topics;
    auto make = [&]() -> std::unique_ptr<race::Execution> { return std::make_unique<RaceExecution>(setting, race); };
    auto onLeaf = [&](const race::Leaf& leaf) { countLeaf(report, topics, race, leaf); };
    exploreSchedules(setting, race, make, onLeaf, report);
    judgeRace(setting, race, release, strict, report);
    return report;
}

}  // namespace cnx::sim
