#pragma once
// SchemaCompatibilityStrategy and the older SchemaAutoUpdateCompatibilityStrategy
// (reference §5.1), with Pulsar's spellings.

#include <optional>
#include <span>
#include <string_view>

namespace cnx {

enum class CompatibilityStrategy {
    UNDEFINED,
    ALWAYS_INCOMPATIBLE,
    ALWAYS_COMPATIBLE,
    BACKWARD,
    FORWARD,
    FULL,
    BACKWARD_TRANSITIVE,
    FORWARD_TRANSITIVE,
    FULL_TRANSITIVE,
};

enum class AutoUpdateStrategy {
    AutoUpdateDisabled,
    Backward,
    Forward,
    Full,
    AlwaysCompatible,
    BackwardTransitive,
    ForwardTransitive,
    FullTransitive,
};

std::string_view to_string_view(CompatibilityStrategy s);
std::optional<CompatibilityStrategy> compatibilityStrategyFromName(std::string_view name);
std::span<const std::string_view> compatibilityStrategyNames();

std::string_view to_string_view(AutoUpdateStrategy s);
std::optional<AutoUpdateStrategy> autoUpdateStrategyFromName(std::string_view name);
std::span<const std::string_view> autoUpdateStrategyNames();

/// `*_TRANSITIVE` strategies check against every live version (§4.6).
bool isTransitive(CompatibilityStrategy s);

/// `fromAutoUpdatePolicy` (§5.1): AutoUpdateDisabled maps to ALWAYS_INCOMPATIBLE.
CompatibilityStrategy fromAutoUpdatePolicy(AutoUpdateStrategy s);

}  // namespace cnx
