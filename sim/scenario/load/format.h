#pragma once
// The scenario format (doc/scenario-format.md) as tables: every section's keys
// with what they bind to, their value (ValueSpec) and whether they are
// required. The loader reads through these tables and takes its lists of known
// keys from them, so a later generator of a JSON Schema of the format can walk
// the same tables. Order matters: keys are required and read in table order,
// and it breaks "did you mean" ties.

#include <array>
#include <limits>

#include "broker_model/broker/broker.h"
#include "sim/scenario/format_limits.h"
#include "sim/scenario/load/document_loader.h"

namespace cnx::sim::load {

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();

// Binders of fields whose value is a section of its own or spans more than a plain value.
template <void (DocumentLoader::*Load)(const Value&)>
bool loadSection(DocumentLoader& loader, const ValueSpec&, const Entry& e, Scenario&) {
    (loader.*Load)(e.value);
    return true;
}
bool bindSchemaVersions(DocumentLoader& loader, const ValueSpec& spec, const Entry& e, CheckStep& step);
bool bindLatestSchema(DocumentLoader& loader, const ValueSpec& spec, const Entry& e, CheckStep& step);
bool bindBrokerTenants(DocumentLoader& loader, const ValueSpec& spec, const Entry& e, Scenario& s);
bool bindBrokerNamespaces(DocumentLoader& loader, const ValueSpec& spec, const Entry& e, Scenario& s);
bool bindCheckNamespace(DocumentLoader& loader, const ValueSpec& spec, const Entry& e, CheckStep& step);
bool bindCheckPolicies(DocumentLoader& loader, const ValueSpec& spec, const Entry& e, CheckStep& step);
bool bindExpectError(DocumentLoader& loader, const ValueSpec& spec, const Entry& e, ExpectReading& r);
bool bindExpectMessage(DocumentLoader& loader, const ValueSpec& spec, const Entry& e, ExpectReading& r);
bool bindExpectSchema(DocumentLoader& loader, const ValueSpec& spec, const Entry& e, ExpectReading& r);
template <auto Member>
bool storeOutcome(DocumentLoader& loader, const ValueSpec& spec, const Entry& e, ExpectReading& r) {
    return store<Member>(loader, spec, e, r.x);
}

// ---------------------------------------------------------------------------
// The document and its sections.

constexpr std::array<Field<Scenario>, 11> kScenarioFields{{
    {"name", Need::required, nonEmptyTextValue(), store<&Scenario::name>},
    {"description", Need::optional, textValue(), store<&Scenario::description>, OnNull::skip},
    {"tags", Need::optional, textListValue(), store<&Scenario::tags>, OnNull::skip},
    {"reproduces", Need::optional, textListValue(), store<&Scenario::reproduces>, OnNull::skip},
    {"broker", Need::optional, sectionValue("broker"), loadSection<&DocumentLoader::loadBroker>},
    {"namespaces", Need::optional, sectionValue("namespace policies by name"),
     loadSection<&DocumentLoader::loadNamespaces>},
    {"topics", Need::optional, sectionValue("topic declarations by name"), loadSection<&DocumentLoader::loadTopics>},
    {"clients", Need::optional, sectionValue("client declarations by name"), loadSection<&DocumentLoader::loadClients>},
    {"imports", Need::optional, textListValue(), loadSection<&DocumentLoader::loadImports>},
    {"schemas", Need::optional, sectionValue("schema definitions by alias"), loadSection<&DocumentLoader::loadSchemas>},
    {"steps", Need::required, sectionValue("a sequence of steps"), loadSection<&DocumentLoader::loadSteps>},
}};

// A `cnxsim serve --setup` file: the scenario's keys, every one optional, and
// the faults the server injects.
constexpr auto kSetupFields = [] {
    std::array<Field<Scenario>, kScenarioFields.size() + 1> out{};
    for (std::size_t i = 0; i < kScenarioFields.size(); ++i) {
        out[i] = kScenarioFields[i];
        out[i].need = Need::optional;
    }
    out.back() = {"faults", Need::optional, customValue("a sequence of faults, e.g. PRODUCER:delay=200ms"),
                  loadSection<&DocumentLoader::loadFaults>};
    return out;
}();

// A schemas file (what `imports` names): the scenario's `imports` and
// `schemas`, nothing else. Read before `schemas`: imported names are known
// when the local ones are checked against them.
constexpr auto kSchemasFileFields = [] {
    std::array<Field<Scenario>, 2> out{};
    std::size_t n = 0;
    for (const auto& field : kScenarioFields) {
        if (field.key == "imports" || field.key == "schemas") out[n++] = field;
    }
    return out;
}();

// `tenants` and `namespaces` make the tenants and namespaces explicit (the
// admin API then answers 404 for the others); without them every one exists.
constexpr std::array<Field<Scenario>, 4> kBrokerFields{{
    {"version", Need::optional, customValue("a broker version or a list of them"),
     loadSection<&DocumentLoader::loadBrokerVersions>},
    {"config", Need::optional, settingsValue(SettingScope::broker), store<&Scenario::brokerConfig>},
    {"tenants", Need::optional, customValue("a list of tenant names"), bindBrokerTenants},
    {"namespaces", Need::optional, customValue("a list of tenant/namespace names"), bindBrokerNamespaces},
}};

constexpr std::array<Field<TopicDecl>, 2> kTopicDeclFields{{
    {"partitions", Need::optional, integerValue(0, Broker::kMaxPartitions), store<&TopicDecl::partitions>},
    {"policies", Need::optional, settingsValue(SettingScope::topicPolicy), store<&TopicDecl::policies>},
}};

constexpr std::array<Field<ClientDecl>, 2> kClientFields{{
    {"library", Need::optional, choiceValue(namesOf<kLibraries>, "client library"), store<&ClientDecl::library>},
    {"version", Need::optional, releaseValue("client version"), store<&ClientDecl::version>},
}};

// Read by DocumentLoader::definitionOf: its rules span keys (`file` alone;
// `key`, `value` and `encoding` only for KEY_VALUE; raw `schema` or key/value).
constexpr std::array<Field<SchemaData>, 7> kDefinitionFields{{
    {"type", Need::required, choiceValue(schemaTypeNames, "schema type")},
    {"schema", Need::optional, textValue()},
    {"properties", Need::optional, propertiesValue()},
    {"key", Need::optional, schemaRefValue(SchemaUse::component)},
    {"value", Need::optional, schemaRefValue(SchemaUse::component)},
    {"encoding", Need::optional, choiceValue(namesOf<kEncodings>, "KEY_VALUE encoding")},
    {"file", Need::optional, nonEmptyTextValue()},
}};

// ---------------------------------------------------------------------------
// Steps: one action key, plus these (read by DocumentLoader::loadStep, whose
// rules depend on the action).

constexpr std::array<Field<Step>, 6> kStepFields{{
    {"id", Need::optional, nonEmptyTextValue()},
    {"expect", Need::optional, customValue("ok, an outcome mapping, or outcomes by version range")},
    {"explore", Need::optional, sectionValue("exhaustive, or random runs")},
    {"outcomes", Need::optional, customValue("a sequence of result sets, one result per racing step")},
    {"reachable", Need::optional, customValue("a sequence of result sets that must be reached")},
    {"invariant", Need::optional, textListValue()},
}};

constexpr std::array<Field<ProducerStep>, 5> kProducerFields{{
    {"topic", Need::required, topicValue(), store<&ProducerStep::topic>},
    {"name", Need::optional, nonEmptyTextValue(), store<&ProducerStep::name>},
    {"schema", Need::optional, schemaRefValue(SchemaUse::producer), store<&ProducerStep::schema>},
    {"access_mode", Need::optional, choiceValue(namesOf<kAccessModes>, "access mode"),
     store<&ProducerStep::accessMode>},
    {"client", Need::optional, clientValue(), store<&ProducerStep::client>},
}};

constexpr std::array<Field<SubscribeStep>, 7> kSubscribeFields{{
    {"topic", Need::required, topicValue(), store<&SubscribeStep::topic>},
    {"subscription", Need::required, nonEmptyTextValue(), store<&SubscribeStep::subscription>},
    {"consumer", Need::optional, nonEmptyTextValue(), store<&SubscribeStep::consumer>},
    {"schema", Need::optional, schemaRefValue(SchemaUse::subscribe), store<&SubscribeStep::schema>},
    {"type", Need::optional, choiceValue(namesOf<kSubTypes>, "subscription type"), store<&SubscribeStep::subType>},
    {"durable", Need::optional, booleanValue(), store<&SubscribeStep::durable>},
    {"client", Need::optional, clientValue(), store<&SubscribeStep::client>},
}};

constexpr std::array<Field<PublishStep>, 3> kPublishFields{{
    {"producer", Need::required, producerNameValue(), store<&PublishStep::producer>},
    {"count", Need::optional, integerValue(1, kMaxPublishCount), store<&PublishStep::count>},
    {"schema", Need::optional, schemaRefValue(SchemaUse::admin), store<&PublishStep::schema>},
}};

// upload-schema, get-schema-version and test-compatibility.
template <class S>
constexpr std::array<Field<S>, 2> kTopicSchemaFields{{
    {"topic", Need::required, topicValue(), store<&S::topic>},
    {"schema", Need::required, schemaRefValue(SchemaUse::admin), store<&S::schema>},
}};

constexpr std::array<Field<GetSchemaStep>, 4> kGetSchemaFields{{
    {"topic", Need::required, topicValue(), store<&GetSchemaStep::topic>},
    {"version", Need::optional, integerValue(0, kInt64Max), store<&GetSchemaStep::version>},
    {"via", Need::optional, choiceValue(namesOf<kGetSchemaVia>, "get-schema transport"), store<&GetSchemaStep::via>},
    {"client", Need::optional, clientValue(), store<&GetSchemaStep::client>},
}};

constexpr std::array<Field<DeleteSchemaStep>, 2> kDeleteSchemaFields{{
    {"topic", Need::required, topicValue(), store<&DeleteSchemaStep::topic>},
    {"force", Need::optional, booleanValue(), store<&DeleteSchemaStep::force>},
}};

constexpr std::array<Field<DeleteTopicStep>, 3> kDeleteTopicFields{{
    {"topic", Need::required, topicValue(), store<&DeleteTopicStep::topic>},
    {"force", Need::optional, booleanValue(), store<&DeleteTopicStep::force>},
    {"delete_schema", Need::optional, booleanValue(), store<&DeleteTopicStep::deleteSchema>},
}};

// Also `upgrade-broker: "3.0"`.
constexpr std::array<Field<UpgradeBrokerStep>, 1> kUpgradeBrokerFields{{
    {"version", Need::required, brokerVersionValue(), store<&UpgradeBrokerStep::version>},
}};

constexpr std::array<Field<RestartBrokerStep>, 0> kRestartBrokerFields{};

// Also `unload: t`.
constexpr std::array<Field<UnloadStep>, 1> kUnloadFields{{
    {"topic", Need::required, topicValue(), store<&UnloadStep::topic>},
}};

constexpr std::array<Field<CheckStep>, 9> kCheckFields{{
    {"topic", Need::optional, topicValue(), store<&CheckStep::topic>},
    {"schema_versions", Need::optional, customValue("a count, or a list of schema names"), bindSchemaVersions},
    {"latest_schema", Need::optional, schemaNameValue(), bindLatestSchema},
    {"producers", Need::optional, integerValue(0, kIntMax), store<&CheckStep::producers>},
    {"consumers", Need::optional, integerValue(0, kIntMax), store<&CheckStep::consumers>},
    {"idle", Need::optional, booleanValue(), store<&CheckStep::idle>},
    {"strategy", Need::optional, choiceValue(compatibilityStrategyNames, "compatibility strategy"),
     store<&CheckStep::strategy>},
    {"namespace", Need::optional, textValue(), bindCheckNamespace},
    {"policies", Need::optional, customValue("a mapping of namespace or topic policy fields"), bindCheckPolicies},
}};

// `explore: { random: 200, seed: 7 }` (or `explore: exhaustive`).
constexpr std::array<Field<ConcurrentlyStep>, 2> kExploreFields{{
    {"random", Need::required, integerValue(1, 1'000'000), store<&ConcurrentlyStep::randomRuns>},
    {"seed", Need::optional, integerValue(0, kInt64Max), store<&ConcurrentlyStep::randomSeed>},
}};

// set-policy and set-broker-config take policy and configuration names
// (broker_model/policy/policies.h); close takes a producer or consumer name;
// concurrently a sequence of steps.

// ---------------------------------------------------------------------------
// Expectations: an error outcome, or the success keys (not both).

constexpr std::array<Field<ExpectReading>, 2> kExpectErrorFields{{
    {"error", Need::optional, customValue("a ServerError name, or an HTTP status for admin steps"), bindExpectError},
    {"message", Need::optional, textValue(), bindExpectMessage},
}};

constexpr std::array<Field<ExpectReading>, 6> kExpectSuccessFields{{
    // -1 is the admin answer for "none" (§7.2 POST version, §4.9 force delete).
    {"schema_version", Need::optional, integerValue(-1, kInt64Max), storeOutcome<&Expect::schemaVersion>},
    {"type", Need::optional, choiceValue(schemaTypeNames, "schema type"), storeOutcome<&Expect::type>, OnNull::read,
     "get-schema"},
    {"schema", Need::optional, schemaNameValue(), bindExpectSchema, OnNull::read, "get-schema"},
    {"properties", Need::optional, propertiesValue(), storeOutcome<&Expect::properties>, OnNull::read, "get-schema"},
    {"compatible", Need::optional, booleanValue(), storeOutcome<&Expect::compatible>, OnNull::read,
     "test-compatibility"},
    {"strategy", Need::optional, choiceValue(compatibilityStrategyNames, "compatibility strategy"),
     storeOutcome<&Expect::strategy>, OnNull::read, "test-compatibility"},
}};

// ---------------------------------------------------------------------------
// The step kinds, in ActionKind order.

using ActionRead = std::optional<Action> (DocumentLoader::*)(const Entry&);

struct ActionInfo {
    std::string_view name;
    ActionRead read;  // nullptr: concurrently, read by loadStep (it needs the step's other keys)
    bool admin;       // an admin call: may fail with an HTTP status
    bool reconnect;   // reconnects clients: `expect` may be per client
};

constexpr std::array<ActionInfo, 17> kActionTable{{
    {"producer", &DocumentLoader::producerOf, false, false},
    {"subscribe", &DocumentLoader::subscribeOf, false, false},
    {"close", &DocumentLoader::closeOf, false, false},
    {"publish", &DocumentLoader::publishOf, false, false},
    {"upload-schema", &DocumentLoader::uploadSchemaOf, true, false},
    {"get-schema", &DocumentLoader::getSchemaOf, true, false},
    {"get-schema-version", &DocumentLoader::getSchemaVersionOf, true, false},
    {"delete-schema", &DocumentLoader::deleteSchemaOf, true, false},
    {"delete-topic", &DocumentLoader::deleteTopicOf, true, false},
    {"test-compatibility", &DocumentLoader::testCompatibilityOf, true, false},
    {"set-policy", &DocumentLoader::setPolicyOf, true, false},
    {"set-broker-config", &DocumentLoader::setBrokerConfigOf, true, false},
    {"upgrade-broker", &DocumentLoader::upgradeBrokerOf, false, true},
    {"restart-broker", &DocumentLoader::restartBrokerOf, false, true},
    {"unload", &DocumentLoader::unloadOf, true, true},  // the admin unload call: its refusal is an HTTP status
    {"check", &DocumentLoader::checkOf, false, false},
    {"concurrently", nullptr, false, false},
}};
static_assert(static_cast<std::size_t>(ActionKind::concurrently) + 1 == kActionTable.size());

constexpr const ActionInfo& actionInfo(ActionKind k) { return kActionTable[static_cast<std::size_t>(k)]; }

constexpr auto kActionNames = [] {
    std::array<std::string_view, kActionTable.size()> names{};
    for (std::size_t i = 0; i < names.size(); ++i) names[i] = kActionTable[i].name;
    return names;
}();

// Derived key lists, for unknown-key errors and "did you mean".
constexpr auto kScenarioKeys = keysOf(kScenarioFields);
constexpr auto kSetupKeys = keysOf(kSetupFields);
constexpr auto kSchemasFileKeys = keysOf(kSchemasFileFields);
constexpr auto kBrokerKeys = keysOf(kBrokerFields);
constexpr auto kTopicDeclKeys = keysOf(kTopicDeclFields);
constexpr auto kClientKeys = keysOf(kClientFields);
constexpr auto kDefinitionKeys = keysOf(kDefinitionFields);
constexpr auto kStepKeys = concatKeys(kActionNames, keysOf(kStepFields));
constexpr auto kCheckKeys = keysOf(kCheckFields);
constexpr auto kExploreKeys = keysOf(kExploreFields);
constexpr auto kExpectKeys = concatKeys(keysOf(kExpectErrorFields), keysOf(kExpectSuccessFields));

}  // namespace cnx::sim::load
