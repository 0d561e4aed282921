// Happy paths of the scenario loader (doc/scenario-format.md): every
// top-level key, every step action, every schema-reference and expectation
// form, positions, and command-line path collection. Malformed input is in
// loader_malformed_test.cpp.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "broker_model/compat/key_value/key_value_check.h"
#include "sim/scenario/did_you_mean.h"
#include "sim/scenario/loader.h"
#include "loader_test_support.h"

namespace {

using namespace cnx;
using namespace cnx::sim;

using cnx::testing::errorsOf;
using cnx::testing::writeFile;

std::filesystem::path scratchDir(const std::string& name) { return cnx::testing::scratchDir("cnxsim-loader-", name); }

// Loads `yaml` and requires it to be one valid scenario.
Scenario loadOne(const std::string& yaml, const std::filesystem::path& base = ".") {
    auto result = loadScenarioText(yaml, "s.yaml", base);
    INFO(errorsOf(result));
    REQUIRE(result.errors.empty());
    REQUIRE(result.scenarios.size() == 1);
    return result.scenarios[0];
}

template <typename T>
const T& body(const Step& step) {
    REQUIRE(std::holds_alternative<T>(step.body));
    return std::get<T>(step.body);
}

const Setting& setting(const std::vector<Setting>& settings, const std::string& key) {
    for (const auto& s : settings) {
        if (s.key == key) return s;
    }
    FAIL("no setting " << key);
    return settings.front();
}

}  // namespace

TEST_CASE("closestMatch suggests near misses only", "[did-you-mean]") {
    std::vector<std::string> keys{"name", "description", "steps", "schemas"};
    CHECK(closestMatch("nmae", keys) == "name");           // transposition
    CHECK(closestMatch("descripton", keys) == "description");
    CHECK(closestMatch("STEPS", keys) == "steps");         // case-insensitive
    CHECK(closestMatch("schema", keys) == "schemas");
    CHECK_FALSE(closestMatch("banana", keys));
    CHECK_FALSE(closestMatch("", keys));
    CHECK_FALSE(closestMatch(std::string(1000, 'a'), keys));
    constexpr std::string_view kTypes[] = {"Exclusive", "Shared", "Failover", "Key_Shared"};
    CHECK(closestMatch("key_shared", kTypes) == "Key_Shared");
    CHECK(closestMatch("Shraed", kTypes) == "Shared");
    CHECK(didYouMeanSuffix("Faliover", kTypes) == "; did you mean 'Failover'?");
    CHECK(didYouMeanSuffix("zzz", kTypes).empty());
}

TEST_CASE("the spec's top-level example loads completely", "[loader]") {
    auto dir = scratchDir("top");
    writeFile(dir / "schemas/user-v2.json",
              R"({"type": "AVRO", "schema": "{\"type\":\"record\",\"name\":\"User\",\"fields\":[]}", )"
              R"("properties": {"owner": "billing"}})");
    const std::string yaml = R"(name: typed consumer may subscribe after an AUTO_CONSUME consumer on an empty topic   # required
description: free text
tags: [auto-consume, idle-topic]
reproduces: [apache/pulsar#19113]
broker:
  version: "4.2"
  config:
    schemaCompatibilityStrategy: FULL
    isSchemaValidationEnforced: false
    isAllowAutoUpdateSchemaEnabled: true
namespaces:
  public/default:
    schema_compatibility_strategy: BACKWARD
    is_allow_auto_update_schema: true
    schema_validation_enforced: false
topics:
  persistent://public/default/orders:
    partitions: 4
    policies: { schema_compatibility_strategy: FORWARD }
  non-persistent://t/n/events:
  payments: {}
clients:
  legacy-app: { library: java, version: "2.10" }
  cpp-app: { library: cpp }
schemas:
  user-v1:
    type: AVRO
    schema: |
      {"type":"record","name":"User","fields":[{"name":"id","type":"long"}]}
    properties: { owner: billing }
  user-v2:
    file: schemas/user-v2.json
  key-value:
    type: KEY_VALUE
    key: user-v1
    value: { type: STRING }
    encoding: SEPARATED
steps:
  - producer: { topic: orders, name: p1, schema: user-v1 }
)";
    Scenario s = loadOne(yaml, dir);
    CHECK(s.name == "typed consumer may subscribe after an AUTO_CONSUME consumer on an empty topic");
    CHECK(s.description == "free text");
    CHECK(s.tags == std::vector<std::string>{"auto-consume", "idle-topic"});
    CHECK(s.reproduces == std::vector<std::string>{"apache/pulsar#19113"});
    CHECK(s.brokerVersions == std::vector<std::string>{"4.2"});
    REQUIRE(s.brokerConfig.size() == 3);
    CHECK(setting(s.brokerConfig, "schemaCompatibilityStrategy").value == "FULL");
    CHECK(setting(s.brokerConfig, "isSchemaValidationEnforced").pos.line == 9);
    REQUIRE(s.namespaces.size() == 1);
    CHECK(s.namespaces[0].name == "public/default");
    CHECK(setting(s.namespaces[0].policies, "schema_compatibility_strategy").value == "BACKWARD");
    REQUIRE(s.topics.size() == 3);
    CHECK(s.topics[0].name == "persistent://public/default/orders");
    CHECK(s.topics[0].partitions == 4);
    CHECK(setting(s.topics[0].policies, "schema_compatibility_strategy").value == "FORWARD");
    CHECK(s.topics[1].name == "non-persistent://t/n/events");
    CHECK(s.topics[1].partitions == 0);
    CHECK(s.topics[2].name == "persistent://public/default/payments");
    REQUIRE(s.clients.size() == 2);
    CHECK(s.clients.at("legacy-app").library == "java");
    CHECK(s.clients.at("legacy-app").version == "2.10");
    CHECK(s.clients.at("cpp-app").library == "cpp");
    CHECK(s.clients.at("cpp-app").version.empty());

    const SchemaRef& v1 = s.schemas.at("user-v1");
    CHECK(v1.kind == SchemaRef::Kind::definition);
    CHECK(v1.alias == "user-v1");
    CHECK(v1.data.type == SchemaType::AVRO);
    CHECK(v1.data.data == "{\"type\":\"record\",\"name\":\"User\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}\n");
    CHECK(v1.data.properties == SchemaProperties{{"owner", "billing"}});
    const SchemaRef& v2 = s.schemas.at("user-v2");
    CHECK(v2.data.type == SchemaType::AVRO);
    CHECK(v2.data.data == R"({"type":"record","name":"User","fields":[]})");
    CHECK(v2.data.properties == SchemaProperties{{"owner", "billing"}});
    const SchemaRef& kv = s.schemas.at("key-value");
    CHECK(kv.data.type == SchemaType::KEY_VALUE);
    CHECK(kv.data == compat::encodeKeyValue(v1.data, SchemaData{SchemaType::STRING, "", {}}, "SEPARATED"));

    const auto& p = body<ProducerStep>(s.steps.at(0));
    CHECK(p.topic == "persistent://public/default/orders");
    CHECK(p.schema.data == v1.data);
    CHECK(p.accessMode == "Shared");
    CHECK(s.pos.line == 1);
    CHECK(s.pos.file == "s.yaml");
}

TEST_CASE("several documents per file, and defaults", "[loader]") {
    const std::string yaml = R"(name: first
steps:
  - producer: { topic: a }
---
# a comment between documents
name: second
broker:
  version: ["4.1", "4.2.0"]
steps:
  - subscribe: { topic: tenant/ns/b, subscription: s }
)";
    auto result = loadScenarioText(yaml, "multi.yaml", ".");
    INFO(errorsOf(result));
    REQUIRE(result.errors.empty());
    REQUIRE(result.scenarios.size() == 2);
    CHECK(result.scenarios[0].documentIndex == 0);
    CHECK(result.scenarios[0].brokerVersions.empty());
    CHECK(result.scenarios[1].documentIndex == 1);
    CHECK(result.scenarios[1].name == "second");
    CHECK(result.scenarios[1].pos.line == 6);
    CHECK(result.scenarios[1].brokerVersions == std::vector<std::string>{"4.1", "4.2.0"});
    const auto& p = body<ProducerStep>(result.scenarios[0].steps[0]);
    CHECK(p.topic == "persistent://public/default/a");
    CHECK(p.name.empty());
    CHECK(p.schema.kind == SchemaRef::Kind::none);
    CHECK(p.client.empty());
    const auto& sub = body<SubscribeStep>(result.scenarios[1].steps[0]);
    CHECK(sub.topic == "persistent://tenant/ns/b");
    CHECK(sub.subType == "Exclusive");
    CHECK(sub.durable);
    CHECK(sub.consumer.empty());
}

TEST_CASE("every schema reference form", "[loader]") {
    auto dir = scratchDir("refs");
    writeFile(dir / "defs/order.json", R"({"type": "JSON", "schema": "{\"type\":\"record\",\"name\":\"O\",\"fields\":[]}"})");
    const std::string yaml = R"(name: refs
clients:
  app: {}
schemas:
  user: { type: AVRO, schema: '{"type":"record","name":"U","fields":[]}' }
  broken-avro: { type: AVRO, schema: "not json at all" }
  kv-later: { type: KEY_VALUE, key: declared-after, value: { type: INT32 } }
  declared-after: { type: STRING, properties: { a: "1", b: } }
steps:
  - producer: { topic: t, name: by-alias, schema: user, client: app }
  - producer: { topic: t, name: inline, schema: { type: JSON, schema: "{}", properties: { k: v } } }
  - producer: { topic: t, name: primitive, schema: INT32 }
  - producer: { topic: t, name: bytes, schema: BYTES }
  - producer: { topic: t, name: no-schema, schema: none }
  - producer: { topic: t, name: auto, schema: AUTO_PRODUCE_BYTES, access_mode: ExclusiveWithFencing }
  - producer: { topic: t, name: from-file, schema: { file: defs/order.json } }
  - producer: { topic: t, name: bad-def, schema: broken-avro }
  - producer:
      topic: t
      name: inline-kv
      schema:
        type: KEY_VALUE
        key: { type: STRING }
        value: user
  - subscribe: { topic: t, subscription: s, consumer: c1, schema: AUTO_CONSUME, type: Key_Shared, durable: false }
  - subscribe: { topic: t, subscription: s, consumer: c2, schema: none, type: Failover }
  - subscribe: { topic: t, subscription: s, consumer: c3, schema: kv-later }
)";
    Scenario s = loadOne(yaml, dir);
    REQUIRE(s.steps.size() == 12);
    auto producer = [&](int i) -> const ProducerStep& { return body<ProducerStep>(s.steps[i]); };
    CHECK(producer(0).schema.alias == "user");
    CHECK(producer(0).schema.data.type == SchemaType::AVRO);
    CHECK(producer(0).client == "app");
    CHECK(producer(1).schema.alias.empty());
    CHECK(producer(1).schema.data == SchemaData{SchemaType::JSON, "{}", {{"k", "v"}}});
    CHECK(producer(1).schema.pos.line == 11);
    CHECK(producer(2).schema.kind == SchemaRef::Kind::definition);
    CHECK(producer(2).schema.data == SchemaData{SchemaType::INT32, "", {}});
    CHECK(producer(2).schema.alias == "INT32");
    CHECK(producer(3).schema.data.type == SchemaType::BYTES);
    CHECK(producer(4).schema.kind == SchemaRef::Kind::none);
    CHECK(producer(5).schema.kind == SchemaRef::Kind::autoProduceBytes);
    CHECK(producer(5).accessMode == "ExclusiveWithFencing");
    CHECK(producer(6).schema.data.type == SchemaType::JSON);
    CHECK(producer(6).schema.data.data == R"({"type":"record","name":"O","fields":[]})");
    CHECK(producer(7).schema.data.data == "not json at all");  // validating it is the broker's job
    CHECK(producer(8).schema.data ==
          compat::encodeKeyValue(SchemaData{SchemaType::STRING, "", {}}, s.schemas.at("user").data, "INLINE"));
    const auto& c1 = body<SubscribeStep>(s.steps[9]);
    CHECK(c1.schema.kind == SchemaRef::Kind::autoConsume);
    CHECK(c1.subType == "Key_Shared");
    CHECK_FALSE(c1.durable);
    const auto& c2 = body<SubscribeStep>(s.steps[10]);
    CHECK(c2.schema.kind == SchemaRef::Kind::none);
    CHECK(c2.subType == "Failover");
    const auto& c3 = body<SubscribeStep>(s.steps[11]);
    CHECK(c3.schema.data.type == SchemaType::KEY_VALUE);
    CHECK(s.schemas.at("declared-after").data.properties == SchemaProperties{{"a", "1"}, {"b", ""}});
}

TEST_CASE("every step action with its fields", "[loader]") {
    const std::string yaml = R"(name: actions
steps:
  - producer: { topic: t, name: p1, schema: STRING }
  - subscribe: { topic: t, subscription: s, consumer: c1 }
  - publish: { producer: p1, count: 3, schema: INT64 }
  - publish: { producer: p1 }
  - close: c1
  - upload-schema: { topic: t, schema: { type: AVRO, schema: "{}" } }
  - get-schema: { topic: t }
  - get-schema: { topic: t, version: 2 }
  - get-schema-version: { topic: t, schema: STRING }
  - delete-schema: { topic: t, force: true }
  - delete-topic: { topic: t, force: true, delete_schema: false }
  - test-compatibility: { topic: t, schema: STRING }
  - set-policy: { namespace: public/default, schema_compatibility_strategy: FULL, is_allow_auto_update_schema: null }
  - set-policy: { topic: t, schemaValidationEnforced: true }
  - set-broker-config: { isAllowAutoUpdateSchemaEnabled: false, schemaCompatibilityStrategy: null }
  - upgrade-broker: { version: "4.1" }
  - upgrade-broker: "4.2"
  - restart-broker:
  - restart-broker: {}
  - unload: { topic: t }
  - unload: other
  - check: { topic: t, schema_versions: 2, producers: 1, consumers: 0, idle: false, strategy: FULL }
  - check: { topic: t, schema_versions: [STRING, INT64], latest_schema: INT64 }
  - check: { topic: t, latest_schema: none }
  - id: race
    concurrently:
      - producer: { topic: r, name: p2, schema: STRING }
      - subscribe: { topic: r, subscription: s, consumer: c2, schema: INT32 }
    explore: { random: 200, seed: 7 }
    outcomes:
      - [ok, { error: IncompatibleSchema }]
      - [{ error: IncompatibleSchema }, ok]
    invariant: admitted-schemas-compatible
  - concurrently:
      - close: p2
      - close: c2
    explore: exhaustive
    invariant: [no-duplicate-versions, versions-contiguous]
)";
    Scenario s = loadOne(yaml);
    REQUIRE(s.steps.size() == 26);
    CHECK(s.steps[0].action == "producer");
    CHECK(s.steps[0].pos.line == 3);
    CHECK(s.steps[0].pos.column == 5);
    const auto& pub = body<PublishStep>(s.steps[2]);
    CHECK(pub.producer == "p1");
    CHECK(pub.count == 3);
    REQUIRE(pub.schema);
    CHECK(pub.schema->data.type == SchemaType::INT64);
    CHECK(body<PublishStep>(s.steps[3]).count == 1);
    CHECK_FALSE(body<PublishStep>(s.steps[3]).schema);
    CHECK(body<CloseStep>(s.steps[4]).name == "c1");
    CHECK(body<UploadSchemaStep>(s.steps[5]).schema.data.type == SchemaType::AVRO);
    CHECK_FALSE(body<GetSchemaStep>(s.steps[6]).version);
    CHECK(body<GetSchemaStep>(s.steps[7]).version == 2);
    CHECK(body<GetSchemaVersionStep>(s.steps[8]).schema.data.type == SchemaType::STRING);
    CHECK(body<DeleteSchemaStep>(s.steps[9]).force);
    CHECK(body<DeleteTopicStep>(s.steps[10]).force);
    CHECK_FALSE(body<DeleteTopicStep>(s.steps[10]).deleteSchema);
    CHECK(body<TestCompatibilityStep>(s.steps[11]).topic == "persistent://public/default/t");
    const auto& nsPolicy = body<SetPolicyStep>(s.steps[12]);
    CHECK(nsPolicy.namespaceName == "public/default");
    CHECK_FALSE(nsPolicy.topic);
    REQUIRE(nsPolicy.settings.size() == 2);
    CHECK(nsPolicy.settings[0].value == "FULL");
    CHECK_FALSE(nsPolicy.settings[1].value);  // null removes the field
    const auto& topicPolicy = body<SetPolicyStep>(s.steps[13]);
    CHECK(topicPolicy.topic == "persistent://public/default/t");
    CHECK(topicPolicy.settings[0].key == "schemaValidationEnforced");
    const auto& config = body<SetBrokerConfigStep>(s.steps[14]);
    REQUIRE(config.settings.size() == 2);
    CHECK(config.settings[0].value == "false");
    CHECK_FALSE(config.settings[1].value);
    CHECK(body<UpgradeBrokerStep>(s.steps[15]).version == "4.1");
    CHECK(body<UpgradeBrokerStep>(s.steps[16]).version == "4.2");
    body<RestartBrokerStep>(s.steps[17]);
    body<RestartBrokerStep>(s.steps[18]);
    CHECK(body<UnloadStep>(s.steps[19]).topic == "persistent://public/default/t");
    CHECK(body<UnloadStep>(s.steps[20]).topic == "persistent://public/default/other");
    const auto& check = body<CheckStep>(s.steps[21]);
    CHECK(check.schemaVersionCount == 2);
    CHECK(check.producers == 1);
    CHECK(check.consumers == 0);
    CHECK(check.idle == false);
    CHECK(check.strategy == CompatibilityStrategy::FULL);
    const auto& check2 = body<CheckStep>(s.steps[22]);
    CHECK(check2.schemaVersionAliases == std::vector<std::string>{"STRING", "INT64"});
    REQUIRE(check2.schemaVersionData.size() == 2);
    CHECK(check2.schemaVersionData[1].type == SchemaType::INT64);
    CHECK(check2.latestSchema == "INT64");
    CHECK(check2.latestSchemaData->type == SchemaType::INT64);
    const auto& check3 = body<CheckStep>(s.steps[23]);
    CHECK(check3.latestSchema == "none");
    CHECK_FALSE(check3.latestSchemaData);
    const Step& race = s.steps[24];
    CHECK(race.id == "race");
    CHECK(race.action == "concurrently");
    CHECK(race.pos.line == 27);
    const auto& c = body<ConcurrentlyStep>(race);
    REQUIRE(c.branches.size() == 2);
    CHECK(c.branches[0].action == "producer");
    CHECK(c.branches[1].pos.line == 30);
    CHECK(c.randomRuns == 200);
    CHECK(c.randomSeed == 7u);
    REQUIRE(c.outcomes.single.size() == 2);
    CHECK(c.outcomes.single[0][0].ok);
    CHECK(c.outcomes.single[0][1].error == "IncompatibleSchema");
    CHECK(c.invariants == std::vector<std::string>{"admitted-schemas-compatible"});
    const auto& c2 = body<ConcurrentlyStep>(s.steps[25]);
    CHECK_FALSE(c2.randomRuns);
    CHECK(!c2.outcomes.present);
    CHECK(c2.invariants == std::vector<std::string>{"no-duplicate-versions", "versions-contiguous"});
}

TEST_CASE("every expectation form", "[loader]") {
    const std::string yaml = R"(name: expectations
schemas:
  user-v1: { type: AVRO, schema: "{}", properties: { owner: billing } }
clients:
  legacy: { library: cpp }
steps:
  - producer: { topic: t, name: p1, schema: user-v1 }
    expect: ok
  - producer: { topic: t, name: p2 }
    expect: { error: IncompatibleSchema }
  - producer: { topic: t, name: p3 }
    id: with-message
    expect: { error: IncompatibleSchema, message: "does not have schema" }
  - upload-schema: { topic: t, schema: user-v1 }
    expect: { schema_version: 1 }
  - get-schema: { topic: t }
    expect: { schema_version: 0, type: AVRO, schema: user-v1, properties: { owner: billing } }
  - test-compatibility: { topic: t, schema: user-v1 }
    expect: { compatible: false, strategy: FULL }
  - upload-schema: { topic: t, schema: STRING }
    expect: { error: 409, message: "incompatible" }
  - subscribe: { topic: t, subscription: s, consumer: c1 }
    expect:
      "<3.0": { error: IncompatibleSchema, message: "Topic does not have schema to check" }
      ">=3.0.6": ok
      "2.10": { error: IncompatibleSchema }
      "<=4.1": ok
      ">4.1": ok
      default: ok
  - upgrade-broker: { version: "4.1" }
    expect: { p1: ok, c1: { error: IncompatibleSchema }, legacy: ok }
  - restart-broker:
    expect:
      "<4.2": { p1: ok }
      default: ok
  - unload: t
    expect: ok
  - close: p1
)";
    Scenario s = loadOne(yaml);
    auto single = [&](int i) -> const Expect& {
        REQUIRE(s.steps[i].expect.present);
        REQUIRE(s.steps[i].expect.single);
        return *s.steps[i].expect.single;
    };
    CHECK(single(0).ok);
    CHECK(s.steps[0].expect.pos.line == 8);
    CHECK(s.steps[0].expect.pos.column == 5);
    CHECK_FALSE(single(1).ok);
    CHECK(single(1).error == "IncompatibleSchema");
    CHECK_FALSE(single(1).message);
    CHECK(s.steps[2].id == "with-message");
    CHECK(single(2).message == "does not have schema");
    CHECK(single(3).ok);
    CHECK(single(3).schemaVersion == 1);
    CHECK(single(4).schemaVersion == 0);
    CHECK(single(4).type == SchemaType::AVRO);
    CHECK(single(4).schemaAlias == "user-v1");
    CHECK(single(4).schemaData == s.schemas.at("user-v1").data);
    CHECK(single(4).properties == SchemaProperties{{"owner", "billing"}});
    CHECK(single(5).compatible == false);
    CHECK(single(5).strategy == CompatibilityStrategy::FULL);
    CHECK(single(6).httpStatus == 409);
    CHECK_FALSE(single(6).error);
    const ExpectSpec& perProfile = s.steps[7].expect;
    CHECK_FALSE(perProfile.single);
    REQUIRE(perProfile.perProfile.size() == 6);
    using Op = VersionRange::Op;
    CHECK(perProfile.perProfile[0].first.op == Op::lt);
    CHECK(perProfile.perProfile[0].first.version == "3.0");
    CHECK(perProfile.perProfile[0].first.text == "<3.0");
    CHECK(perProfile.perProfile[0].second.message == "Topic does not have schema to check");
    CHECK(perProfile.perProfile[1].first.op == Op::ge);
    CHECK(perProfile.perProfile[1].first.version == "3.0.6");
    CHECK(perProfile.perProfile[1].second.ok);
    CHECK(perProfile.perProfile[2].first.op == Op::eq);
    CHECK(perProfile.perProfile[2].first.version == "2.10");
    CHECK(perProfile.perProfile[3].first.op == Op::le);
    CHECK(perProfile.perProfile[4].first.op == Op::gt);
    CHECK(perProfile.perProfile[5].first.op == Op::any);
    CHECK(perProfile.perProfile[5].first.text == "default");
    const Expect& perClient = single(8);
    REQUIRE(perClient.perClient.size() == 3);
    CHECK(perClient.perClient.at("p1").ok);
    CHECK(perClient.perClient.at("c1").error == "IncompatibleSchema");
    CHECK(perClient.perClient.at("legacy").ok);
    const ExpectSpec& restart = s.steps[9].expect;
    REQUIRE(restart.perProfile.size() == 2);
    CHECK(restart.perProfile[0].second.perClient.at("p1").ok);
    CHECK(single(10).ok);
    CHECK_FALSE(s.steps[11].expect.present);
}

TEST_CASE("flow-style steps and anchors", "[loader]") {
    const std::string yaml = R"(name: flow
steps: [ { producer: { topic: t, name: p1 }, expect: ok }, &again { subscribe: { topic: t, subscription: s } }, *again ]
)";
    Scenario s = loadOne(yaml);
    REQUIRE(s.steps.size() == 3);
    CHECK(s.steps[0].pos.line == 2);
    CHECK(s.steps[0].pos.column == 12);  // the first key, not the brace
    CHECK(s.steps[0].expect.pos.column == 46);
    CHECK(s.steps[2].action == "subscribe");
}

TEST_CASE("loadScenarioFile resolves schema files next to the scenario", "[loader]") {
    auto dir = scratchDir("file");
    writeFile(dir / "nested/schemas/s.json", R"({"type": "STRING"})");
    writeFile(dir / "nested/a.yaml", "name: a\nschemas:\n  s: { file: schemas/s.json }\nsteps:\n  - producer: { topic: t, schema: s }\n");
    auto result = loadScenarioFile(dir / "nested/a.yaml");
    INFO(errorsOf(result));
    REQUIRE(result.errors.empty());
    REQUIRE(result.scenarios.size() == 1);
    CHECK(result.scenarios[0].pos.file == (dir / "nested/a.yaml").string());
    CHECK(result.scenarios[0].schemas.at("s").data.type == SchemaType::STRING);

    auto missing = loadScenarioFile(dir / "nope.yaml");
    REQUIRE(missing.errors.size() == 1);
    CHECK(missing.errors[0].format() == (dir / "nope.yaml").string() + ":1:1: does not exist");
}

TEST_CASE("collectScenarioFiles walks folders in sorted order", "[loader]") {
    auto dir = scratchDir("collect");
    for (const char* f : {"b/2.yaml", "b/1.yml", "a.yaml", "b/c/3.yaml", "notes.txt", "b/schema.json"})
        writeFile(dir / f, "x");
    std::vector<LoadError> errors;
    auto files = collectScenarioFiles({dir.string(), (dir / "notes.txt").string(), (dir / "a.yaml").string(),
                                       (dir / "missing").string()},
                                      errors);
    std::vector<std::string> names;
    for (const auto& f : files) names.push_back(std::filesystem::relative(f, dir).string());
    CHECK(names == std::vector<std::string>{"a.yaml", "b/1.yml", "b/2.yaml", "b/c/3.yaml", "notes.txt"});
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].format() == (dir / "missing").string() + ":1:1: no such file or folder");
}

TEST_CASE("LoadError formats as file:line:column: message", "[loader]") {
    LoadError e;
    e.pos.file = "dir/a.yaml";
    e.pos.line = 3;
    e.pos.column = 14;
    e.message = "unknown key 'x'";
    CHECK(e.format() == "dir/a.yaml:3:14: unknown key 'x'");
}

TEST_CASE("duplicate keys are found in small and large mappings alike", "[loader]") {
    // Past 16 keys the loader looks keys up in an index instead of scanning:
    // the same errors, pointing at the first occurrence, either way.
    std::string yaml = "name: many schemas\nschemas:\n";
    for (int i = 1; i <= 40; ++i) yaml += "  s" + std::to_string(i) + ": { type: STRING }\n";  // lines 3..42
    yaml += "  s3: { type: INT32 }\n";   // line 43: duplicate of line 5
    yaml += "  s30: { type: INT32 }\n";  // line 44: duplicate of line 32
    yaml += "steps:\n  - producer: { topic: a, schema: s40 }\n";
    auto result = loadScenarioText(yaml, "many.yaml", ".");
    const std::string errors = errorsOf(result);
    INFO(errors);
    CHECK(result.errors.size() == 2);
    CHECK(errors.find("many.yaml:43:3: duplicate key 's3' (first at 5:3)") != std::string::npos);
    CHECK(errors.find("many.yaml:44:3: duplicate key 's30' (first at 32:3)") != std::string::npos);

    auto small = loadScenarioText("name: n\nname: m\nsteps:\n  - producer: { topic: a, topic: b }\n", "small.yaml", ".");
    const std::string smallErrors = errorsOf(small);
    INFO(smallErrors);
    CHECK(smallErrors.find("small.yaml:2:1: duplicate key 'name' (first at 1:1)") != std::string::npos);
    CHECK(smallErrors.find("small.yaml:4:27: duplicate key 'topic' (first at 4:17)") != std::string::npos);
}

// Issue 40 item 29: a setup file's steps are optional, so `steps: []` (what a
// generator writes for "no steps") loads as none; a scenario still needs one.
TEST_CASE("a setup file may hold an empty steps list but a scenario may not", "[loader][setup]") {
    auto dir = scratchDir("setup-empty-steps");
    writeFile(dir / "setup.yaml", "broker: { version: \"3.0\" }\nschemas:\n  v1: { type: STRING }\nsteps: []\n");
    auto setup = loadSetupFile(dir / "setup.yaml");
    INFO(errorsOf(setup));
    REQUIRE(setup.ok());
    REQUIRE(setup.scenarios.size() == 1);
    CHECK(setup.scenarios.front().steps.empty());

    writeFile(dir / "scenario.yaml", "name: n\nsteps: []\n");
    auto scenario = loadScenarioFile(dir / "scenario.yaml");
    CHECK(errorsOf(scenario).find("scenario.yaml:2:8: steps: a scenario needs at least one step") != std::string::npos);
}
