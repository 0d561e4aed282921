#pragma once
// Policies and configuration, validated through broker_model/policy/policies.h.

#include <optional>
#include <vector>

#include "sim/scenario/load/yaml_node.h"

namespace cnx::sim::load {

enum class SettingScope { broker, namespacePolicy, topicPolicy };

/// The setting names a scope accepts (broker_model/policy/policies.h).
Names settingKeys(SettingScope scope);
/// The values `key` accepts among true, false and the strategy names, found by
/// trying each; nullopt when it accepts free text, or none of them (a number, a
/// listener list). For the JSON Schema.
std::optional<std::vector<std::string_view>> settingChoices(SettingScope scope, std::string_view key);

/// One setting per entry; bad ones are reported and left out.
std::vector<Setting> settingsOf(Ctx& ctx, const Entries& entries, SettingScope scope);
/// A mapping of settings (null: none).
std::optional<std::vector<Setting>> settingsMapOf(Ctx& ctx, const Value& v, SettingScope scope);

}  // namespace cnx::sim::load
