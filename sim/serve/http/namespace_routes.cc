// The tenant, namespace and topic paths of the admin port:
//   GET /admin/v2/tenants; GET|PUT|POST|DELETE /admin/v2/tenants/{tenant}
//   GET /admin/v2/namespaces/{tenant}; GET|PUT|DELETE /admin/v2/namespaces/{tenant}/{ns} (?force)
//   GET /admin/v2/namespaces/{tenant}/{ns}/topics (?mode=PERSISTENT|NON_PERSISTENT|ALL)
//   GET|POST|DELETE …/namespaces/{tenant}/{ns}/maxProducersPerTopic              (body: 10)
//   GET …/namespaces/{tenant}/{ns}/permissions; POST|DELETE …/permissions/{role}    (body: ["produce"])
//   GET …/{domain}/{tenant}/{ns}/{topic}/permissions; POST|DELETE …/permissions/{role}
//   POST …/namespaces/{tenant}/{ns}/deduplication, …/backlogQuota: not modelled (501)
//   GET|PUT  …/namespaces/{tenant}/{ns}/schemaCompatibilityStrategy              (body: "BACKWARD")
//   GET|PUT  …/namespaces/{tenant}/{ns}/schemaAutoUpdateCompatibilityStrategy    (body: "Backward")
//   GET|POST …/namespaces/{tenant}/{ns}/isAllowAutoUpdateSchema                  (body: true)
//   GET|POST …/namespaces/{tenant}/{ns}/schemaValidationEnforced (?applied)      (body: true)
//   GET /admin/v2/{persistent|non-persistent}/{tenant}/{ns}[/partitioned]        (the topic lists)
//   PUT|DELETE /admin/v2/{persistent|non-persistent}/{tenant}/{ns}/{topic}      (?force, ?deleteSchema)
//   PUT …/{topic}/unload
//   GET|PUT|POST|DELETE …/{topic}/partitions                                     (body: 3)
//     PUT with Content-Type application/vnd.partitioned-topic-metadata+json: {"partitions": 3}
//   GET (?applied)|PUT|DELETE …/{topic}/schemaCompatibilityStrategy
//   GET (?applied)|POST …/{topic}/schemaValidationEnforced
//   GET …/{topic}/stats, POST …/{topic}/terminate
//   …/{topic}/ledger, lastMessageId, internalStats, subscription(s), … : not modelled (501)
// Bodies are JSON as Jackson reads them: an enum is a JSON string, a flag a
// bare boolean, a count a bare number; anything else is a 400.

#include <algorithm>
#include <set>

#include "sim/serve/http/admin_routes.h"
#include "sim/serve/http/route_support.h"

#include "broker_model/policy/policies.h"

namespace cnx::serve::http {

using namespace detail;
using V = beast_http::verb;

namespace {

/// The policy value of a setter's body as the model's text, or the 400 to answer.
std::optional<std::string> policyValue(const Request& req, const rest::PolicyLeaf& p, Response* refusal) {
    if (req.body().empty()) {
        *refusal = error(req, 400, "Request body is empty: expected a " + std::string(p.bodyType));
        return std::nullopt;
    }
    auto body = jsonBody(req, refusal);
    if (!body) return std::nullopt;
    bool kindOk = p.body == rest::BodyKind::flag    ? body->is_boolean()
                  : p.body == rest::BodyKind::count ? body->is_number_integer()
                                                    : body->is_string();
    if (!kindOk) {
        *refusal = error(req, 400, "Cannot deserialize value of type `" + std::string(p.bodyType) + "` from " + dumpJson(*body));
        return std::nullopt;
    }
    if (body->is_boolean()) return std::string(body->get<bool>() ? "true" : "false");
    return body->is_string() ? body->get<std::string>() : dumpJson(*body);
}

/// A bare JSON integer body (a partition count), or the 400 to answer.
std::optional<int> countBody(const Request& req, Response* refusal) {
    auto body = jsonBody(req, refusal);
    if (!body) return std::nullopt;
    if (!body->is_number_integer() || body->get<std::int64_t>() > std::numeric_limits<int>::max() ||
        body->get<std::int64_t>() < std::numeric_limits<int>::min()) {
        *refusal = error(req, 400, "Cannot deserialize value of type `int` from " + dumpJson(*body));
        return std::nullopt;
    }
    return body->get<int>();
}

// PersistentTopics' second createPartitionedTopic (#14117, 2.10.0), chosen by
// Jersey for this Content-Type: a PartitionedTopicMetadata body
// (pulsar-common PartitionedTopicMetadata.MEDIA_TYPE), which the Go admin
// client (pulsaradmin Topics().Create) and the Java admin send.
constexpr std::string_view kPartitionedTopicMetadataType = "application/vnd.partitioned-topic-metadata+json";

bool isPartitionedTopicMetadata(const Request& req) {
    auto it = req.find(beast_http::field::content_type);
    if (it == req.end()) return false;
    std::string_view type(it->value().data(), it->value().size());
    type = type.substr(0, type.find(';'));
    while (!type.empty() && type.back() == ' ') type.remove_suffix(1);
    return type == kPartitionedTopicMetadataType;
}

/// The partition count of a PartitionedTopicMetadata body ({"partitions": 3,
/// "properties": null}), or the 400 (refusal) or 501 (notModelled) to answer. Topic properties are not
/// modelled: a body that sets some is refused (501), never stored silently.
std::optional<int> partitionedTopicMetadataBody(const AdminApi& admin, const Request& req,
                                                std::optional<AdminResponse>* notModelled, Response* refusal) {
    auto body = jsonBody(req, refusal);
    if (!body) return std::nullopt;
    auto bad = [&] {
        *refusal = error(req, 400, "Cannot deserialize value of type `PartitionedTopicMetadata` from " + dumpJson(*body));
        return std::nullopt;
    };
    if (!body->is_object()) return bad();
    auto partitions = body->find("partitions");
    std::int64_t count = 0;  // Jackson leaves a missing field at the constructor's 0
    if (partitions != body->end()) {
        if (!partitions->is_number_integer()) return bad();
        count = partitions->get<std::int64_t>();
        if (count > std::numeric_limits<int>::max() || count < std::numeric_limits<int>::min()) return bad();
    }
    if (auto props = body->find("properties");
        props != body->end() && !props->is_null() && !(props->is_object() && props->empty())) {
        *notModelled = admin.notModelled("topic properties (PartitionedTopicMetadata.properties)");
        return std::nullopt;
    }
    return static_cast<int>(count);
}

// A set of AuthAction names (produce, consume, functions, sources, sinks,
// packages). A name Jackson does not know is read as null, stored as "" (a real
// 4.2.4 broker answers 204 and lists it as null); anything but an array of
// strings is refused.
std::optional<std::vector<std::string>> authActions(const Json& json) {
    static constexpr std::string_view kActions[] = {"produce", "consume", "functions", "sources", "sinks", "packages"};
    if (!json.is_array()) return std::nullopt;
    std::vector<std::string> actions;
    for (const auto& a : json) {
        if (!a.is_string() && !a.is_null()) return std::nullopt;
        std::string name = a.is_string() ? a.get<std::string>() : std::string();
        if (std::find(std::begin(kActions), std::end(kActions), name) == std::end(kActions)) name.clear();
        if (std::find(actions.begin(), actions.end(), name) == actions.end()) actions.push_back(std::move(name));
    }
    return actions;
}

// The body of a grant: a JSON array of AuthAction names, or Jackson's 400.
std::optional<std::vector<std::string>> permissionBody(const Request& req, Response* refusal) {
    auto body = jsonBody(req, refusal);
    if (!body) return std::nullopt;
    auto actions = authActions(*body);
    if (!actions)
        *refusal = error(req, 400, "Cannot deserialize value of type `java.util.HashSet<org.apache.pulsar.common.policies.data.AuthAction>` from " + dumpJson(*body));
    return actions;
}

}  // namespace

void AdminRoutes::tenantCall(const Routed& c) {
    switch (c.call()) {
        case rest::Call::getTenants: return c.answer(admin_.getTenants());
        case rest::Call::getTenant: return c.answer(admin_.getTenant(c.param("tenant")));
        case rest::Call::deleteTenant: return c.answer(admin_.deleteTenant(c.param("tenant")));
        case rest::Call::createTenant:
        case rest::Call::updateTenant: return putTenant(c);
        default: break;
    }
    c.reply(error(c.req, 404, "HTTP 404 Not Found"));
}

// TenantsBase createTenant (PUT) and updateTenant (POST): a TenantInfo body naming the
// clusters it may use; this broker has one. The model keeps no other tenant field.
void AdminRoutes::putTenant(const Routed& c) {
    const auto& req = c.req;
    const auto& tenant = c.param("tenant");
    Response refusal;
    if (req.body().empty()) return c.reply(error(req, 412, "Clusters can not be empty"));
    auto body = jsonBody(req, &refusal);
    if (!body) return c.reply(std::move(refusal));
    if (!body->is_object()) return c.reply(error(req, 400, "Cannot deserialize value of type `TenantInfo` from " + dumpJson(*body)));
    auto clusters = body->find("allowedClusters");
    if (clusters == body->end() || !clusters->is_array() || clusters->empty())
        return c.reply(error(req, 412, "Clusters can not be empty"));
    for (const auto& cl : *clusters)
        if (!cl.is_string() || cl.get<std::string>() != "standalone") return c.reply(error(req, 412, "Clusters do not exist"));
    // TenantInfo.adminRoles: a tenant's admins (policy/authorization.h).
    std::set<std::string> admins;
    if (auto roles = body->find("adminRoles"); roles != body->end() && !roles->is_null()) {
        if (!roles->is_array())
            return c.reply(error(req, 400, "Cannot deserialize value of type `java.util.HashSet<java.lang.String>` from " +
                                               dumpJson(*roles)));
        for (const auto& r : *roles) {
            if (!r.is_string())
                return c.reply(error(req, 400, "Cannot deserialize value of type `java.lang.String` from " + dumpJson(r)));
            admins.insert(r.get<std::string>());
        }
    }
    if (c.call() == rest::Call::createTenant) {
        auto created = admin_.createTenant(tenant);
        if (created.ok()) admin_.setTenantAdminRoles(tenant, std::move(admins));
        return c.answer(created);
    }
    // updateTenant: `Tenant <name> not found` (404) for a tenant nobody created, else 204
    // (TenantsBase.updateTenant, 4.2.4 jar). The Go and Python suites' set-up scripts
    // start with `pulsar-admin tenants update public`.
    if (!admin_.getTenant(tenant).ok()) return c.reply(error(req, 404, "Tenant " + tenant + " not found"));
    admin_.setTenantAdminRoles(tenant, std::move(admins));
    c.reply(fromAdmin(req, AdminResponse::success(std::make_shared<Trace>(), 204, nullptr)));
}

void AdminRoutes::namespaceCall(const Routed& c) {
    const auto& req = c.req;
    switch (c.call()) {
        case rest::Call::getNamespaces: return c.answer(admin_.getNamespaces(c.param("tenant")));
        case rest::Call::getNamespacePolicies: return c.answer(admin_.getNamespacePolicies(c.ns()));
        case rest::Call::deleteNamespace: return c.answer(admin_.deleteNamespace(c.ns(), isTrue(c.target, "force")));
        case rest::Call::createNamespace: return createNamespace(c);
        case rest::Call::getNamespacePermissions: return c.answer(admin_.namespacePermissions(c.ns()));
        // NamespacesBase.grantPermissionOnNamespace: a JSON array of AuthAction names.
        case rest::Call::revokeNamespacePermission:
            return c.answer(admin_.revokeNamespacePermission(c.ns(), c.param("role")));
        case rest::Call::grantNamespacePermission: {
            Response refusal;
            auto actions = permissionBody(req, &refusal);
            if (!actions) return c.reply(std::move(refusal));
            return c.answer(admin_.grantNamespacePermission(c.ns(), c.param("role"), *actions));
        }
        case rest::Call::getNamespaceTopics: {
            auto ns = c.ns();
            if (!broker_.metadata().namespaceExists(ns)) return c.reply(error(req, 404, "Namespace does not exist"));
            // NamespacesBase.getTopics: ?mode= PERSISTENT (default), NON_PERSISTENT or ALL.
            auto mode = c.target.query.count("mode") ? c.target.query.at("mode") : std::string("PERSISTENT");
            if (mode != "PERSISTENT" && mode != "NON_PERSISTENT" && mode != "ALL")
                return c.reply(error(req, 404, "HTTP 404 Not Found"));  // an enum query parameter that does not convert
            return c.reply(makeResponse(req.version(), req.keep_alive(), 200,
                                        dumpJson(Json(broker_.topicsOfNamespace(ns, mode != "NON_PERSISTENT", mode != "PERSISTENT")))));
        }
        case rest::Call::namespaceNotModelled: return c.answer(admin_.notModelled(std::string(c.route.note)));
        default: break;
    }
    c.reply(error(req, 404, "HTTP 404 Not Found"));
}

// PUT /admin/v2/namespaces/{tenant}/{ns}: the body, when given, is a Policies
// object: its schema fields and auth_policies.namespace_auth are stored with
// the namespace (the model keeps no other field).
void AdminRoutes::createNamespace(const Routed& c) {
    const auto& req = c.req;
    auto ns = c.ns();
    std::vector<std::pair<std::string, std::string>> given;
    std::vector<std::pair<std::string, std::vector<std::string>>> grants;
    if (!req.body().empty()) {
        Response refusal;
        auto body = jsonBody(req, &refusal);
        if (!body) return c.reply(std::move(refusal));
        if (!body->is_object())
            return c.reply(error(req, 400, "Cannot deserialize value of type `Policies` from " + dumpJson(*body)));
        NamespacePolicies probe;
        for (auto field : NamespacePolicies::fields()) {
            auto it = body->find(std::string(field));
            if (it == body->end() || it->is_null()) continue;
            std::string text = it->is_string() ? it->get<std::string>() : dumpJson(*it);
            if (auto bad = probe.set(field, text)) return c.reply(error(req, 400, *bad));
            given.emplace_back(field, text);
        }
        // auth_policies.namespace_auth (the Go and Python suites' set-up) is stored too.
        const Json* ap = body->contains("auth_policies") ? &(*body)["auth_policies"] : nullptr;
        if (ap && ap->is_object()) {
            if (auto na = ap->find("namespace_auth"); na != ap->end() && na->is_object()) {
                for (const auto& [role, actions] : na->items()) {
                    auto parsed = authActions(actions);
                    if (!parsed) return c.reply(error(req, 400, "Cannot deserialize value of type `java.util.HashSet<org.apache.pulsar.common.policies.data.AuthAction>` from " + dumpJson(actions)));
                    grants.emplace_back(role, std::move(*parsed));
                }
            }
        }
    }
    auto created = admin_.createNamespace(ns);
    for (const auto& [role, actions] : grants) {
        if (!created.ok()) break;
        auto set = admin_.grantNamespacePermission(ns, role, actions);
        created.trace->append(*set.trace);
    }
    for (const auto& [field, text] : given) {
        if (!created.ok()) break;
        auto set = admin_.setNamespacePolicy(ns, field, std::string_view(text));
        created.trace->append(*set.trace);
    }
    c.answer(created);
}

void AdminRoutes::namespacePolicyCall(const Routed& c) {
    const auto& policy = *c.route.policy;
    std::string field(policy.field);
    switch (c.call()) {
        case rest::Call::getNamespacePolicy:
            return c.answer(admin_.getNamespacePolicy(c.ns(), field, isTrue(c.target, "applied")));
        case rest::Call::removeNamespacePolicy: return c.answer(admin_.setNamespacePolicy(c.ns(), field, std::nullopt));
        case rest::Call::setNamespacePolicy: {
            Response refusal;
            auto value = policyValue(c.req, policy, &refusal);
            if (!value) return c.reply(std::move(refusal));
            return c.answer(admin_.setNamespacePolicy(c.ns(), field, std::string_view(*value)));
        }
        default: break;
    }
    c.reply(error(c.req, 404, "HTTP 404 Not Found"));
}

void AdminRoutes::topicCall(const Routed& c) {
    const auto& req = c.req;
    if (c.call() == rest::Call::listTopics || c.call() == rest::Call::listPartitionedTopics) {
        auto ns = c.ns();
        bool persistent = c.param("domain") == "persistent";
        if (!broker_.metadata().namespaceExists(ns)) return c.reply(error(req, 404, "Namespace does not exist"));
        auto names = c.call() == rest::Call::listTopics ? broker_.topicsOfNamespace(ns, persistent, !persistent)
                                                        : broker_.partitionedTopicsOfNamespace(ns, persistent);
        return c.reply(makeResponse(req.version(), req.keep_alive(), 200, dumpJson(Json(names))));
    }
    auto topic = c.topic();
    switch (c.call()) {
        case rest::Call::deleteTopic:
            return c.answer(admin_.deleteTopic(topic, isTrue(c.target, "force"), isTrue(c.target, "deleteSchema")));
        case rest::Call::createTopic: return c.answer(admin_.createTopic(topic));
        case rest::Call::getTopicPermissions: return c.answer(admin_.topicPermissions(topic));
        // PersistentTopics.grantPermissionsOnTopic / revokePermissionsOnTopic.
        case rest::Call::revokeTopicPermission: return c.answer(admin_.revokeTopicPermission(topic, c.param("role")));
        case rest::Call::grantTopicPermission: {
            Response refusal;
            auto actions = permissionBody(req, &refusal);
            if (!actions) return c.reply(std::move(refusal));
            return c.answer(admin_.grantTopicPermission(topic, c.param("role"), *actions));
        }
        case rest::Call::topicNotModelled: return c.answer(admin_.notModelled(std::string(c.route.note)));
        case rest::Call::topicStats: return c.answer(admin_.topicStats(topic));
        case rest::Call::terminateTopic: return c.answer(admin_.terminateTopic(topic));
        case rest::Call::unloadTopic: return c.answer(admin_.unloadTopic(topic));
        case rest::Call::getPartitionedMetadata:
        case rest::Call::createPartitionedTopic:
        case rest::Call::updatePartitionedTopic:
        case rest::Call::deletePartitionedTopic: return partitionsCall(c, topic);
        case rest::Call::getTopicPolicy:
        case rest::Call::setTopicPolicy:
        case rest::Call::removeTopicPolicy: return topicPolicyCall(c, topic);
        default: break;
    }
    c.reply(error(req, 404, "HTTP 404 Not Found"));
}

// GET|PUT|POST|DELETE …/{topic}/partitions.
void AdminRoutes::partitionsCall(const Routed& c, const TopicName& topic) {
    const auto& req = c.req;
    Response refusal;
    switch (c.call()) {
        case rest::Call::getPartitionedMetadata: return c.answer(admin_.getPartitionedMetadata(topic));
        case rest::Call::deletePartitionedTopic:
            return c.answer(admin_.deletePartitionedTopic(topic, isTrue(c.target, "force"), isTrue(c.target, "deleteSchema")));
        case rest::Call::createPartitionedTopic:
            if (isPartitionedTopicMetadata(req)) {
                std::optional<AdminResponse> notModelled;
                auto count = partitionedTopicMetadataBody(admin_, req, &notModelled, &refusal);
                if (!count) return notModelled ? c.answer(*notModelled) : c.reply(std::move(refusal));
                return c.answer(admin_.createPartitionedTopic(topic, *count));
            }
            [[fallthrough]];
        case rest::Call::updatePartitionedTopic: {
            auto count = countBody(req, &refusal);
            if (!count) return c.reply(std::move(refusal));
            return c.answer(c.call() == rest::Call::createPartitionedTopic ? admin_.createPartitionedTopic(topic, *count)
                                                                           : admin_.updatePartitionedTopic(topic, *count));
        }
        default: break;
    }
    c.reply(error(req, 404, "HTTP 404 Not Found"));
}

// GET (?applied)|set|DELETE …/{topic}/{policy}.
void AdminRoutes::topicPolicyCall(const Routed& c, const TopicName& topic) {
    const auto& policy = *c.route.policy;
    std::string field(policy.field);
    if (c.call() == rest::Call::getTopicPolicy)
        return c.answer(admin_.getTopicPolicy(topic, field, isTrue(c.target, "applied")));
    if (auto refusal = admin_.topicPolicyEndpointRefusal(field)) return c.answer(*refusal);
    if (c.call() == rest::Call::removeTopicPolicy) return c.answer(admin_.setTopicPolicy(topic, field, std::nullopt));
    Response refusal;
    auto value = policyValue(c.req, policy, &refusal);
    if (!value) return c.reply(std::move(refusal));
    c.answer(admin_.setTopicPolicy(topic, field, std::string_view(*value)));
}

}  // namespace cnx::serve::http
