#include "broker_model/compat/default/default_check.h"

namespace cnx::compat {
namespace {

// §6.2: "Schema compatibility strategy is ALWAYS_INCOMPATIBLE" (2.5+).
CheckResult decide(CompatibilityStrategy strategy) {
    if (strategy == CompatibilityStrategy::ALWAYS_INCOMPATIBLE) {
        return CheckResult::incompatible("Schema compatibility strategy is ALWAYS_INCOMPATIBLE",
                                         {{"always_incompatible", "", "the strategy rejects every schema", "", ""}});
    }
    return CheckResult::compatible();
}

class DefaultCheck final : public SchemaCompatibilityCheck {
public:
    CheckResult checkCompatible(const SchemaData&, const SchemaData&, CompatibilityStrategy strategy,
                                const CheckOptions&) const override {
        return decide(strategy);
    }
    CheckResult checkCompatible(std::span<const SchemaData>, const SchemaData&, CompatibilityStrategy strategy,
                                const CheckOptions&) const override {
        return decide(strategy);
    }
};

}  // namespace

std::unique_ptr<SchemaCompatibilityCheck> makeDefaultCheck() { return std::make_unique<DefaultCheck>(); }

}  // namespace cnx::compat
