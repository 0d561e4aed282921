#include "broker_model/registry/schema_equality.h"

#include "broker_model/compat/avro_check.h"

namespace cnx {

EqualityAnswer schemasEqualForDedup(const BehaviourProfile& profile, const SchemaData& stored,
                                    const SchemaData& candidate) {
    switch (profile.dedupRule) {
        case DedupRule::dataHashAnyType:
            // 2.5.0-2.7.0: SHA-256 of the data; equal bytes <=> equal hash. Type ignored.
            return {stored.data == candidate.data, std::nullopt};
        case DedupRule::typedStructural: break;
    }
    // 2.8.0+: the type must be equal; Avro-based types compare parsed schemas.
    if (stored.type != candidate.type) return {false, std::nullopt};
    if (!isAvroBased(candidate.type)) return {stored.data == candidate.data, std::nullopt};
    if (stored.data == candidate.data) return {true, std::nullopt};
    auto eq = compat::avroDefinitionsEqual(stored.data, candidate.data, profile.checkOptions);
    if (!eq) {
        // Schema.Parser throws inside the broker's equality function (§4.5, derived).
        auto why = compat::avroParseError(candidate.data, profile.checkOptions);
        if (!why) why = compat::avroParseError(stored.data, profile.checkOptions);
        return {false, "org.apache.avro.SchemaParseException: " + why.value_or("unparseable definition")};
    }
    return {*eq, std::nullopt};
}

}  // namespace cnx
