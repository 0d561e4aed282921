#pragma once
// The loader of one scenario document. Its reading is split by concern:
// top_level.cc (the scenario and its sections), schema_section.cc (schemas and
// schema references), steps.cc (steps, concurrently), step_actions.cc (each
// step kind), expectations.cc (`expect` and `outcomes`), field_values.cc (the
// value of a key as its ValueSpec says). The keys of every section are in the
// tables of format.h.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "sim/scenario/load/field_binding.h"
#include "sim/scenario/scenario.h"

namespace cnx::sim::load {

enum class ActionKind {
    producer,
    subscribe,
    close,
    publish,
    uploadSchema,
    getSchema,
    getSchemaVersion,
    deleteSchema,
    deleteTopic,
    testCompatibility,
    setPolicy,
    setBrokerConfig,
    upgradeBroker,
    restartBroker,
    unload,
    check,
    concurrently,
};

/// What a ValueSpec reads to, before it is stored into its target.
using FieldValue = std::variant<std::string, std::int64_t, bool, std::vector<std::string>, SchemaRef,
                                SchemaProperties, std::vector<Setting>>;

/// An `expect` mapping being read: the outcome, for which step kind, and
/// whether it names an error (success keys then cannot be combined with it).
struct ExpectReading {
    Expect x;
    ActionKind kind;
    bool hasError = false;
};

class DocumentLoader {
public:
    DocumentLoader(Ctx& ctx, Scenario& scenario) : ctx_(ctx), s_(scenario) {}

    void load(const Value& root);

    Ctx& ctx() { return ctx_; }

    /// The value of a key, read as `spec` says; nullopt (reported) when it is bad.
    std::optional<FieldValue> readValue(const ValueSpec& spec, const Value& v);

    // The fields of `e` (a mapping) bound into a fresh step by `fields`:
    // unknown keys, then missing required keys, stop it; then every key is read.
    template <class S, std::size_t N>
    std::optional<Action> bound(const Entry& e, const std::array<Field<S>, N>& fields);
    // The same, or `shorthand`'s value alone when `e` is a scalar (`unload: t`).
    template <class S, std::size_t N>
    std::optional<Action> boundOrShorthand(const Entry& e, const std::array<Field<S>, N>& fields,
                                           std::string_view shorthand);

    // top level (top_level.cc)
    void loadBroker(const Value& v);
    void loadBrokerVersions(const Value& v);
    void loadNamespaces(const Value& v);
    void loadTopics(const Value& v);
    std::optional<TopicDecl> topicDecl(const Entry& e);
    void loadClients(const Value& v);
    void loadFaults(const Value& v);

    // imports and schemas files (imports.cc)
    void loadImports(const Value& v);
    void loadSchemasFile(const Entries& top);
    /// Where each alias of `schemas` is defined (its key), and those whose definition is bad.
    const std::map<std::string, SourcePos>& definedAt() const { return definedAt_; }
    const std::set<std::string>& failedSchemas() const { return failedSchemas_; }

    // schemas (schema_section.cc)
    void loadSchemas(const Value& v);
    std::optional<SchemaData> resolveAlias(const std::string& alias, const SourcePos& at);
    std::optional<SchemaData> definitionOf(const Value& v, int depth);
    std::optional<SchemaData> inlineDefinition(const Entries& entries, const Value& v, int depth);
    std::optional<SchemaData> keyValueDefinition(const Entries& entries, const Value& v, int depth);
    std::optional<SchemaData> componentOf(const Value& v, int depth);
    std::optional<SchemaRef> schemaRefOf(const Value& v, SchemaUse use);
    std::optional<SchemaRef> namedSchema(const std::string& name, const Value& v, SchemaUse use);
    std::optional<SchemaData> schemaByName(const Value& v, bool allowNone, bool& isNone);
    std::optional<SchemaProperties> propertiesOf(const Value& v);
    std::vector<std::string> schemaCandidates(SchemaUse use) const;

    // steps (steps.cc)
    void loadSteps(const Value& v);
    std::optional<Step> loadStep(const Value& v, bool inBranch);
    std::optional<Action> concurrentlyOf(const Entry& e, const Entries& stepEntries, bool inBranch);
    void exploreOf(const Value& v, ConcurrentlyStep& step);
    /// The version range a per-version key names; reports a bad key (nullopt).
    std::optional<VersionRange> rangeKeyOf(const Entry& x);
    /// `outcomes` / `reachable`: a list of result sets, or such lists by version range.
    OutcomeSets outcomeSetsOf(const Entry& e, const std::vector<ActionKind>& kinds);
    std::vector<std::vector<Expect>> resultSetsOf(const Value& v, const std::string& key,
                                                  const std::vector<ActionKind>& kinds);
    std::optional<Entries> actionFields(const Entry& e, Names allowed);
    std::optional<std::string> clientOf(const Value& v);
    std::optional<std::string> knownName(const Value& v, const std::vector<std::string>& names, std::string_view noun);
    std::vector<std::string> openedNames() const;
    void registerStep(const Step& step);
    void registerId(Step& step, const Entry& e);

    // step kinds (step_actions.cc)
    std::optional<Action> producerOf(const Entry& e);
    std::optional<Action> subscribeOf(const Entry& e);
    std::optional<Action> closeOf(const Entry& e);
    std::optional<Action> publishOf(const Entry& e);
    std::optional<Action> uploadSchemaOf(const Entry& e);
    std::optional<Action> getSchemaOf(const Entry& e);
    std::optional<Action> getSchemaVersionOf(const Entry& e);
    std::optional<Action> deleteSchemaOf(const Entry& e);
    std::optional<Action> deleteTopicOf(const Entry& e);
    std::optional<Action> testCompatibilityOf(const Entry& e);
    std::optional<Action> setPolicyOf(const Entry& e);
    std::optional<Action> setBrokerConfigOf(const Entry& e);
    std::optional<Action> upgradeBrokerOf(const Entry& e);
    std::optional<Action> restartBrokerOf(const Entry& e);
    std::optional<Action> unloadOf(const Entry& e);
    std::optional<Action> checkOf(const Entry& e);
    bool checkSchemaVersions(const Value& v, CheckStep& step);
    bool isPerVersion(const Value& v);
    bool checkPerVersionOf(const Entry& e, CheckStep& step);

    // expectations (expectations.cc)
    ExpectSpec expectSpecOf(const Entry& e, ActionKind kind);
    std::optional<Expect> outcomeOf(const Value& v, ActionKind kind, bool allowPerClient);
    std::optional<Expect> outcomeMapOf(const Entries& entries, const Value& v, ActionKind kind);
    bool errorOf(const Value& v, ActionKind kind, Expect& out);
    std::optional<Expect> perClientOf(const Entries& entries, const Value& v, ActionKind kind);

private:
    Ctx& ctx_;
    Scenario& s_;
    std::map<std::string, Value> pendingSchemas_;
    std::map<std::string, SourcePos> definedAt_;  // local and imported aliases: their key
    std::map<std::string, std::string> importedFrom_;  // imported alias -> the file it came from
    bool brokenImport_ = false;  // an imported file has problems: an unknown alias may be one of its
    std::set<std::string> resolving_;
    std::set<std::string> failedSchemas_;
    std::vector<std::string> producerNames_;
    std::vector<std::string> consumerNames_;
    std::map<std::string, SourcePos> stepIds_;
};

// ---------------------------------------------------------------------------
// Storing a read value into a target field.

inline void assignValue(std::string& out, FieldValue&& v) { out = std::get<std::string>(std::move(v)); }
inline void assignValue(std::vector<std::string>& out, FieldValue&& v) {
    out = std::get<std::vector<std::string>>(std::move(v));
}
inline void assignValue(bool& out, FieldValue&& v) { out = std::get<bool>(v); }
inline void assignValue(std::optional<bool>& out, FieldValue&& v) { out = std::get<bool>(v); }
inline void assignValue(SchemaRef& out, FieldValue&& v) { out = std::get<SchemaRef>(std::move(v)); }
inline void assignValue(std::optional<SchemaRef>& out, FieldValue&& v) { out = std::get<SchemaRef>(std::move(v)); }
inline void assignValue(std::optional<SchemaProperties>& out, FieldValue&& v) {
    out = std::get<SchemaProperties>(std::move(v));
}
inline void assignValue(std::vector<Setting>& out, FieldValue&& v) { out = std::get<std::vector<Setting>>(std::move(v)); }
inline void assignValue(std::optional<CompatibilityStrategy>& out, FieldValue&& v) {
    out = compatibilityStrategyFromName(std::get<std::string>(v));
}
inline void assignValue(std::optional<SchemaType>& out, FieldValue&& v) {
    out = schemaTypeFromName(std::get<std::string>(v));
}
template <class I>
    requires std::is_integral_v<I>
void assignValue(I& out, FieldValue&& v) {
    out = static_cast<I>(std::get<std::int64_t>(v));
}
template <class I>
    requires std::is_integral_v<I>
void assignValue(std::optional<I>& out, FieldValue&& v) {
    out = static_cast<I>(std::get<std::int64_t>(v));
}

template <class M>
struct MemberOf;
template <class C, class T>
struct MemberOf<T C::*> {
    using Class = C;
};

/// The binder of a plain field: reads the value as its spec says and stores it in `Member`.
template <auto Member>
bool store(DocumentLoader& loader, const ValueSpec& spec, const Entry& e,
           typename MemberOf<decltype(Member)>::Class& target) {
    auto v = loader.readValue(spec, e.value);
    if (!v) return false;
    assignValue(target.*Member, std::move(*v));
    return true;
}

template <class S, std::size_t N>
std::optional<Action> DocumentLoader::bound(const Entry& e, const std::array<Field<S>, N>& fields) {
    const auto keys = keysOf(fields);
    auto f = actionFields(e, keys);
    if (!f || !requireFields(ctx_, fields, *f, e.keyPos, e.key)) return std::nullopt;
    S step;
    if (!readFields(*this, fields, *f, step)) return std::nullopt;
    return step;
}

template <class S, std::size_t N>
std::optional<Action> DocumentLoader::boundOrShorthand(const Entry& e, const std::array<Field<S>, N>& fields,
                                                       std::string_view shorthand) {
    if (!e.value.node.IsScalar()) return bound(e, fields);
    for (const Field<S>& field : fields) {
        if (field.key != shorthand) continue;
        S step;
        if (!field.bind(*this, field.spec, {e.key, e.keyPos, {e.value.node, e.value.pos, std::string(shorthand)}, e.keyNode}, step))
            return std::nullopt;
        return step;
    }
    return std::nullopt;
}

}  // namespace cnx::sim::load
