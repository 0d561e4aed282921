#include "sim/run/runner.h"

#include <algorithm>
#include <chrono>

#include <spdlog/spdlog.h>

#include "broker_model/profile/profile.h"
#include "sim/run/expectation.h"
#include "sim/run/scenario_run.h"

namespace cnx::sim {
namespace {

std::string stepLabel(const Step& step, std::size_t index) {
    std::string label = "step " + std::to_string(index + 1) + " (" + step.action + ")";
    return step.id.empty() ? label : step.id + ": " + label;
}

StepResult judge(const Step& step, std::size_t index, Observed observed, const ReleaseVersion& release,
                 const RunOptions& options) {
    StepResult r;
    r.index = index;
    r.label = stepLabel(step, index);
    r.step = &step;
    bool covered = true;
    r.expected = expectationFor(step.expect, release, &covered);
    if (!step.expect.present) {
        // No expectation: a failed `check` fails (its assertions are the step
        // itself); under --strict so does any step with an outcome.
        if (step.action == "check" && !observed.ok) {
            r.status = StepStatus::failed;
            r.why = observed.checkFailure;
        } else if (options.strict && hasOutcome(step, observed)) {
            r.status = StepStatus::failed;
            r.why = "the step has an outcome but no expectation (--strict)";
        }
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
    return r;
}

}  // namespace

std::vector<LoadError> unsupportedSteps(const Scenario& scenario, const std::string& file) {
    std::vector<LoadError> errors;
    for (const auto& step : scenario.steps) {
        if (!std::holds_alternative<ConcurrentlyStep>(step.body)) continue;
        SourcePos pos = step.pos;
        if (pos.file.empty()) pos.file = file;
        errors.push_back({pos, "'concurrently' is not supported yet by this cnxsim (races come in a later release)"});
    }
    return errors;
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
    if (step.action == "check") return false;
    bool reconnects = step.action == "upgrade-broker" || step.action == "restart-broker" || step.action == "unload";
    if (reconnects) return !observed.ok || !observed.perClient.empty();
    return true;
}

std::vector<std::string> versionsOf(const Scenario& scenario) {
    if (!scenario.brokerVersions.empty()) return scenario.brokerVersions;
    const auto& newest = newestProfile().release;
    return {std::to_string(newest.major) + "." + std::to_string(newest.minor)};
}

ScenarioResult runScenario(const Scenario& scenario, const std::string& file, const std::string& version,
                           const RunOptions& options) {
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
    ScenarioRun run(scenario, *profile, version, options.schedule, options.seed);
    if (auto err = run.setUp()) {
        result.passed = false;
        result.setupError = *err;
        return result;
    }
    // Expectations are matched against the exact release the profile models
    // ("2.10" is the line's newest modelled release).
    const auto& release = profile->release;
    for (std::size_t i = 0; i < scenario.steps.size(); ++i) {
        const auto& step = scenario.steps[i];
        auto r = judge(step, i, run.run(step), release, options);
        spdlog::debug("  {} -> {}", r.label, r.observed.ok ? "ok" : r.observed.error);
        if (r.status == StepStatus::failed) result.passed = false;
        result.steps.push_back(std::move(r));
    }
    result.continuations = run.continuationsRun();
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
}

}  // namespace cnx::sim
