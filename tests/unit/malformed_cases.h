#pragma once
// The malformed-input table of loader_malformed_test.cpp: each scenario text
// and the one `file:line:column: message` error it must give. The same cases
// live as files in tests/malformed/NN-*.yaml.

namespace cnx::testing::malformed {

struct MalformedCase {
    const char* name;
    const char* yaml;
    const char* expected;
};

// clang-format off
inline constexpr MalformedCase kCases[] = {
    {"yaml-unclosed-flow",
     R"y(name: x
steps: [ { producer: { topic: t } }
)y",
     R"m(case.yaml:3:1: invalid YAML: did not find expected ',' or ']' (while parsing a flow sequence))m"},
    {"yaml-bad-indentation",
     R"y(name: x
steps:
  - producer: { topic: t }
   expect: ok
)y",
     R"m(case.yaml:4:4: invalid YAML: did not find expected '-' indicator (while parsing a block collection))m"},
    {"yaml-undefined-anchor",
     R"y(name: x
steps:
  - producer: { topic: t, schema: *user }
)y",
     R"m(case.yaml:3:35: the YAML alias *user refers to no anchor &user before it)m"},
    {"empty-file",
     R"y()y",
     R"m(case.yaml:1:1: the file holds no scenario (it is empty or only comments))m"},
    {"only-comments",
     R"y(# nothing here yet
)y",
     R"m(case.yaml:1:1: the file holds no scenario (it is empty or only comments))m"},
    {"empty-document",
     R"y(name: x
steps:
  - producer: { topic: t, name: p1 }
---
)y",
     R"m(case.yaml:5:1: empty document: a scenario needs at least 'name' and 'steps')m"},
    {"root-is-sequence",
     R"y(- name: x
)y",
     R"m(case.yaml:1:1: scenario: expected a mapping, got a sequence)m"},
    {"unknown-top-level-key",
     R"y(name: x
descripton: typo
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:2:1: unknown key 'descripton' in the scenario; did you mean 'description'?)m"},
    {"missing-name",
     R"y(description: no name
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:1:1: missing required key 'name' in the scenario)m"},
    {"missing-steps",
     R"y(name: x
)y",
     R"m(case.yaml:1:1: missing required key 'steps' in the scenario)m"},
    {"empty-steps",
     R"y(name: x
steps: []
)y",
     R"m(case.yaml:2:8: steps: a scenario needs at least one step)m"},
    {"steps-not-a-sequence",
     R"y(name: x
steps:
  producer: { topic: t }
)y",
     R"m(case.yaml:3:3: steps: expected a sequence, got a mapping)m"},
    {"name-not-a-scalar",
     R"y(name: [a, b]
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:1:7: name: expected a scalar, got a sequence)m"},
    {"tags-is-a-mapping",
     R"y(name: x
tags: { a: b }
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:2:7: tags: expected a sequence, got a mapping)m"},
    {"duplicate-top-level-key",
     R"y(name: x
name: y
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:2:1: duplicate key 'name' (first at 1:1))m"},
    {"duplicate-key-in-step",
     R"y(name: x
steps:
  - producer: { topic: t, topic: u }
)y",
     R"m(case.yaml:3:27: duplicate key 'topic' (first at 3:17))m"},
    {"duplicate-scenario-name",
     R"y(name: x
steps:
  - producer: { topic: t, name: p1 }
---
name: x
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:5:1: duplicate scenario name 'x' (first at 1:1))m"},
    {"duplicate-step-id",
     R"y(name: x
steps:
  - id: open
    producer: { topic: t, name: p1 }
  - id: open
    producer: { topic: t, name: p2 }
)y",
     R"m(case.yaml:5:9: duplicate step id 'open' (first at 3:9))m"},
    {"duplicate-topic-after-expansion",
     R"y(name: x
topics:
  orders: { partitions: 2 }
  persistent://public/default/orders: {}
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:4:3: topic 'persistent://public/default/orders' is declared twice (first at 3:3))m"},
    {"unknown-action",
     R"y(name: x
steps:
  - produce: { topic: t }
)y",
     R"m(case.yaml:3:5: unknown step action 'produce'; did you mean 'producer'?)m"},
    {"two-actions-in-one-step",
     R"y(name: x
steps:
  - producer: { topic: t }
    subscribe: { topic: t, subscription: s }
)y",
     R"m(case.yaml:4:5: a step has one action, but this one has 'producer' and 'subscribe'; split it into two steps)m"},
    {"step-without-action",
     R"y(name: x
steps:
  - expect: ok
)y",
     R"m(case.yaml:3:5: step has no action (one of producer, subscribe, close, publish, upload-schema, get-schema, get-schema-version, delete-schema, delete-topic, test-compatibility, set-policy, set-broker-config, upgrade-broker, restart-broker, unload, check or concurrently))m"},
    {"step-not-a-mapping",
     R"y(name: x
steps:
  - producer
)y",
     R"m(case.yaml:3:5: step: expected a mapping, got a scalar)m"},
    {"unknown-producer-field",
     R"y(name: x
steps:
  - producer: { topic: t, shema: STRING }
)y",
     R"m(case.yaml:3:27: unknown key 'shema' in producer; did you mean 'schema'?)m"},
    {"missing-topic",
     R"y(name: x
steps:
  - producer: { name: p1 }
)y",
     R"m(case.yaml:3:5: missing required key 'topic' in producer)m"},
    {"missing-subscription",
     R"y(name: x
steps:
  - subscribe: { topic: t, consumer: c1 }
)y",
     R"m(case.yaml:3:5: missing required key 'subscription' in subscribe)m"},
    {"invalid-topic-name",
     R"y(name: x
steps:
  - producer: { topic: "tenant/only" }
)y",
     R"m(case.yaml:3:24: Invalid topic name: tenant/only (expected tenant/namespace/topic))m"},
    {"unknown-schema-alias",
     R"y(name: x
schemas:
  user-v1: { type: AVRO, schema: '{}' }
steps:
  - producer: { topic: t, schema: user-v3 }
)y",
     R"m(case.yaml:5:35: unknown schema 'user-v3'; did you mean 'user-v1'?)m"},
    {"schema-type-needs-definition",
     R"y(name: x
steps:
  - producer: { topic: t, schema: AVRO }
)y",
     R"m(case.yaml:3:35: AVRO needs a definition: declare it under 'schemas' or write { type: AVRO, schema: ... })m"},
    {"auto-consume-on-producer",
     R"y(name: x
steps:
  - producer: { topic: t, schema: AUTO_CONSUME }
)y",
     R"m(case.yaml:3:35: 'AUTO_CONSUME' is only valid for subscribe steps)m"},
    {"auto-produce-on-subscribe",
     R"y(name: x
steps:
  - subscribe: { topic: t, subscription: s, schema: AUTO_PRODUCE_BYTES }
)y",
     R"m(case.yaml:3:53: 'AUTO_PRODUCE_BYTES' is only valid for producer steps)m"},
    {"bad-schema-type",
     R"y(name: x
schemas:
  user-v1:
    type: AVOR
    schema: '{}'
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:4:11: unknown schema type 'AVOR'; did you mean 'AVRO'?)m"},
    {"missing-schema-type",
     R"y(name: x
schemas:
  user-v1:
    schema: '{}'
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:4:5: missing required key 'type' in a schema definition)m"},
    {"reserved-schema-name",
     R"y(name: x
schemas:
  STRING: { type: STRING }
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:3:3: schema name 'STRING' is reserved (a schema type or pseudo schema))m"},
    {"schemas-not-a-mapping",
     R"y(name: x
schemas: [user-v1]
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:2:10: schemas: expected a mapping, got a sequence)m"},
    {"self-referencing-key-value",
     R"y(name: x
schemas:
  kv: { type: KEY_VALUE, key: kv, value: STRING }
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:3:31: schema 'kv' refers to itself)m"},
    {"key-value-missing-value",
     R"y(name: x
schemas:
  kv: { type: KEY_VALUE, key: STRING }
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:3:7: missing required key 'value' in a KEY_VALUE schema)m"},
    {"bad-key-value-encoding",
     R"y(name: x
schemas:
  kv: { type: KEY_VALUE, key: STRING, value: INT32, encoding: SEPARATE }
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:3:63: unknown KEY_VALUE encoding 'SEPARATE'; did you mean 'SEPARATED'?)m"},
    {"key-on-non-key-value",
     R"y(name: x
schemas:
  s: { type: STRING, key: INT32 }
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:3:22: 'key' is only for KEY_VALUE schemas)m"},
    {"file-combined-with-type",
     R"y(name: x
schemas:
  s: { file: schemas/user.json, type: AVRO }
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:3:33: 'type' cannot be combined with 'file')m"},
    {"schema-file-missing",
     R"y(name: x
schemas:
  user:
    file: schemas/missing.json
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:4:11: schema file 'schemas/missing.json': does not exist)m"},
    {"schema-file-invalid-json",
     R"y(name: x
schemas:
  user:
    file: schemas/broken.json
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:4:11: schema file 'schemas/broken.json' is not valid JSON: parse error at line 1, column 28: syntax error while parsing value - unexpected '}'; expected '[', '{', or a literal)m"},
    {"schema-file-without-type",
     R"y(name: x
schemas:
  user:
    file: schemas/no-type.json
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:4:11: schema file 'schemas/no-type.json' has no "type")m"},
    {"schema-file-unknown-key",
     R"y(name: x
schemas:
  user:
    file: schemas/typo-key.json
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:4:11: schema file 'schemas/typo-key.json' has an unknown key 'shema'; did you mean 'schema'?)m"},
    {"bad-broker-config-value",
     R"y(name: x
broker:
  config:
    schemaCompatibilityStrategy: BACKWRD
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:4:34: schemaCompatibilityStrategy expects a SchemaCompatibilityStrategy name, got 'BACKWRD'; did you mean 'BACKWARD'?)m"},
    {"unknown-broker-config-key",
     R"y(name: x
broker:
  config:
    isSchemaValidationEnforce: true
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:4:5: unknown broker configuration key 'isSchemaValidationEnforce'; did you mean 'isSchemaValidationEnforced'?)m"},
    {"bad-broker-version",
     R"y(name: x
broker:
  version: three
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:3:12: broker version 'three' is not a release such as "3.0" or "2.10.4")m"},
    {"unknown-namespace-policy",
     R"y(name: x
namespaces:
  public/default:
    schema_validation_enforce: true
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:4:5: unknown namespace policy 'schema_validation_enforce'; did you mean 'schema_validation_enforced'?)m"},
    {"invalid-namespace-name",
     R"y(name: x
namespaces:
  default:
    schema_validation_enforced: true
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:3:3: invalid namespace name 'default' (expected tenant/namespace))m"},
    {"invalid-existing-namespace-name",
     R"y(name: x
broker:
  namespaces: [acme/orders, acme]
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:3:29: invalid namespace name 'acme' (expected tenant/namespace))m"},
    {"existing-namespace-listed-twice",
     R"y(name: x
broker:
  namespaces: [acme/orders, acme/orders]
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:3:29: namespace 'acme/orders' is listed twice (first at 3:16))m"},
    {"invalid-existing-tenant-name",
     R"y(name: x
broker:
  tenants: [acme/orders]
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:3:13: invalid tenant name 'acme/orders' (letters, digits and -_.=: only))m"},
    {"bad-topic-policy-value",
     R"y(name: x
topics:
  orders:
    policies: { schema_validation_enforced: ture }
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:4:45: schema_validation_enforced expects true or false, got 'ture'; did you mean 'true'?)m"},
    {"negative-partitions",
     R"y(name: x
topics:
  orders: { partitions: -1 }
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:3:25: partitions: expected an integer from 0 to 100000, got -1)m"},
    {"unknown-client",
     R"y(name: x
clients:
  legacy-app: { library: java }
steps:
  - producer: { topic: t, client: legacy-ap }
)y",
     R"m(case.yaml:5:35: unknown client 'legacy-ap'; did you mean 'legacy-app'?)m"},
    {"bad-client-library",
     R"y(name: x
clients:
  app: { library: jav }
steps:
  - producer: { topic: t, name: p1 }
)y",
     R"m(case.yaml:3:19: unknown client library 'jav'; did you mean 'java'?)m"},
    {"bad-subscription-type",
     R"y(name: x
steps:
  - subscribe: { topic: t, subscription: s, type: exclusive }
)y",
     R"m(case.yaml:3:51: unknown subscription type 'exclusive'; did you mean 'Exclusive'?)m"},
    {"bad-access-mode",
     R"y(name: x
steps:
  - producer: { topic: t, access_mode: Exclusiv }
)y",
     R"m(case.yaml:3:40: unknown access mode 'Exclusiv'; did you mean 'Exclusive'?)m"},
    {"count-not-an-integer",
     R"y(name: x
steps:
  - producer: { topic: t, name: p1 }
  - publish: { producer: p1, count: many }
)y",
     R"m(case.yaml:4:37: count: expected an integer, got 'many')m"},
    {"durable-not-a-boolean",
     R"y(name: x
steps:
  - subscribe: { topic: t, subscription: s, durable: yes }
)y",
     R"m(case.yaml:3:54: durable: expected a boolean (true or false), got 'yes')m"},
    {"close-unknown-name",
     R"y(name: x
steps:
  - producer: { topic: t, name: p1 }
  - close: p2
)y",
     R"m(case.yaml:4:12: no earlier step opens a producer or consumer named 'p2'; did you mean 'p1'?)m"},
    {"publish-unknown-producer",
     R"y(name: x
steps:
  - producer: { topic: t, name: p1 }
  - publish: { producer: p3 }
)y",
     R"m(case.yaml:4:26: no earlier step opens a producer named 'p3'; did you mean 'p1'?)m"},
    {"expect-ok-misspelt",
     R"y(name: x
steps:
  - producer: { topic: t }
    expect: OK
)y",
     R"m(case.yaml:4:13: expect: unknown outcome 'OK'; did you mean 'ok'?)m"},
    {"expect-bare-error-name",
     R"y(name: x
steps:
  - producer: { topic: t }
    expect: IncompatibleSchema
)y",
     R"m(case.yaml:4:13: expect: write { error: IncompatibleSchema } for an error outcome)m"},
    {"bad-server-error-name",
     R"y(name: x
steps:
  - producer: { topic: t }
    expect: { error: IncompatibleSchemas }
)y",
     R"m(case.yaml:4:22: unknown ServerError name 'IncompatibleSchemas'; did you mean 'IncompatibleSchema'?)m"},
    {"unknown-expect-key",
     R"y(name: x
steps:
  - producer: { topic: t }
    expect: { eror: IncompatibleSchema }
)y",
     R"m(case.yaml:4:15: unknown key 'eror' in expect; did you mean 'error'?)m"},
    {"http-status-on-producer",
     R"y(name: x
steps:
  - producer: { topic: t }
    expect: { error: 409 }
)y",
     R"m(case.yaml:4:22: an HTTP status is only for admin steps; producer fails with a ServerError name)m"},
    {"message-without-error",
     R"y(name: x
steps:
  - producer: { topic: t }
    expect: { message: "does not have schema" }
)y",
     R"m(case.yaml:4:15: 'message' needs 'error' (it is a substring of the error's message))m"},
    {"compatible-on-producer",
     R"y(name: x
steps:
  - producer: { topic: t }
    expect: { compatible: true }
)y",
     R"m(case.yaml:4:15: 'compatible' is only for test-compatibility steps)m"},
    {"bad-version-range",
     R"y(name: x
steps:
  - producer: { topic: t }
    expect:
      "<3.x": ok
      default: { error: IncompatibleSchema }
)y",
     R"m(case.yaml:5:7: invalid version range '<3.x' (expected default, a release such as "2.10", or <, <=, >, >= and a release))m"},
    {"check-asserts-nothing",
     R"y(name: x
steps:
  - check: { topic: t }
)y",
     R"m(case.yaml:3:5: check asserts nothing (add one of schema_versions, latest_schema, producers, consumers, idle, strategy or policies))m"},
    {"set-policy-without-target",
     R"y(name: x
steps:
  - set-policy: { schema_compatibility_strategy: FULL }
)y",
     R"m(case.yaml:3:5: missing required key 'namespace' or 'topic' in set-policy)m"},
    {"explore-outside-concurrently",
     R"y(name: x
steps:
  - producer: { topic: t }
    explore: exhaustive
)y",
     R"m(case.yaml:4:5: 'explore' belongs to a concurrently step)m"},
    {"bad-explore-value",
     R"y(name: x
steps:
  - concurrently:
      - producer: { topic: t, name: p1 }
      - producer: { topic: t, name: p2 }
    explore: exhaustiv
)y",
     R"m(case.yaml:6:14: unknown exploration 'exhaustiv'; did you mean 'exhaustive'?)m"},
    {"outcome-length-mismatch",
     R"y(name: x
steps:
  - concurrently:
      - producer: { topic: t, name: p1 }
      - producer: { topic: t, name: p2 }
    outcomes:
      - [ok]
)y",
     R"m(case.yaml:7:9: outcomes: this set has 1 result(s), but 2 steps race)m"},
    {"nested-concurrently",
     R"y(name: x
steps:
  - concurrently:
      - producer: { topic: t, name: p1 }
      - concurrently: [ { close: p1 }, { close: p1 } ]
)y",
     R"m(case.yaml:5:9: concurrently steps cannot be nested)m"},
};
// clang-format on

}  // namespace cnx::testing::malformed
