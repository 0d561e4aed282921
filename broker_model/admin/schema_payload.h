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

/// The one parse every JSON body of the admin API goes through (issue 40
/// item 1): the nesting is measured by an iterative scan first
/// (compat::jsonNestsDeeperThan, the same bound the CLI and the checkers use),
/// so nothing that recurses per level (copying, dump(), our walkers) ever sees
/// a document deeper than Jackson's StreamReadConstraints allow. Past it, or on
/// text that is not JSON, the 400 a Jersey resource answers a body Jackson
/// refuses, with Jackson's message as the reason.
std::variant<nlohmann::json, PayloadError> parseAdminJson(std::string_view body);

/// Parses a PostSchemaPayload body (the request's text).
std::variant<SchemaData, PayloadError> schemaFromPostPayload(std::string_view body);

/// The binary KEY_VALUE data of a `{"key": …, "value": …}` rendering; nullopt
/// (with `error`) when the text is not such an object.
std::optional<std::string> keyValueDataFromRendering(std::string_view text, std::string* error);

/// The text a schema's data is written as in admin JSON (a GetSchemaResponse's
/// `data`, a PostSchemaPayload's `schema`, §7.2): the definition itself, and for
/// KEY_VALUE the `{"key": …, "value": …}` rendering of its components (a
/// primitive component is ""), the inverse of keyValueDataFromRendering.
std::string renderAdminSchemaData(const SchemaData& schema);

}  // namespace cnx
