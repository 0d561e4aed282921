// The `schemas` section, schema definitions (inline, KEY_VALUE, file) and the
// schema references of steps and assertions.
#include "broker_model/compat/key_value/key_value_check.h"
#include "sim/scenario/did_you_mean.h"
#include "sim/scenario/load/definition_file.h"
#include "sim/scenario/load/format.h"

namespace cnx::sim::load {
namespace {

bool isReservedSchemaName(std::string_view name) {
    return name == kNone || name == kAutoConsume || name == kAutoProduceBytes || schemaTypeFromName(name).has_value();
}

}  // namespace

void DocumentLoader::loadSchemas(const Value& v) {
    if (v.node.IsNull()) return;
    auto entries = entriesOf(ctx_, v);
    if (!entries) return;
    for (const Entry& e : *entries) {
        if (isReservedSchemaName(e.key)) {
            ctx_.error(e.keyPos, "schema name " + inQuotes(e.key) + " is reserved (a schema type or pseudo schema)");
            continue;
        }
        if (auto from = importedFrom_.find(e.key); from != importedFrom_.end()) {
            ctx_.error(e.keyPos, "schema " + inQuotes(e.key) + " is defined here and imported from " + from->second +
                                     " (defined at " + definedAt_.at(e.key).file + ":" + posText(definedAt_.at(e.key)) +
                                     "): rename one of them");
            continue;
        }
        pendingSchemas_.emplace(e.key, e.value);
        definedAt_.emplace(e.key, e.keyPos);
    }
    for (const Entry& e : *entries) {
        if (!pendingSchemas_.contains(e.key)) continue;
        resolveAlias(e.key, e.keyPos);
    }
}

// Resolves an alias declared under `schemas`, on first use, so that a
// KEY_VALUE may name components declared after it. nullopt (reported once)
// when its definition is bad; nullopt without report when it is undeclared.
std::optional<SchemaData> DocumentLoader::resolveAlias(const std::string& alias, const SourcePos& at) {
    if (auto it = s_.schemas.find(alias); it != s_.schemas.end()) return it->second.data;
    if (failedSchemas_.contains(alias)) return std::nullopt;
    auto pending = pendingSchemas_.find(alias);
    if (pending == pendingSchemas_.end()) return std::nullopt;
    if (resolving_.contains(alias)) {
        ctx_.error(at, "schema " + inQuotes(alias) + " refers to itself");
        failedSchemas_.insert(alias);
        return std::nullopt;
    }
    resolving_.insert(alias);
    Value v = pending->second;
    v.what = alias;
    auto data = definitionOf(v, 0);
    resolving_.erase(alias);
    if (!data) {
        failedSchemas_.insert(alias);
        return std::nullopt;
    }
    SchemaRef ref{SchemaRef::Kind::definition, *data, alias, v.pos};
    s_.schemas.emplace(alias, ref);
    return data;
}

std::optional<SchemaData> DocumentLoader::definitionOf(const Value& v, int depth) {
    if (!ctx_.spend(v.pos)) return std::nullopt;
    auto entries = entriesOf(ctx_, v);
    if (!entries) return std::nullopt;
    if (!rejectUnknown(ctx_, *entries, kDefinitionKeys, "a schema definition")) return std::nullopt;
    if (const Entry* file = findEntry(*entries, "file")) {
        bool alone = true;
        for (const Entry& e : *entries) {
            if (e.key == "file") continue;
            ctx_.error(e.keyPos, inQuotes(e.key) + " cannot be combined with 'file'");
            alone = false;
        }
        auto name = nonEmptyScalarOf(ctx_, file->value);
        if (!name || !alone) return std::nullopt;
        return loadDefinitionFile(ctx_, file->value, *name);
    }
    return inlineDefinition(*entries, v, depth);
}

std::optional<SchemaData> DocumentLoader::inlineDefinition(const Entries& entries, const Value& v, int depth) {
    if (!require(ctx_, entries, "type", v.pos, "a schema definition")) return std::nullopt;
    auto typeName = enumOf(ctx_, findEntry(entries, "type")->value, schemaTypeNames(), "schema type");
    if (!typeName) return std::nullopt;
    SchemaType type = *schemaTypeFromName(*typeName);
    if (type == SchemaType::KEY_VALUE) return keyValueDefinition(entries, v, depth);
    bool ok = true;
    for (std::string_view key : {"key", "value", "encoding"}) {
        if (const Entry* e = findEntry(entries, key)) {
            ctx_.error(e->keyPos, inQuotes(key) + " is only for KEY_VALUE schemas");
            ok = false;
        }
    }
    SchemaData data;
    data.type = type;
    if (const Entry* e = findEntry(entries, "schema"); e && !e->value.node.IsNull()) {
        auto text = scalarOf(ctx_, e->value);  // verbatim: validating it is the broker's job
        ok = ok && text.has_value();
        data.data = text.value_or("");
    }
    if (const Entry* e = findEntry(entries, "properties")) {
        auto props = propertiesOf(e->value);
        ok = ok && props.has_value();
        data.properties = props.value_or(SchemaProperties{});
    }
    if (!ok) return std::nullopt;
    return data;
}

std::optional<SchemaData> DocumentLoader::keyValueDefinition(const Entries& entries, const Value& v, int depth) {
    if (depth >= kMaxKeyValueDepth) {
        ctx_.error(v.pos, "KEY_VALUE schemas nested more than " + std::to_string(kMaxKeyValueDepth) + " levels deep");
        return std::nullopt;
    }
    const Entry* raw = findEntry(entries, "schema");
    const Entry* key = findEntry(entries, "key");
    const Entry* value = findEntry(entries, "value");
    std::optional<SchemaProperties> props = SchemaProperties{};
    if (const Entry* e = findEntry(entries, "properties")) props = propertiesOf(e->value);
    if (raw && (key || value)) {
        ctx_.error(raw->keyPos, "a KEY_VALUE schema takes 'key' and 'value' or a raw 'schema', not both");
        return std::nullopt;
    }
    if (raw) {  // raw KEY_VALUE bytes, passed verbatim
        auto text = scalarOf(ctx_, raw->value);
        if (!text || !props) return std::nullopt;
        return SchemaData{SchemaType::KEY_VALUE, *text, *props};
    }
    bool ok = require(ctx_, entries, "key", v.pos, "a KEY_VALUE schema");
    ok = require(ctx_, entries, "value", v.pos, "a KEY_VALUE schema") && ok;
    std::string encoding = "INLINE";
    if (const Entry* e = findEntry(entries, "encoding")) {
        auto enc = enumOf(ctx_, e->value, kEncodings, "KEY_VALUE encoding");
        ok = ok && enc.has_value();
        encoding = enc.value_or(encoding);
    }
    auto keyData = key ? componentOf(key->value, depth + 1) : std::nullopt;
    auto valueData = value ? componentOf(value->value, depth + 1) : std::nullopt;
    if (!ok || !keyData || !valueData || !props) return std::nullopt;
    SchemaData data = compat::encodeKeyValue(*keyData, *valueData, encoding);
    for (auto& [k, val] : *props) data.properties[k] = val;
    return data;
}

std::optional<SchemaData> DocumentLoader::componentOf(const Value& v, int depth) {
    if (v.node.IsMap()) return definitionOf(v, depth);
    auto ref = schemaRefOf(v, SchemaUse::component);
    if (!ref) return std::nullopt;
    return ref->data;
}

std::optional<SchemaProperties> DocumentLoader::propertiesOf(const Value& v) {
    if (v.node.IsNull()) return SchemaProperties{};
    auto entries = entriesOf(ctx_, v);
    if (!entries) return std::nullopt;
    SchemaProperties props;
    bool ok = true;
    for (const Entry& e : *entries) {
        auto text = e.value.node.IsNull() ? std::optional<std::string>("") : scalarOf(ctx_, e.value);
        ok = ok && text.has_value();
        if (text) props[e.key] = *text;
    }
    if (!ok) return std::nullopt;
    return props;
}

std::vector<std::string> DocumentLoader::schemaCandidates(SchemaUse use) const {
    std::vector<std::string> out;
    for (const auto& [alias, node] : pendingSchemas_) out.push_back(alias);
    for (const auto& [alias, file] : importedFrom_) out.push_back(alias);
    for (std::string_view p : primitiveNames()) out.emplace_back(p);
    switch (use) {
        case SchemaUse::producer:
            out.emplace_back(kNone);
            out.emplace_back(kAutoProduceBytes);
            break;
        case SchemaUse::subscribe:
            out.emplace_back(kNone);
            out.emplace_back(kAutoConsume);
            break;
        case SchemaUse::admin:
        case SchemaUse::component:
            break;
    }
    return out;
}

// A schema reference in a step: alias, inline mapping, primitive type name or pseudo schema.
std::optional<SchemaRef> DocumentLoader::schemaRefOf(const Value& v, SchemaUse use) {
    if (v.node.IsMap()) {
        auto data = definitionOf(v, 0);
        if (!data) return std::nullopt;
        return SchemaRef{SchemaRef::Kind::definition, *data, "", v.pos};
    }
    auto name = scalarOf(ctx_, v);
    if (!name) return std::nullopt;
    return namedSchema(*name, v, use);
}

std::optional<SchemaRef> DocumentLoader::namedSchema(const std::string& name, const Value& v, SchemaUse use) {
    SchemaRef ref{SchemaRef::Kind::definition, {}, name, v.pos};
    bool producer = use == SchemaUse::producer, subscribe = use == SchemaUse::subscribe;
    if (name == kNone && (producer || subscribe)) return SchemaRef{SchemaRef::Kind::none, {}, name, v.pos};
    if (name == kAutoConsume && subscribe) return SchemaRef{SchemaRef::Kind::autoConsume, {}, name, v.pos};
    if (name == kAutoProduceBytes && producer) return SchemaRef{SchemaRef::Kind::autoProduceBytes, {}, name, v.pos};
    if (name == kAutoConsume || name == kAutoProduceBytes || name == kNone) {
        std::string where = name == kAutoConsume ? "subscribe" : name == kAutoProduceBytes ? "producer" : "producer and subscribe";
        ctx_.error(v.pos, inQuotes(name) + " is only valid for " + where + " steps");
        return std::nullopt;
    }
    if (auto type = schemaTypeFromName(name)) {
        if (!isPrimitive(*type) || *type == SchemaType::NONE) {
            ctx_.error(v.pos, name + " needs a definition: declare it under 'schemas' or write { type: " + name +
                                  ", schema: ... }");
            return std::nullopt;
        }
        ref.data.type = *type;
        return ref;
    }
    if (auto data = resolveAlias(name, v.pos)) {
        ref.data = *data;
        return ref;
    }
    if (!failedSchemas_.contains(name) && !brokenImport_)
        ctx_.error(v.pos, "unknown schema " + inQuotes(name) + [&] {
            auto match = closestMatch(name, schemaCandidates(use));
            return match ? "; did you mean '" + *match + "'?" : std::string();
        }());
    return std::nullopt;
}

// An alias or primitive name whose definition an assertion compares against
// (`expect.schema`, `check.latest_schema`, `check.schema_versions`).
std::optional<SchemaData> DocumentLoader::schemaByName(const Value& v, bool allowNone, bool& isNone) {
    isNone = false;
    auto name = scalarOf(ctx_, v);
    if (!name) return std::nullopt;
    if (allowNone && *name == kNone) {
        isNone = true;
        return std::nullopt;
    }
    auto ref = namedSchema(*name, v, SchemaUse::admin);
    if (!ref) return std::nullopt;
    return ref->data;
}

}  // namespace cnx::sim::load
