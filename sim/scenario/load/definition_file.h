#pragma once
// Schema-definition files (pulsar-admin's `{"type","schema","properties"}`).

#include <optional>
#include <string>

#include "sim/scenario/load/yaml_node.h"

namespace cnx::sim::load {

/// Reads `name` (relative to the scenario's folder); `v` is the `file:` value
/// problems are reported at.
std::optional<SchemaData> loadDefinitionFile(Ctx& ctx, const Value& v, const std::string& name);

}  // namespace cnx::sim::load
