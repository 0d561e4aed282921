#pragma once
// Pulsar's schema types (reference §2.4). The numeric values are Java's
// `SchemaType` values, which is what the registry and the admin API speak;
// conversions to and from the wire enum live in wire/ (proto), not here.

#include <optional>
#include <string_view>

namespace cnx {

enum class SchemaType : int {
    NONE = 0,
    STRING = 1,
    JSON = 2,
    PROTOBUF = 3,
    AVRO = 4,
    BOOLEAN = 5,
    INT8 = 6,
    INT16 = 7,
    INT32 = 8,
    INT64 = 9,
    FLOAT = 10,
    DOUBLE = 11,
    DATE = 12,
    TIME = 13,
    TIMESTAMP = 14,
    KEY_VALUE = 15,
    INSTANT = 16,
    LOCAL_DATE = 17,
    LOCAL_TIME = 18,
    LOCAL_DATE_TIME = 19,
    PROTOBUF_NATIVE = 20,
    BYTES = -1,
    AUTO = -2,
    AUTO_CONSUME = -3,
    AUTO_PUBLISH = -4,
};

/// Java's enum name of `t` ("AVRO", "KEY_VALUE", ...), as it appears in broker messages.
std::string_view to_string_view(SchemaType t);

/// Parses a Java enum name (exact spelling). Returns nullopt for anything else.
std::optional<SchemaType> schemaTypeFromName(std::string_view name);

/// Java `SchemaType.isPrimitiveType` (§2.4): STRING, BOOLEAN, INT*, FLOAT, DOUBLE,
/// DATE, TIME, TIMESTAMP, BYTES, INSTANT, LOCAL_*, NONE.
bool isPrimitive(SchemaType t);

/// Types whose definition is an Avro-format schema (AVRO, JSON, PROTOBUF), §4.5.
bool isAvroBased(SchemaType t);

/// Every name schemaTypeFromName accepts, in enum order (for "did you mean").
const std::string_view* allSchemaTypeNames(std::size_t& count);

}  // namespace cnx
