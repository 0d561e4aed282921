#include "sim/explore/model_judge.h"

#include <filesystem>
#include <utility>
#include <vector>

#include "sim/run/runner.h"
#include "sim/accept/accept_outcomes.h"
#include "sim/accept/accept_writer.h"
#include "sim/scenario/loader.h"

namespace cnx::sim::explore {
namespace {

constexpr const char* kFile = "session.yaml";

}  // namespace

// An outcome without its message: what the kind compares. With `exactVersions`
// false a version is `vN` (only "none", -1, is kept), so that one rule met at
// versions 0, 1 and 2 is one kind.
std::string outcomeKey(const Observed& o, bool exactVersions) {
    if (!o.perClient.empty()) {
        std::string out = "{";
        for (const auto& [name, each] : o.perClient)
            out += (out.size() > 1 ? ", " : "") + name + ": " + outcomeKey(each, exactVersions);
        return out + "}";
    }
    if (!o.ok) return o.error;
    std::string out = "ok";
    if (o.schemaVersion)
        out += exactVersions || *o.schemaVersion < 0 ? " v" + std::to_string(*o.schemaVersion) : std::string(" vN");
    if (o.schema) out += " " + std::string(to_string_view(o.schema->type));
    if (o.compatible) out += *o.compatible ? " compatible" : " incompatible";
    return out;
}

namespace {

// The session with both releases named and every step's outcome per release.
std::string acceptedText(const std::string& yaml, const std::vector<ScenarioResult>& results, const std::string& a,
                         const std::string& b) {
    auto edits = acceptEdits(results, AcceptMode::missing);
    std::string text = yaml;
    if (auto err = applyAcceptEditsToText(text, edits[kFile])) return "";
    auto steps = text.find("\nsteps:");
    if (steps == std::string::npos || text.find("\nbroker:") != std::string::npos) return "";
    text.insert(steps + 1, "broker:\n  version: [\"" + a + "\", \"" + b + "\"]\n");
    return text;
}

Verdict judgeAcross(const std::string& yaml, const std::string& a, const std::string& b) {
    Verdict v;
    auto loaded = loadScenarioText(yaml, kFile, std::filesystem::path("."));
    if (!loaded.ok() || loaded.scenarios.size() != 1) {
        v.detail = loaded.errors.empty() ? "not one scenario" : "does not load: " + loaded.errors.front().format();
        return v;
    }
    const Scenario& scenario = loaded.scenarios.front();
    RunOptions options;
    std::vector<ScenarioResult> results{runScenario(scenario, kFile, a, options), runScenario(scenario, kFile, b, options)};
    const auto& ra = results[0];
    const auto& rb = results[1];
    if (!ra.setupError.empty() || !rb.setupError.empty()) {
        v.detail = "not run: " + ra.setupError + rb.setupError;
        return v;
    }
    for (std::size_t i = 0; i < ra.steps.size() && i < rb.steps.size(); ++i) {
        const Step& step = *ra.steps[i].step;
        std::string fa = renderAccepted(ra.steps[i].observed, step, scenario);
        std::string fb = renderAccepted(rb.steps[i].observed, step, scenario);
        if (fa == fb) continue;
        const Observed &oa = ra.steps[i].observed, &ob = rb.steps[i].observed;
        std::string ka = outcomeKey(oa, false), kb = outcomeKey(ob, false);
        v.disagrees = true;
        v.step = i;
        if (ka != kb) {
            v.kind = step.action + ": " + a + "=" + ka + " " + b + "=" + kb;
        } else if (outcomeKey(oa, true) != outcomeKey(ob, true)) {
            v.kind = step.action + ": versions differ (" + ka + ")";
        } else {
            v.kind = step.action + ": message differs (" + ka + ")";
        }
        v.detail = "step " + std::to_string(i + 1) + " (" + step.action + ")\n" + a + ": " + fa + "\n" + b + ": " + fb;
        v.acceptedYaml = acceptedText(yaml, results, a, b);
        return v;
    }
    return v;
}

}  // namespace

Judge crossVersionJudge(std::string versionA, std::string versionB) {
    return [a = std::move(versionA), b = std::move(versionB)](const std::string& yaml) { return judgeAcross(yaml, a, b); };
}

}  // namespace cnx::sim::explore
