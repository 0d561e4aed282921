#pragma once
// The one mechanism every scenario key goes through: a section of the format
// (the scenario, `broker`, a step kind, `expect`, ...) is a table of Fields,
// each naming its key, whether it is required, what its value is (ValueSpec)
// and where it goes (its binder). The same table gives
//   - the known keys, for unknown-key errors and "did you mean" (keysOf),
//   - the required keys, checked in table order (requireFields),
//   - the reading, in table order (readFields),
// so the list of keys and the reading cannot drift apart. ValueSpec describes
// a value fully enough to generate a JSON Schema of the format from the same
// tables (sim/scenario/load/format.h holds them all).

#include <array>
#include <cstdint>
#include <string_view>

#include "sim/scenario/load/settings.h"
#include "sim/scenario/load/yaml_node.h"

namespace cnx::sim::load {

class DocumentLoader;

/// Which names a schema reference accepts besides aliases, inline definitions and primitives.
enum class SchemaUse {
    producer,   // alias, inline, primitive, none, AUTO_PRODUCE_BYTES
    subscribe,  // alias, inline, primitive, none, AUTO_CONSUME
    admin,      // alias, inline, primitive
    component,  // a KEY_VALUE key or value: alias, inline, primitive
};

/// What a key's value is.
enum class ValueKind {
    text,           // any scalar
    nonEmptyText,   // a scalar that is not empty
    textList,       // a scalar or a sequence of scalars
    integer,        // from `min` to `max`
    boolean,        // true or false
    choice,         // one of `choices()`, called a `noun` in messages
    release,        // "3.0", "2.10.4" (`noun` in messages)
    brokerVersion,  // a release that has a behaviour profile
    topic,          // a topic name, expanded
    schema,         // a schema reference (`use` says which pseudo schemas)
    schemaName,     // an alias or primitive name an assertion compares against
    properties,     // a mapping of scalars
    settings,       // a mapping of policy or configuration fields (`scope`)
    producerName,   // a producer opened by an earlier step
    client,         // a client declared under `clients`, or java / cpp
    section,        // a nested section with a table of its own
    custom,         // a shape of its own, read by the field's binder (`noun` names it)
};

using NamesFn = Names (*)();

/// `namesOf<kAccessModes>`: a constant name list as a NamesFn.
template <const auto& List>
Names namesOf() {
    return List;
}

struct ValueSpec {
    ValueKind kind = ValueKind::custom;
    NamesFn choices = nullptr;
    std::string_view noun{};
    std::int64_t min = 0;
    std::int64_t max = 0;
    SchemaUse use = SchemaUse::admin;
    SettingScope scope = SettingScope::broker;
};

enum class Need { optional, required };
enum class OnNull { read, skip };  // skip: `key:` without a value is as if the key were absent

/// Reads the value of `entry` into `target`; false when it reported a problem.
template <class Target>
using Binder = bool (*)(DocumentLoader& loader, const ValueSpec& spec, const Entry& entry, Target& target);

template <class Target>
struct Field {
    std::string_view key;
    Need need = Need::optional;
    ValueSpec spec{};
    Binder<Target> bind = nullptr;  // nullptr: read by the section's own code (its rules span keys)
    OnNull onNull = OnNull::read;
    std::string_view onlyFor{};  // the one step kind the key is valid for (empty: any)
};

template <class Target, std::size_t N>
constexpr std::array<std::string_view, N> keysOf(const std::array<Field<Target>, N>& fields) {
    std::array<std::string_view, N> keys{};
    for (std::size_t i = 0; i < N; ++i) keys[i] = fields[i].key;
    return keys;
}

template <std::size_t N, std::size_t M>
constexpr std::array<std::string_view, N + M> concatKeys(const std::array<std::string_view, N>& a,
                                                         const std::array<std::string_view, M>& b) {
    std::array<std::string_view, N + M> keys{};
    for (std::size_t i = 0; i < N; ++i) keys[i] = a[i];
    for (std::size_t i = 0; i < M; ++i) keys[N + i] = b[i];
    return keys;
}

/// Reports every required key of `fields` missing from `entries`, in table
/// order, at `at`; true when none is missing.
template <class Fields>
bool requireFields(Ctx& ctx, const Fields& fields, const Entries& entries, const SourcePos& at,
                   std::string_view where) {
    bool ok = true;
    for (const auto& field : fields) {
        if (field.need == Need::required) ok = require(ctx, entries, field.key, at, where) && ok;
    }
    return ok;
}

/// Binds every present key of `fields` (in table order, each read even after
/// another failed); true when none reported a problem.
template <class Fields, class Target>
bool readFields(DocumentLoader& loader, const Fields& fields, const Entries& entries, Target& target) {
    bool ok = true;
    for (const auto& field : fields) {
        const Entry* e = findEntry(entries, field.key);
        if (!e || !field.bind || (field.onNull == OnNull::skip && e->value.node.IsNull())) continue;
        ok = field.bind(loader, field.spec, *e, target) && ok;
    }
    return ok;
}

// ValueSpec builders, so that a table reads as the format's documentation.
constexpr ValueSpec textValue() { return {ValueKind::text}; }
constexpr ValueSpec nonEmptyTextValue() { return {ValueKind::nonEmptyText}; }
constexpr ValueSpec textListValue() { return {ValueKind::textList}; }
constexpr ValueSpec integerValue(std::int64_t min, std::int64_t max) {
    return {ValueKind::integer, nullptr, {}, min, max};
}
constexpr ValueSpec booleanValue() { return {ValueKind::boolean}; }
constexpr ValueSpec choiceValue(NamesFn choices, std::string_view noun) { return {ValueKind::choice, choices, noun}; }
constexpr ValueSpec releaseValue(std::string_view noun) { return {ValueKind::release, nullptr, noun}; }
constexpr ValueSpec brokerVersionValue() { return {ValueKind::brokerVersion}; }
constexpr ValueSpec topicValue() { return {ValueKind::topic}; }
constexpr ValueSpec schemaRefValue(SchemaUse use) { return {ValueKind::schema, nullptr, {}, 0, 0, use}; }
constexpr ValueSpec schemaNameValue() { return {ValueKind::schemaName}; }
constexpr ValueSpec propertiesValue() { return {ValueKind::properties}; }
constexpr ValueSpec settingsValue(SettingScope scope) {
    return {ValueKind::settings, nullptr, {}, 0, 0, SchemaUse::admin, scope};
}
constexpr ValueSpec producerNameValue() { return {ValueKind::producerName}; }
constexpr ValueSpec clientValue() { return {ValueKind::client}; }
constexpr ValueSpec sectionValue(std::string_view noun) { return {ValueKind::section, nullptr, noun}; }
constexpr ValueSpec customValue(std::string_view noun) { return {ValueKind::custom, nullptr, noun}; }

}  // namespace cnx::sim::load
