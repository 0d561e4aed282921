#pragma once
// The scenario model: what a scenario file says, checked and resolved by the
// loader (doc/scenario-format.md). Plain data; the runner turns it into
// wire commands and admin calls. Every element keeps the position it came
// from so that errors and reports can point at file:line:column.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "broker_model/core/compatibility_strategy.h"
#include "broker_model/core/schema_data.h"

namespace cnx::sim {

/// 1-based line and column in a scenario file.
struct SourcePos {
    std::string file;
    int line = 0;
    int column = 0;
};

/// A schema as a step names it: a definition (resolved from an alias, an
/// inline mapping, a primitive type name or a schema-definition file), or one
/// of the client-side pseudo schemas.
struct SchemaRef {
    enum class Kind {
        none,              // `none`: the client sends no schema
        definition,        // `data` holds the schema
        autoConsume,       // `AUTO_CONSUME` (subscribe only)
        autoProduceBytes,  // `AUTO_PRODUCE_BYTES` (producer only)
    };
    Kind kind = Kind::none;
    SchemaData data;
    std::string alias;  // the alias it was referenced by, or the primitive name; empty for inline
    SourcePos pos;
};

/// One expected outcome (spec "Expectations"). Fields left empty are not asserted.
struct Expect {
    /// `~` at `at` in a per-version map.
    static Expect notAssertedAt(const SourcePos& at) {
        Expect e;
        e.notAsserted = true;
        e.pos = at;
        return e;
    }

    bool notAsserted = false;                 // `~` in a per-version map: deliberately not asserted there
    bool ok = false;                          // `ok`
    std::optional<std::string> error;         // ServerError name ("IncompatibleSchema") ...
    std::optional<int> httpStatus;            // ... or an HTTP status for admin steps
    std::optional<std::string> message;       // substring of the broker's message
    std::optional<std::int64_t> schemaVersion;
    std::optional<SchemaType> type;           // get-schema
    std::optional<std::string> schemaAlias;   // get-schema: the definition equals this alias's
    std::optional<SchemaData> schemaData;     // ... resolved by the loader (aliases and primitive names)
    std::optional<SchemaProperties> properties;
    std::optional<bool> compatible;           // test-compatibility
    std::optional<CompatibilityStrategy> strategy;
    std::map<std::string, Expect> perClient;  // upgrade/restart/unload: outcome of each reconnect by client name
    SourcePos pos;
};

/// A version range key of a per-profile expectation: `"<3.0"`, `">=3.0.6"`, `"2.10"`, `default`.
struct VersionRange {
    enum class Op { eq, lt, le, gt, ge, any };
    Op op = Op::any;
    std::string version;  // "3.0", "3.0.6"; empty for `default`
    std::string text;     // as written
};

/// The `expect` of a step: absent, one outcome, or one per profile range.
struct ExpectSpec {
    bool present = false;
    std::optional<Expect> single;
    std::vector<std::pair<VersionRange, Expect>> perProfile;
    SourcePos pos;  // of the `expect` key
};

/// A policy or config field being set; `value` nullopt is YAML `null` (remove).
struct Setting {
    std::string key;
    std::optional<std::string> value;  // scalar text as written (true, FULL, ...)
    SourcePos pos;
};

struct ProducerStep {
    std::string topic;  // expanded full name
    std::string name;
    SchemaRef schema;
    std::string accessMode = "Shared";  // Shared, Exclusive, WaitForExclusive, ExclusiveWithFencing
    std::string client;                 // empty: the default client
};

struct SubscribeStep {
    std::string topic;
    std::string subscription;
    std::string consumer;
    SchemaRef schema;
    std::string subType = "Exclusive";  // Exclusive, Shared, Failover, Key_Shared
    bool durable = true;
    std::string client;
};

struct CloseStep {
    std::string name;  // a producer or consumer name
};

struct PublishStep {
    std::string producer;
    int count = 1;
    std::optional<SchemaRef> schema;  // per-message schema through GET_OR_CREATE_SCHEMA
};

struct UploadSchemaStep {
    std::string topic;
    SchemaRef schema;
};

struct GetSchemaStep {
    std::string topic;
    std::optional<std::int64_t> version;
    std::string via = "admin";  // admin: the REST call | wire: CommandGetSchema (GET_SCHEMA)
    std::string client;         // via wire: the client that sends it (empty: the default client)
};

struct GetSchemaVersionStep {
    std::string topic;
    SchemaRef schema;
};

struct DeleteSchemaStep {
    std::string topic;
    bool force = false;
};

struct DeleteTopicStep {
    std::string topic;
    bool force = false;
    bool deleteSchema = false;
};

struct TestCompatibilityStep {
    std::string topic;
    SchemaRef schema;
};

struct SetPolicyStep {
    std::optional<std::string> namespaceName;  // `tenant/namespace`
    std::optional<std::string> topic;          // expanded full name
    std::vector<Setting> settings;
};

struct SetBrokerConfigStep {
    std::vector<Setting> settings;
};

struct UpgradeBrokerStep {
    std::string version;
};

struct RestartBrokerStep {};

struct UnloadStep {
    std::string topic;
};

struct CheckStep;

/// A `check` key given per version (`strategy: { "<3.0": FULL, default: ~ }`):
/// the ranges in order, each with a CheckStep holding only that key's value
/// (nothing for `~`, deliberately not asserted on those versions).
struct CheckPerVersion {
    std::string key;
    std::vector<VersionRange> ranges;
    std::vector<CheckStep> values;  // same order as ranges
    std::vector<bool> notAsserted;  // same order: the value was `~`
    SourcePos pos;                  // of the key
};

struct CheckStep {
    std::vector<CheckPerVersion> perVersion;  // keys whose value varies by version
    std::string topic;  // expanded full name; empty for a namespace check
    std::optional<int> schemaVersionCount;                      // `schema_versions: 3`
    std::optional<std::vector<std::string>> schemaVersionAliases;  // `schema_versions: [a, b]`
    std::optional<std::string> latestSchema;                    // alias, or `none`
    std::optional<SchemaData> latestSchemaData;                 // latestSchema resolved; nullopt for `none`
    std::vector<SchemaData> schemaVersionData;                  // schemaVersionAliases resolved, same order
    std::optional<int> producers;
    std::optional<int> consumers;
    std::optional<bool> idle;
    std::optional<CompatibilityStrategy> strategy;  // the effective strategy
    std::optional<std::string> namespaceName;       // `namespace: tenant/ns` (then `topic` is empty)
    std::optional<std::vector<Setting>> policies;   // policies as set (admin reads without applied); null = unset
};

struct Step;

/// A race's outcome sets (`outcomes`, `reachable`): each set is one result per
/// branch, in branch order; the list may be given per version range.
struct OutcomeSets {
    bool present = false;
    std::vector<std::vector<Expect>> single;
    std::vector<std::pair<VersionRange, std::vector<std::vector<Expect>>>> perProfile;
    SourcePos pos;  // of the key
};

struct ConcurrentlyStep {
    std::vector<Step> branches;
    std::optional<int> randomRuns;  // explore: { random: N, seed: S }; nullopt = exhaustive
    std::optional<std::uint64_t> randomSeed;
    OutcomeSets outcomes;   // allowed result sets
    OutcomeSets reachable;  // result sets that must be reached
    std::vector<std::string> invariants;  // names from kInvariants (sim/scenario/load/vocabulary.h)
};

using Action = std::variant<ProducerStep, SubscribeStep, CloseStep, PublishStep, UploadSchemaStep, GetSchemaStep,
                            GetSchemaVersionStep, DeleteSchemaStep, DeleteTopicStep, TestCompatibilityStep,
                            SetPolicyStep, SetBrokerConfigStep, UpgradeBrokerStep, RestartBrokerStep, UnloadStep,
                            CheckStep, ConcurrentlyStep>;

struct Step {
    std::string id;      // optional `id`; the runner names unnamed steps "step N"
    std::string action;  // the action key as written ("producer", "upload-schema", ...): for text only
    Action body;
    ExpectSpec expect;
    SourcePos pos;  // of the step mapping

    /// Whether the step is of kind `Body` (`step.is<CheckStep>()`): a step's kind is
    /// its body's alternative, never compared as the action's text.
    template <class Body>
    bool is() const {
        return std::holds_alternative<Body>(body);
    }
};

struct TopicDecl {
    std::string name;  // expanded full name
    int partitions = 0;  // 0: non-partitioned
    std::vector<Setting> policies;
    SourcePos pos;
};

struct NamespaceDecl {
    std::string name;  // tenant/namespace
    std::vector<Setting> policies;
    SourcePos pos;
};

struct ClientDecl {
    std::string library = "java";  // java | cpp | go
    std::string version;           // empty: same as the broker
    SourcePos pos;
};

/// One `faults:` entry of a `cnxsim serve --setup` file, as written; sim/serve
/// reads it (`PRODUCER:delay=200ms`).
struct FaultText {
    std::string text;
    SourcePos pos;
};

struct Scenario {
    std::string name;
    std::string description;
    std::vector<std::string> tags;
    std::vector<std::string> reproduces;
    std::vector<std::string> brokerVersions;  // empty: the newest profile
    std::vector<Setting> brokerConfig;
    /// `broker: { tenants, namespaces }`: when either is given, tenants and
    /// namespaces are explicit (ClusterMetadata): only these, the tenants of
    /// these namespaces, and the namespaces of `namespaces:` and `topics:` exist.
    bool explicitMetadata = false;
    std::vector<std::string> existingTenants;
    std::vector<std::string> existingNamespaces;  // tenant/namespace
    std::vector<NamespaceDecl> namespaces;
    std::vector<TopicDecl> topics;
    std::map<std::string, ClientDecl> clients;
    std::map<std::string, SchemaRef> schemas;  // alias -> definition
    std::vector<Step> steps;
    std::vector<FaultText> faults;  // `cnxsim serve --setup` files only
    SourcePos pos;       // of the document
    int documentIndex = 0;  // 0-based among the file's `---` documents
};

}  // namespace cnx::sim
