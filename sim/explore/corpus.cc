#include "sim/explore/corpus.h"

#include <array>

namespace cnx::sim::explore::detail {
namespace {

// Avro: one record and its versions. user-v1, user-v2, user-v2-required and
// user-v3 are scenarios/shared-schemas/user-schemas.yaml and the registry
// scenarios; user-id-string (the type change) is in
// scenarios/issues/pulsar-22720-incompatibility-messages-name-the-strategy.yaml;
// the rename (with and without an alias), the removal and the union widening
// are the evolutions Avro's own SchemaCompatibility tests name.
constexpr std::array kAvroUser{
    CorpusSchema{"user-v1", R"({ type: AVRO, schema: '{"type":"record","name":"User","namespace":"com.example","fields":[{"name":"id","type":"long"}]}' })", ""},
    CorpusSchema{"user-v2", R"({ type: AVRO, schema: '{"type":"record","name":"User","namespace":"com.example","fields":[{"name":"id","type":"long"},{"name":"email","type":["null","string"],"default":null}]}' })", ""},
    CorpusSchema{"user-v2-required", R"({ type: AVRO, schema: '{"type":"record","name":"User","namespace":"com.example","fields":[{"name":"id","type":"long"},{"name":"email","type":"string"}]}' })", ""},
    CorpusSchema{"user-v3", R"({ type: AVRO, schema: '{"type":"record","name":"User","namespace":"com.example","fields":[{"name":"id","type":"long"},{"name":"email","type":["null","string"],"default":null},{"name":"age","type":"int","default":0}]}' })", ""},
    CorpusSchema{"user-no-email", R"({ type: AVRO, schema: '{"type":"record","name":"User","namespace":"com.example","fields":[{"name":"id","type":"long"},{"name":"age","type":"int","default":0}]}' })", ""},
    CorpusSchema{"user-id-string", R"({ type: AVRO, schema: '{"type":"record","name":"User","namespace":"com.example","fields":[{"name":"id","type":"string"}]}' })", ""},
    CorpusSchema{"user-renamed", R"({ type: AVRO, schema: '{"type":"record","name":"User","namespace":"com.example","fields":[{"name":"userId","type":"long"}]}' })", ""},
    CorpusSchema{"user-renamed-alias", R"({ type: AVRO, schema: '{"type":"record","name":"User","namespace":"com.example","fields":[{"name":"userId","type":"long","aliases":["id"]}]}' })", ""},
    CorpusSchema{"user-id-union", R"({ type: AVRO, schema: '{"type":"record","name":"User","namespace":"com.example","fields":[{"name":"id","type":["long","string"]}]}' })", ""},
    CorpusSchema{"user-v1-owned", R"({ type: AVRO, schema: '{"type":"record","name":"User","namespace":"com.example","fields":[{"name":"id","type":"long"}]}', properties: { owner: billing } })", ""},
};

// Avro enums: a symbol added, a symbol removed, the enum made optional.
constexpr std::array kAvroEnum{
    CorpusSchema{"account-v1", R"({ type: AVRO, schema: '{"type":"record","name":"Account","namespace":"com.example","fields":[{"name":"id","type":"long"},{"name":"status","type":{"type":"enum","name":"Status","symbols":["ACTIVE","SUSPENDED"]},"default":"ACTIVE"}]}' })", ""},
    CorpusSchema{"account-v2", R"({ type: AVRO, schema: '{"type":"record","name":"Account","namespace":"com.example","fields":[{"name":"id","type":"long"},{"name":"status","type":{"type":"enum","name":"Status","symbols":["ACTIVE","SUSPENDED","CLOSED"]},"default":"ACTIVE"}]}' })", ""},
    CorpusSchema{"account-fewer", R"({ type: AVRO, schema: '{"type":"record","name":"Account","namespace":"com.example","fields":[{"name":"id","type":"long"},{"name":"status","type":{"type":"enum","name":"Status","symbols":["ACTIVE"]},"default":"ACTIVE"}]}' })", ""},
    CorpusSchema{"account-optional", R"({ type: AVRO, schema: '{"type":"record","name":"Account","namespace":"com.example","fields":[{"name":"id","type":"long"},{"name":"status","type":["null",{"type":"enum","name":"Status","symbols":["ACTIVE","SUSPENDED"]}],"default":null}]}' })", ""},
};

// A second record: another name, so a version of it against a User history is
// a different record (order-by-string: scenarios/races/upload-schema-vs-producer-other-schema.yaml).
constexpr std::array kAvroOrder{
    CorpusSchema{"order-v1", R"({ type: AVRO, schema: '{"type":"record","name":"Order","namespace":"com.example","fields":[{"name":"id","type":"long"}]}' })", ""},
    CorpusSchema{"order-v2", R"({ type: AVRO, schema: '{"type":"record","name":"Order","namespace":"com.example","fields":[{"name":"id","type":"long"},{"name":"note","type":["null","string"],"default":null}]}' })", ""},
    CorpusSchema{"order-by-string", R"({ type: AVRO, schema: '{"type":"record","name":"Order","namespace":"com.example","fields":[{"name":"orderId","type":"string"}]}' })", ""},
};

// JSON: Avro-shaped definitions, as Pulsar's JSONSchema.of generates them
// (scenarios/issues/pulsar-13804-string-consumer-then-json-producer-always-compatible.yaml's Event, and the User record as JSON).
constexpr std::array kJson{
    CorpusSchema{"event-json-v1", R"({ type: JSON, schema: '{"type":"record","name":"Event","namespace":"com.example","fields":[{"name":"id","type":"long"}]}' })", ""},
    CorpusSchema{"event-json-v2", R"({ type: JSON, schema: '{"type":"record","name":"Event","namespace":"com.example","fields":[{"name":"id","type":"long"},{"name":"body","type":["null","string"],"default":null}]}' })", ""},
    CorpusSchema{"event-json-required", R"({ type: JSON, schema: '{"type":"record","name":"Event","namespace":"com.example","fields":[{"name":"id","type":"long"},{"name":"body","type":"string"}]}' })", ""},
    CorpusSchema{"user-json", R"({ type: JSON, schema: '{"type":"record","name":"User","namespace":"com.example","fields":[{"name":"id","type":"long"}]}' })", ""},
};

// PROTOBUF_NATIVE: pn-user and pn-person are
// scenarios/issues/pulsar-22720-incompatibility-messages-name-the-strategy.yaml;
// pn-user-v2 (a field `name` = 2 added) and pn-user-id-string (field 1 a
// string) are the same FileDescriptorSet encoding with one field changed.
constexpr std::array kProtobufNative{
    CorpusSchema{"pn-user", R"({ type: PROTOBUF_NATIVE, schema: '{"fileDescriptorSet":"CjUKCnVzZXIucHJvdG8SB2V4YW1wbGUiFgoEVXNlchIOCgJpZBgBIAEoA1ICaWRiBnByb3RvMw==","rootMessageTypeName":"example.User","rootFileDescriptorName":"user.proto"}' })", ""},
    CorpusSchema{"pn-user-v2", R"({ type: PROTOBUF_NATIVE, schema: '{"fileDescriptorSet":"CkkKCnVzZXIucHJvdG8SB2V4YW1wbGUiKgoEVXNlchIOCgJpZBgBIAEoA1ICaWQSEgoEbmFtZRgCIAEoCVIEbmFtZWIGcHJvdG8z","rootMessageTypeName":"example.User","rootFileDescriptorName":"user.proto"}' })", ""},
    CorpusSchema{"pn-user-id-string", R"({ type: PROTOBUF_NATIVE, schema: '{"fileDescriptorSet":"CjUKCnVzZXIucHJvdG8SB2V4YW1wbGUiFgoEVXNlchIOCgJpZBgBIAEoCVICaWRiBnByb3RvMw==","rootMessageTypeName":"example.User","rootFileDescriptorName":"user.proto"}' })", ""},
    CorpusSchema{"pn-person", R"({ type: PROTOBUF_NATIVE, schema: '{"fileDescriptorSet":"CjkKDHBlcnNvbi5wcm90bxIHZXhhbXBsZSIYCgZQZXJzb24SDgoCaWQYASABKANSAmlkYgZwcm90bzM=","rootMessageTypeName":"example.Person","rootFileDescriptorName":"person.proto"}' })", ""},
};

// KEY_VALUE from components (doc/scenario-format.md, schemas): INLINE and
// SEPARATED, of Avro, JSON and primitive parts.
constexpr std::array kKeyValue{
    CorpusSchema{"kv-inline", "{ type: KEY_VALUE, key: STRING, value: user-v1 }", "user-v1"},
    CorpusSchema{"kv-separated", "{ type: KEY_VALUE, key: STRING, value: user-v1, encoding: SEPARATED }", "user-v1"},
    CorpusSchema{"kv-separated-v2", "{ type: KEY_VALUE, key: STRING, value: user-v2, encoding: SEPARATED }", "user-v2"},
    CorpusSchema{"kv-json", "{ type: KEY_VALUE, key: INT64, value: event-json-v1 }", "event-json-v1"},
    CorpusSchema{"kv-primitive", "{ type: KEY_VALUE, key: STRING, value: INT32, encoding: SEPARATED }", ""},
};

// Primitives, named bare in steps.
constexpr std::array kPrimitive{
    CorpusSchema{"STRING", "", ""}, CorpusSchema{"INT32", "", ""},   CorpusSchema{"INT64", "", ""},
    CorpusSchema{"BYTES", "", ""},  CorpusSchema{"BOOLEAN", "", ""}, CorpusSchema{"DOUBLE", "", ""},
};

constexpr std::array kFamilies{
    CorpusFamily{"avro-user", kAvroUser},     CorpusFamily{"avro-enum", kAvroEnum},
    CorpusFamily{"avro-order", kAvroOrder},   CorpusFamily{"json", kJson},
    CorpusFamily{"protobuf-native", kProtobufNative}, CorpusFamily{"key-value", kKeyValue},
    CorpusFamily{"primitive", kPrimitive},
};

}  // namespace

std::span<const CorpusFamily> corpusFamilies() { return kFamilies; }

const CorpusSchema* corpusSchema(std::string_view alias) {
    for (const auto& family : kFamilies) {
        for (const auto& s : family.schemas) {
            if (s.alias == alias) return &s;
        }
    }
    return nullptr;
}

}  // namespace cnx::sim::explore::detail
