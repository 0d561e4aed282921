#include "sim/clients/admin_client.h"

#include "broker_model/admin/schema_payload.h"
#include "broker_model/core/compatibility_strategy.h"
#include "broker_model/core/schema_type.h"
#include "broker_model/core/utf8.h"

namespace cnx::sim {
namespace {

using Json = nlohmann::json;

// Makes `o` the refusal of an answer that is not what the endpoint sends; its trace is kept.
void setBadResponse(Observed& o, int status, const std::string& why) {
    o.ok = false;
    o.error = "BadResponse";
    o.message = "HTTP " + std::to_string(status) + ": " + why;
    o.httpStatus = status;
}

std::optional<std::int64_t> integerField(const Json& body, const char* name) {
    if (!body.is_object()) return std::nullopt;
    auto it = body.find(name);
    if (it == body.end() || !it->is_number_integer()) return std::nullopt;
    return it->get<std::int64_t>();
}

// Whether the body's JSON text, parsed again, reads as the body itself: true
// when every string (keys too) is well-formed UTF-8, which the dump would
// replace otherwise, and no number is a float (NaN and infinities dump as
// null). Integers may come back unsigned, which reads the same here.
bool travelsUnchanged(const Json& j) {
    switch (j.type()) {
        case Json::value_t::null:
        case Json::value_t::boolean:
        case Json::value_t::number_integer:
        case Json::value_t::number_unsigned: return true;
        case Json::value_t::string: return wellFormedUtf8(j.get_ref<const std::string&>());
        case Json::value_t::array:
            for (const auto& e : j)
                if (!travelsUnchanged(e)) return false;
            return true;
        case Json::value_t::object:
            // The object's own map: items() builds a proxy (with a string) for each member.
            for (const auto& [k, v] : j.get_ref<const Json::object_t&>())
                if (!wellFormedUtf8(k) || !travelsUnchanged(v)) return false;
            return true;
        case Json::value_t::number_float:
        case Json::value_t::binary:
        case Json::value_t::discarded: return false;
    }
    return false;
}

// The body as the client reads it: a body that would come back from its JSON
// text as it is is taken as it is; another is serialised and parsed again.
// False when the text does not parse.
bool travelledBody(Json sent, Json& read) {
    if (travelsUnchanged(sent)) {
        read = std::move(sent);
        return true;
    }
    auto text = sent.dump(-1, ' ', false, Json::error_handler_t::replace);
    read = Json::parse(text, nullptr, false);
    return !read.is_discarded();
}

// A status outside 2xx: RestException bodies carry {"reason": …}; bare
// responses only the reason phrase (§7.2).
void readRefusal(const Json& body, int status, const std::string& reason, Observed& o) {
    o.ok = false;
    o.error = std::to_string(status);
    if (body.is_object() && body.contains("reason") && body["reason"].is_string())
        o.message = body["reason"].get<std::string>();
    else
        o.message = reason;
}

// POST …/schema: PostSchemaResponse {"version": {"version": n}} (§7.2).
void readUploadAnswer(const Json& body, int status, Observed& o) {
    const Json* inner = body.is_object() && body.contains("version") ? &body["version"] : nullptr;
    auto v = inner ? integerField(*inner, "version") : std::nullopt;
    if (v) o.schemaVersion = *v;
    else setBadResponse(o, status, "POST schema answer without {\"version\": {\"version\": n}}");
}

// GET …/schema: GetSchemaResponse.
void readGetSchemaAnswer(const Json& body, int status, Observed& o) {
    std::string why;
    auto parsed = schemaFromGetSchemaResponse(body, &why);
    if (!parsed) {
        setBadResponse(o, status, why);
        return;
    }
    o.schemaVersion = parsed->first;
    o.schema = std::move(parsed->second);
}

// POST …/version and DELETE …/schema: {"version": n}.
void readVersionAnswer(const Json& body, int status, Observed& o) {
    auto v = integerField(body, "version");
    if (v) o.schemaVersion = *v;
    else setBadResponse(o, status, "answer without an integer 'version'");
}

// POST …/compatibility: IsCompatibilityResponse.
void readCompatibilityAnswer(const Json& body, int status, Observed& o) {
    bool shaped = body.is_object() && body.contains("compatibility") && body["compatibility"].is_boolean() &&
                  body.contains("schemaCompatibilityStrategy") && body["schemaCompatibilityStrategy"].is_string();
    if (!shaped) {
        setBadResponse(o, status, "IsCompatibilityResponse without its two fields");
        return;
    }
    auto strategy = compatibilityStrategyFromName(body["schemaCompatibilityStrategy"].get<std::string>());
    if (!strategy) {
        setBadResponse(o, status, "unknown schemaCompatibilityStrategy");
        return;
    }
    o.compatible = body["compatibility"].get<bool>();
    o.strategy = *strategy;
}

// A 2xx answer, read as the endpoint of `call` documents it.
void readAnswer(AdminCall call, const Json& body, int status, Observed& o) {
    switch (call) {
        case AdminCall::uploadSchema: return readUploadAnswer(body, status, o);
        case AdminCall::getSchema: return readGetSchemaAnswer(body, status, o);
        case AdminCall::getSchemaVersion:
        case AdminCall::deleteSchema: return readVersionAnswer(body, status, o);
        case AdminCall::testCompatibility: return readCompatibilityAnswer(body, status, o);
        case AdminCall::deleteTopic:
        case AdminCall::setPolicy:
        case AdminCall::setBrokerConfig:
        case AdminCall::unloadTopic: return;
    }
}

}  // namespace

std::optional<std::pair<std::int64_t, SchemaData>> schemaFromGetSchemaResponse(const Json& body, std::string* error) {
    auto fail = [error](std::string why) -> std::optional<std::pair<std::int64_t, SchemaData>> {
        if (error) *error = std::move(why);
        return std::nullopt;
    };
    if (!body.is_object()) return fail("the body is not a GetSchemaResponse object");
    auto version = integerField(body, "version");
    if (!version) return fail("GetSchemaResponse without an integer 'version'");
    if (!body.contains("type") || !body["type"].is_string()) return fail("GetSchemaResponse without a 'type' name");
    auto type = schemaTypeFromName(body["type"].get<std::string>());
    if (!type) return fail("GetSchemaResponse with an unknown type '" + body["type"].get<std::string>() + "'");
    if (!body.contains("timestamp") || !body["timestamp"].is_number_integer())
        return fail("GetSchemaResponse without an integer 'timestamp'");
    if (!body.contains("data") || !body["data"].is_string()) return fail("GetSchemaResponse without a 'data' text");
    SchemaData schema;
    schema.type = *type;
    if (body.contains("properties")) {
        const auto& props = body["properties"];
        if (!props.is_object()) return fail("GetSchemaResponse 'properties' is not an object");
        for (const auto& [k, v] : props.items()) {
            if (!v.is_string()) return fail("GetSchemaResponse property '" + k + "' is not a string");
            schema.properties[k] = v.get<std::string>();
        }
    }
    const auto data = body["data"].get<std::string>();
    if (*type != SchemaType::KEY_VALUE) {
        schema.data = data;
        return std::pair{*version, std::move(schema)};
    }
    std::string why;
    auto kv = keyValueDataFromRendering(data, &why);
    if (!kv) return fail("KEY_VALUE 'data': " + why);
    schema.data = std::move(*kv);
    return std::pair{*version, std::move(schema)};
}

rest::Params topicParams(const TopicName& topic) {
    return {{"domain", topic.persistent() ? "persistent" : "non-persistent"},
            {"tenant", std::string(topic.tenant())},
            {"namespace", std::string(topic.namespacePortion())},
            {"topic", std::string(topic.localName())}};
}

rest::Params namespaceParams(const std::string& ns) {
    auto slash = ns.find('/');
    if (slash == std::string::npos) return {{"tenant", ns}};
    return {{"tenant", ns.substr(0, slash)}, {"namespace", ns.substr(slash + 1)}};
}

std::optional<AdminRequest> adminRequest(rest::Call call, const rest::Params& params, std::optional<std::string> body,
                                         const std::vector<std::pair<std::string, std::string>>& flags,
                                         std::string_view leaf) {
    const auto* route = rest::routeOf(call, leaf);
    if (!route || route->method == rest::Method::any || route->method == rest::Method::other) return std::nullopt;
    auto target = rest::buildTarget(*route, params, flags);
    if (!target) return std::nullopt;
    return AdminRequest{std::string(to_string_view(route->method)), std::move(*target), std::move(body)};
}

std::optional<AdminRequest> policyRequest(const rest::PolicyLeaf& policy, bool topicLevel, const rest::Params& params,
                                          const std::optional<std::string>& value) {
    using C = rest::Call;
    auto set = topicLevel ? C::setTopicPolicy : C::setNamespacePolicy;
    if (value) {
        auto body = policy.body == rest::BodyKind::text ? Json(*value).dump() : *value;
        return adminRequest(set, params, std::move(body), {}, policy.leaf);
    }
    if (auto r = adminRequest(topicLevel ? C::removeTopicPolicy : C::removeNamespacePolicy, params, std::nullopt, {},
                              policy.leaf))
        return r;
    if (policy.unsetBody.empty()) return std::nullopt;
    return adminRequest(set, params, std::string(policy.unsetBody), {}, policy.leaf);
}

Observed observeAdmin(AdminCall call, AdminResponse response) {
    // What travels: the status, the reason phrase and the body's JSON text.
    // One Observed is built and returned (no moves of it).
    Observed o;
    Json body;
    if (!travelledBody(std::move(response.body), body)) {
        setBadResponse(o, response.status, "the body is not JSON");
        return o;
    }
    // The trace is the response's own unless something else still holds it.
    if (response.trace.use_count() == 1) o.trace = std::move(*response.trace);
    else o.trace = *response.trace;
    o.httpStatus = response.status;
    if (response.status < 200 || response.status >= 300) readRefusal(body, response.status, response.reason, o);
    else readAnswer(call, body, response.status, o);
    return o;
}

}  // namespace cnx::sim
