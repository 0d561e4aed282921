#include "sim/run/runner.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <string_view>
#include <variant>

#include <spdlog/spdlog.h>

#include "broker_model/core/trace.h"
#include "broker_model/profile/profile.h"
#include "sim/run/expectation.h"
#include "sim/run/scenario_run.h"

namespace cnx::sim {
namespace {

// "<id>: step N (<action>)", or without the id; built in one buffer (every step has one).
std::string stepLabel(const Step& step, std::size_t index) {
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, index + 1).ptr;
    const std::string_view number(digits, static_cast<std::size_t>(end - digits));
    std::string label;
    label.reserve(step.id.size() + 2 + 5 + number.size() + 2 + step.action.size() + 1);
    if (!step.id.empty()) label.append(step.id).append(": ", 2);
    label.append("step ", 5).append(number).append(" (", 2).append(step.action).append(")", 1);
    return label;
}

// Asks the cache for the next step while this one runs: a Step is about 1 KiB,
// read at its start, its action's variant and the action's strings, and a
// suite's steps are too many for the cache (10,000 scenarios: ~100 MiB).
void prefetch(const Step& step) {
    const auto* bytes = reinterpret_cast<const char*>(&step);
    for (std::size_t at = 0; at < sizeof(Step); at += 64) __builtin_prefetch(bytes + at);
}

// Fills `r` in place (the scenario's result list): a StepResult is not moved again.
void judge(StepResult& r, const Step& step, std::size_t index, Observed observed, const ReleaseVersion& release,
           const RunOptions& options) {
    r.index = index;
    r.step = &step;
    bool covered = true;
    r.expected = expectationFor(step.expect, release, &covered);
    if (!step.expect.present) {
        // No expectation: a failed `check` fails (its assertions are the step
        // itself); under --strict so does any step with an outcome.
        if (step.is<CheckStep>() && !observed.ok) {
            r.status = StepStatus::failed;
            r.why = observed.checkFailure;
        } else if (options.strict && !observed.checkUncovered.empty()) {
            r.status = StepStatus::failed;
            r.why = "check: no value of '" + observed.checkUncovered.front() + "' covers version " +
                    release.toString() + " (--strict)";
        } else if (step.is<CheckStep>() && !observed.checkUncovered.empty()) {
            r.status = StepStatus::notAsserted;
        } else if (options.strict && hasOutcome(step, observed)) {
            r.status = StepStatus::failed;
            r.why = "the step has an outcome but no expectation (--strict)";
        }
    } else if (r.expected && r.expected->notAsserted) {
        r.status = StepStatus::notAsserted;  // `~`: deliberately, so --strict accepts it too
    } else if (!covered) {
        r.status = options.strict ? StepStatus::failed : StepStatus::notAsserted;
        if (options.strict) r.why = "no expectation covers version " + release.toString() + " (--strict)";
    } else {
        r.why = mismatch(*r.expected, observed);
        r.status = r.why.empty() ? StepStatus::passed : StepStatus::failed;
    }
    r.notModelled = observed.trace.gaps();
    if (options.strict && !r.notModelled.empty() && r.status != StepStatus::failed) {
        r.status = StepStatus::failed;
        r.why = "the answer passes through a path the model does not implement (--strict): " + r.notModelled.front();
    }
    r.observed = std::move(observed);
}

// A race: explored on fresh runs, then run along the canonical (or forced)
// schedule on `run`, which goes on from there.
StepResult judgeRace(const Step& step, std::size_t index, const ConcurrentlyStep& c, ScenarioRun& run,
                     const RaceSetting& setting, const ReleaseVersion& release, const RunOptions& options,
                     const std::string& file, const std::string& version) {
    auto report = exploreRace(setting, c, release, options.strict);
    auto forced = setting.forced.find(index);
    std::string stuck;
    auto results = runRace(run, c, forced == setting.forced.end() ? std::vector<std::size_t>{} : forced->second,
                           nullptr, nullptr, &stuck);
    StepResult r;
    r.index = index;
    r.step = &step;
    for (std::size_t b = 0; b < results.size() && b < c.branches.size(); ++b) {
        const auto& branch = c.branches[b];
        r.observed.trace.append(results[b].trace, stepLabel(branch, b) + ": ");
    }
    r.notModelled = r.observed.trace.gaps();
    if (!report.passed) {
        r.status = StepStatus::failed;
        r.why = report.why;
        r.observed.ok = false;
        r.observed.error = "RaceFailed";
        r.observed.message = report.why;
    } else if (!report.outcomesAsserted) {
        r.status = report.outcomesCovered && !report.outcomesSkipped ? StepStatus::unasserted : StepStatus::notAsserted;
    } else {
        r.status = StepStatus::passed;
    }
    if (options.strict && !r.notModelled.empty() && r.status != StepStatus::failed) {
        r.status = StepStatus::failed;
        r.why = "the answer passes through a path the model does not implement (--strict): " + r.notModelled.front();
    }
    // The line that replays a failing schedule exactly.
    for (auto& o : report.outcomes) {
        std::string where = (options.document ? std::to_string(options.document) + "/" : "") + std::to_string(index + 1);
        o.replay = "cnxsim run " + file + " --version " + version + " --schedule " +
                   (options.schedule == ScheduleMode::random ? "random," : "") + where + ":" +
                   race::formatChoices(o.choices) +
                   (options.schedule == ScheduleMode::random ? " --seed " + std::to_string(options.seed) : "");
    }
    r.race = std::make_shared<RaceReport>(std::move(report));
    return r;
}

}  // namespace

std::string StepResult::label() const {
    if (!step) return "step " + std::to_string(index + 1);
    return stepLabel(*step, index);
}

std::optional<std::string> parseScheduleOption(const std::string& text, RunOptions& options) {
    std::size_t start = 0;
    for (;;) {
        auto comma = text.find(',', start);
        std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        if (auto mode = parseScheduleMode(item)) {
            options.schedule = *mode;
        } else {
            auto colon = item.find(':');
            if (colon == std::string::npos)
                return "--schedule takes fifo, random or a race's STEP:CHOICES (as a failure's replay line prints it), got '" +
                       item + "'";
            std::string where = item.substr(0, colon);
            RunOptions::RaceSchedule rs;
            auto slash = where.find('/');
            auto number = [](const std::string& t) -> std::optional<std::size_t> {
                std::size_t v = 0;
                if (t.empty() || t.size() > 6) return std::nullopt;
                auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
                if (ec != std::errc() || p != t.data() + t.size() || v == 0) return std::nullopt;
                return v;
            };
            auto doc = slash == std::string::npos ? std::optional<std::size_t>(0) : number(where.substr(0, slash));
            auto step = number(slash == std::string::npos ? where : where.substr(slash + 1));
            auto choices = race::parseChoices(item.substr(colon + 1));
            if (!doc || !step || !choices)
                return "--schedule: '" + item + "' is not [DOC/]STEP:CHOICES (e.g. 3:0.1.1 or 2/3:1)";
            rs.document = static_cast<int>(*doc);
            rs.step = *step;
            rs.choices = std::move(*choices);
            options.raceSchedules.push_back(std::move(rs));
        }
        if (comma == std::string::npos) return std::nullopt;
        start = comma + 1;
    }
}

bool selectedByTags(const Scenario& scenario, const std::vector<std::string>& tags) {
    if (tags.empty()) return true;
    return std::any_of(tags.begin(), tags.end(), [&](const std::string& t) {
        return std::find(scenario.tags.begin(), scenario.tags.end(), t) != scenario.tags.end();
    });
}

bool excludedByTags(const Scenario& scenario, const std::vector<std::string>& excludeTags) {
    return std::any_of(excludeTags.begin(), excludeTags.end(), [&](const std::string& t) {
        return std::find(scenario.tags.begin(), scenario.tags.end(), t) != scenario.tags.end();
    });
}

bool hasOutcome(const Step& step, const Observed& observed) {
    if (step.is<CheckStep>()) return false;
    bool reconnects = step.is<UpgradeBrokerStep>() || step.is<RestartBrokerStep>() || step.is<UnloadStep>();
    if (reconnects) return !observed.ok || !observed.perClient.empty();
    return true;
}

std::vector<std::string> versionsOf(const Scenario& scenario) {
    if (!scenario.brokerVersions.empty()) return scenario.brokerVersions;
    const auto& newest = newestProfile().release;
    return {std::to_string(newest.major) + "." + std::to_string(newest.minor)};
}

namespace {

bool hasRace(const Scenario& scenario) {
    return std::any_of(scenario.steps.begin(), scenario.steps.end(),
                       [](const Step& s) { return std::holds_alternative<ConcurrentlyStep>(s.body); });
}

// A `check` step keeps every detail even in a run that keeps outcomes only (RunOptions::traces).
bool keepsDetails(const Step& step) { return std::holds_alternative<CheckStep>(step.body); }

// Whether the result of a run that kept outcomes only has every trace that
// `traces` asks for: none failed, or (failedSteps) every failed step kept its details.
bool complete(const ScenarioResult& r, RunOptions::Traces traces) {
    if (r.passed) return true;
    if (traces != RunOptions::Traces::failedSteps) return false;
    return std::all_of(r.steps.begin(), r.steps.end(), [](const StepResult& s) {
        return s.status != StepStatus::failed || (s.step && keepsDetails(*s.step));
    });
}

// What the races of a run explore on: fresh runs of the same scenario and options.
RaceSetting raceSettingOf(const Scenario& scenario, const BehaviourProfile& profile, const std::string& version,
                          const RunOptions& options, TopicNameCache& topicNames) {
    RaceSetting race;
    race.scenario = &scenario;
    race.profile = &profile;
    race.version = version;
    race.topicNames = &topicNames;
    race.mode = options.schedule;
    race.seed = options.seed;
    race.fastPaths = options.fastPaths;
    race.maxInterleavings = options.maxInterleavings;
    race.maxExploreTime = options.maxExploreTime;
    race.reduce = options.reduce;
    race.shardIndex = options.raceShardIndex;
    race.shardCount = options.raceShardCount;
    for (const auto& rs : options.raceSchedules)
        if (rs.document == 0 || rs.document == options.document) race.forced[rs.step - 1] = rs.choices;
    return race;
}

// One run; its traces keep `detail`, but for the steps that keep every detail (keepsDetails).
ScenarioResult runOnce(const Scenario& scenario, const std::string& file, const std::string& version,
                       const RunOptions& options, TopicNameCache& topicNames, TraceDetail detail) {
    auto started = std::chrono::steady_clock::now();
    ScenarioResult result;
    result.file = file;
    result.scenario = &scenario;
    result.version = version;
    std::string error;
    const BehaviourProfile* profile = profileFor(version, &error);
    if (!profile) {
        result.passed = false;
        result.setupError = error;
        return result;
    }
    result.profile = profile->name;
    spdlog::debug("running '{}' on {} ({})", scenario.name, version, profile->name);
    ScenarioRun run(scenario, *profile, version, topicNames, options.schedule, options.seed, options.fastPaths);
    run.setTraceDetail(detail);
    if (auto err = run.setUp()) {
        result.passed = false;
        result.setupError = *err;
        return result;
    }
    // Expectations are matched against the exact release the profile models
    // ("2.10" is the line's newest modelled release).
    const auto& release = profile->release;
    RaceSetting race = raceSettingOf(scenario, *profile, version, options, topicNames);
    result.steps.reserve(scenario.steps.size());  // one result per step: no moves of the results as they grow
    const bool logSteps = spdlog::should_log(spdlog::level::debug);  // asked once: a call into spdlog a step showed in profiles
    for (std::size_t i = 0; i < scenario.steps.size(); ++i) {
        const auto& step = scenario.steps[i];
        if (i + 1 < scenario.steps.size()) prefetch(scenario.steps[i + 1]);
        if (const auto* c = std::get_if<ConcurrentlyStep>(&step.body)) {
            race.stepIndex = i;
            auto r = judgeRace(step, i, *c, run, race, release, options, file, version);
            if (r.status == StepStatus::failed) result.passed = false;
            result.steps.push_back(std::move(r));
            continue;
        }
        auto& r = result.steps.emplace_back();
        run.setTraceDetail(keepsDetails(step) ? TraceDetail::all : detail);
        judge(r, step, i, run.run(step), release, options);
        if (logSteps)
            spdlog::debug("  {} -> {}", r.label(), r.observed.ok ? "ok" : r.observed.error);
        if (r.status == StepStatus::failed) result.passed = false;
    }
    result.continuations = run.continuationsRun();
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
}

}  // namespace

std::string outcomeDifference(const ScenarioResult& first, const ScenarioResult& rerun) {
    if (first.passed != rerun.passed) return first.passed ? "the first run passed" : "the first run failed";
    if (first.setupError != rerun.setupError) return "the set-up errors differ";
    if (first.steps.size() != rerun.steps.size()) return "the runs have different numbers of steps";
    for (std::size_t i = 0; i < first.steps.size(); ++i) {
        const auto& a = first.steps[i];
        const auto& b = rerun.steps[i];
        const bool same = a.status == b.status && a.why == b.why && a.observed.ok == b.observed.ok &&
                          a.observed.error == b.observed.error && a.observed.message == b.observed.message &&
                          a.notModelled == b.notModelled;
        if (!same) return a.label() + ": " + (a.observed.ok ? "ok" : a.observed.error) + " then " +
                          (b.observed.ok ? "ok" : b.observed.error) + (a.why == b.why ? "" : " (why differs)");
    }
    return {};
}

ScenarioResult runScenario(const Scenario& scenario, const std::string& file, const std::string& version,
                           const RunOptions& options) {
    TopicNameCache own;
    TopicNameCache& topicNames = options.topicNames ? *options.topicNames : own;
    topicNames.trim();  // no run of the caller's holds a name from it now
    if (options.traces == RunOptions::Traces::always || hasRace(scenario))
        return runOnce(scenario, file, version, options, topicNames, TraceDetail::all);
    auto first = runOnce(scenario, file, version, options, topicNames, TraceDetail::outcomesOnly);
    if (complete(first, options.traces)) return first;
    // A failure whose trace is printed: once more with every detail. The run is
    // deterministic, so the re-run fails as the first did; said if not (a model
    // reading how much its trace keeps), and its result is reported.
    auto r = runOnce(scenario, file, version, options, topicNames, TraceDetail::all);
    r.seconds += first.seconds;
    r.rerunDifference = outcomeDifference(first, r);
    if (!r.rerunDifference.empty())
        spdlog::error("internal error: {} [{}] ran again for its traces and did not fail the same way: {}", file,
                      version, r.rerunDifference);
    return r;
}

}  // namespace cnx::sim
