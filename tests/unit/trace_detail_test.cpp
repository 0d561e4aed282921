// Which traces keep their details (broker_model/core/trace.h, RunOptions::traces):
// outcomes only in a trace made with TraceDetail::outcomesOnly, every detail
// where a report prints it.

#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "broker_model/broker/broker.h"
#include "broker_model/core/trace.h"
#include "broker_model/profile/profile.h"
#include "sim/runtime/sim_scheduler.h"
#include "sim/run/runner.h"
#include "sim/scenario/loader.h"

namespace {

using cnx::Trace;
using cnx::TraceDetail;
using cnx::sim::RunOptions;
using cnx::sim::ScenarioResult;
using cnx::sim::StepStatus;

cnx::Problem aProblem() {
    cnx::Problem p;
    p.path = "/fields/1";
    p.detail = "field age has no default";
    return p;
}

cnx::sim::LoadResult load(const char* yaml) {
    auto loaded = cnx::sim::loadScenarioText(yaml, "traces.yaml", ".");
    REQUIRE(loaded.ok());
    REQUIRE(loaded.scenarios.size() == 1);
    return loaded;
}

ScenarioResult run(const cnx::sim::Scenario& scenario, const std::string& version, RunOptions::Traces traces) {
    RunOptions options;
    options.traces = traces;
    return cnx::sim::runScenario(scenario, "traces.yaml", version, options);
}

// The run of `scenario` on its first version keeping every detail, checked to fail on its second step (of 3).
ScenarioResult failingOnStep2(const cnx::sim::Scenario& scenario) {
    auto full = run(scenario, cnx::sim::versionsOf(scenario).front(), RunOptions::Traces::always);
    REQUIRE_FALSE(full.passed);
    REQUIRE(full.steps.size() == 3);
    REQUIRE(full.steps[1].status == StepStatus::failed);
    return full;
}

std::vector<std::string> tracesOf(const ScenarioResult& r) {
    std::vector<std::string> out;
    for (const auto& s : r.steps) out.push_back(s.observed.trace.format());
    return out;
}

std::vector<std::vector<std::string>> gapsOf(const ScenarioResult& r) {
    std::vector<std::vector<std::string>> out;
    for (const auto& s : r.steps) out.push_back(s.notModelled);
    return out;
}

}  // namespace

TEST_CASE("a trace keeps every detail unless made for outcomes only", "[trace]") {
    Trace t;
    int built = 0;
    t.add("§1", "string", std::string("detail"));
    t.add("§1", "literal", "detail");
    t.add("§1", "lazy", [&] {
        ++built;
        return std::string("built");
    });
    CHECK(built == 1);
    REQUIRE(t.entries().size() == 3);
    CHECK(t.entries()[1].detail == "detail");
    CHECK(t.entries()[2].detail == "built");
    CHECK(t.detailed());
    CHECK(Trace(TraceDetail::all).detailed());
}

TEST_CASE("a trace made for outcomes only keeps the gaps and problems, nothing else", "[trace]") {
    Trace t(TraceDetail::outcomesOnly);
    int built = 0;
    CHECK_FALSE(t.detailed());
    t.add("§1", "string", std::string("detail"));
    t.add("§1", "literal", "detail");
    t.add("§1", "lazy", [&] {
        ++built;
        return std::string("built");
    });
    t.notModelled("§1.3", "not modelled: #25012 (replicator)", "replicator producer refused");
    t.problem("§4.6", aProblem());
    CHECK(built == 0);  // the detail is never built
    REQUIRE(t.entries().size() == 2);
    CHECK(t.gaps() == std::vector<std::string>{"not modelled: #25012 (replicator)"});
    REQUIRE(t.problems().size() == 1);
    CHECK(t.problems()[0].path == "/fields/1");
}

TEST_CASE("a trace's mode goes with it: moved, or used on another thread", "[trace]") {
    Trace lean(TraceDetail::outcomesOnly);
    Trace moved = std::move(lean);
    CHECK_FALSE(moved.detailed());
    // A continuation that hops threads (or a race's fiber) reads the trace it was given.
    auto shared = std::make_shared<Trace>(TraceDetail::outcomesOnly);
    std::thread([&] { shared->add("§1", "elsewhere", "detail"); }).join();
    CHECK(shared->empty());
    Trace full;
    std::thread([&] { full.add("§1", "elsewhere", "detail"); }).join();
    CHECK(full.entries().size() == 1);
}

TEST_CASE("the broker makes its traces in the mode its owner set", "[trace]") {
    cnx::sim::SimScheduler scheduler;
    cnx::Broker broker(cnx::newestProfile(), scheduler);
    CHECK(broker.newTrace()->detailed());
    broker.setTraceDetail(TraceDetail::outcomesOnly);
    auto lean = broker.newTrace();
    CHECK_FALSE(lean->detailed());
    broker.setTraceDetail(TraceDetail::all);
    CHECK_FALSE(lean->detailed());  // made before: it keeps its mode
    CHECK(broker.newTrace()->detailed());
}

TEST_CASE("a passing run keeps outcomes only, but for its check steps and its gaps", "[trace][runner]") {
    // #25012 on 3.0.16: the replicator's refusal passes through a known gap.
    auto loaded = load(R"(name: gaps are kept without details
broker:
  version: ["3.0.16"]
  config:
    isSchemaValidationEnforced: true
steps:
  - producer: { topic: replicated, name: p-typed, schema: STRING }
    expect: { schema_version: 0 }
  - producer: { topic: replicated, name: pulsar.repl.cluster-b, schema: none }
    expect: { error: IncompatibleSchema }
  - check: { topic: replicated, idle: false }
)");
    const auto& scenario = loaded.scenarios.front();
    auto lean = run(scenario, "3.0.16", RunOptions::Traces::failedSteps);
    auto full = run(scenario, "3.0.16", RunOptions::Traces::always);
    REQUIRE(lean.passed);
    REQUIRE(full.passed);
    REQUIRE(lean.steps.size() == 3);
    CHECK(lean.steps[0].observed.trace.empty());
    CHECK_FALSE(full.steps[0].observed.trace.empty());
    // The gap is kept, so the console's "not modelled" lines and --strict see it.
    CHECK_FALSE(lean.steps[1].notModelled.empty());
    CHECK(gapsOf(lean) == gapsOf(full));
    // The check step keeps every detail.
    CHECK(lean.steps[2].observed.trace.format() == full.steps[2].observed.trace.format());
    CHECK(tracesOf(lean) != tracesOf(full));
}

TEST_CASE("a failed step that kept outcomes only runs the scenario again with every detail", "[trace][runner]") {
    auto loaded = load(R"(name: a wrong expectation on a producer
steps:
  - producer: { topic: t, name: p1, schema: STRING }
    expect: { schema_version: 0 }
  - producer: { topic: t, name: p2, schema: INT64 }
    expect: { schema_version: 1 }
  - subscribe: { topic: t, subscription: s, consumer: c1, schema: STRING }
)");
    const auto& scenario = loaded.scenarios.front();
    const auto full = failingOnStep2(scenario);
    const auto& version = full.version;
    for (auto traces : {RunOptions::Traces::failedSteps, RunOptions::Traces::failedScenarios}) {
        auto r = run(scenario, version, traces);
        REQUIRE_FALSE(r.passed);
        CHECK(tracesOf(r) == tracesOf(full));
        CHECK(r.steps[1].observed.problems.size() == full.steps[1].observed.problems.size());
    }
}

TEST_CASE("a failed check step keeps its details without a second run, and reports ask for every step", "[trace][runner]") {
    auto loaded = load(R"(name: a check that does not hold
steps:
  - producer: { topic: t, name: p1, schema: STRING }
  - check: { topic: t, idle: true }
  - subscribe: { topic: t, subscription: s, consumer: c1, schema: STRING }
)");
    const auto& scenario = loaded.scenarios.front();
    const auto full = failingOnStep2(scenario);
    const auto& version = full.version;
    // The console and JUnit print the failed step's trace only: it has every detail,
    // and the other steps were not run again.
    auto steps = run(scenario, version, RunOptions::Traces::failedSteps);
    REQUIRE_FALSE(steps.passed);
    CHECK(steps.steps[1].observed.trace.format() == full.steps[1].observed.trace.format());
    CHECK(steps.steps[0].observed.trace.empty());
    // The Markdown and HTML reports print every step of a failed scenario.
    CHECK(tracesOf(run(scenario, version, RunOptions::Traces::failedScenarios)) == tracesOf(full));
}

TEST_CASE("a failed scenario run again for its traces fails the same way as the first run", "[trace][runner]") {
    auto loaded = load(R"(name: a wrong expectation on a producer, run again
steps:
  - producer: { topic: t, name: p1, schema: STRING }
    expect: { schema_version: 0 }
  - producer: { topic: t, name: p2, schema: INT64 }
    expect: { error: IncompatibleSchema, message: "not this message" }
  - subscribe: { topic: t, subscription: s, consumer: c1, schema: STRING }
)");
    const auto& scenario = loaded.scenarios.front();
    const auto full = failingOnStep2(scenario);
    for (auto traces : {RunOptions::Traces::failedSteps, RunOptions::Traces::failedScenarios}) {
        auto r = run(scenario, full.version, traces);
        REQUIRE_FALSE(r.passed);
        // The runner compared the outcomes-only run with the one it reports.
        CHECK(r.rerunDifference.empty());
        CHECK(cnx::sim::outcomeDifference(full, r).empty());
    }
    CHECK(full.rerunDifference.empty());  // ran once
}

TEST_CASE("outcomeDifference names the first step a re-run answers differently", "[trace][runner]") {
    auto loaded = load(R"(name: a wrong expectation on a producer, compared
steps:
  - producer: { topic: t, name: p1, schema: STRING }
    expect: { schema_version: 0 }
  - producer: { topic: t, name: p2, schema: INT64 }
    expect: { schema_version: 1 }
  - subscribe: { topic: t, subscription: s, consumer: c1, schema: STRING }
)");
    const auto full = failingOnStep2(loaded.scenarios.front());
    CHECK(cnx::sim::outcomeDifference(full, full).empty());
    auto otherError = full;
    otherError.steps[1].observed.error = "ServiceNotReady";
    CHECK(cnx::sim::outcomeDifference(full, otherError).find("step 2") != std::string::npos);
    auto otherMessage = full;
    otherMessage.steps[1].observed.message += " (changed)";
    CHECK_FALSE(cnx::sim::outcomeDifference(full, otherMessage).empty());
    auto otherStatus = full;
    otherStatus.steps[2].status = StepStatus::failed;
    CHECK(cnx::sim::outcomeDifference(full, otherStatus).find("step 3") != std::string::npos);
    auto fewer = full;
    fewer.steps.pop_back();
    CHECK_FALSE(cnx::sim::outcomeDifference(full, fewer).empty());
}
