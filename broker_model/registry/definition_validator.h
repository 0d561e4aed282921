#pragma once
// The validator wrapper's definition check (reference §4.10, §6.7). Runs
// before putSchemaIfAbsent, isCompatible and checkCompatible; not before the
// consumer check, the auto-update-disabled lookup, version look-ups or delete.

#include <optional>
#include <string>

#include "broker_model/profile/profile.h"
#include "broker_model/core/schema_data.h"

namespace cnx {

/// nullopt when the definition is valid, else the `InvalidSchemaDataException`
/// message the broker raises (code IncompatibleSchema, HTTP 422 on upload).
/// `fastPaths`: whether the Avro parse may take its fast paths (core/fast_paths.h).
std::optional<std::string> validateSchemaDefinition(const BehaviourProfile& profile, const SchemaData& schema,
                                                    bool allowLegacyJsonFormat, FastPaths fastPaths = FastPaths::on);

}  // namespace cnx
