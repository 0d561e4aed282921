#pragma once
// KEY_VALUE checker (reference §6.6) and the KEY_VALUE definition layout:
// `[int32 BE keyLen][key][int32 BE valueLen][value]`, component types and
// encoding in the schema's properties.

#include <memory>
#include <optional>
#include <string>

#include "broker_model/compat/compatibility_check.h"

namespace cnx::compat {

class CheckerSet;

/// The checker; components are checked with `components.forType(componentType)`.
/// `components` must outlive the checker.
std::unique_ptr<SchemaCompatibilityCheck> makeKeyValueCheck(const CheckerSet& components);

/// One side of a KEY_VALUE schema, decoded from data + properties.
struct KeyValueComponents {
    SchemaData key;
    SchemaData value;
    std::string encoding;  // "INLINE" or "SEPARATED"
};

/// Decodes a KEY_VALUE schema; nullopt with `error` set when the data is malformed.
std::optional<KeyValueComponents> decodeKeyValue(const SchemaData& schema, std::string* error);

/// Encodes components into the KEY_VALUE layout and properties (the inverse of decodeKeyValue).
SchemaData encodeKeyValue(const SchemaData& key, const SchemaData& value, std::string_view encoding);

}  // namespace cnx::compat
