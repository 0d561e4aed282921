#include "broker_model/core/compatibility_strategy.h"

#include <array>

namespace cnx {
namespace {

constexpr std::array<std::string_view, 9> kStrategyNames{
    "UNDEFINED",           "ALWAYS_INCOMPATIBLE", "ALWAYS_COMPATIBLE",
    "BACKWARD",            "FORWARD",             "FULL",
    "BACKWARD_TRANSITIVE", "FORWARD_TRANSITIVE",  "FULL_TRANSITIVE",
};

constexpr std::array<std::string_view, 8> kAutoUpdateNames{
    "AutoUpdateDisabled", "Backward",           "Forward",           "Full",
    "AlwaysCompatible",   "BackwardTransitive", "ForwardTransitive", "FullTransitive",
};

template <typename Enum, std::size_t N>
std::optional<Enum> lookup(const std::array<std::string_view, N>& names, std::string_view name) {
    for (std::size_t i = 0; i < N; ++i) {
        if (names[i] == name) return static_cast<Enum>(i);
    }
    return std::nullopt;
}

}  // namespace

std::string_view to_string_view(CompatibilityStrategy s) { return kStrategyNames[static_cast<std::size_t>(s)]; }

std::optional<CompatibilityStrategy> compatibilityStrategyFromName(std::string_view name) {
    return lookup<CompatibilityStrategy>(kStrategyNames, name);
}

std::span<const std::string_view> compatibilityStrategyNames() { return kStrategyNames; }

std::string_view to_string_view(AutoUpdateStrategy s) { return kAutoUpdateNames[static_cast<std::size_t>(s)]; }

std::optional<AutoUpdateStrategy> autoUpdateStrategyFromName(std::string_view name) {
    return lookup<AutoUpdateStrategy>(kAutoUpdateNames, name);
}

std::span<const std::string_view> autoUpdateStrategyNames() { return kAutoUpdateNames; }

bool isTransitive(CompatibilityStrategy s) {
    return s == CompatibilityStrategy::BACKWARD_TRANSITIVE || s == CompatibilityStrategy::FORWARD_TRANSITIVE ||
           s == CompatibilityStrategy::FULL_TRANSITIVE;
}

CompatibilityStrategy fromAutoUpdatePolicy(AutoUpdateStrategy s) {
    switch (s) {
        case AutoUpdateStrategy::AutoUpdateDisabled: return CompatibilityStrategy::ALWAYS_INCOMPATIBLE;
        case AutoUpdateStrategy::Backward: return CompatibilityStrategy::BACKWARD;
        case AutoUpdateStrategy::Forward: return CompatibilityStrategy::FORWARD;
        case AutoUpdateStrategy::Full: return CompatibilityStrategy::FULL;
        case AutoUpdateStrategy::AlwaysCompatible: return CompatibilityStrategy::ALWAYS_COMPATIBLE;
        case AutoUpdateStrategy::BackwardTransitive: return CompatibilityStrategy::BACKWARD_TRANSITIVE;
        case AutoUpdateStrategy::ForwardTransitive: return CompatibilityStrategy::FORWARD_TRANSITIVE;
        case AutoUpdateStrategy::FullTransitive: return CompatibilityStrategy::FULL_TRANSITIVE;
    }
    return CompatibilityStrategy::ALWAYS_INCOMPATIBLE;
}

}  // namespace cnx
