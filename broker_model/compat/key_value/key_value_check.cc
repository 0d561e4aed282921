#include "broker_model/compat/key_value/key_value_check.h"

#include <cstdint>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "broker_model/compat/checker_set.h"
#include "broker_model/compat/json/json_nesting.h"

namespace cnx::compat {
namespace {

// §6.6 property names (`KeyValueSchemaInfo`).
constexpr const char* kKeySchemaType = "key.schema.type";
constexpr const char* kKeySchemaProps = "key.schema.properties";
constexpr const char* kValueSchemaType = "value.schema.type";
constexpr const char* kValueSchemaProps = "value.schema.properties";
constexpr const char* kEncodingType = "kv.encoding.type";

// §6.6 checker texts (`KeyValueSchemaCompatibilityCheck`, 2.5+).
constexpr std::string_view kToNotKeyValue = "To schema is not a KEY_VALUE schema.";
constexpr std::string_view kFromNotKeyValue = "From schema is not a KEY_VALUE schema.";

/// A Java exception the decoding code would throw: class and message
/// (empty when Java's message is null).
struct JavaException {
    std::string exceptionClass;
    std::string message;

    /// Throwable.toString(): "<class>" or "<class>: <message>".
    std::string toString() const { return message.empty() ? exceptionClass : exceptionClass + ": " + message; }
};

constexpr std::string_view kBufferUnderflow = "java.nio.BufferUnderflowException";

// ---------------------------------------------------------------------------
// `KeyValue.decode`: [int32 BE keyLen][key][int32 BE valueLen][value] read
// through a java.nio.ByteBuffer. Bytes after the value are ignored.

class ByteBufferReader {
public:
    explicit ByteBufferReader(std::string_view data) : data_(data) {}

    std::optional<JavaException> getInt(std::int32_t* out) {
        if (remaining() < 4) return JavaException{std::string(kBufferUnderflow), ""};
        std::uint32_t v = 0;
        for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(data_[pos_++]);
        *out = static_cast<std::int32_t>(v);
        return std::nullopt;
    }

    // `len == -1 ? null : new byte[len]` followed by `get(bytes)`. A null
    // component is represented as empty data (SchemaData cannot hold null).
    std::optional<JavaException> getBytes(std::int32_t len, std::string* out) {
        if (len == -1) return std::nullopt;
        if (len < 0) return JavaException{"java.lang.NegativeArraySizeException", std::to_string(len)};
        // HotSpot refuses arrays this close to Integer.MAX_VALUE outright. Smaller
        // over-long lengths are allocated first: with a heap too small for them the
        // broker gets "OutOfMemoryError: Java heap space" (#21645, a JSON text read
        // as KV data); we model the BufferUnderflowException a big heap reaches.
        if (len > 0x7FFFFFFD) return JavaException{"java.lang.OutOfMemoryError", "Requested array size exceeds VM limit"};
        if (static_cast<std::size_t>(len) > remaining()) return JavaException{std::string(kBufferUnderflow), ""};
        out->assign(data_.substr(pos_, static_cast<std::size_t>(len)));
        pos_ += static_cast<std::size_t>(len);
        return std::nullopt;
    }

private:
    std::size_t remaining() const { return data_.size() - pos_; }

    std::string_view data_;
    std::size_t pos_ = 0;
};

struct RawComponents {
    std::string key;
    std::string value;
};

std::variant<RawComponents, JavaException> splitKeyValueData(std::string_view data) {
    ByteBufferReader reader(data);
    RawComponents raw;
    std::int32_t len = 0;
    if (auto e = reader.getInt(&len)) return *e;
    if (auto e = reader.getBytes(len, &raw.key)) return *e;
    if (auto e = reader.getInt(&len)) return *e;
    if (auto e = reader.getBytes(len, &raw.value)) return *e;
    return raw;
}

// ---------------------------------------------------------------------------
// `KeyValueSchemaInfo.decodeSubSchemaInfo`: the component's type and properties.

const std::string* findProperty(const SchemaProperties& props, const char* name) {
    auto it = props.find(name);
    return it == props.end() ? nullptr : &it->second;
}

// `SchemaType.valueOf(props.getOrDefault(typeProperty, "BYTES"))`: missing ⇒
// BYTES, but a present empty or misspelt name throws.
std::variant<SchemaType, JavaException> componentType(const SchemaProperties& parent, const char* typeProperty) {
    const std::string* name = findProperty(parent, typeProperty);
    if (name == nullptr) return SchemaType::BYTES;
    if (auto t = schemaTypeFromName(*name)) return *t;
    return JavaException{"java.lang.IllegalArgumentException",
                         "No enum constant org.apache.pulsar.common.schema.SchemaType." + *name};
}

// Gson `JsonElement.getAsString()` of one property value. A one-element
// array answers for its element (Gson recurses; we loop, so depth costs no stack).
std::variant<std::string, JavaException> gsonAsString(const nlohmann::json& value) {
    const nlohmann::json* v = &value;
    while (v->is_array() && v->size() == 1) v = &(*v)[0];
    switch (v->type()) {
        case nlohmann::json::value_t::string: return v->get<std::string>();
        case nlohmann::json::value_t::boolean:
        case nlohmann::json::value_t::number_integer:
        case nlohmann::json::value_t::number_unsigned:
        case nlohmann::json::value_t::number_float: return v->dump();  // Gson keeps the literal; close enough
        case nlohmann::json::value_t::array:
            return JavaException{"java.lang.IllegalStateException",
                                 "Array must have size 1, but has size " + std::to_string(v->size())};
        case nlohmann::json::value_t::null: return JavaException{"java.lang.UnsupportedOperationException", "JsonNull"};
        case nlohmann::json::value_t::object:
        case nlohmann::json::value_t::binary:
        case nlohmann::json::value_t::discarded:
            return JavaException{"java.lang.UnsupportedOperationException", "JsonObject"};
    }
    return JavaException{"java.lang.UnsupportedOperationException", "JsonObject"};
}

// Nesting past what the broker's Gson survives (issue 7 item 6). Gson has no
// nesting limit before 2.11 (JsonReader.setNestingLimit, default 255), and its
// JsonElement reader and JsonElement.toString() recurse per level, so a deep
// enough document ends in StackOverflowError on the broker's thread. Which
// Gson each Pulsar release ships, and the depth at which its stack gives out,
// are UNCONFIRMED: we answer StackOverflowError past kMaxJsonNesting, so a
// document between that depth and Java's real limit is refused here although
// an old broker may accept it.
JavaException gsonTooDeep() { return JavaException{"java.lang.StackOverflowError", ""}; }

// `SchemaUtils.deserializeSchemaProperties` (Gson): a JSON object of strings.
std::variant<SchemaProperties, JavaException> parsePropertiesJson(const std::string& text) {
    if (text.find_first_not_of(" \t\r\n") == std::string::npos) return SchemaProperties{};  // Gson: empty document ⇒ null
    if (jsonNestsDeeperThan(text)) return gsonTooDeep();
    auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return JavaException{"com.google.gson.JsonSyntaxException", "malformed JSON: " + text};
    if (j.is_null()) return SchemaProperties{};  // Gson returns a null map; the components then have none
    if (!j.is_object()) {
        return JavaException{"java.lang.IllegalStateException",
                             "Not a JSON Object: " + j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
    }
    SchemaProperties out;
    for (const auto& [k, v] : j.items()) {
        auto s = gsonAsString(v);
        if (auto* e = std::get_if<JavaException>(&s)) return *e;
        out[k] = std::move(std::get<std::string>(s));
    }
    return out;
}

// Missing or empty ⇒ no properties (StringUtils.isEmpty).
std::variant<SchemaProperties, JavaException> componentProperties(const SchemaProperties& parent,
                                                                  const char* propsProperty) {
    const std::string* text = findProperty(parent, propsProperty);
    if (text == nullptr || text->empty()) return SchemaProperties{};
    return parsePropertiesJson(*text);
}

std::variant<SchemaData, JavaException> decodeComponent(const SchemaProperties& parent, const char* typeProperty,
                                                        const char* propsProperty, std::string bytes) {
    auto type = componentType(parent, typeProperty);
    if (auto* e = std::get_if<JavaException>(&type)) return *e;
    auto props = componentProperties(parent, propsProperty);
    if (auto* e = std::get_if<JavaException>(&props)) return *e;
    return SchemaData{std::get<SchemaType>(type), std::move(bytes), std::move(std::get<SchemaProperties>(props))};
}

// §6.6: INLINE when the property is missing or empty; otherwise its text as
// given (the broker never interprets it, so an unknown name is not an error).
std::string encodingOf(const SchemaProperties& props) {
    const std::string* e = findProperty(props, kEncodingType);
    return (e == nullptr || e->empty()) ? "INLINE" : *e;
}

/// `KeyValueSchemaCompatibilityCheck.decodeKeyValueSchemaData`, in Java's order:
/// type check, layout, key type, key properties, value type, value properties.
std::variant<KeyValueComponents, JavaException> decodeComponents(const SchemaData& schema) {
    if (schema.type != SchemaType::KEY_VALUE) {
        return JavaException{"java.lang.IllegalArgumentException", "Not a KeyValue schema"};
    }
    auto raw = splitKeyValueData(schema.data);
    if (auto* e = std::get_if<JavaException>(&raw)) return *e;
    auto& parts = std::get<RawComponents>(raw);
    auto key = decodeComponent(schema.properties, kKeySchemaType, kKeySchemaProps, std::move(parts.key));
    if (auto* e = std::get_if<JavaException>(&key)) return *e;
    auto value = decodeComponent(schema.properties, kValueSchemaType, kValueSchemaProps, std::move(parts.value));
    if (auto* e = std::get_if<JavaException>(&value)) return *e;
    return KeyValueComponents{std::move(std::get<SchemaData>(key)), std::move(std::get<SchemaData>(value)),
                              encodingOf(schema.properties)};
}

// ---------------------------------------------------------------------------
// Encoding (the inverse), as `KeyValueSchemaInfo.encodeKeyValueSchemaInfo`.

void putInt(std::string& out, std::uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xFF));
}

void appendGsonEscaped(std::string& out, unsigned char c) {
    static constexpr char kHex[] = "0123456789abcdef";
    switch (c) {
        case '"': out += "\\\""; return;
        case '\\': out += "\\\\"; return;
        case '\n': out += "\\n"; return;
        case '\r': out += "\\r"; return;
        case '\t': out += "\\t"; return;
        case '\b': out += "\\b"; return;
        case '\f': out += "\\f"; return;
        default: break;
    }
    // Gson's default HTML-safe escaping also covers < > & = '.
    if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == '=' || c == '\'') {
        out += "\\u00";
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 0xF]);
        return;
    }
    out.push_back(static_cast<char>(c));
}

void appendGsonString(std::string& out, const std::string& s) {
    out.push_back('"');
    for (unsigned char c : s) appendGsonEscaped(out, c);
    out.push_back('"');
}

// `SchemaUtils.serializeSchemaProperties`: compact Gson JSON of the sorted map.
std::string serializeSchemaProperties(const SchemaProperties& props) {
    std::string out = "{";
    for (const auto& [k, v] : props) {
        if (out.size() > 1) out.push_back(',');
        appendGsonString(out, k);
        out.push_back(':');
        appendGsonString(out, v);
    }
    out.push_back('}');
    return out;
}

// ---------------------------------------------------------------------------
// The checker (§6.6).

std::vector<Problem> prefixed(std::vector<Problem> problems, std::string_view component) {
    for (auto& p : problems) p.path = std::string(component) + p.path;
    return problems;
}

CheckResult decodeError(const JavaException& e) {
    // A RuntimeException, not IncompatibleSchemaException: the checker throws
    // instead of answering, so this is Verdict::error (the registry wraps it, §4.6).
    return CheckResult::error(e.exceptionClass, e.message);
}

CheckResult differentTypes(const KeyValueComponents& from, const KeyValueComponents& to) {
    std::string message = "Key schemas or Value schemas are different schema type, from key schema type is " +
                          std::string(to_string_view(from.key.type)) + " and to key schema is " +
                          std::string(to_string_view(to.key.type)) + ", from value schema is " +
                          std::string(to_string_view(from.value.type)) + " and to value schema is " +
                          std::string(to_string_view(to.value.type));
    Problem p{"type_mismatch", from.key.type != to.key.type ? "/key" : "/value",
              "key/value component types differ", "", ""};
    return CheckResult::incompatible(std::move(message), {std::move(p)});
}

CheckResult notKeyValue(std::string_view message, std::string_view path) {
    return CheckResult::incompatible(std::string(message),
                                     {{"type_mismatch", std::string(path), "not a KEY_VALUE schema", "", ""}});
}

class KeyValueCheck final : public SchemaCompatibilityCheck {
public:
    explicit KeyValueCheck(const CheckerSet& components) : components_(components) {}

    // Java delegates the pair to the list entry point with a one-element list.
    CheckResult checkCompatible(const SchemaData& existing, const SchemaData& candidate,
                                CompatibilityStrategy strategy, const CheckOptions& options) const override {
        return checkCompatible(std::span<const SchemaData>(&existing, 1), candidate, strategy, options);
    }

    CheckResult checkCompatible(std::span<const SchemaData> existing, const SchemaData& candidate,
                                CompatibilityStrategy strategy, const CheckOptions& options) const override {
        if (strategy == CompatibilityStrategy::ALWAYS_COMPATIBLE) return CheckResult::compatible();
        if (candidate.type != SchemaType::KEY_VALUE) return notKeyValue(kToNotKeyValue, "");
        auto to = decodeComponents(candidate);
        if (auto* e = std::get_if<JavaException>(&to)) return decodeError(*e);
        return checkAgainst(existing, std::get<KeyValueComponents>(to), strategy, options);
    }

private:
    CheckResult checkAgainst(std::span<const SchemaData> existing, const KeyValueComponents& to,
                             CompatibilityStrategy strategy, const CheckOptions& options) const {
        // Java builds the component lists with addFirst, i.e. newest first; we
        // pass them in that same order so component checkers see what Java's see.
        std::vector<SchemaData> keys;
        std::vector<SchemaData> values;
        for (const auto& entry : existing) {
            if (entry.type != SchemaType::KEY_VALUE) return notKeyValue(kFromNotKeyValue, "");
            auto from = decodeComponents(entry);
            if (auto* e = std::get_if<JavaException>(&from)) return decodeError(*e);
            auto& kv = std::get<KeyValueComponents>(from);
            if (kv.key.type != to.key.type || kv.value.type != to.value.type) return differentTypes(kv, to);
            keys.insert(keys.begin(), std::move(kv.key));
            values.insert(values.begin(), std::move(kv.value));
        }
        auto r = checkComponent(keys, to.key, "/key", strategy, options);
        if (!r.ok()) return r;
        return checkComponent(values, to.value, "/value", strategy, options);
    }

    // `checkers.getOrDefault(type, DEFAULT)` over the component list, same strategy.
    CheckResult checkComponent(const std::vector<SchemaData>& from, const SchemaData& to, std::string_view path,
                               CompatibilityStrategy strategy, const CheckOptions& options) const {
        auto r = components_.forType(to.type).checkCompatible(std::span<const SchemaData>(from), to, strategy, options);
        r.problems = prefixed(std::move(r.problems), path);
        return r;
    }

    const CheckerSet& components_;
};

}  // namespace

std::unique_ptr<SchemaCompatibilityCheck> makeKeyValueCheck(const CheckerSet& components) {
    return std::make_unique<KeyValueCheck>(components);
}

std::optional<KeyValueComponents> decodeKeyValue(const SchemaData& schema, std::string* error) {
    auto result = decodeComponents(schema);
    if (auto* e = std::get_if<JavaException>(&result)) {
        if (error != nullptr) *error = e->toString();
        return std::nullopt;
    }
    return std::move(std::get<KeyValueComponents>(result));
}

// Component names (`key.schema.name`) are not written: SchemaData carries no
// name and the broker reads them only into SchemaInfo names it never compares.
SchemaData encodeKeyValue(const SchemaData& key, const SchemaData& value, std::string_view encoding) {
    SchemaData out;
    out.type = SchemaType::KEY_VALUE;
    putInt(out.data, static_cast<std::uint32_t>(key.data.size()));
    out.data += key.data;
    putInt(out.data, static_cast<std::uint32_t>(value.data.size()));
    out.data += value.data;
    out.properties[kKeySchemaType] = std::string(to_string_view(key.type));
    out.properties[kKeySchemaProps] = serializeSchemaProperties(key.properties);
    out.properties[kValueSchemaType] = std::string(to_string_view(value.type));
    out.properties[kValueSchemaProps] = serializeSchemaProperties(value.properties);
    out.properties[kEncodingType] = std::string(encoding);
    return out;
}

}  // namespace cnx::compat
