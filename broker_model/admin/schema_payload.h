#pragma once
// The body of the admin schema POSTs (reference §7.2): `PostSchemaPayload`
// `{"type": "<SchemaType name>", "schema": "<definition>", "properties": {…}}`
// turned into the SchemaData the registry stores, as the broker converts it:
// the definition as its UTF-8 bytes, and for KEY_VALUE the `{"key": …,
// "value": …}` JSON text converted to the binary layout of §6.6 (a component
// written as "" becomes zero bytes). The same conversion reads the KEY_VALUE
// rendering of a GetSchemaResponse back (the Java admin client's SchemaUtils).

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

#include "broker_model/core/schema_data.h"

namespace cnx {

/// Why a payload was not turned into a schema, with the status the broker answers it with.
struct PayloadError {
    int status = 400;
    std::string reason;
};

/// Parses a PostSchemaPayload body (the request's text).
std::variant<SchemaData, PayloadError> schemaFromPostPayload(std::string_view body);

/// The binary KEY_VALUE data of a `{"key": …, "value": …}` rendering; nullopt
/// (with `error`) when the text is not such an object.
std::optional<std::string> keyValueDataFromRendering(std::string_view text, std::string* error);

}  // namespace cnx
