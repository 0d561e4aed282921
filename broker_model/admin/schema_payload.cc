#include "broker_model/admin/schema_payload.h"

#include "broker_model/compat/json/json_nesting.h"
#include "broker_model/compat/key_value/key_value_check.h"
#include "broker_model/core/schema_type.h"

namespace cnx {
namespace {

// A component keeps its key order when written back, as Gson's JsonObject does.
using OrderedJson = nlohmann::ordered_json;

// One KEY_VALUE component of the rendering, back to its bytes: "" is a
// primitive (no bytes), other text is taken as written, a JSON schema compactly.
std::optional<std::string> componentBytes(const OrderedJson& c) {
    if (c.is_string()) return c.get<std::string>();
    if (c.is_object() || c.is_array()) return c.dump();
    return std::nullopt;
}

}  // namespace

std::variant<nlohmann::json, PayloadError> parseAdminJson(std::string_view body) {
    // Jackson 2.15+ (jackson-core#943) refuses the document at the first level
    // past the limit with StreamConstraintsException, a JsonProcessingException:
    // Jersey's JsonParseExceptionMapper answers it 400.
    if (compat::jsonNestsDeeperThan(body)) return PayloadError{400, compat::jacksonNestingMessage()};
    try {
        return nlohmann::json::parse(body);
    } catch (const nlohmann::json::parse_error& e) {
        // The text may quote the body's bytes (invalid UTF-8 included): whoever
        // writes it as JSON writes it with a non-throwing dump.
        return PayloadError{400, std::string("Unable to parse the request body as JSON: ") + e.what()};
    }
}

std::optional<std::string> keyValueDataFromRendering(std::string_view text, std::string* error) {
    // The components are written back with dump(), which recurses per level:
    // the rendering is measured before it is parsed (issue 40 item 1).
    if (compat::jsonNestsDeeperThan(text)) {
        if (error) *error = compat::jacksonNestingMessage();
        return std::nullopt;
    }
    auto kv = OrderedJson::parse(text, nullptr, false);
    if (kv.is_discarded() || !kv.is_object() || !kv.contains("key") || !kv.contains("value")) {
        if (error) *error = "KEY_VALUE data is not a {\"key\": …, \"value\": …} object";
        return std::nullopt;
    }
    auto key = componentBytes(kv["key"]);
    auto value = componentBytes(kv["value"]);
    if (!key || !value) {
        if (error) *error = "KEY_VALUE data has a component that is neither a schema nor \"\"";
        return std::nullopt;
    }
    return compat::encodeKeyValue(SchemaData{SchemaType::BYTES, *key, {}}, SchemaData{SchemaType::BYTES, *value, {}},
                                  "INLINE")
        .data;
}

std::variant<SchemaData, PayloadError> schemaFromPostPayload(std::string_view body) {
    // Jackson's refusal of a body that is not the payload: 400 (JsonMappingException).
    auto parsed = parseAdminJson(body);
    if (auto* e = std::get_if<PayloadError>(&parsed)) return std::move(*e);
    auto& json = std::get<nlohmann::json>(parsed);
    if (!json.is_object()) return PayloadError{400, "The request body is not a PostSchemaPayload object"};
    SchemaData schema;
    std::string typeName = "NONE";
    if (auto t = json.find("type"); t != json.end() && !t->is_null()) {
        if (!t->is_string()) return PayloadError{400, "PostSchemaPayload 'type' is not a text"};
        typeName = t->get<std::string>();
    }
    // §7.2: the Java enum's name lookup; an unknown name is an argument error, 500.
    auto type = schemaTypeFromName(typeName);
    if (!type) return PayloadError{500, "No enum constant org.apache.pulsar.common.schema.SchemaType." + typeName};
    schema.type = *type;
    if (auto s = json.find("schema"); s != json.end() && !s->is_null()) {
        if (!s->is_string()) return PayloadError{400, "PostSchemaPayload 'schema' is not a text"};
        schema.data = s->get<std::string>();
    }
    if (auto p = json.find("properties"); p != json.end() && !p->is_null()) {
        if (!p->is_object()) return PayloadError{400, "PostSchemaPayload 'properties' is not an object"};
        for (const auto& [k, v] : p->items()) {
            if (!v.is_string()) return PayloadError{400, "PostSchemaPayload property '" + k + "' is not a text"};
            schema.properties[k] = v.get<std::string>();
        }
    }
    if (schema.type == SchemaType::KEY_VALUE) {
        std::string error;
        // A component nested past Jackson's limit: the same 400 as a deep body (issue 40 item 1).
        if (compat::jsonNestsDeeperThan(schema.data)) return PayloadError{400, compat::jacksonNestingMessage()};
        auto data = keyValueDataFromRendering(schema.data, &error);
        if (!data) return PayloadError{500, error};
        schema.data = std::move(*data);
    }
    return schema;
}

// §7.2: KEY_VALUE data is rendered back as {"key": ..., "value": ...}; a
// primitive component is "".
std::string renderAdminSchemaData(const SchemaData& schema) {
    if (schema.type != SchemaType::KEY_VALUE) return schema.data;
    std::string error;
    auto kv = compat::decodeKeyValue(schema, &error);
    if (!kv) return schema.data;
    // A component that is not JSON, or nests deeper than the shared limit
    // (issue 7 item 6: dump() recurses per level), is rendered as its text.
    // Jackson 2.15+ would refuse such a component in readTree; the broker's
    // answer to that (an HTTP 500?) is UNCONFIRMED, and the text is what a
    // reader of the response can use.
    // Gson keeps a component's key order (and writes it compactly): ordered_json, not json.
    using Ordered = nlohmann::ordered_json;
    auto component = [](const SchemaData& c) -> Ordered {
        if (c.data.empty()) return "";
        if (compat::jsonNestsDeeperThan(c.data)) return c.data;
        auto parsed = Ordered::parse(c.data, nullptr, false);
        return parsed.is_discarded() ? Ordered(c.data) : parsed;
    };
    // Invalid UTF-8 in a component's bytes becomes U+FFFD, as Java's new String(bytes, UTF_8) does.
    return Ordered{{"key", component(kv->key)}, {"value", component(kv->value)}}.dump(
        -1, ' ', false, Ordered::error_handler_t::replace);
}

}  // namespace cnx
