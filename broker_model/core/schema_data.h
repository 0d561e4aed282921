#pragma once
// A schema as the broker's registry stores it (reference §1.2, §4.1): type,
// definition bytes (stored verbatim), properties. No name: the broker never
// stores one.

#include <cstdint>
#include <map>
#include <string>

#include "broker_model/core/schema_type.h"

namespace cnx {

using SchemaProperties = std::map<std::string, std::string>;

struct SchemaData {
    SchemaType type = SchemaType::NONE;
    std::string data;  // the definition bytes, e.g. Avro JSON text; empty for primitives
    SchemaProperties properties;

    friend bool operator==(const SchemaData&, const SchemaData&) = default;
};

/// A registry version (§4.1): 0, 1, 2, ... per schema-id; -1 means "none".
using SchemaVersion = std::int64_t;
inline constexpr SchemaVersion kNoVersion = -1;

}  // namespace cnx
