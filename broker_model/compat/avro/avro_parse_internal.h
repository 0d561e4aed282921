#pragma once
// The full parser's reading of the JSON text (avro_parse_json.cc), for
// avro_parse.cc. Internal to broker_model/compat/avro.

#include <optional>
#include <string_view>

#include "broker_model/compat/avro/avro_schema.h"
#include "broker_model/compat/avro/json_tape.h"

namespace cnx::compat::avro::parse_json {

/// Jackson's readTree of the definition into `tape` (no root: no content).
/// An object or array goes through JsonTape's reader first; whatever it does
/// not take (and every other text) goes through nlohmann, kept in `holder`:
/// depth guard, nlohmann's parse and its error, dangling content.
std::optional<JavaException> readJson(std::string_view text, const ParseOptions& opt, JsonTape& tape,
                                      std::optional<Json>& holder);

}  // namespace cnx::compat::avro::parse_json
