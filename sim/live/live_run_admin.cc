#include "sim/live/live_run.h"

#include <cctype>
#include <chrono>
#include <thread>

#include <nlohmann/json.hpp>

#include "sim/clients/admin_client.h"
#include "sim/live/live_rest.h"

namespace cnx::sim::live {

using Json = nlohmann::json;

namespace {

// Namespace policy fields (scenario spelling) -> Pulsar's REST leaf, its verb
// and the JSON form of its body (sim/serve/http/namespace_routes.cc has the
// server side of the same calls).
struct PolicyCall {
    const char* field;
    const char* leaf;
    const char* verb;
    enum class Body { string, boolean, integer } body;
    const char* unset;  // how null is sent: "DELETE", a body text, or nullptr (no REST call unsets it)
};
constexpr PolicyCall kNamespaceCalls[] = {
    {"schema_compatibility_strategy", "schemaCompatibilityStrategy", "PUT", PolicyCall::Body::string, "\"UNDEFINED\""},
    {"schema_auto_update_compatibility_strategy", "schemaAutoUpdateCompatibilityStrategy", "PUT",
     PolicyCall::Body::string, nullptr},
    {"is_allow_auto_update_schema", "isAllowAutoUpdateSchema", "POST", PolicyCall::Body::boolean, nullptr},
    {"schema_validation_enforced", "schemaValidationEnforced", "POST", PolicyCall::Body::boolean, nullptr},
    {"max_producers_per_topic", "maxProducersPerTopic", "POST", PolicyCall::Body::integer, "DELETE"},
};
constexpr PolicyCall kTopicCalls[] = {
    {"schemaCompatibilityStrategy", "schemaCompatibilityStrategy", "PUT", PolicyCall::Body::string, "DELETE"},
    {"schemaValidationEnforced", "schemaValidationEnforced", "POST", PolicyCall::Body::boolean, nullptr},
};

// Topic policies accept both spellings (doc/scenario-format.md, topics).
std::string topicField(const std::string& key) {
    if (key == "schema_compatibility_strategy") return "schemaCompatibilityStrategy";
    if (key == "schema_validation_enforced") return "schemaValidationEnforced";
    return key;
}

template <std::size_t N>
const PolicyCall* findCall(const PolicyCall (&table)[N], const std::string& field) {
    for (const auto& c : table)
        if (field == c.field) return &c;
    return nullptr;
}

std::string bodyOf(const PolicyCall& c, const std::string& value) {
    switch (c.body) {
        case PolicyCall::Body::string: return Json(value).dump();
        case PolicyCall::Body::boolean:
        case PolicyCall::Body::integer: return value;
    }
    return value;
}

// An admin call set-up needs: nullopt when it succeeded, else what failed and why.
std::optional<std::string> mustSucceed(const std::string& what, const AdminResponse& r) {
    if (r.ok()) return std::nullopt;
    if (r.status == 0) return what + ": " + r.reason;
    return what + ": HTTP " + std::to_string(r.status) + " " + r.reason;
}

}  // namespace

// Pulsar's Codec.encode of a topic's local name in a REST path (URLEncoder).
std::string encodePathPart(std::string_view s) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : s) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '*') {
            out += static_cast<char>(c);
        } else if (c == ' ') {
            out += '+';
        } else {
            out += '%';
            out += kHex[c >> 4];
            out += kHex[c & 15];
        }
    }
    return out;
}

// /admin/v2/{persistent|non-persistent}/{tenant}/{ns}/{topic}
std::string topicPath(const TopicName& t) {
    return std::string("/admin/v2/") + (t.persistent() ? "persistent/" : "non-persistent/") + std::string(t.tenant()) +
           "/" + std::string(t.namespacePortion()) + "/" + encodePathPart(t.localName());
}

std::set<std::string> namespacesNamed(const Scenario& scenario) {
    std::set<std::string> out;
    auto addTopic = [&](const std::string& full) {
        if (auto t = parsed(full)) out.insert(t->namespaceName());
    };
    for (const auto& ns : scenario.namespaces) out.insert(ns.name);
    for (const auto& t : scenario.topics) addTopic(t.name);
    for (const auto& step : scenario.steps) {
        std::visit(
            [&](const auto& b) {
                using T = std::decay_t<decltype(b)>;
                if constexpr (std::is_same_v<T, SetPolicyStep>) {
                    if (b.namespaceName) out.insert(*b.namespaceName);
                    if (b.topic) addTopic(*b.topic);
                } else if constexpr (requires { b.topic; }) {
                    if constexpr (std::is_same_v<std::decay_t<decltype(b.topic)>, std::string>) addTopic(b.topic);
                }
            },
            step.body);
    }
    return out;
}

std::optional<std::string> LiveRun::setUp() {
    // A topic policy on a namespace's own __change_events is stored in that topic: a real 4.2.4
    // broker did not answer it within 30 s (issue 42), so such a scenario is not executable.
    for (const auto& t : scenario_.topics)
        if (!t.policies.empty() && t.name.find("/__change_events") != std::string::npos)
            return std::string(kSetUpNotExecutable) + "a topic policy on " + t.name +
                   " (a real broker did not answer one within 30 s: it stores topic policies in that topic)";
    if (!clusterKnown_) {
        auto clusters = admin_.call("GET", "/admin/v2/clusters");
        if (clusters.status == 0) return "the admin API cannot be reached: " + clusters.reason;
        if (clusters.ok() && clusters.body.is_array() && !clusters.body.empty() && clusters.body[0].is_string())
            cluster_ = clusters.body[0].get<std::string>();
        clusterKnown_ = true;
    }
    if (auto e = createTenantsAndNamespaces()) return e;
    for (const auto& ns : scenario_.namespaces) {
        SetPolicyStep s;
        s.namespaceName = ns.name;
        s.settings = ns.policies;
        if (s.settings.empty()) continue;
        auto o = setPolicy(s);
        if (!o.ok) return "namespace " + ns.name + " policies: " + o.error + " " + o.message;
    }
    return createDeclaredTopics();
}

std::optional<std::string> LiveRun::createTenantsAndNamespaces() {
    // Which tenants and namespaces exist: the listed ones, or every one the scenario names.
    std::set<std::string> tenants, namespaces;
    if (scenario_.explicitMetadata) {
        tenants.insert(scenario_.existingTenants.begin(), scenario_.existingTenants.end());
        namespaces.insert(scenario_.existingNamespaces.begin(), scenario_.existingNamespaces.end());
        for (const auto& ns : scenario_.namespaces) namespaces.insert(ns.name);
        for (const auto& t : scenario_.topics)
            if (auto n = parsed(t.name)) namespaces.insert(n->namespaceName());
    } else {
        namespaces = namespacesNamed(scenario_);
    }
    for (const auto& ns : namespaces) tenants.insert(ns.substr(0, ns.find('/')));
    for (const auto& t : tenants) {
        auto live = names_.tenant(t);
        Json info = {{"adminRoles", Json::array()}, {"allowedClusters", Json::array({cluster_})}};
        if (auto e = mustSucceed("creating tenant " + live, admin_.call("PUT", "/admin/v2/tenants/" + live, info.dump())))
            return e;
        createdTenants_.push_back(live);
    }
    for (const auto& ns : namespaces) {
        auto live = names_.namespaceName(ns);
        if (auto e = mustSucceed("creating namespace " + live, admin_.call("PUT", "/admin/v2/namespaces/" + live)))
            return e;
        createdNamespaces_.push_back(live);
    }
    return std::nullopt;
}

std::optional<std::string> LiveRun::createDeclaredTopics() {
    for (const auto& t : scenario_.topics) {
        auto name = parsed(names_.topic(t.name));
        if (!name) return "invalid topic name '" + t.name + "'";
        // A declared topic exists (doc/scenario-format.md, topics): created as an operator creates it.
        if (t.partitions > 0) {
            if (auto e = mustSucceed("creating partitioned topic " + name->toString(),
                                     admin_.call("PUT", topicPath(*name) + "/partitions", std::to_string(t.partitions))))
                return e;
        } else if (auto e = mustSucceed("creating topic " + name->toString(), admin_.call("PUT", topicPath(*name)))) {
            return e;
        }
        if (t.policies.empty()) continue;
        SetPolicyStep s;
        s.topic = t.name;
        s.settings = t.policies;
        auto o = setPolicy(s);
        if (!o.ok) return "topic " + t.name + " policies: " + o.error + " " + o.message;
    }
    return std::nullopt;
}

void LiveRun::tearDown() {
    for (auto& [_, s] : sessions_) s.conn.reset();
    sessions_.clear();
    producers_.clear();
    consumers_.clear();
    for (const auto& [key, value] : changedConfig_) {
        if (value) admin_.call("POST", "/admin/v2/brokers/configuration/" + key + "/" + encodePathPart(*value));
        else admin_.call("DELETE", "/admin/v2/brokers/configuration/" + key);
    }
    changedConfig_.clear();
    if (keepCreated_) {
        createdNamespaces_.clear();
        createdTenants_.clear();
        return;
    }
    // Best effort: the topics of each namespace, then the namespaces and tenants.
    for (const auto& ns : createdNamespaces_) {
        for (const char* list : {"/admin/v2/persistent/", "/admin/v2/non-persistent/"}) {
            auto partitioned = admin_.call("GET", list + ns + "/partitioned");
            if (partitioned.ok() && partitioned.body.is_array())
                for (const auto& t : partitioned.body)
                    if (auto n = t.is_string() ? parsed(t.get<std::string>()) : std::nullopt)
                        admin_.call("DELETE", topicPath(*n) + "/partitions?force=true&deleteSchema=true");
            auto topics = admin_.call("GET", list + ns);
            if (topics.ok() && topics.body.is_array())
                for (const auto& t : topics.body)
                    if (auto n = t.is_string() ? parsed(t.get<std::string>()) : std::nullopt)
                        admin_.call("DELETE", topicPath(*n) + "?force=true&deleteSchema=true");
        }
        admin_.call("DELETE", "/admin/v2/namespaces/" + ns);
    }
    for (const auto& t : createdTenants_) admin_.call("DELETE", "/admin/v2/tenants/" + t);
    createdNamespaces_.clear();
    createdTenants_.clear();
}

Observed LiveRun::unload(const UnloadStep& st) {
    auto base = parsed(names_.topic(st.topic))->partitionedBase();
    auto o = admin(static_cast<int>(AdminCall::unloadTopic), "PUT", topicPath(base) + "/unload");
    if (!o.ok) return o;
    return reconnect(closedByBroker());
}

Observed LiveRun::deleteTopic(const DeleteTopicStep& st) {
    auto t = parsed(names_.topic(st.topic));
    bool partitioned = false;
    for (const auto& d : scenario_.topics)
        if (d.name == st.topic && d.partitions > 0) partitioned = true;
    std::string path = topicPath(*t) + (partitioned ? "/partitions" : "");
    std::string query;
    if (st.force) query += "force=true";
    if (st.deleteSchema) query += std::string(query.empty() ? "" : "&") + "deleteSchema=true";
    if (!query.empty()) path += "?" + query;
    auto o = admin(static_cast<int>(AdminCall::deleteTopic), "DELETE", path);
    if (!o.ok) return o;
    for (const auto& key : closedByBroker()) (key[0] == 'p' ? producers_ : consumers_).erase(key.substr(2));
    return o;
}

Observed LiveRun::setPolicy(const SetPolicyStep& st) {
    Observed out;
    out.httpStatus = 204;
    for (const auto& s : st.settings) {
        const PolicyCall* call = nullptr;
        std::string base;
        if (st.namespaceName) {
            call = findCall(kNamespaceCalls, s.key);
            base = "/admin/v2/namespaces/" + names_.namespaceName(*st.namespaceName) + "/";
        } else {
            call = findCall(kTopicCalls, topicField(s.key));
            base = topicPath(*parsed(names_.topic(*st.topic))) + "/";
        }
        if (!call) return notSupported("no REST call of the live broker is known for the policy '" + s.key + "'");
        Observed o;
        if (s.value) {
            o = admin(static_cast<int>(AdminCall::setPolicy), call->verb, base + call->leaf, bodyOf(*call, *s.value));
        } else if (call->unset && std::string_view(call->unset) == "DELETE") {
            o = admin(static_cast<int>(AdminCall::setPolicy), "DELETE", base + call->leaf);
        } else if (call->unset) {
            o = admin(static_cast<int>(AdminCall::setPolicy), call->verb, base + call->leaf, std::string(call->unset));
        } else {
            return notSupported("cnxsim knows no REST call of Pulsar's that unsets '" + s.key + "'");
        }
        if (!o.ok) return o;
        out.httpStatus = o.httpStatus;
    }
    if (st.namespaceName) std::this_thread::sleep_for(kPolicySettle);
    return out;
}

Observed LiveRun::setBrokerConfig(const SetBrokerConfigStep& st) {
    Observed out;
    out.httpStatus = 204;
    for (const auto& s : st.settings) {
        if (!changedConfig_.count(s.key)) {
            auto runtime = admin_.call("GET", "/admin/v2/brokers/configuration/runtime");
            std::optional<std::string> was;
            if (runtime.ok() && runtime.body.is_object() && runtime.body.contains(s.key) && runtime.body[s.key].is_string())
                was = runtime.body[s.key].get<std::string>();
            changedConfig_[s.key] = was;
        }
        Observed o = s.value ? admin(static_cast<int>(AdminCall::setBrokerConfig), "POST",
                                     "/admin/v2/brokers/configuration/" + s.key + "/" + encodePathPart(*s.value))
                             : admin(static_cast<int>(AdminCall::setBrokerConfig), "DELETE",
                                     "/admin/v2/brokers/configuration/" + s.key);
        if (!o.ok) return o;
        out.httpStatus = o.httpStatus;
    }
    std::this_thread::sleep_for(kPolicySettle);
    return out;
}

}  // namespace cnx::sim::live
