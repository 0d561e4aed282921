#include "sim/live/against.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <sstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "broker_model/broker/broker.h"
#include "broker_model/policy/policies.h"
#include "sim/runtime/sim_scheduler.h"
#include "broker_model/profile/profile.h"
#include "sim/io/file_write.h"
#include "sim/explore/explore.h"
#include "sim/explore/model_judge.h"
#include "sim/live/known_differences.h"
#include "sim/accept/accept_outcomes.h"
#include "sim/accept/accept_writer.h"
#include "sim/scenario/loader.h"
#include "sim/serve/broker_conf.h"
#include "sim/run/expectation.h"

namespace cnx::sim::live {

using Json = nlohmann::json;

namespace {

std::string lower(std::string s) {
    for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
}

// The settings a scenario needs of the live broker: what the model's broker of that
// release runs with the scenario's broker.config (its own defaults, Broker::applyConfig).
BrokerConfig wantedConfig(const Scenario& scenario, const BehaviourProfile& profile) {
    SimScheduler scheduler;
    Broker broker(profile, scheduler);
    for (const auto& s : scenario.brokerConfig)
        if (s.value) broker.setConfig(s.key, *s.value);
    return broker.policies().broker;
}

std::string freshToken() {
    static std::atomic<unsigned> counter{0};
    auto now = std::chrono::system_clock::now().time_since_epoch().count();
    std::ostringstream o;
    o << "cx" << std::hex << (static_cast<unsigned long long>(now) & 0xffffffffULL) << std::hex
      << (static_cast<unsigned>(::getpid()) & 0xfffu) << "n" << std::dec << counter++;
    return o.str();
}

// The scenario's release list and the live release: a line ("4.2") or an exact release must match.
bool writtenFor(const Scenario& scenario, const ReleaseVersion& live) {
    if (scenario.brokerVersions.empty()) return true;
    for (const auto& v : scenario.brokerVersions) {
        const auto* p = profileFor(v);
        if (!p) continue;
        auto dots = std::count(v.begin(), v.end(), '.');
        if (dots >= 2 ? p->release == live
                      : (p->release.major == live.major && p->release.minor == live.minor))
            return true;
    }
    return false;
}

std::string render(const Observed& o, const Step& step) {
    auto text = renderObserved(o, step);
    return text.empty() ? "ok" : text;
}

}  // namespace

std::string disagreement(const Observed& real, const Observed& model) {
    if (real.ok != model.ok) return real.ok ? "the real broker accepts, the model refuses" : "the real broker refuses, the model accepts";
    if (!real.ok) {
        if (real.error != model.error) return "error " + real.error + " on the real broker, " + model.error + " in the model";
        if (comparableMessage(real.message) != comparableMessage(model.message)) return "the messages differ";
    }
    if (real.schemaVersion != model.schemaVersion) {
        auto v = [](const std::optional<std::int64_t>& x) { return x ? std::to_string(*x) : std::string("none"); };
        return "schema version " + v(real.schemaVersion) + " on the real broker, " + v(model.schemaVersion) + " in the model";
    }
    if (real.compatible != model.compatible) return "the compatibility answers differ";
    if (real.strategy != model.strategy) return "the strategies differ";
    if (real.schema.has_value() != model.schema.has_value()) return "one side answers a schema, the other none";
    if (real.schema && model.schema) {
        if (real.schema->type != model.schema->type) return "the schema types differ";
        if (real.schema->data != model.schema->data) return "the schema definitions differ";
        if (real.schema->properties != model.schema->properties) return "the schema properties differ";
    }
    for (const auto& [name, r] : real.perClient) {
        auto m = model.perClient.find(name);
        if (m == model.perClient.end()) return name + " reconnected on the real broker only";
        if (auto d = disagreement(r, m->second); !d.empty()) return name + ": " + d;
    }
    for (const auto& [name, _] : model.perClient)
        if (!real.perClient.count(name)) return name + " reconnected in the model only";
    return "";
}

bool ScenarioVerdict::agreed() const {
    if (!executable || error) return false;
    return std::none_of(steps.begin(), steps.end(), [](const StepVerdict& s) {
        return s.kind == StepVerdict::Kind::disagreed || s.kind == StepVerdict::Kind::error;
    });
}

std::variant<LiveBroker, std::string> describeBroker(const AgainstOptions& options) {
    LiveAdmin admin(options.target.admin, options.target.timeout);
    LiveBroker b;
    std::string asked;
    if (options.version) {
        asked = *options.version;
    } else {
        auto v = admin.call("GET", "/admin/v2/brokers/version");
        if (v.status == 0) return "the admin API cannot be reached: " + v.reason;
        if (v.ok() && v.body.is_string()) asked = v.body.get<std::string>();
        else if (v.ok()) asked = v.reason;  // text/plain
        while (!asked.empty() && std::isspace(static_cast<unsigned char>(asked.back()))) asked.pop_back();
        if (asked.empty())
            return "the broker did not say its release (GET /admin/v2/brokers/version answered HTTP " +
                   std::to_string(v.status) + "): name it with --version";
    }
    std::string error;
    b.profile = profileFor(asked, &error);
    if (!b.profile) return "the broker's release " + asked + " is not modelled: " + error;
    b.release = b.profile->release.toString();
    if (asked.find('.') != std::string::npos && std::count(asked.begin(), asked.end(), '.') >= 2) b.release = asked;
    auto runtime = admin.call("GET", "/admin/v2/brokers/configuration/runtime");
    if (runtime.status == 0) return "the admin API cannot be reached: " + runtime.reason;
    if (runtime.ok() && runtime.body.is_object())
        for (const auto& [k, v] : runtime.body.items())
            if (v.is_string()) b.runtime[k] = v.get<std::string>();
    auto clusters = admin.call("GET", "/admin/v2/clusters");
    if (clusters.ok() && clusters.body.is_array() && !clusters.body.empty() && clusters.body[0].is_string())
        b.cluster = clusters.body[0].get<std::string>();
    auto dynamic = admin.call("GET", "/admin/v2/brokers/configuration");
    if (dynamic.ok() && dynamic.body.is_array())
        for (const auto& k : dynamic.body)
            if (k.is_string()) b.dynamicKeys.push_back(k.get<std::string>());
    return b;
}

namespace {

// The broker's settings must be the scenario's: a dynamic key is set for the
// run (into `dynamicChanges`, put back after), any other difference makes it
// not executable. False (with `v` saying why) when it is not.
bool configFits(const Scenario& scenario, const LiveBroker& broker, ScenarioVerdict& v,
                std::vector<Setting>& dynamicChanges) {
    const auto wanted = wantedConfig(scenario, *broker.profile);
    if (broker.runtime.empty()) {
        for (const auto& s : scenario.brokerConfig) {
            v.executable = false;
            v.why = "sets " + s.key + ", and the broker's configuration cannot be read (GET "
                    "/admin/v2/brokers/configuration/runtime) to check it";
            return false;
        }
    }
    for (auto key : BrokerConfig::keys()) {
        if (key == "advertisedAddress" || key == "advertisedListeners" || key == "internalListenerName") continue;
        auto want = serve::configValueText(wanted, key);
        auto live = broker.runtime.find(std::string(key));
        if (!want || live == broker.runtime.end()) continue;
        if (lower(*want) == lower(live->second)) continue;
        bool dynamic = std::find(broker.dynamicKeys.begin(), broker.dynamicKeys.end(), std::string(key)) !=
                       broker.dynamicKeys.end();
        if (!dynamic) {
            if (v.needs.empty())
                v.why = "needs " + std::string(key) + "=" + *want + "; the broker runs " + live->second +
                        " (not dynamic: start a broker with it, e.g. tests/oracle/run-broker " + broker.release +
                        " --set " + std::string(key) + "=" + *want + ")";
            v.needs[std::string(key)] = *want;
            continue;
        }
        dynamicChanges.push_back(Setting{std::string(key), *want, {}});
    }
    if (!v.needs.empty()) {
        v.executable = false;
        if (v.needs.size() > 1) v.why += " and " + std::to_string(v.needs.size() - 1) + " more key(s)";
        return false;
    }
    return true;
}

// The live broker made ready for the scenario: the dynamic keys set, then its
// set-up; and the model's set-up checked. False (with `v` saying why) when either fails.
bool setUpBoth(LiveRun& live, const std::vector<Setting>& dynamicChanges, const ScenarioResult& modelResult,
               ScenarioVerdict& v) {
    if (!dynamicChanges.empty()) {
        SetBrokerConfigStep set;
        set.settings = dynamicChanges;
        Step step;
        step.action = "set-broker-config";
        step.body = set;
        auto o = live.run(step);
        if (!o.observed.ok) {
            v.error = true;
            v.why = "setting the dynamic keys failed: " + o.observed.error + " " + o.observed.message;
            return false;
        }
    }
    if (auto e = live.setUp()) {
        if (e->rfind(LiveRun::kSetUpNotExecutable, 0) == 0) {
            v.executable = false;
            v.why = e->substr(LiveRun::kSetUpNotExecutable.size());
            return false;
        }
        v.error = true;
        v.why = "set-up on the broker failed: " + *e;
        return false;
    }
    if (!modelResult.setupError.empty()) {
        v.error = true;
        v.why = "the model could not set the scenario up: " + modelResult.setupError;
        return false;
    }
    return true;
}

// A step that ran on both: the real answer against the expectation (when it is
// judged) and against the model's, with a known gap of the model named. When
// real and model differ, `differing` holds what the expectation says of the real answer.
void judgeStep(StepVerdict& sv, const Scenario& scenario, std::size_t i, const Observed& real, const StepResult& model,
               bool judgeExpectation, std::optional<std::string>& differing) {
    std::string why;
    if (judgeExpectation) {
        auto m = mismatch(*model.expected, real);
        if (!m.empty()) why = "the real broker does not meet the expectation: " + m;
    }
    auto d = disagreement(real, model.observed);
    if (!d.empty()) differing = why;
    if (!d.empty()) why += std::string(why.empty() ? "" : "; ") + "real broker and model differ: " + d;
    sv.kind = why.empty() ? StepVerdict::Kind::agreed : StepVerdict::Kind::disagreed;
    if (!d.empty()) {
        if (const auto* known = explain(scenario, i, real, model.observed)) {
            sv.kind = StepVerdict::Kind::explained;
            why = "not modelled: " + std::string(known->id) + " (" + std::string(known->what) + "); " + why;
        }
    }
    sv.why = std::move(why);
}

// Step i run on the live broker and set against the model's run. `stoppedBy`
// names the step after which nothing is comparable (set here by a step that
// could not run); `differing` as judgeStep says.
StepVerdict compareStep(const Scenario& scenario, std::size_t i, LiveRun& live, const ScenarioResult& modelResult,
                        const std::string& writtenFor, std::string& stoppedBy, std::optional<std::string>& differing) {
    const auto& step = scenario.steps[i];
    StepVerdict sv;
    sv.index = i;
    sv.action = step.action;
    const StepResult* model = i < modelResult.steps.size() ? &modelResult.steps[i] : nullptr;
    // A scenario written for other releases: its expectations are those releases' claims, so
    // the step is judged real broker against model only.
    const bool judgeExpectation = writtenFor.empty() && model && model->expected;
    sv.expected = judgeExpectation ? renderExpect(*model->expected)
                                   : writtenFor.empty() ? "-" : "- (written for " + writtenFor + ")";
    if (!stoppedBy.empty()) {
        sv.kind = StepVerdict::Kind::notExecutable;
        sv.why = "follows " + stoppedBy + ", which could not run on this broker";
        return sv;
    }
    auto real = live.run(step);
    if (real.kind == LiveOutcome::Kind::notExecutable) {
        sv.kind = StepVerdict::Kind::notExecutable;
        sv.why = real.why;
        // A `check` changes nothing; any other step that could not run leaves the
        // broker where the model is not: the steps after it are not comparable.
        if (!std::holds_alternative<CheckStep>(step.body)) stoppedBy = "step " + std::to_string(i + 1) + " (" + step.action + ")";
        return sv;
    }
    sv.real = real.kind == LiveOutcome::Kind::error ? "error: " + real.why : render(real.observed, step);
    sv.realObserved = real.observed;
    if (model) sv.modelObserved = model->observed;
    sv.model = model ? render(model->observed, step) : "-";
    if (real.kind == LiveOutcome::Kind::error) {
        sv.kind = StepVerdict::Kind::error;
        sv.why = real.why;
    } else if (!model) {
        sv.kind = StepVerdict::Kind::error;
        sv.why = "the model did not run this step";
    } else {
        judgeStep(sv, scenario, i, real.observed, *model, judgeExpectation, differing);
    }
    return sv;
}

// Where real and model differ (`differing`: the step in v.steps, with what the
// expectation says of the real answer), the model's answers in another order of
// the broker's concurrent work, if one agrees.
void tryOtherOrder(const Scenario& scenario, const std::string& file, const LiveBroker& broker,
                   const RunOptions& runOptions, const std::vector<std::pair<std::size_t, std::string>>& differing,
                   ScenarioVerdict& v) {
    if (differing.empty()) return;
    auto other = orderThatAgrees(scenario, file, broker.release, runOptions, v.steps);
    if (!other) return;
    const auto seed = other->seed;
    v.otherOrderSeed = seed;
    const auto& alt = other->result;
    for (const auto& [at, expectation] : differing) {
        auto& sv = v.steps[at];
        sv.modelObserved = alt.steps[sv.index].observed;
        sv.model = render(*sv.modelObserved, *alt.steps[sv.index].step);
        // What the expectation says of the real answer stands; the difference with the model is gone.
        sv.kind = expectation.empty() ? StepVerdict::Kind::agreed : StepVerdict::Kind::disagreed;
        sv.why = (expectation.empty() ? "" : expectation + "; ") +
                 "the model answers so in another order of the broker's concurrent work (cnxsim run FILE " +
                 otherOrderArgs(seed) + ")";
    }
}

}  // namespace

ScenarioVerdict compareScenario(const Scenario& scenario, const std::string& file, const LiveBroker& broker,
                                const AgainstOptions& options, const RunOptions& runOptions) {
    ScenarioVerdict v;
    v.file = file;
    v.name = scenario.name;
    // A scenario runs whatever releases it lists: the model runs the broker's release, and
    // each step's expectation is the one for that release (none: real and model only).
    if (!writtenFor(scenario, ReleaseVersion::parse(broker.release).value_or(broker.profile->release))) {
        for (const auto& s : scenario.brokerVersions) v.writtenFor += (v.writtenFor.empty() ? "" : ", ") + s;
    }
    std::vector<Setting> dynamicChanges;
    if (!configFits(scenario, broker, v, dynamicChanges)) return v;
    // The model first, on the same release: its answers and the expectations.
    auto modelResult = runScenario(scenario, file, broker.release, runOptions);
    LiveRun live(scenario, options.target, broker.release, freshToken());
    live.setCluster(broker.cluster);
    if (options.keepCreated) live.keepCreated();
    if (!setUpBoth(live, dynamicChanges, modelResult, v)) return v;
    std::string stoppedBy;
    // Where in v.steps the real answer is not the model's, with what the expectation says of it.
    std::vector<std::pair<std::size_t, std::string>> differing;
    for (std::size_t i = 0; i < scenario.steps.size(); ++i) {
        std::optional<std::string> differs;
        v.steps.push_back(compareStep(scenario, i, live, modelResult, v.writtenFor, stoppedBy, differs));
        if (differs) differing.emplace_back(v.steps.size() - 1, std::move(*differs));
    }
    live.tearDown();
    tryOtherOrder(scenario, file, broker, runOptions, differing, v);
    return v;
}

std::string otherOrderArgs(std::uint64_t seed) { return "--schedule random --seed " + std::to_string(seed); }

RunOptions otherOrder(const RunOptions& runOptions, std::uint64_t seed) {
    RunOptions o = runOptions;
    o.schedule = ScheduleMode::random;
    o.seed = seed;
    return o;
}

std::optional<OtherOrder> orderThatAgrees(const Scenario& scenario, const std::string& file,
                                             const std::string& release, const RunOptions& runOptions,
                                             const std::vector<StepVerdict>& steps) {
    for (std::uint64_t seed = 1; seed <= kOtherOrdersTried; ++seed) {
        auto alt = runScenario(scenario, file, release, otherOrder(runOptions, seed));
        if (!alt.setupError.empty()) return std::nullopt;
        bool all = true;
        for (const auto& s : steps) {
            if (!s.realObserved) continue;
            if (s.index >= alt.steps.size() || !disagreement(*s.realObserved, alt.steps[s.index].observed).empty()) {
                all = false;
                break;
            }
        }
        if (all) return OtherOrder{seed, std::move(alt)};
    }
    return std::nullopt;
}

namespace {

const char* kindName(StepVerdict::Kind k) {
    switch (k) {
        case StepVerdict::Kind::agreed: return "agreed";
        case StepVerdict::Kind::disagreed: return "disagreed";
        case StepVerdict::Kind::notExecutable: return "not executable";
        case StepVerdict::Kind::explained: return "explained";
        case StepVerdict::Kind::error: return "error";
    }
    return "";
}

void printScenario(const ScenarioVerdict& v, bool verbose, std::ostream& out) {
    if (!v.executable) {
        out << "NOT EXECUTABLE " << v.file << ": " << v.name << "\n  " << v.why << "\n";
        return;
    }
    if (v.error) {
        out << "ERROR " << v.file << ": " << v.name << "\n  " << v.why << "\n";
        return;
    }
    out << (v.agreed() ? "AGREE " : "DISAGREE ") << v.file << ": " << v.name
        << (v.writtenFor.empty() ? "" : " (written for " + v.writtenFor + ")")
        << (v.otherOrderSeed ? " (in another order of the broker's concurrent work: " + otherOrderArgs(*v.otherOrderSeed) + ")"
                             : "")
        << "\n";
    for (const auto& s : v.steps) {
        bool show = verbose || s.kind == StepVerdict::Kind::disagreed || s.kind == StepVerdict::Kind::error ||
                    s.kind == StepVerdict::Kind::explained ||
                    s.kind == StepVerdict::Kind::notExecutable || (v.otherOrderSeed && !s.why.empty());
        if (!show) continue;
        out << "  step " << s.index + 1 << " (" << s.action << "): " << kindName(s.kind) << "\n";
        if (s.kind == StepVerdict::Kind::notExecutable) {
            out << "    " << s.why << "\n";
            continue;
        }
        out << "    expected:    " << s.expected << "\n"
            << "    real broker: " << s.real << "\n"
            << "    model:       " << s.model << "\n";
        if (!s.why.empty()) out << "    " << s.why << "\n";
    }
}

Json toJson(const ScenarioVerdict& v) {
    Json steps = Json::array();
    for (const auto& s : v.steps)
        steps.push_back({{"step", s.index + 1}, {"action", s.action}, {"verdict", kindName(s.kind)},
                         {"expected", s.expected}, {"real", s.real}, {"model", s.model}, {"why", s.why}});
    return {{"file", v.file}, {"name", v.name}, {"executable", v.executable}, {"error", v.error},
            {"why", v.why}, {"needs", v.needs}, {"agreed", v.agreed()},
            {"other_order", v.otherOrderSeed ? Json(otherOrderArgs(*v.otherOrderSeed)) : Json(nullptr)},
            {"steps", steps}};
}

}  // namespace

namespace {

constexpr const char* kSessionFile = "session.yaml";

// The session with the real broker's release and each executed step's real answer as its expectation.
std::string acceptedText(const std::string& yaml, const Scenario& scenario, const ScenarioVerdict& v,
                         const LiveBroker& broker, const RunOptions& runOptions) {
    auto result = runScenario(scenario, kSessionFile, broker.release, runOptions);
    for (const auto& s : v.steps)
        if (s.realObserved && s.index < result.steps.size()) result.steps[s.index].observed = *s.realObserved;
    std::vector<ScenarioResult> results{std::move(result)};
    auto edits = acceptEdits(results, AcceptMode::missing);
    std::string text = yaml;
    if (applyAcceptEditsToText(text, edits[kSessionFile])) return "";
    auto steps = text.find("\nsteps:");
    if (steps == std::string::npos || text.find("\nbroker:") != std::string::npos) return "";
    text.insert(steps + 1, "broker:\n  version: \"" + broker.release + "\"\n");
    return text;
}

}  // namespace

explore::Judge liveJudge(const LiveBroker& broker, const AgainstOptions& options, const RunOptions& runOptions) {
    return [&broker, &options, &runOptions](const std::string& yaml) {
        explore::Verdict verdict;
        auto loaded = loadScenarioText(yaml, kSessionFile, std::filesystem::path("."));
        if (!loaded.ok() || loaded.scenarios.size() != 1) {
            verdict.detail = loaded.errors.empty() ? "not one scenario" : "does not load: " + loaded.errors.front().format();
            return verdict;
        }
        const Scenario& scenario = loaded.scenarios.front();
        auto v = compareScenario(scenario, kSessionFile, broker, options, runOptions);
        if (!v.executable || v.error) {
            verdict.detail = (v.error ? "error: " : "not executable: ") + v.why;
            // A session the broker could not run (an error) is one kind, so it is written once and looked at.
            if (v.error) {
                verdict.disagrees = true;
                verdict.kind = "error: " + v.why.substr(0, v.why.find(':'));
            }
            return verdict;
        }
        for (const auto& s : v.steps) {
            if (s.kind != StepVerdict::Kind::disagreed && s.kind != StepVerdict::Kind::error) continue;
            verdict.disagrees = true;
            verdict.step = s.index;
            if (s.kind == StepVerdict::Kind::error || !s.realObserved || !s.modelObserved) {
                verdict.kind = s.action + ": error";
            } else {
                auto kr = explore::outcomeKey(*s.realObserved, false), km = explore::outcomeKey(*s.modelObserved, false);
                if (kr != km) verdict.kind = s.action + ": real=" + kr + " model=" + km;
                else if (explore::outcomeKey(*s.realObserved, true) != explore::outcomeKey(*s.modelObserved, true))
                    verdict.kind = s.action + ": versions differ (" + kr + ")";
                else verdict.kind = s.action + ": message differs (" + kr + ")";
            }
            verdict.detail = "step " + std::to_string(s.index + 1) + " (" + s.action + ")\nexpected:    " + s.expected +
                             "\nreal broker: " + s.real + "\nmodel:       " + s.model + "\n" + s.why;
            verdict.acceptedYaml = acceptedText(yaml, scenario, v, broker, runOptions);
            return verdict;
        }
        return verdict;
    };
}

namespace {

int runExplore(const LiveBroker& broker, const AgainstOptions& options, const RunOptions& runOptions,
               std::ostream& out, std::ostream& err) {
    explore::ExploreOptions e;
    e.sessions = *options.explore;
    e.seed = options.seed;
    e.outDir = *options.outDir;
    e.replayArgs = "--against pulsar://" + options.target.broker.text() + " --admin http://" +
                   options.target.admin.text() + " --version " + broker.release;
    out << "explore: " << e.sessions << " session(s), seed " << e.seed << ", against Apache Pulsar " << broker.release
        << "; disagreements go to " << e.outDir.string() << "\n";
    // The search runs on a throwaway broker: each session's tenant stays there (deleting
    // topics, namespaces and tenants would take most of a session's time).
    AgainstOptions kept = options;
    kept.keepCreated = true;
    auto summary = explore::explore(e, liveJudge(broker, kept, runOptions), out);
    if (summary.error) {
        err << "cnxsim run --explore: " << *summary.error << "\n";
        return 1;
    }
    out << "explore: " << summary.sessions << " session(s) run (seed " << e.seed << "), " << summary.disagreements
        << " disagreement(s), " << summary.distinct << " distinct, " << summary.unconfirmed.size()
        << " unconfirmed, " << summary.written.size() << " file(s) written\n";
    return summary.disagreements ? 1 : 0;
}

}  // namespace

int runAgainst(const std::vector<const std::pair<std::string, Scenario>*>& selected, const RunOptions& runOptions,
               const AgainstOptions& options, std::ostream& out, std::ostream& err) {
    auto described = describeBroker(options);
    if (auto* why = std::get_if<std::string>(&described)) {
        err << "cnxsim run --against: " << *why << "\n";
        return 1;
    }
    const auto& broker = std::get<LiveBroker>(described);
    if (options.explore) return runExplore(broker, options, runOptions, out, err);
    out << "against pulsar://" << options.target.broker.text() << " (admin http://" << options.target.admin.text()
        << "), Apache Pulsar " << broker.release << ", compared with the model's profile " << broker.profile->name
        << "\n";
    std::size_t scenarios = 0, agreed = 0, disagreed = 0, notExecutable = 0, errors = 0;
    std::size_t steps = 0, stepsAgreed = 0, stepsDisagreed = 0, stepsNotExecutable = 0, stepsError = 0,
                stepsExplained = 0;
    Json all = Json::array();
    for (const auto* entry : selected) {
        auto v = compareScenario(entry->second, entry->first, broker, options, runOptions);
        ++scenarios;
        if (!v.executable) ++notExecutable;
        else if (v.error) ++errors;
        else if (v.agreed()) ++agreed;
        else ++disagreed;
        for (const auto& s : v.steps) {
            ++steps;
            switch (s.kind) {
                case StepVerdict::Kind::agreed: ++stepsAgreed; break;
                case StepVerdict::Kind::disagreed: ++stepsDisagreed; break;
                case StepVerdict::Kind::notExecutable: ++stepsNotExecutable; break;
                case StepVerdict::Kind::error: ++stepsError; break;
                case StepVerdict::Kind::explained: ++stepsExplained; break;
            }
        }
        if (!v.executable) stepsNotExecutable += entry->second.steps.size(), steps += entry->second.steps.size();
        printScenario(v, options.verbose, out);
        if (options.json) all.push_back(toJson(v));
    }
    out << "\n" << scenarios << " scenario(s): " << agreed << " agreed, " << disagreed << " disagreed, "
        << notExecutable << " not executable, " << errors << " error(s)\n"
        << "steps: " << steps << " in all, " << stepsAgreed << " agreed, " << stepsDisagreed << " disagreed, "
        << stepsExplained << " explained (known differences), " << stepsNotExecutable << " not executable, "
        << stepsError << " error(s)\n";
    if (options.json) {
        Json doc = {{"broker", "pulsar://" + options.target.broker.text()},
                    {"release", broker.release},
                    {"profile", broker.profile->name},
                    {"scenarios", all},
                    {"summary",
                     {{"scenarios", scenarios}, {"agreed", agreed}, {"disagreed", disagreed},
                      {"not_executable", notExecutable}, {"errors", errors}, {"steps", steps},
                      {"steps_agreed", stepsAgreed}, {"steps_disagreed", stepsDisagreed},
                      {"steps_not_executable", stepsNotExecutable}, {"steps_error", stepsError},
                      {"steps_explained", stepsExplained}}}};
        if (auto e = writeFileAtomically(*options.json, doc.dump(2) + "\n")) {
            err << "cnxsim run --against: --json: " << *e << "\n";
            return 1;
        }
    }
    if (disagreed || errors || stepsDisagreed || stepsError) return 1;
    if (options.strict && (notExecutable || stepsNotExecutable)) return 1;
    return 0;
}

}  // namespace cnx::sim::live
