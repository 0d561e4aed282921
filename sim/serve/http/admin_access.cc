#include "sim/serve/http/admin_access.h"

#include <string_view>

namespace cnx::serve::http::detail {
namespace {

using V = beast_http::verb;
using auth::NamespaceOperation;
using auth::TopicOperation;
using auth::Verdict;

// The checks of PulsarWebResource (pulsar-broker 4.2.4, decompiled), each with
// its refusal. `originalPrincipal` is always null here (no proxy), and Java's
// String.format writes it as "null".
struct Check {
    const Broker& broker;
    const Request& req;
    const std::string& role;
    auth::Authorizer authz;

    std::optional<Response> answer(const Verdict& v, int status, const std::string& denied) const {
        if (v.error) return error(req, 404, *v.error);  // RestException(NOT_FOUND, "Tenant does not exist")
        if (!v.allowed) return error(req, status, denied);
        return std::nullopt;
    }
    // validateSuperUserAccessAsync.
    std::optional<Response> superUser() const {
        if (authz.isSuperUser(role)) return std::nullopt;
        return error(req, 401, "This operation requires super-user access");
    }
    std::string brokerId() const {
        auto data = broker.lookupData({});
        if (const auto* urls = std::get_if<LookupData>(&data)) {
            auto url = urls->httpUrl;
            if (auto at = url.find("://"); at != std::string::npos) url = url.substr(at + 3);
            return url;
        }
        return "localhost:8080";
    }
    // BrokersBase.validateBothSuperuserAndBrokerOperation (the broker operation is a super-user check too).
    std::optional<Response> brokerOperation(std::string_view op) const {
        if (authz.isSuperUser(role)) return std::nullopt;
        return error(req, 401, "Unauthorized to validateBothSuperuserAndBrokerOperation for originalPrincipal [null] and clientAppId [" +
                                   role + "] about operation [" + std::string(op) + "] on broker [" + brokerId() + "]");
    }
    // ClustersBase.validateBothSuperuserAndClusterOperation.
    std::optional<Response> clusterOperation(std::string_view op, const std::string& cluster) const {
        if (authz.isSuperUser(role)) return std::nullopt;
        return error(req, 401, "Unauthorized to validateBothSuperuserAndClusterOperation for originalPrincipal [null] and clientAppId [" +
                                   role + "] about operation [" + std::string(op) + "] on cluster [" + cluster + "]");
    }
    // TenantsBase.validateBothSuperUserAndTenantOperation: a super user, or the tenant's admin.
    std::optional<Response> superUserOrTenant(std::string_view op, const std::string* tenant) const {
        if (authz.isSuperUser(role)) return std::nullopt;
        if (tenant) {
            auto v = authz.tenantAdmin(*tenant, role);
            if (v.allowed) return std::nullopt;
        }
        return error(req, 401, "Unauthorized to validateBothTenantOperationAndSuperUser for originalPrincipal [null] and clientAppId [" +
                                   role + "] about operation [" + std::string(op) + "] ");
    }
    // validateTenantOperationAsync (PulsarAuthorizationProvider.allowTenantOperationAsync: tenant admin).
    std::optional<Response> tenantOperation(std::string_view op, const std::string& tenant) const {
        return answer(authz.tenantAdmin(tenant, role), 401,
                      "Unauthorized to validateTenantOperation for originalPrincipal [null] and clientAppId [" + role +
                          "] about operation [" + std::string(op) + "] on tenant [" + tenant + "]");
    }
    // validateAdminAccessForTenantAsync: "Tenant does not exist" is checked first.
    std::optional<Response> tenantAdmin(const std::string& tenant) const {
        if (!broker.metadata().tenantExists(tenant)) return error(req, 404, "Tenant does not exist");
        return answer(authz.tenantAdmin(tenant, role), 401, "Don't have permission to administrate resources on this tenant");
    }
    // validateNamespaceOperationAsync.
    std::optional<Response> namespaceOperation(NamespaceOperation op, const std::string& ns) const {
        return answer(authz.allowNamespaceOperation(ns, op, role), 403,
                      "Unauthorized to validateNamespaceOperation for operation [" + std::string(to_string_view(op)) +
                          "] on namespace [" + ns + "]");
    }
    // validateNamespacePolicyOperationAsync (allowNamespacePolicyOperationAsync: tenant admin).
    std::optional<Response> namespacePolicy(const std::string& ns, std::string_view policy) const {
        auto op = req.method() == V::get ? "READ" : "WRITE";
        return answer(authz.tenantAdmin(ns.substr(0, ns.find('/')), role), 403,
                      "Unauthorized to validateNamespacePolicyOperation for operation [" + std::string(op) +
                          "] on namespace [" + ns + "] on policy [" + std::string(policy) + "]");
    }
    // validateTopicOperationAsync.
    std::optional<Response> topicOperation(const TopicName& topic, TopicOperation op) const {
        return answer(authz.allowTopicOperation(topic, op, role), 401,
                      "Unauthorized to validateTopicOperation for operation [" + std::string(to_string_view(op)) +
                          "] on topic [" + topic.toString() + "]");
    }
    // validateTopicPolicyOperationAsync (allowTopicPolicyOperationAsync: tenant admin).
    std::optional<Response> topicPolicy(const TopicName& topic, std::string_view policy) const {
        auto op = req.method() == V::get ? "READ" : "WRITE";
        return answer(authz.tenantAdmin(topic.tenant(), role), 403,
                      "Unauthorized to validateTopicPolicyOperation for operation [" + std::string(op) + "] on topic [" +
                          topic.toString() + "] on policy [" + std::string(policy) + "]");
    }
};

// The PolicyName a namespace or topic policy path is checked under (Namespaces, PersistentTopics).
std::string_view policyName(const std::string& path) {
    if (path == "schemaCompatibilityStrategy" || path == "schemaAutoUpdateCompatibilityStrategy" ||
        path == "isAllowAutoUpdateSchema" || path == "schemaValidationEnforced")
        return "SCHEMA_COMPATIBILITY_STRATEGY";
    if (path == "maxProducersPerTopic" || path == "maxProducers") return "MAX_PRODUCERS";
    if (path == "deduplication") return "DEDUPLICATION";
    if (path == "backlogQuota" || path == "backlogQuotaMap") return "BACKLOG";
    return "ALL";
}

using Segments = std::vector<std::string>;

// /admin/v2/brokers/...: BrokersBase.
std::optional<Response> refuseBrokers(const Check& c, const Segments& s, V m) {
    if (s.size() >= 4 && s[3] == "version") return std::nullopt;  // BrokersBase.version checks nothing
    if (s.size() >= 4 && s[3] == "health") return c.brokerOperation("HEALTH_CHECK");
    if (s.size() >= 4 && s[3] == "configuration") {
        if (s.size() == 5 && s[4] == "runtime") return c.brokerOperation("LIST_RUNTIME_CONFIGURATIONS");
        if (m == V::post) return c.brokerOperation("UPDATE_DYNAMIC_CONFIGURATION");
        if (m == V::delete_) return c.brokerOperation("DELETE_DYNAMIC_CONFIGURATION");
        return c.brokerOperation("LIST_DYNAMIC_CONFIGURATIONS");
    }
    return c.brokerOperation("LIST_BROKERS");
}

// /admin/v2/schemas/{tenant}/{ns}/{topic}/...: SchemasResourceBase.
std::optional<Response> refuseSchemas(const Check& c, const Segments& s, V m) {
    auto topic = TopicName::parse("persistent://" + s[3] + "/" + s[4] + "/" + s[5]);
    if (!topic) return std::nullopt;
    // SchemasResourceBase: reads GET_METADATA, a new schema PRODUCE, deletion and
    // the compatibility test the tenant's admins (validateDestinationAndAdminOperationAsync).
    if (s[6] == "compatibility" || (s[6] == "schema" && s.size() == 7 && m == V::delete_))
        return c.tenantAdmin(std::string(topic->tenant()));
    if (s[6] == "schema" && s.size() == 7 && m == V::post) return c.topicOperation(*topic, TopicOperation::PRODUCE);
    return c.topicOperation(*topic, TopicOperation::GET_METADATA);
}

// /admin/v2/namespaces/{tenant}[/{ns}[/...]]: Namespaces.
std::optional<Response> refuseNamespaces(const Check& c, const Segments& s, V m) {
    const auto& tenant = s[3];
    if (s.size() == 4) return c.tenantOperation("LIST_NAMESPACES", tenant);
    auto ns = tenant + "/" + s[4];
    if (s.size() == 5) {
        if (m == V::put) return c.tenantOperation("CREATE_NAMESPACE", tenant);
        if (m == V::delete_) return c.tenantOperation("DELETE_NAMESPACE", tenant);
        return c.namespacePolicy(ns, "ALL");
    }
    const auto& what = s[5];
    if (what == "topics") return c.namespaceOperation(NamespaceOperation::GET_TOPICS, ns);
    if (what == "permissions") {
        if (m == V::get) return c.namespaceOperation(NamespaceOperation::GET_PERMISSION, ns);
        if (m == V::delete_) return c.namespaceOperation(NamespaceOperation::REVOKE_PERMISSION, ns);
        return c.namespaceOperation(NamespaceOperation::GRANT_PERMISSION, ns);
    }
    return c.namespacePolicy(ns, policyName(what));
}

// /admin/v2/{persistent|non-persistent}/{tenant}/{ns}[/{topic}[/...]]: PersistentTopics.
std::optional<Response> refuseTopics(const Check& c, const Segments& s, V m) {
    const auto& area = s[2];
    auto ns = s[3] + "/" + s[4];
    if (s.size() == 5 || (s.size() == 6 && s[5] == "partitioned"))
        return c.namespaceOperation(NamespaceOperation::GET_TOPICS, ns);
    auto topic = TopicName::parse(area + "://" + s[3] + "/" + s[4] + "/" + s[5]);
    if (!topic) return std::nullopt;
    if (s.size() == 6) {
        if (m == V::put) return c.namespaceOperation(NamespaceOperation::CREATE_TOPIC, ns);
        if (m == V::delete_) return c.namespaceOperation(NamespaceOperation::DELETE_TOPIC, ns);
        return c.topicOperation(*topic, TopicOperation::GET_METADATA);
    }
    const auto& what = s[6];
    if (what == "partitions") {
        if (m == V::put) return c.namespaceOperation(NamespaceOperation::CREATE_TOPIC, ns);
        if (m == V::delete_) return c.namespaceOperation(NamespaceOperation::DELETE_TOPIC, ns);
        if (m == V::post) return c.topicPolicy(*topic, "PARTITION");
        return c.topicOperation(*topic, TopicOperation::LOOKUP);  // seen on a real 4.2.4
    }
    if (what == "stats" || what == "internalStats" || what == "partitioned-stats")
        return c.topicOperation(*topic, TopicOperation::GET_STATS);
    if (what == "unload") return c.topicOperation(*topic, TopicOperation::UNLOAD);
    if (what == "terminate") return c.topicOperation(*topic, TopicOperation::TERMINATE);
    if (what == "compaction") return c.topicOperation(*topic, TopicOperation::COMPACT);
    if (what == "permissions") return c.tenantAdmin(s[3]);
    if (what == "lastMessageId") return c.topicOperation(*topic, TopicOperation::GET_METADATA);
    return c.topicPolicy(*topic, policyName(what));
}

}  // namespace

std::optional<Response> refuseAdminRequest(const Broker& broker, bool authenticationEnabled, const Request& req,
                                           const Target& target, const std::string& role) {
    const auto& settings = broker.authorizationSettings();
    if (!authenticationEnabled || !settings.authorizationEnabled) return std::nullopt;
    Check c{broker, req, role, broker.authorizer()};
    const auto& s = target.segments;
    const auto m = req.method();
    if (s.empty()) return std::nullopt;  // 404 follows
    // cnxsim's own control (restart, upgrade, reset, trace): super users only.
    if (s[0] == "cnxsim") return c.superUser();
    if (s[0] == "metrics") return std::nullopt;  // authentication only (authenticateMetricsEndpoint)
    if (s[0] == "lookup") {
        if (s.size() != 7) return std::nullopt;
        auto topic = TopicName::parse(s[3] + "://" + s[4] + "/" + s[5] + "/" + s[6]);
        if (!topic) return std::nullopt;  // the route answers the bad name
        return c.topicOperation(*topic, TopicOperation::LOOKUP);  // TopicLookupBase.internalLookupTopicAsync
    }
    if (s.size() < 3 || s[0] != "admin" || s[1] != "v2") return std::nullopt;
    const auto& area = s[2];
    if (area == "clusters") {
        if (s.size() == 3) return std::nullopt;  // ClustersBase.getClusters checks nothing
        return c.clusterOperation(m == V::get ? "GET_CLUSTER" : "CREATE_CLUSTER", s[3]);
    }
    if (area == "brokers") return refuseBrokers(c, s, m);
    if (area == "tenants") {
        if (s.size() == 3) return c.superUserOrTenant("LIST_TENANTS", nullptr);
        const char* op = m == V::get ? "GET_TENANT" : m == V::put ? "CREATE_TENANT" : m == V::post ? "UPDATE_TENANT" : "DELETE_TENANT";
        return c.superUserOrTenant(op, &s[3]);
    }
    if (area == "schemas" && s.size() >= 7) return refuseSchemas(c, s, m);
    if (area == "namespaces" && s.size() >= 4) return refuseNamespaces(c, s, m);
    if ((area == "persistent" || area == "non-persistent") && s.size() >= 5) return refuseTopics(c, s, m);
    return std::nullopt;
}

}  // namespace cnx::serve::http::detail

namespace cnx::serve::http {

std::optional<Response> authorizeAdminRequest(const Broker& broker, const Request& req, const std::string& role) {
    if (!broker.policies().broker.auth.authenticationEnabled || !broker.authorizationSettings().authorizationEnabled)
        return std::nullopt;
    auto target = parseRequestTarget(std::string_view(req.target().data(), req.target().size()));
    if (!target) return std::nullopt;
    return detail::refuseAdminRequest(broker, true, req, *target, role);
}

}  // namespace cnx::serve::http
