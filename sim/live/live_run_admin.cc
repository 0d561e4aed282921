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

// An admin call set-up needs: nullopt when it succeeded, else what failed and why.
std::optional<std::string> mustSucceed(const std::string& what, const AdminResponse& r) {
    if (r.ok()) return std::nullopt;
    if (r.status == 0) return what + ": " + r.reason;
    return what + ": HTTP " + std::to_string(r.status) + " " + r.reason;
}

}  // namespace

// Pulsar's Codec.encode of a path segment (URLEncoder), as the route table encodes it.
std::string encodePathPart(std::string_view s) { return rest::encodeSegment(s); }

// /admin/v2/{persistent|non-persistent}/{tenant}/{ns}/{topic}: the set-up's and tear-down's topic path.
std::string topicPath(const TopicName& t) {
    auto r = adminRequest(rest::Call::createTopic, topicParams(t));
    return r ? r->target : std::string();
}

// An admin step's request, built from the route table (sim/clients/admin_client.h).
Observed LiveRun::send(AdminCall call, const std::optional<AdminRequest>& request) {
    if (!request) return notSupported("no REST route of the live broker takes this step's names");
    return admin(static_cast<int>(call), request->method, request->target, request->body);
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
    auto o = send(AdminCall::unloadTopic, adminRequest(rest::Call::unloadTopic, topicParams(base)));
    if (!o.ok) return o;
    return reconnect(closedByBroker());
}

Observed LiveRun::deleteTopic(const DeleteTopicStep& st) {
    auto t = parsed(names_.topic(st.topic));
    bool partitioned = false;
    for (const auto& d : scenario_.topics)
        if (d.name == st.topic && d.partitions > 0) partitioned = true;
    std::vector<std::pair<std::string, std::string>> flags;
    if (st.force) flags.emplace_back("force", "true");
    if (st.deleteSchema) flags.emplace_back("deleteSchema", "true");
    auto o = send(AdminCall::deleteTopic, adminRequest(partitioned ? rest::Call::deletePartitionedTopic : rest::Call::deleteTopic,
                                                       topicParams(*t), std::nullopt, flags));
    if (!o.ok) return o;
    for (const auto& key : closedByBroker()) (key[0] == 'p' ? producers_ : consumers_).erase(key.substr(2));
    return o;
}

Observed LiveRun::setPolicy(const SetPolicyStep& st) {
    Observed out;
    out.httpStatus = 204;
    for (const auto& s : st.settings) {
        bool topicLevel = !st.namespaceName;
        const auto* policy =
            rest::policyByKey(topicLevel ? rest::Call::setTopicPolicy : rest::Call::setNamespacePolicy, s.key);
        if (!policy) return notSupported("no REST call of the live broker is known for the policy '" + s.key + "'");
        auto params = topicLevel ? topicParams(*parsed(names_.topic(*st.topic)))
                                 : namespaceParams(names_.namespaceName(*st.namespaceName));
        auto request = policyRequest(*policy, topicLevel, params, s.value);
        if (!request) return notSupported("cnxsim knows no REST call of Pulsar's that unsets '" + s.key + "'");
        Observed o = send(AdminCall::setPolicy, request);
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
        auto request = s.value ? adminRequest(rest::Call::setBrokerConfig, {{"key", s.key}, {"value", *s.value}})
                               : adminRequest(rest::Call::deleteBrokerConfig, {{"key", s.key}});
        Observed o = send(AdminCall::setBrokerConfig, request);
        if (!o.ok) return o;
        out.httpStatus = o.httpStatus;
    }
    std::this_thread::sleep_for(kPolicySettle);
    return out;
}

}  // namespace cnx::sim::live
