#include "broker_model/core/schema_type.h"

#include <array>
#include <utility>

namespace cnx {
namespace {

constexpr std::array<std::pair<SchemaType, std::string_view>, 25> kNames{{
    {SchemaType::NONE, "NONE"},
    {SchemaType::STRING, "STRING"},
    {SchemaType::JSON, "JSON"},
    {SchemaType::PROTOBUF, "PROTOBUF"},
    {SchemaType::AVRO, "AVRO"},
    {SchemaType::BOOLEAN, "BOOLEAN"},
    {SchemaType::INT8, "INT8"},
    {SchemaType::INT16, "INT16"},
    {SchemaType::INT32, "INT32"},
    {SchemaType::INT64, "INT64"},
    {SchemaType::FLOAT, "FLOAT"},
    {SchemaType::DOUBLE, "DOUBLE"},
    {SchemaType::DATE, "DATE"},
    {SchemaType::TIME, "TIME"},
    {SchemaType::TIMESTAMP, "TIMESTAMP"},
    {SchemaType::KEY_VALUE, "KEY_VALUE"},
    {SchemaType::INSTANT, "INSTANT"},
    {SchemaType::LOCAL_DATE, "LOCAL_DATE"},
    {SchemaType::LOCAL_TIME, "LOCAL_TIME"},
    {SchemaType::LOCAL_DATE_TIME, "LOCAL_DATE_TIME"},
    {SchemaType::PROTOBUF_NATIVE, "PROTOBUF_NATIVE"},
    {SchemaType::BYTES, "BYTES"},
    {SchemaType::AUTO, "AUTO"},
    {SchemaType::AUTO_CONSUME, "AUTO_CONSUME"},
    {SchemaType::AUTO_PUBLISH, "AUTO_PUBLISH"},
}};

constexpr std::array<std::string_view, kNames.size()> kNameList = [] {
    std::array<std::string_view, kNames.size()> out{};
    for (std::size_t i = 0; i < kNames.size(); ++i) out[i] = kNames[i].second;
    return out;
}();

}  // namespace

std::string_view to_string_view(SchemaType t) {
    for (const auto& [type, name] : kNames) {
        if (type == t) return name;
    }
    return "NONE";
}

std::optional<SchemaType> schemaTypeFromName(std::string_view name) {
    for (const auto& [type, n] : kNames) {
        if (n == name) return type;
    }
    return std::nullopt;
}

bool isPrimitive(SchemaType t) {
    switch (t) {
        case SchemaType::STRING:
        case SchemaType::BOOLEAN:
        case SchemaType::INT8:
        case SchemaType::INT16:
        case SchemaType::INT32:
        case SchemaType::INT64:
        case SchemaType::FLOAT:
        case SchemaType::DOUBLE:
        case SchemaType::DATE:
        case SchemaType::TIME:
        case SchemaType::TIMESTAMP:
        case SchemaType::BYTES:
        case SchemaType::INSTANT:
        case SchemaType::LOCAL_DATE:
        case SchemaType::LOCAL_TIME:
        case SchemaType::LOCAL_DATE_TIME:
        case SchemaType::NONE:
            return true;
        case SchemaType::JSON:
        case SchemaType::PROTOBUF:
        case SchemaType::AVRO:
        case SchemaType::KEY_VALUE:
        case SchemaType::PROTOBUF_NATIVE:
        case SchemaType::AUTO:
        case SchemaType::AUTO_CONSUME:
        case SchemaType::AUTO_PUBLISH:
            return false;
    }
    return false;
}

bool isAvroBased(SchemaType t) {
    return t == SchemaType::AVRO || t == SchemaType::JSON || t == SchemaType::PROTOBUF;
}

const std::string_view* allSchemaTypeNames(std::size_t& count) {
    count = kNameList.size();
    return kNameList.data();
}

}  // namespace cnx
