// Lookup over HTTP, topic stats and termination, namespace grants: what the
// official clients' own test suites use of the admin port besides schemas and
// policies (issue 41 items 3 and 16), with the answers of TopicLookupBase,
// PersistentTopicsBase and NamespacesBase.

#include "broker_model/admin/admin_api.h"

namespace cnx {
namespace {

AdminResponse refused(TracePtr trace, TraceText what, int status, std::string reason) {
    trace->add("§7", what, [&] { return std::to_string(status) + " " + reason; });
    return AdminResponse::failure(std::move(trace), status, std::move(reason));
}

// LookupData serialized by Pulsar's ObjectMapper (NON_NULL): the TLS URLs only
// when the broker has them; nativeUrl (= brokerUrl) and brokerUrlSsl ("") are
// kept for older clients (the C++ client reads brokerUrlTls, else brokerUrlSsl).
nlohmann::json lookupJson(const LookupData& data) {
    nlohmann::json body{{"brokerUrl", data.brokerUrl}};
    if (data.brokerUrlTls) body["brokerUrlTls"] = *data.brokerUrlTls;
    body["httpUrl"] = data.httpUrl;
    body["nativeUrl"] = data.brokerUrl;
    body["brokerUrlSsl"] = "";
    return body;
}

// MessageIdImpl as Jackson writes it (the answer of terminate).
nlohmann::json messageIdJson(const Position& p, int partition) {
    return {{"ledgerId", static_cast<std::int64_t>(p.ledgerId)},
            {"entryId", static_cast<std::int64_t>(p.entryId)},
            {"partitionIndex", partition}};
}

}  // namespace

// TopicLookupBase.internalLookupTopicAsync: a topic that may be auto-created
// (or a non-persistent non-partitioned one) exists for the lookup; otherwise
// checkTopicExists decides. Then NamespaceService answers this broker's URLs.
AdminResponse AdminApi::lookupTopic(const TopicName& topic, std::string_view listenerName) const {
    auto trace = broker_.newTrace();
    bool assumed = broker_.policies().broker.allowAutoTopicCreation || (!topic.persistent() && topic.partitionIndex() < 0);
    if (!assumed && !broker_.topicExists(topic) && broker_.partitionsOf(topic) == 0)
        return refused(trace, "lookup", 404, "Topic not found.");
    auto data = broker_.lookupData(listenerName);
    if (auto* e = std::get_if<std::string>(&data)) return refused(trace, "lookup", 500, *e);
    trace->add("§7", "lookup", [&] { return topic.toString() + " -> " + std::get<LookupData>(data).brokerUrl; });
    return AdminResponse::success(trace, 200, lookupJson(std::get<LookupData>(data)));
}

AdminResponse AdminApi::topicStats(const TopicName& topic) {
    auto trace = broker_.newTrace();
    auto loaded = broker_.topicExists(topic) ? broker_.loadTopic(topic, false) : nullptr;
    if (!loaded) return refused(trace, "stats", 404, "Topic not found");
    const auto& connections = broker_.connections();
    auto versionOf = [&](std::uint64_t connectionId) {
        const auto* c = connections.find(connectionId);
        return c ? c->clientVersion() : std::string();
    };
    auto publishers = nlohmann::json::array();
    for (const auto& p : loaded->producers())
        publishers.push_back({{"accessMode", p.accessMode},
                              {"producerId", p.producerId},
                              {"producerName", p.name},
                              {"clientVersion", versionOf(p.connectionId)}});
    auto subscriptions = nlohmann::json::object();
    for (const auto& [name, sub] : loaded->subscriptions()) {
        auto consumers = nlohmann::json::array();
        for (const auto& c : sub.consumers)
            consumers.push_back({{"consumerName", c.name},
                                 {"availablePermits", c.permits},
                                 {"unackedMessages", c.pending.size()},
                                 {"clientVersion", versionOf(c.connectionId)}});
        subscriptions[name] = {{"type", sub.subType},
                               {"msgBacklog", loaded->backlogOf(sub)},
                               {"isDurable", sub.durable},
                               {"consumers", std::move(consumers)}};
    }
    trace->add("§7", "stats", [&] {
        return topic.toString() + ": " + std::to_string(publishers.size()) + " publisher(s), " +
               std::to_string(subscriptions.size()) + " subscription(s)";
    });
    trace->notModelled("§7", "stats", "rates, counters and storage sizes of TopicStats are not modelled (#41)");
    return AdminResponse::success(trace, 200,
                                  {{"publishers", std::move(publishers)},
                                   {"subscriptions", std::move(subscriptions)},
                                   {"replication", nlohmann::json::object()}});
}

// PersistentTopicsBase.internalTerminateAsync / PersistentTopic.terminate.
AdminResponse AdminApi::terminateTopic(const TopicName& topic) {
    auto trace = broker_.newTrace();
    if (broker_.partitionsOf(topic) > 0)
        return refused(trace, "terminate", 405, "Termination of a partitioned topic is not allowed");
    if (!topic.persistent()) return notModelled("terminate of a non-persistent topic");
    auto loaded = broker_.topicExists(topic) ? broker_.loadTopic(topic, false) : nullptr;
    if (!loaded) return refused(trace, "terminate", 404, "Topic not found");
    auto last = broker_.terminate(*loaded);
    trace->add("§7", "terminate", [&] { return topic.toString() + " terminated; its producers are closed"; });
    return AdminResponse::success(trace, 200, messageIdJson(last, topic.partitionIndex()));
}

// NamespacesBase.internalGrantPermissionOnNamespace: stored in the namespace's
// auth_policies, which authorization reads (policy/authorization.h) when
// `authorizationEnabled` is set.
AdminResponse AdminApi::grantNamespacePermission(const std::string& ns, const std::string& role,
                                                 const std::vector<std::string>& actions) {
    auto trace = broker_.newTrace();
    // The text a real 4.2.4 broker answers for a namespace that does not exist.
    if (!broker_.metadata().namespaceExists(ns)) return refused(trace, "grant permission", 404, "Topic's namespace does not exist");
    broker_.policies().namespaceFor(ns).namespace_auth[role] = actions;
    trace->add("§11", "grant permission", [&] { return ns + ": role " + role + " granted"; });
    return AdminResponse::success(trace, 204, nullptr);
}

// NamespacesBase.internalRevokePermissionsOnNamespaceAsync.
AdminResponse AdminApi::revokeNamespacePermission(const std::string& ns, const std::string& role) {
    auto trace = broker_.newTrace();
    // A real 4.2.4 broker answers 404 with an empty reason (its NotFoundException's message).
    if (!broker_.metadata().namespaceExists(ns)) return refused(trace, "revoke permission", 404, "");
    broker_.policies().namespaceFor(ns).namespace_auth.erase(role);
    trace->add("§11", "revoke permission", [&] { return ns + ": role " + role + " revoked"; });
    return AdminResponse::success(trace, 204, nullptr);
}

// NamespacesBase.internalGetPermissionsAsync: auth_policies.namespace_auth.
AdminResponse AdminApi::namespacePermissions(const std::string& ns) const {
    auto trace = broker_.newTrace();
    if (!broker_.metadata().namespaceExists(ns)) return refused(trace, "get permissions", 404, "Namespace does not exist");
    const auto& store = broker_.policies();
    auto it = store.namespaces.find(ns);
    nlohmann::json grants = nlohmann::json::object();
    if (it != store.namespaces.end())
        for (const auto& [role, actions] : it->second.namespace_auth) grants[role] = AdminApi::actionsJson(actions);
    return AdminResponse::success(trace, 200, grants);
}

// PersistentTopicsBase.internalGrantPermissionsOnTopic: on the topic and, for a
// partitioned topic, on each of its partitions.
AdminResponse AdminApi::grantTopicPermission(const TopicName& topic, const std::string& role,
                                             const std::vector<std::string>& actions) {
    auto trace = broker_.newTrace();
    auto ns = topic.namespaceName();
    if (!broker_.topicExists(topic)) return refused(trace, "grant permission", 404, "Topic " + topic.toString() + " not found");
    auto& policies = broker_.policies().namespaceFor(ns);
    policies.destination_auth[topic.toString()][role] = actions;
    int partitions = broker_.partitionsOf(topic);
    for (int i = 0; i < partitions; ++i) policies.destination_auth[topic.partition(i).toString()][role] = actions;
    trace->add("§11", "grant permission", [&] { return topic.toString() + ": role " + role + " granted"; });
    return AdminResponse::success(trace, 204, nullptr);
}

// PersistentTopicsBase.internalRevokePermissionsOnTopic: 204 also for a role
// without a topic grant (seen on a real 4.2.4 broker).
AdminResponse AdminApi::revokeTopicPermission(const TopicName& topic, const std::string& role) {
    auto trace = broker_.newTrace();
    auto ns = topic.namespaceName();
    if (!broker_.topicExists(topic)) return refused(trace, "revoke permission", 404, "Topic " + topic.toString() + " not found");
    auto& policies = broker_.policies().namespaceFor(ns);
    if (auto it = policies.destination_auth.find(topic.toString()); it != policies.destination_auth.end()) {
        it->second.erase(role);
        if (it->second.empty()) policies.destination_auth.erase(it);
    }
    int partitions = broker_.partitionsOf(topic);
    for (int i = 0; i < partitions; ++i) {
        auto p = policies.destination_auth.find(topic.partition(i).toString());
        if (p == policies.destination_auth.end()) continue;
        p->second.erase(role);
        if (p->second.empty()) policies.destination_auth.erase(p);
    }
    trace->add("§11", "revoke permission", [&] { return topic.toString() + ": role " + role + " revoked"; });
    return AdminResponse::success(trace, 204, nullptr);
}

// PersistentTopicsBase.internalGetPermissionsOnTopic: namespace grants, then the topic's.
AdminResponse AdminApi::topicPermissions(const TopicName& topic) const {
    auto trace = broker_.newTrace();
    auto ns = topic.namespaceName();
    if (!broker_.topicExists(topic)) return refused(trace, "get permissions", 404, "Topic " + topic.toString() + " not found");
    const auto& store = broker_.policies();
    nlohmann::json grants = nlohmann::json::object();
    if (auto it = store.namespaces.find(ns); it != store.namespaces.end()) {
        for (const auto& [role, actions] : it->second.namespace_auth) grants[role] = AdminApi::actionsJson(actions);
        if (auto t = it->second.destination_auth.find(topic.toString()); t != it->second.destination_auth.end())
            for (const auto& [role, actions] : t->second) grants[role] = AdminApi::actionsJson(actions);
    }
    return AdminResponse::success(trace, 200, grants);
}

nlohmann::json AdminApi::actionsJson(const std::vector<std::string>& actions) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& a : actions) out.push_back(a.empty() ? nlohmann::json(nullptr) : nlohmann::json(a));
    return out;
}

void AdminApi::setTenantAdminRoles(const std::string& tenant, std::set<std::string> roles) {
    auto& admins = broker_.metadata().tenantAdminRoles;
    if (roles.empty()) admins.erase(tenant);
    else admins[tenant] = std::move(roles);
}

AdminResponse AdminApi::notModelled(const std::string& what) const {
    auto trace = broker_.newTrace();
    trace->notModelled("§7", "admin", what);
    return AdminResponse::failure(trace, 501, "not modelled: #41 (" + what + ")");
}

}  // namespace cnx
