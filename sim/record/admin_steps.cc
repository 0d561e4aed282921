#include "sim/record/admin_steps.h"

#include <charconv>
#include <map>
#include <vector>

#include <nlohmann/json.hpp>

#include "broker_model/admin/schema_payload.h"
#include "broker_model/core/topic_name.h"
#include "sim/clients/admin_client.h"
#include "sim/serve/http/request_target.h"

namespace cnx::record {
namespace {

using Json = nlohmann::json;
using sim::AdminCall;

using Target = serve::http::RequestTarget;

bool isTrue(const Target& t, const char* key) { return serve::http::queryIsTrue(t, key); }

sim::Observed observe(AdminCall call, const serve::AdminExchange& x) {
    AdminResponse r;
    r.status = x.status;
    if (!x.responseBody.empty()) {
        auto body = Json::parse(x.responseBody, nullptr, false);
        if (!body.is_discarded()) r.body = std::move(body);
    }
    r.reason = x.reason;
    auto o = sim::observeAdmin(call, r);
    o.trace = {};
    return o;
}

RecordedStep step(std::string action, sim::Action body, sim::Observed observed) {
    RecordedStep r;
    r.step.action = std::move(action);
    r.step.body = std::move(body);
    r.observed = std::move(observed);
    return r;
}

// A JSON body's scalar as the scenario writes it: "BACKWARD" -> BACKWARD, true -> true.
std::optional<std::string> scalarBody(const std::string& body) {
    auto j = Json::parse(body, nullptr, false);
    if (j.is_discarded()) return std::nullopt;
    if (j.is_string()) return j.get<std::string>();
    if (j.is_boolean()) return j.get<bool>() ? "true" : "false";
    return std::nullopt;
}

// /admin/v2/namespaces/{t}/{ns}/{policy} and /admin/v2/{domain}/{t}/{ns}/{topic}/{policy}: the field set.
std::optional<AdminEffect> policyEffect(const serve::AdminExchange& x, const Target& t, bool topicLevel) {
    static const std::map<std::string, std::string> kFields{
        {"schemaCompatibilityStrategy", "schema_compatibility_strategy"},
        {"schemaAutoUpdateCompatibilityStrategy", "schema_auto_update_compatibility_strategy"},
        {"isAllowAutoUpdateSchema", "is_allow_auto_update_schema"},
        {"schemaValidationEnforced", "schema_validation_enforced"},
    };
    const std::string& policy = t.segments.back();
    auto field = kFields.find(policy);
    if (field == kFields.end() || x.method == "GET") return std::nullopt;
    sim::Setting setting;
    setting.key = field->second;
    if (x.method != "DELETE") {
        auto value = scalarBody(x.requestBody);
        if (!value) return std::nullopt;  // not a body Pulsar takes: nothing a step can say
        setting.value = *value;
    }
    sim::SetPolicyStep body;
    if (topicLevel) body.topic = t.segments[2] + "://" + t.segments[3] + "/" + t.segments[4] + "/" + t.segments[5];
    else body.namespaceName = t.segments[3] + "/" + t.segments[4];
    body.settings.push_back(std::move(setting));
    AdminEffect e;
    e.step = step("set-policy", body, observe(AdminCall::setPolicy, x));
    return e;
}

std::optional<AdminEffect> schemaEffect(const serve::AdminExchange& x, const Target& t, SchemaAliases& aliases) {
    std::string topic = "persistent://" + t.segments[3] + "/" + t.segments[4] + "/" + t.segments[5];
    auto schemaOfBody = [&]() -> std::optional<sim::SchemaRef> {
        auto parsed = schemaFromPostPayload(x.requestBody);
        if (auto* s = std::get_if<SchemaData>(&parsed)) return aliases.refFor(*s, topic);
        return std::nullopt;  // a refused payload: the format cannot write it
    };
    AdminEffect e;
    const std::string& what = t.segments[6];
    if (what == "schema" && t.segments.size() == 7) {
        if (x.method == "GET") e.step = step("get-schema", sim::GetSchemaStep{topic, {}, "admin", {}}, observe(AdminCall::getSchema, x));
        if (x.method == "DELETE")
            e.step = step("delete-schema", sim::DeleteSchemaStep{topic, isTrue(t, "force")},
                          observe(AdminCall::deleteSchema, x));
        if (x.method == "POST") {
            auto ref = schemaOfBody();
            if (!ref) return std::nullopt;
            e.step = step("upload-schema", sim::UploadSchemaStep{topic, *ref}, observe(AdminCall::uploadSchema, x));
        }
    } else if (what == "schema" && t.segments.size() == 8 && x.method == "GET") {
        std::int64_t version = 0;
        auto [p, ec] = std::from_chars(t.segments[7].data(), t.segments[7].data() + t.segments[7].size(), version);
        if (ec != std::errc() || p != t.segments[7].data() + t.segments[7].size() || version < 0) return std::nullopt;
        e.step = step("get-schema", sim::GetSchemaStep{topic, version, "admin", {}}, observe(AdminCall::getSchema, x));
    } else if ((what == "compatibility" || what == "version") && t.segments.size() == 7 && x.method == "POST") {
        auto ref = schemaOfBody();
        if (!ref) return std::nullopt;
        if (what == "version")
            e.step = step("get-schema-version", sim::GetSchemaVersionStep{topic, *ref},
                          observe(AdminCall::getSchemaVersion, x));
        else
            e.step = step("test-compatibility", sim::TestCompatibilityStep{topic, *ref},
                          observe(AdminCall::testCompatibility, x));
    }
    if (!e.step) return std::nullopt;
    return e;
}

std::optional<AdminEffect> topicEffect(const serve::AdminExchange& x, const Target& t) {
    std::string topic = t.segments[2] + "://" + t.segments[3] + "/" + t.segments[4] + "/" + t.segments[5];
    if (!TopicName::parse(topic)) return std::nullopt;
    AdminEffect e;
    bool partitionsPath = t.segments.size() == 7 && t.segments[6] == "partitions";
    if (x.method == "DELETE" && (t.segments.size() == 6 || partitionsPath)) {
        e.step = step("delete-topic", sim::DeleteTopicStep{topic, isTrue(t, "force"), isTrue(t, "deleteSchema")},
                      observe(AdminCall::deleteTopic, x));
    } else if (x.method == "PUT" && t.segments.size() == 7 && t.segments[6] == "unload") {
        e.step = step("unload", sim::UnloadStep{topic}, observe(AdminCall::unloadTopic, x));
    } else if (x.method == "PUT" && (t.segments.size() == 6 || partitionsPath)) {
        if (x.status / 100 != 2 && x.status != 409) return std::nullopt;
        int partitions = 0;
        if (partitionsPath) {
            auto j = Json::parse(x.requestBody, nullptr, false);
            if (j.is_discarded() || !j.is_number_integer()) return std::nullopt;
            partitions = j.get<int>();
        }
        e.createdTopic = topic;
        e.partitions = partitions;
    } else if (t.segments.size() == 7) {
        return policyEffect(x, t, true);
    }
    if (!e.step && !e.createdTopic) return std::nullopt;
    return e;
}

std::optional<AdminEffect> brokerEffect(const serve::AdminExchange& x, const Target& t) {
    if (t.segments.size() < 5 || t.segments[3] != "configuration") return std::nullopt;
    sim::SetBrokerConfigStep body;
    if (x.method == "POST" && t.segments.size() == 6) body.settings.push_back({t.segments[4], t.segments[5], {}});
    else if (x.method == "DELETE" && t.segments.size() == 5) body.settings.push_back({t.segments[4], std::nullopt, {}});
    else return std::nullopt;
    AdminEffect e;
    e.step = step("set-broker-config", body, observe(AdminCall::setBrokerConfig, x));
    return e;
}

std::optional<AdminEffect> cnxsimEffect(const serve::AdminExchange& x, const Target& t) {
    if (t.segments.size() != 2 || x.method != "POST" || x.status / 100 != 2) return std::nullopt;
    AdminEffect e;
    if (t.segments[1] == "restart") e.step = step("restart-broker", sim::RestartBrokerStep{}, sim::Observed::success());
    auto version = t.query.find("version");
    if (t.segments[1] == "upgrade" && version != t.query.end())
        e.step = step("upgrade-broker", sim::UpgradeBrokerStep{version->second}, sim::Observed::success());
    if (!e.step) return std::nullopt;
    return e;
}

}  // namespace

AdminEffect adminEffect(const serve::AdminExchange& x, SchemaAliases& aliases) {
    auto t = serve::http::parseRequestTarget(x.target);
    if (!t) return {};
    const auto& s = t->segments;
    std::optional<AdminEffect> e;
    if (s.size() >= 2 && s[0] == "cnxsim") {
        e = cnxsimEffect(x, *t);
    } else if (s.size() >= 3 && s[0] == "admin" && s[1] == "v2") {
        if (s[2] == "schemas" && s.size() >= 7) e = schemaEffect(x, *t, aliases);
        else if ((s[2] == "persistent" || s[2] == "non-persistent") && s.size() >= 6) e = topicEffect(x, *t);
        else if (s[2] == "brokers") e = brokerEffect(x, *t);
        else if (s[2] == "namespaces" && s.size() == 6) e = policyEffect(x, *t, false);
        else if (s[2] == "namespaces" && s.size() == 5 && x.method == "PUT" && (x.status / 100 == 2 || x.status == 409)) {
            AdminEffect created;
            created.createdNamespace = s[3] + "/" + s[4];
            e = created;
        }
    }
    return e.value_or(AdminEffect{});
}

}  // namespace cnx::record
