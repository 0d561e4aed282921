#include "sim/record/admin_steps.h"

#include <charconv>
#include <vector>

#include <nlohmann/json.hpp>

#include "broker_model/admin/schema_payload.h"
#include "broker_model/core/topic_name.h"
#include "sim/clients/admin_client.h"
#include "sim/rest/admin_routes_table.h"
#include "sim/net/request_target.h"

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

// A request the route table resolved, with the exchange it came in.
struct Classified {
    const serve::AdminExchange& x;
    const Target& target;
    const rest::Route& route;
    const rest::Params& params;

    std::string topic() const { return rest::topicOf(route, params).value_or(""); }
    bool flag(const char* key) const { return isTrue(target, key); }
    bool answered() const { return x.status / 100 == 2; }
};

std::optional<AdminEffect> withStep(std::string action, sim::Action body, sim::Observed observed) {
    AdminEffect e;
    e.step = step(std::move(action), std::move(body), std::move(observed));
    return e;
}

// A namespace or topic policy set or removed: `set-policy` with the scenario's key.
std::optional<AdminEffect> policyEffect(const Classified& c, bool topicLevel) {
    const auto& policy = *c.route.policy;
    if (policy.recorded == rest::Recorded::no) return std::nullopt;
    sim::Setting setting;
    setting.key = std::string(policy.scenarioKey);
    bool remove = c.route.call == rest::Call::removeNamespacePolicy || c.route.call == rest::Call::removeTopicPolicy;
    if (!remove) {
        auto value = scalarBody(c.x.requestBody);
        if (!value) return std::nullopt;  // not a body Pulsar takes: nothing a step can say
        setting.value = *value;
    }
    sim::SetPolicyStep body;
    if (topicLevel) body.topic = c.topic();
    else body.namespaceName = c.params.at("tenant") + "/" + c.params.at("namespace");
    body.settings.push_back(std::move(setting));
    return withStep("set-policy", body, observe(AdminCall::setPolicy, c.x));
}

std::optional<AdminEffect> schemaEffect(const Classified& c, SchemaAliases& aliases) {
    std::string topic = c.topic();
    const auto& x = c.x;
    auto ref = [&]() -> std::optional<sim::SchemaRef> {
        auto parsed = schemaFromPostPayload(x.requestBody);
        if (auto* s = std::get_if<SchemaData>(&parsed)) return aliases.refFor(*s, topic);
        return std::nullopt;  // a refused payload: the format cannot write it
    };
    std::optional<sim::SchemaRef> schema;
    switch (c.route.call) {
        case rest::Call::getSchema:
            return withStep("get-schema", sim::GetSchemaStep{topic, {}, "admin", {}}, observe(AdminCall::getSchema, x));
        case rest::Call::getSchemaAtVersion: {
            const auto& text = c.params.at("version");
            std::int64_t version = 0;
            auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), version);
            if (ec != std::errc() || p != text.data() + text.size() || version < 0) return std::nullopt;
            return withStep("get-schema", sim::GetSchemaStep{topic, version, "admin", {}}, observe(AdminCall::getSchema, x));
        }
        case rest::Call::deleteSchema:
            return withStep("delete-schema", sim::DeleteSchemaStep{topic, c.flag("force")}, observe(AdminCall::deleteSchema, x));
        case rest::Call::postSchema:
            if (!(schema = ref())) return std::nullopt;
            return withStep("upload-schema", sim::UploadSchemaStep{topic, *schema}, observe(AdminCall::uploadSchema, x));
        case rest::Call::getVersionBySchema:
            if (!(schema = ref())) return std::nullopt;
            return withStep("get-schema-version", sim::GetSchemaVersionStep{topic, *schema},
                            observe(AdminCall::getSchemaVersion, x));
        case rest::Call::testCompatibility:
            if (!(schema = ref())) return std::nullopt;
            return withStep("test-compatibility", sim::TestCompatibilityStep{topic, *schema},
                            observe(AdminCall::testCompatibility, x));
        default: return std::nullopt;
    }
}

// A topic created (2xx, or 409: it exists): the header's `topics:`, with the partitions of a bare count body.
std::optional<AdminEffect> createdTopic(const Classified& c) {
    if (!c.answered() && c.x.status != 409) return std::nullopt;
    AdminEffect e;
    if (c.route.call == rest::Call::createPartitionedTopic) {
        auto j = Json::parse(c.x.requestBody, nullptr, false);
        if (j.is_discarded() || !j.is_number_integer()) return std::nullopt;
        e.partitions = j.get<int>();
    }
    e.createdTopic = c.topic();
    return e;
}

std::optional<AdminEffect> brokerEffect(const Classified& c) {
    sim::SetBrokerConfigStep body;
    const auto& key = c.params.at("key");
    if (c.route.call == rest::Call::setBrokerConfig) body.settings.push_back({key, c.params.at("value"), {}});
    else body.settings.push_back({key, std::nullopt, {}});
    return withStep("set-broker-config", body, observe(AdminCall::setBrokerConfig, c.x));
}

std::optional<AdminEffect> cnxsimEffect(const Classified& c) {
    if (!c.answered()) return std::nullopt;
    if (c.route.call == rest::Call::cnxsimRestart)
        return withStep("restart-broker", sim::RestartBrokerStep{}, sim::Observed::success());
    auto version = c.target.query.find("version");
    if (version == c.target.query.end()) return std::nullopt;
    return withStep("upgrade-broker", sim::UpgradeBrokerStep{version->second}, sim::Observed::success());
}

// What each route's exchange becomes; the routes left out change nothing a step can express.
std::optional<AdminEffect> effectOf(const Classified& c, SchemaAliases& aliases) {
    using C = rest::Call;
    switch (c.route.call) {
        case C::getSchema: case C::getSchemaAtVersion: case C::postSchema: case C::deleteSchema:
        case C::testCompatibility: case C::getVersionBySchema:
            return schemaEffect(c, aliases);
        case C::deleteTopic: case C::deletePartitionedTopic:
            return withStep("delete-topic", sim::DeleteTopicStep{c.topic(), c.flag("force"), c.flag("deleteSchema")},
                            observe(AdminCall::deleteTopic, c.x));
        case C::unloadTopic: return withStep("unload", sim::UnloadStep{c.topic()}, observe(AdminCall::unloadTopic, c.x));
        case C::createTopic: case C::createPartitionedTopic: return createdTopic(c);
        case C::setNamespacePolicy: case C::removeNamespacePolicy: return policyEffect(c, false);
        case C::setTopicPolicy: case C::removeTopicPolicy: return policyEffect(c, true);
        case C::setBrokerConfig: case C::deleteBrokerConfig: return brokerEffect(c);
        case C::cnxsimUpgrade: case C::cnxsimRestart: return cnxsimEffect(c);
        case C::createNamespace: {
            if (!c.answered() && c.x.status != 409) return std::nullopt;
            AdminEffect created;
            created.createdNamespace = c.params.at("tenant") + "/" + c.params.at("namespace");
            return created;
        }
        default: return std::nullopt;
    }
}

}  // namespace

AdminEffect adminEffect(const serve::AdminExchange& x, SchemaAliases& aliases) {
    auto t = serve::http::parseRequestTarget(x.target);
    if (!t) return {};
    auto r = rest::resolve(rest::methodFromName(x.method), t->segments);
    if (r.kind != rest::Resolution::Kind::route) return {};
    return effectOf(Classified{x, *t, *r.route, r.params}, aliases).value_or(AdminEffect{});
}

}  // namespace cnx::record
