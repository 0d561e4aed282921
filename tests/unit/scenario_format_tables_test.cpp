// The field tables of the scenario format (sim/scenario/load/format.h): each
// section's keys are distinct and fully described, and the loader's known-key
// lists, required-key checks and "did you mean" come from those same tables.

#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <tuple>

#include "sim/scenario/load/format.h"
#include "sim/scenario/loader.h"

namespace {

using namespace cnx::sim;
using namespace cnx::sim::load;

template <class Target, std::size_t N>
void checkTable(const std::array<Field<Target>, N>& fields, bool bound) {
    std::set<std::string_view> keys;
    for (const Field<Target>& f : fields) {
        INFO("key " << f.key);
        CHECK(keys.insert(f.key).second);
        if (bound) CHECK(f.bind != nullptr);
        if (f.spec.kind == ValueKind::choice) {
            REQUIRE(f.spec.choices != nullptr);
            CHECK_FALSE(f.spec.choices().empty());
            CHECK_FALSE(f.spec.noun.empty());
        }
        if (f.spec.kind == ValueKind::integer) CHECK(f.spec.min <= f.spec.max);
        if (f.spec.kind == ValueKind::custom || f.spec.kind == ValueKind::section) CHECK_FALSE(f.spec.noun.empty());
    }
}

template <std::size_t N>
bool distinct(const std::array<std::string_view, N>& keys) {
    return std::set<std::string_view>(keys.begin(), keys.end()).size() == N;
}

std::string errorsOf(const std::string& yaml) {
    std::string out;
    for (const LoadError& e : loadScenarioText(yaml, "t.yaml", ".").errors) out += e.format() + "\n";
    return out;
}

std::string oneStep(const std::string& step) { return "name: s\nsteps:\n  - " + step + "\n"; }

}  // namespace

TEST_CASE("every section table has distinct, fully described keys", "[loader][format]") {
    checkTable(kScenarioFields, true);
    checkTable(kBrokerFields, true);
    checkTable(kTopicDeclFields, true);
    checkTable(kClientFields, true);
    checkTable(kDefinitionFields, false);  // read by definitionOf: its rules span keys
    checkTable(kStepFields, false);        // read by loadStep: its rules depend on the action
    checkTable(kProducerFields, true);
    checkTable(kSubscribeFields, true);
    checkTable(kPublishFields, true);
    checkTable(kTopicSchemaFields<UploadSchemaStep>, true);
    checkTable(kGetSchemaFields, true);
    checkTable(kDeleteSchemaFields, true);
    checkTable(kDeleteTopicFields, true);
    checkTable(kUpgradeBrokerFields, true);
    checkTable(kUnloadFields, true);
    checkTable(kCheckFields, true);
    checkTable(kExploreFields, true);
    checkTable(kExpectErrorFields, true);
    checkTable(kExpectSuccessFields, true);
    CHECK(distinct(kStepKeys));
    CHECK(distinct(kExpectKeys));
}

TEST_CASE("the step-kind table follows ActionKind and reads every kind but concurrently", "[loader][format]") {
    CHECK(actionInfo(ActionKind::producer).name == "producer");
    CHECK(actionInfo(ActionKind::unload).name == "unload");
    CHECK(actionInfo(ActionKind::check).name == "check");
    CHECK(actionInfo(ActionKind::concurrently).read == nullptr);
    for (std::size_t i = 0; i + 1 < kActionTable.size(); ++i) {
        INFO(kActionTable[i].name);
        CHECK(kActionTable[i].read != nullptr);
    }
    CHECK(actionInfo(ActionKind::uploadSchema).admin);
    CHECK_FALSE(actionInfo(ActionKind::producer).admin);
    CHECK(actionInfo(ActionKind::restartBroker).reconnect);
    CHECK_FALSE(actionInfo(ActionKind::check).reconnect);
}

TEST_CASE("unknown keys and did-you-mean come from the step's table", "[loader][format]") {
    CHECK(errorsOf(oneStep("producer: { topic: t, acess_mode: Shared }")) ==
          "t.yaml:3:27: unknown key 'acess_mode' in producer; did you mean 'access_mode'?\n");
    CHECK(errorsOf(oneStep("subscribe: { topic: t, subscription: s, durabel: true }")) ==
          "t.yaml:3:45: unknown key 'durabel' in subscribe; did you mean 'durable'?\n");
    CHECK(errorsOf(oneStep("delete-topic: { topic: t, delete_schemas: true }")) ==
          "t.yaml:3:31: unknown key 'delete_schemas' in delete-topic; did you mean 'delete_schema'?\n");
}

TEST_CASE("required keys are checked in table order, before any value is read", "[loader][format]") {
    CHECK(errorsOf(oneStep("subscribe: { consumer: c }")) ==
          "t.yaml:3:5: missing required key 'topic' in subscribe\n"
          "t.yaml:3:5: missing required key 'subscription' in subscribe\n");
    CHECK(errorsOf(oneStep("upload-schema: { }")) ==
          "t.yaml:3:5: missing required key 'topic' in upload-schema\n"
          "t.yaml:3:5: missing required key 'schema' in upload-schema\n");
}

TEST_CASE("a field is read as its ValueSpec says", "[loader][format]") {
    // integer range of publish.count, choice of producer.access_mode, boolean of delete-schema.force
    std::string base = "name: s\nsteps:\n  - producer: { topic: t, name: p }\n  - ";
    CHECK(errorsOf(base + "publish: { producer: p, count: 0 }\n") ==
          "t.yaml:4:36: count: expected an integer from 1 to 1000000, got 0\n");
    CHECK(errorsOf(oneStep("producer: { topic: t, access_mode: Shard }")) ==
          "t.yaml:3:40: unknown access mode 'Shard'; did you mean 'Shared'?\n");
    CHECK(errorsOf(oneStep("delete-schema: { topic: t, force: yes }")) ==
          "t.yaml:3:39: force: expected a boolean (true or false), got 'yes'\n");
    // the shorthand of unload binds its scalar as the `topic` field
    auto r = loadScenarioText(oneStep("unload: my-topic"), "t.yaml", ".");
    REQUIRE(r.ok());
    CHECK(std::get<UnloadStep>(r.scenarios.at(0).steps.at(0).body).topic == "persistent://public/default/my-topic");
}
