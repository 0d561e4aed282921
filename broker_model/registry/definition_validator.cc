#include "broker_model/registry/definition_validator.h"

#include <nlohmann/json.hpp>

#include "broker_model/compat/avro/avro_check.h"
#include "broker_model/compat/json/json_nesting.h"
#include "broker_model/compat/key_value/key_value_check.h"
#include "broker_model/compat/protobuf_native/protobuf_native_check.h"

namespace cnx {
namespace {

std::string typeName(SchemaType t) { return std::string(to_string_view(t)); }

// §6.4/§6.7: the legacy Jackson JSON-Schema format accepted for JSON until PIP-464.
// Nesting past Jackson 2.15+'s limit does not parse (issue 7 item 6).
bool parsesAsLegacyJsonSchema(const std::string& data) {
    if (compat::jsonNestsDeeperThan(data)) return false;
    auto j = nlohmann::json::parse(data, nullptr, false);
    return !j.is_discarded() && j.is_object();
}

std::optional<std::string> validateStruct(const BehaviourProfile& profile, const SchemaData& schema,
                                          bool allowLegacyJson, FastPaths fastPaths) {
    compat::CheckOptions options = profile.checkOptions;
    options.fastPaths = fastPaths;
    if (!compat::avroParseError(schema.data, options)) {
        // §6.7 #24103: Pulsar supports only record schemas for AVRO; a top-level union is
        // refused. A top-level primitive is only logged and stays accepted.
        if (schema.type == SchemaType::AVRO && profile.validatorRefusesAvroTopLevelUnion &&
            compat::avroTopLevelIsUnion(schema.data, options)) {
            return std::string("Avro schema typed [UNION] is not supported");
        }
        return std::nullopt;
    }
    if (schema.type == SchemaType::JSON && allowLegacyJson && parsesAsLegacyJsonSchema(schema.data)) return std::nullopt;
    return "Invalid schema definition data for " + typeName(schema.type) + " schema";
}

std::optional<std::string> validateKeyValue(const BehaviourProfile& profile, const SchemaData& schema,
                                            bool allowLegacyJson, FastPaths fastPaths) {
    std::string error;
    auto kv = compat::decodeKeyValue(schema, &error);
    if (!kv) return "Invalid schema definition data for KEY_VALUE schema: " + error;
    if (auto e = validateSchemaDefinition(profile, kv->key, allowLegacyJson, fastPaths)) return e;
    return validateSchemaDefinition(profile, kv->value, allowLegacyJson, fastPaths);
}

}  // namespace

std::optional<std::string> validateSchemaDefinition(const BehaviourProfile& profile, const SchemaData& schema,
                                                    bool allowLegacyJsonFormat, FastPaths fastPaths) {
    SchemaType t = schema.type;
    if (isAvroBased(t)) return validateStruct(profile, schema, allowLegacyJsonFormat, fastPaths);
    if (t == SchemaType::PROTOBUF_NATIVE) return compat::protobufNativeDefinitionError(schema.data);
    if (t == SchemaType::KEY_VALUE) return validateKeyValue(profile, schema, allowLegacyJsonFormat, fastPaths);
    if (t == SchemaType::NONE || t == SchemaType::BYTES) return std::nullopt;  // stored as NONE
    if (t == SchemaType::AUTO || t == SchemaType::AUTO_CONSUME || t == SchemaType::AUTO_PUBLISH)
        return "Schema " + typeName(t) + " is a client-side schema type";
    if (t == SchemaType::STRING) {
        // The Python client sends `null` (§6.7).
        if (schema.data.empty() || schema.data == "null") return std::nullopt;
        return "Invalid schema definition data for string schema : '" + schema.data + "'";
    }
    if (!isPrimitive(t)) return "Unknown schema type : " + typeName(t);
    if (schema.data.empty()) return std::nullopt;
    return "Invalid schema definition data for primitive schemas :length of schema data should be zero, but " +
           std::to_string(schema.data.size()) + " bytes is found";
}

}  // namespace cnx
