#pragma once
// The "equal schema" search of de-duplication (reference §4.4, §4.5,
// `getSchemaVersionBySchemaData`), per the profile's DedupRule.

#include <optional>
#include <span>
#include <string>

#include "broker_model/profile/profile.h"
#include "broker_model/core/schema_data.h"

namespace cnx {

struct StoredSchema;

struct EqualSchemaAnswer {
    std::optional<SchemaVersion> version;  // the first equal live entry, oldest first
    std::optional<std::string> error;      // a definition did not parse: the broker's equality threw (§4.5, derived)
};

/// Searches `live` (oldest first) for a schema equal to `candidate`.
/// `fastPaths`: whether the Avro parses may take their fast paths (core/fast_paths.h).
EqualSchemaAnswer findEqualSchema(const BehaviourProfile& profile, std::span<const StoredSchema> live,
                                  const SchemaData& candidate, FastPaths fastPaths = FastPaths::on);

}  // namespace cnx
