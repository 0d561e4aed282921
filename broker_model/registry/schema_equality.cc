#include "broker_model/registry/schema_equality.h"

#include "broker_model/compat/avro/avro_check.h"
#include "broker_model/registry/schema_registry.h"

namespace cnx {
namespace {

std::string parseFailure(const std::string& definition, const compat::CheckOptions& options) {
    auto why = compat::avroParseError(definition, options);
    return "org.apache.avro.SchemaParseException: " + why.value_or("unparseable definition");
}

// Avro `Schema.equals` of two definitions; an error when either does not parse.
EqualSchemaAnswer avroEqual(const SchemaData& stored, const SchemaData& candidate, SchemaVersion version,
                            const compat::CheckOptions& options) {
    if (stored.data == candidate.data) return {version, std::nullopt};
    auto eq = compat::avroDefinitionsEqual(stored.data, candidate.data, options);
    if (!eq) {
        bool candidateBad = compat::avroParseError(candidate.data, options).has_value();
        return {std::nullopt, parseFailure(candidateBad ? candidate.data : stored.data, options)};
    }
    return {*eq ? std::optional(version) : std::nullopt, std::nullopt};
}

// 2.8.0+ (#10573): the type must match; Avro-based types compare parsed schemas.
EqualSchemaAnswer typedStructural(const compat::CheckOptions& options, std::span<const StoredSchema> live,
                                  const SchemaData& candidate) {
    for (const auto& e : live) {
        if (e.schema.type != candidate.type) continue;
        if (!isAvroBased(candidate.type)) {
            if (e.schema.data == candidate.data) return {e.version, std::nullopt};
            continue;
        }
        auto a = avroEqual(e.schema, candidate, e.version, options);
        if (a.error || a.version) return a;
    }
    return {};
}

// 2.7.1 (#9612) / 2.7.2 (#9797): for an Avro-based new schema every live entry
// is parsed first, so a live entry that is not Avro (e.g. STRING after an
// ALWAYS_COMPATIBLE type change) makes the request fail (fixed by #10573).
EqualSchemaAnswer structuralParseAll(const compat::CheckOptions& options, std::span<const StoredSchema> live,
                                     const SchemaData& candidate, bool typed) {
    if (!isAvroBased(candidate.type)) {
        for (const auto& e : live) {
            bool typeOk = !typed || e.schema.type == candidate.type;
            if (typeOk && e.schema.data == candidate.data) return {e.version, std::nullopt};
        }
        return {};
    }
    if (auto bad = compat::avroParseError(candidate.data, options)) {
        return {std::nullopt, "org.apache.avro.SchemaParseException: " + *bad};
    }
    for (const auto& e : live) {
        if (auto bad = compat::avroParseError(e.schema.data, options)) {
            return {std::nullopt, "org.apache.avro.SchemaParseException: " + *bad};
        }
    }
    for (const auto& e : live) {
        if (typed && e.schema.type != candidate.type) continue;
        auto a = avroEqual(e.schema, candidate, e.version, options);
        if (a.error || a.version) return a;
    }
    return {};
}

}  // namespace

EqualSchemaAnswer findEqualSchema(const BehaviourProfile& profile, std::span<const StoredSchema> live,
                                  const SchemaData& candidate, FastPaths fastPaths) {
    compat::CheckOptions options = profile.checkOptions;
    options.fastPaths = fastPaths;
    switch (profile.dedupRule) {
        case DedupRule::storageHashWholeHistory:
        case DedupRule::storageHashAfterLastDelete:
        case DedupRule::dataHashAnyType:
            // SHA-256 of the data: equal bytes <=> equal hash. Type ignored.
            for (const auto& e : live) {
                if (e.schema.data == candidate.data) return {e.version, std::nullopt};
            }
            return {};
        case DedupRule::avroStructuralAnyType: return structuralParseAll(options, live, candidate, false);
        case DedupRule::avroStructuralTypedParseAll: return structuralParseAll(options, live, candidate, true);
        case DedupRule::typedStructural: return typedStructural(options, live, candidate);
    }
    return {};
}

}  // namespace cnx
