// A real broker that answered in another order of its concurrent work
// (sim/live/against.h, orderThatAgrees; doc/against.md "Another order"): the
// session of the differential search that a loaded 4.2.4 broker answered so
// (seed 42, session 152): a consumer on a two-partition topic under
// AutoUpdateDisabled, whose second partition finds the schema the first one
// registered. The real answers are given here as the model's random schedule
// gives them (what 4.2.4 answered, step for step); no network.

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "sim/live/against.h"
#include "sim/run/runner.h"
#include "sim/scenario/loader.h"

using namespace cnx::sim;
using namespace cnx::sim::live;

namespace {

constexpr const char* kSession = R"(name: "explore seed 42 session 152"
topics:
  t: { partitions: 2 }
schemas:
  order-v1: { type: AVRO, schema: '{"type":"record","name":"Order","namespace":"com.example","fields":[{"name":"id","type":"long"}]}' }
  account-fewer: { type: AVRO, schema: '{"type":"record","name":"Account","namespace":"com.example","fields":[{"name":"id","type":"long"},{"name":"status","type":{"type":"enum","name":"Status","symbols":["ACTIVE"]},"default":"ACTIVE"}]}' }
steps:
  - set-policy: { namespace: public/default, schema_auto_update_compatibility_strategy: AutoUpdateDisabled }
  - subscribe: { topic: t, subscription: s1, consumer: c1, schema: account-fewer }
  - delete-schema: { topic: t, force: true }
  - subscribe: { topic: t, subscription: s2, consumer: c2, schema: account-fewer, type: Key_Shared }
  - producer: { topic: t, name: p1, schema: order-v1 }
  - publish: { producer: p1 }
)";

Scenario loaded(const std::string& yaml) {
    auto r = loadScenarioText(yaml, "session.yaml", std::filesystem::path("."));
    REQUIRE(r.ok());
    REQUIRE(r.scenarios.size() == 1);
    return r.scenarios.front();
}

// Step verdicts whose real answers are those of `real`.
std::vector<StepVerdict> realAnswers(const ScenarioResult& real) {
    std::vector<StepVerdict> steps;
    for (std::size_t i = 0; i < real.steps.size(); ++i) {
        StepVerdict s;
        s.index = i;
        s.realObserved = real.steps[i].observed;
        steps.push_back(std::move(s));
    }
    return steps;
}

// The 4.2.4 answers of the loaded run: the consumer c1 refused (its second partition found
// the first one's schema under ALWAYS_INCOMPATIBLE), so c2 finds an idle topic.
ScenarioResult loadedBrokerRun(const Scenario& s) {
    for (std::uint64_t seed = 1; seed <= kOtherOrdersTried; ++seed) {
        auto r = runScenario(s, "session.yaml", "4.2.4", otherOrder(RunOptions{}, seed));
        if (!r.steps.at(1).observed.ok) return r;
    }
    FAIL("no random schedule of the model refuses c1");
    return {};
}

}  // namespace

TEST_CASE("the default order admits the partitioned consumer, and another order refuses it as a loaded 4.2.4 did") {
    auto s = loaded(kSession);
    auto fifo = runScenario(s, "session.yaml", "4.2.4", RunOptions{});
    REQUIRE(fifo.steps.size() == 6);
    CHECK(fifo.steps[1].observed.ok);
    CHECK_FALSE(fifo.steps[3].observed.ok);  // c1 is active: the topic is not idle

    auto real = loadedBrokerRun(s);
    CHECK(real.steps[1].observed.error == "IncompatibleSchema");
    CHECK(real.steps[1].observed.message.find("ALWAYS_INCOMPATIBLE") != std::string::npos);
    CHECK(real.steps[3].observed.ok);  // c1 was refused: the topic is idle again
    CHECK_FALSE(real.steps[4].observed.ok);
    CHECK_FALSE(disagreement(real.steps[1].observed, fifo.steps[1].observed).empty());
}

TEST_CASE("orderThatAgrees finds the order that gives every real answer, and its replay gives them") {
    auto s = loaded(kSession);
    auto real = loadedBrokerRun(s);
    auto steps = realAnswers(real);
    auto other = orderThatAgrees(s, "session.yaml", "4.2.4", RunOptions{}, steps);
    REQUIRE(other);
    const auto seed = other->seed;
    CHECK(seed >= 1);
    CHECK(seed <= kOtherOrdersTried);
    auto replay = runScenario(s, "session.yaml", "4.2.4", otherOrder(RunOptions{}, seed));
    for (const auto& st : steps) {
        CHECK(disagreement(*st.realObserved, replay.steps[st.index].observed).empty());
        CHECK(disagreement(*st.realObserved, other->result.steps[st.index].observed).empty());
    }
    CHECK(otherOrderArgs(seed) == "--schedule random --seed " + std::to_string(seed));
}

TEST_CASE("orderThatAgrees finds nothing when a real answer is one no order gives") {
    auto s = loaded(kSession);
    auto steps = realAnswers(runScenario(s, "session.yaml", "4.2.4", RunOptions{}));
    // The publish of the default order, refused as no order of the model refuses it.
    steps[5].realObserved->ok = false;
    steps[5].realObserved->error = "PersistenceError";
    steps[5].realObserved->message = "bookie down";
    CHECK_FALSE(orderThatAgrees(s, "session.yaml", "4.2.4", RunOptions{}, steps));
}

TEST_CASE("orderThatAgrees ignores steps the real broker did not run") {
    auto s = loaded(kSession);
    auto steps = realAnswers(loadedBrokerRun(s));
    for (auto& st : steps) st.realObserved.reset();
    // Nothing to compare: the first order already gives every (absent) real answer.
    auto other = orderThatAgrees(s, "session.yaml", "4.2.4", RunOptions{}, steps);
    REQUIRE(other);
    CHECK(other->seed == 1);
}
