#include "broker_model/policy/authorization.h"

#include <algorithm>

namespace cnx::auth {
namespace {

bool contains(const std::vector<std::string>& v, std::string_view x) {
    return std::find(v.begin(), v.end(), x) != v.end();
}

// PulsarAuthorizationProvider.checkWildcardPermission: a granted role ending
// in `*` matches the roles it prefixes, one starting with `*` those it ends.
bool wildcardMatch(const std::string& role, std::string_view action,
                   const std::map<std::string, std::vector<std::string>>& grants) {
    for (const auto& [permitted, actions] : grants) {
        if (permitted.empty() || !contains(actions, action)) continue;
        if (permitted.back() == '*' && role.starts_with(std::string_view(permitted).substr(0, permitted.size() - 1)))
            return true;
        if (permitted.front() == '*' && role.ends_with(std::string_view(permitted).substr(1))) return true;
    }
    return false;
}

}  // namespace

std::string_view to_string_view(TopicOperation op) {
    switch (op) {
        case TopicOperation::LOOKUP: return "LOOKUP";
        case TopicOperation::PRODUCE: return "PRODUCE";
        case TopicOperation::CONSUME: return "CONSUME";
        case TopicOperation::SUBSCRIBE: return "SUBSCRIBE";
        case TopicOperation::GET_METADATA: return "GET_METADATA";
        case TopicOperation::GET_STATS: return "GET_STATS";
        case TopicOperation::UNLOAD: return "UNLOAD";
        case TopicOperation::TERMINATE: return "TERMINATE";
        case TopicOperation::COMPACT: return "COMPACT";
    }
    return "?";
}

std::string_view to_string_view(NamespaceOperation op) {
    switch (op) {
        case NamespaceOperation::GET_TOPICS: return "GET_TOPICS";
        case NamespaceOperation::CREATE_TOPIC: return "CREATE_TOPIC";
        case NamespaceOperation::DELETE_TOPIC: return "DELETE_TOPIC";
        case NamespaceOperation::GRANT_PERMISSION: return "GRANT_PERMISSION";
        case NamespaceOperation::GET_PERMISSION: return "GET_PERMISSION";
        case NamespaceOperation::REVOKE_PERMISSION: return "REVOKE_PERMISSION";
    }
    return "?";
}

bool Authorizer::isSuperUser(const std::string& role) const {
    return contains(settings_.superUserRoles, role);
}

Verdict Authorizer::tenantAdmin(std::string_view tenant, const std::string& role) const {
    if (isSuperUser(role)) return Verdict::yes();
    if (!metadata_.tenantExists(std::string(tenant))) return Verdict::failed("Tenant does not exist");
    auto it = metadata_.tenantAdminRoles.find(tenant);
    return it != metadata_.tenantAdminRoles.end() && it->second.count(role) ? Verdict::yes() : Verdict::no();
}

bool Authorizer::namespaceAction(std::string_view ns, const std::string& role, std::string_view action) const {
    if (!metadata_.namespaceExists(ns)) return false;  // "Policies node couldn't be found"
    auto it = policies_.namespaces.find(ns);
    if (it == policies_.namespaces.end()) return false;
    const auto& grants = it->second.namespace_auth;
    if (auto g = grants.find(role); g != grants.end() && contains(g->second, action)) return true;
    return settings_.allowWildcardsMatching && wildcardMatch(role, action, grants);
}

bool Authorizer::checkPermission(const TopicName& topic, const std::string& role, std::string_view action) const {
    if (!metadata_.namespaceExists(topic.namespaceView())) return false;
    auto it = policies_.namespaces.find(topic.namespaceView());
    if (it == policies_.namespaces.end()) return false;
    const auto& policies = it->second;
    const auto& nsGrants = policies.namespace_auth;
    if (auto g = nsGrants.find(role); g != nsGrants.end() && contains(g->second, action)) return true;
    const auto topicGrants = policies.destination_auth.find(topic.toString());
    if (topicGrants != policies.destination_auth.end()) {
        if (auto g = topicGrants->second.find(role); g != topicGrants->second.end() && contains(g->second, action))
            return true;
    }
    if (settings_.allowWildcardsMatching) {
        if (wildcardMatch(role, action, nsGrants)) return true;
        if (topicGrants != policies.destination_auth.end() && wildcardMatch(role, action, topicGrants->second))
            return true;
    }
    // A partition is allowed by a grant on its partitioned topic.
    if (topic.partitionIndex() >= 0) {
        auto base = policies.destination_auth.find(topic.partitionedBase().toString());
        if (base != policies.destination_auth.end()) {
            if (auto g = base->second.find(role); g != base->second.end() && contains(g->second, action)) return true;
        }
    }
    return false;
}

bool Authorizer::canConsume(const TopicName& topic, const std::string& role, std::string_view subscription) const {
    if (!subscription.empty()) {
        if (auto it = policies_.namespaces.find(topic.namespaceView()); it != policies_.namespaces.end()) {
            const auto& only = it->second.subscription_auth_roles;
            if (auto s = only.find(std::string(subscription)); s != only.end() && !s->second.empty() &&
                                                                 !contains(s->second, role))
                return false;
        }
    }
    return checkPermission(topic, role, "consume");
}

Verdict Authorizer::allowTopicOperation(const TopicName& topic, TopicOperation op, const std::string& role,
                                        std::string_view subscription) const {
    if (!settings_.authorizationEnabled) return Verdict::yes();
    auto admin = tenantAdmin(topic.tenant(), role);
    if (admin.error || admin.allowed) return admin;
    switch (op) {
        case TopicOperation::LOOKUP:
        case TopicOperation::GET_STATS:
        case TopicOperation::GET_METADATA:
            return {checkPermission(topic, role, "produce") || canConsume(topic, role, {}), std::nullopt};
        case TopicOperation::PRODUCE:
            return {checkPermission(topic, role, "produce"), std::nullopt};
        case TopicOperation::CONSUME:
        case TopicOperation::SUBSCRIBE:
            return {canConsume(topic, role, subscription), std::nullopt};
        case TopicOperation::UNLOAD:
        case TopicOperation::TERMINATE:
        case TopicOperation::COMPACT:
            return Verdict::no();
    }
    return Verdict::no();
}

Verdict Authorizer::allowNamespaceOperation(std::string_view ns, NamespaceOperation op, const std::string& role) const {
    if (!settings_.authorizationEnabled) return Verdict::yes();
    auto tenant = ns.substr(0, ns.find('/'));
    auto admin = tenantAdmin(tenant, role);
    if (admin.error || admin.allowed) return admin;
    switch (op) {
        case NamespaceOperation::GET_TOPICS:
            // allowConsumeOrProduceOpsAsync: a namespace grant of either action.
            return {namespaceAction(ns, role, "consume") || namespaceAction(ns, role, "produce"), std::nullopt};
        default:
            return Verdict::no();
    }
}

}  // namespace cnx::auth
