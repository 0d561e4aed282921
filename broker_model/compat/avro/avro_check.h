#pragma once
// The Avro-based checkers (reference §6.3, §6.4) and the two Avro services the
// registry needs: definition validation (§6.7) and parsed-schema equality for
// de-duplication (§4.5). Implemented under compat/avro/.

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "broker_model/compat/compatibility_check.h"

namespace cnx::compat {

/// Parses `definition` as the broker's Avro parser does (default-value
/// validation off). Returns nullopt when it parses, else the parser's message
/// (Avro `SchemaParseException` text).
std::optional<std::string> avroParseError(std::string_view definition, const CheckOptions& options);

/// Whether `definition` parses and its top-level schema is a union (§6.7, #24103:
/// `Schema.getType() == UNION`).
bool avroTopLevelIsUnion(std::string_view definition, const CheckOptions& options);

/// Avro `Schema.equals` of two definitions (§4.5): insensitive to JSON layout,
/// key order and `doc`; sensitive to names, namespaces, field order, types,
/// defaults and custom attributes. nullopt when either does not parse.
std::optional<bool> avroDefinitionsEqual(std::string_view a, std::string_view b, const CheckOptions& options);

/// `AvroSchemaCompatibilityCheck` (AVRO).
std::unique_ptr<SchemaCompatibilityCheck> makeAvroCheck();

/// `JsonSchemaCompatibilityCheck` (JSON; Avro-format and legacy Jackson JSON Schema, §6.4).
std::unique_ptr<SchemaCompatibilityCheck> makeJsonCheck();

}  // namespace cnx::compat
