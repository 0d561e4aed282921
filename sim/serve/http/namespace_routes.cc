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

// Pulsar's namespace policy path names -> the Policies field names the model uses.
struct PolicyPath {
    const char* path;
    const char* field;
    V setter;                 // PUT or POST, as Pulsar has it
    const char* bodyType;     // Jackson's target type, for the 400 text
    Json::value_t bodyKind;   // string, boolean or number_integer
};

constexpr PolicyPath kNamespacePolicies[] = {
    {"schemaCompatibilityStrategy", "schema_compatibility_strategy", V::put, "SchemaCompatibilityStrategy", Json::value_t::string},
    {"schemaAutoUpdateCompatibilityStrategy", "schema_auto_update_compatibility_strategy", V::put,
     "SchemaAutoUpdateCompatibilityStrategy", Json::value_t::string},
    {"isAllowAutoUpdateSchema", "is_allow_auto_update_schema", V::post, "boolean", Json::value_t::boolean},
    {"schemaValidationEnforced", "schema_validation_enforced", V::post, "boolean", Json::value_t::boolean},
    {"maxProducersPerTopic", "max_producers_per_topic", V::post, "int", Json::value_t::number_integer},
};

constexpr PolicyPath kTopicPolicies[] = {
    {"schemaCompatibilityStrategy", "schemaCompatibilityStrategy", V::put, "SchemaCompatibilityStrategy", Json::value_t::string},
    {"schemaValidationEnforced", "schemaValidationEnforced", V::post, "boolean", Json::value_t::boolean},
};

template <std::size_t N>
const PolicyPath* findPolicy(const PolicyPath (&table)[N], const std::string& path) {
    for (const auto& p : table)
        if (path == p.path) return &p;
    return nullptr;
}

const char* verbName(V v) { return v == V::put ? "PUT" : "POST"; }

/// The policy value of a setter's body as the model's text, or the 400 to answer.
std::optional<std::string> policyValue(const Request& req, const PolicyPath& p, Response* refusal) {
    if (req.body().empty()) {
        *refusal = error(req, 400, "Request body is empty: expected a " + std::string(p.bodyType));
        return std::nullopt;
    }
    auto body = jsonBody(req, refusal);
    if (!body) return std::nullopt;
    bool kindOk = p.bodyKind == Json::value_t::boolean          ? body->is_boolean()
                  : p.bodyKind == Json::value_t::number_integer ? body->is_number_integer()
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

// Paths of Pulsar's PersistentTopics resource the model does not serve: 501
// `not modelled` instead of the router's 404, so a client sees the feature is
// missing rather than a path Pulsar lacks (the Go client's own tests call
// `…/ledger/{l}/entry/{e}` through pulsaradmin Subscriptions().GetMessagesByID).
std::optional<std::string> notModelledTopicPath(const std::vector<std::string>& s) {
    static const std::map<std::string, std::string, std::less<>> kLeaves = {
        {"ledger", "reading a message by its id (…/ledger/{ledgerId}/entry/{entryId})"},
        {"examinemessage", "examining a message (…/examinemessage)"},
        {"lastMessageId", "the last message id over REST (…/lastMessageId; GET_LAST_MESSAGE_ID is served)"},
        {"internalStats", "internal stats of the managed ledger (…/internalStats)"},
        {"partitioned-stats", "partitioned topic stats (…/partitioned-stats)"},
        {"partitioned-internalStats", "partitioned internal stats (…/partitioned-internalStats)"},
        {"subscriptions", "subscription admin over REST (…/subscriptions)"},
        {"subscription", "subscription admin over REST (…/subscription/{name}/…)"},
        {"backlog", "backlog estimates (…/backlog)"},
        {"compaction", "topic compaction (…/compaction)"},
        {"properties", "topic properties (…/properties)"},
        {"messageTTL", "message TTL (…/messageTTL)"},
        {"retention", "retention policies (…/retention)"},
        {"backlogQuota", "backlog quotas (…/backlogQuota)"},
        {"backlogQuotaMap", "backlog quotas (…/backlogQuotaMap)"},
    };
    if (s.size() < 7) return std::nullopt;
    auto it = kLeaves.find(s[6]);
    if (it == kLeaves.end()) return std::nullopt;
    return it->second;
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

void AdminRoutes::handleTenants(const Request& req, const Target& target, const Answer& done) {
    const auto& s = target.segments;
    auto reply = [&done](Response r) { done(std::move(r), nullptr); };
    auto answer = [&req, &done](AdminResponse r) { done(fromAdmin(req, r), r.trace); };
    const auto method = req.method();
    if (s.size() == 3) {
        if (method != V::get) return reply(methodNotAllowed(req, "GET"));
        return answer(admin_.getTenants());
    }
    if (s.size() != 4) return reply(error(req, 404, "HTTP 404 Not Found"));
    const auto& tenant = s[3];
    if (method == V::get) return answer(admin_.getTenant(tenant));
    if (method == V::delete_) return answer(admin_.deleteTenant(tenant));
    if (method == V::put || method == V::post) {
        // TenantsBase createTenant (PUT) and updateTenant (POST): a TenantInfo body naming the
        // clusters it may use; this broker has one. The model keeps no other tenant field.
        Response refusal;
        if (req.body().empty()) return reply(error(req, 412, "Clusters can not be empty"));
        auto body = jsonBody(req, &refusal);
        if (!body) return reply(std::move(refusal));
        if (!body->is_object()) return reply(error(req, 400, "Cannot deserialize value of type `TenantInfo` from " + dumpJson(*body)));
        auto clusters = body->find("allowedClusters");
        if (clusters == body->end() || !clusters->is_array() || clusters->empty())
            return reply(error(req, 412, "Clusters can not be empty"));
        for (const auto& c : *clusters)
            if (!c.is_string() || c.get<std::string>() != "standalone") return reply(error(req, 412, "Clusters do not exist"));
        // TenantInfo.adminRoles: a tenant's admins (policy/authorization.h).
        std::set<std::string> admins;
        if (auto roles = body->find("adminRoles"); roles != body->end() && !roles->is_null()) {
            if (!roles->is_array())
                return reply(error(req, 400, "Cannot deserialize value of type `java.util.HashSet<java.lang.String>` from " +
                                                 dumpJson(*roles)));
            for (const auto& r : *roles) {
                if (!r.is_string())
                    return reply(error(req, 400, "Cannot deserialize value of type `java.lang.String` from " + dumpJson(r)));
                admins.insert(r.get<std::string>());
            }
        }
        if (method == V::put) {
            auto created = admin_.createTenant(tenant);
            if (created.ok()) admin_.setTenantAdminRoles(tenant, std::move(admins));
            return answer(std::move(created));
        }
        // updateTenant: `Tenant <name> not found` (404) for a tenant nobody created, else 204
        // (TenantsBase.updateTenant, 4.2.4 jar). The Go and Python suites' set-up scripts
        // start with `pulsar-admin tenants update public`.
        if (!admin_.getTenant(tenant).ok()) return reply(error(req, 404, "Tenant " + tenant + " not found"));
        admin_.setTenantAdminRoles(tenant, std::move(admins));
        return reply(fromAdmin(req, AdminResponse::success(std::make_shared<Trace>(), 204, nullptr)));
    }
    reply(methodNotAllowed(req, "GET, PUT, POST, DELETE"));
}

void AdminRoutes::handleNamespaces(const Request& req, const Target& target, const Answer& done) {
    const auto& s = target.segments;
    auto reply = [&done](Response r) { done(std::move(r), nullptr); };
    auto answer = [&req, &done](AdminResponse r) { done(fromAdmin(req, r), r.trace); };
    const auto method = req.method();
    if (s.size() == 4) {
        if (method != V::get) return reply(methodNotAllowed(req, "GET"));
        return answer(admin_.getNamespaces(s[3]));
    }
    std::string ns = s[3] + "/" + s[4];
    if (s.size() == 5) {
        if (method == V::get) return answer(admin_.getNamespacePolicies(ns));
        if (method == V::delete_) return answer(admin_.deleteNamespace(ns, isTrue(target, "force")));
        if (method == V::put) {
            // The body, when given, is a Policies object: its schema fields are stored
            // with the namespace (the model keeps no other field).
            std::vector<std::pair<std::string, std::string>> given;
            if (!req.body().empty()) {
                Response refusal;
                auto body = jsonBody(req, &refusal);
                if (!body) return reply(std::move(refusal));
                if (!body->is_object())
                    return reply(error(req, 400, "Cannot deserialize value of type `Policies` from " + dumpJson(*body)));
                NamespacePolicies probe;
                for (auto field : NamespacePolicies::fields()) {
                    auto it = body->find(std::string(field));
                    if (it == body->end() || it->is_null()) continue;
                    std::string text = it->is_string() ? it->get<std::string>() : dumpJson(*it);
                    if (auto bad = probe.set(field, text)) return reply(error(req, 400, *bad));
                    given.emplace_back(field, text);
                }
            }
            // auth_policies.namespace_auth in the body (the Go and Python suites' set-up) is stored too.
            std::vector<std::pair<std::string, std::vector<std::string>>> grants;
            if (!req.body().empty()) {
                Response refusal;
                auto body = jsonBody(req, &refusal);
                const Json* ap = body && body->is_object() && body->contains("auth_policies") ? &(*body)["auth_policies"] : nullptr;
                if (ap && ap->is_object()) {
                    if (auto na = ap->find("namespace_auth"); na != ap->end() && na->is_object()) {
                        for (const auto& [role, actions] : na->items()) {
                            auto parsed = authActions(actions);
                            if (!parsed) return reply(error(req, 400, "Cannot deserialize value of type `java.util.HashSet<org.apache.pulsar.common.policies.data.AuthAction>` from " + dumpJson(actions)));
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
            return answer(std::move(created));
        }
        return reply(methodNotAllowed(req, "GET, PUT, DELETE"));
    }
    if (s.size() == 6 && s[5] == "permissions") {
        if (method != V::get) return reply(methodNotAllowed(req, "GET"));
        return answer(admin_.namespacePermissions(ns));
    }
    if (s.size() == 7 && s[5] == "permissions") {
        // NamespacesBase.grantPermissionOnNamespace: a JSON array of AuthAction names.
        if (method == V::delete_) return answer(admin_.revokeNamespacePermission(ns, s[6]));
        if (method != V::post) return reply(methodNotAllowed(req, "POST, DELETE"));
        Response refusal;
        auto actions = permissionBody(req, &refusal);
        if (!actions) return reply(std::move(refusal));
        return answer(admin_.grantNamespacePermission(ns, s[6], *actions));
    }
    if (s.size() != 6) return reply(error(req, 404, "HTTP 404 Not Found"));
    if (s[5] == "topics") {
        if (method != V::get) return reply(methodNotAllowed(req, "GET"));
        if (!broker_.metadata().namespaceExists(ns)) return reply(error(req, 404, "Namespace does not exist"));
        // NamespacesBase.getTopics: ?mode= PERSISTENT (default), NON_PERSISTENT or ALL.
        auto mode = target.query.count("mode") ? target.query.at("mode") : std::string("PERSISTENT");
        if (mode != "PERSISTENT" && mode != "NON_PERSISTENT" && mode != "ALL")
            return reply(error(req, 404, "HTTP 404 Not Found"));  // an enum query parameter that does not convert
        return reply(makeResponse(req.version(), req.keep_alive(), 200,
                                  dumpJson(Json(broker_.topicsOfNamespace(ns, mode != "NON_PERSISTENT", mode != "PERSISTENT")))));
    }
    if (s[5] == "deduplication" || s[5] == "backlogQuota") {
        if (method != V::post && method != V::get && method != V::delete_)
            return reply(methodNotAllowed(req, "GET, POST, DELETE"));
        return answer(admin_.notModelled(s[5] == "deduplication"
                                             ? "namespace deduplication: the broker does not drop re-sent sequence ids"
                                             : "namespace backlog quotas: producers are never held or refused for a backlog"));
    }
    const auto* policy = findPolicy(kNamespacePolicies, s[5]);
    if (!policy) return reply(error(req, 404, "HTTP 404 Not Found"));
    bool hasDelete = policy->bodyKind == Json::value_t::number_integer;  // removeMaxProducersPerTopic
    if (method == V::get) return answer(admin_.getNamespacePolicy(ns, policy->field, isTrue(target, "applied")));
    if (hasDelete && method == V::delete_) return answer(admin_.setNamespacePolicy(ns, policy->field, std::nullopt));
    if (method == policy->setter) {
        Response refusal;
        auto value = policyValue(req, *policy, &refusal);
        if (!value) return reply(std::move(refusal));
        return answer(admin_.setNamespacePolicy(ns, policy->field, std::string_view(*value)));
    }
    reply(methodNotAllowed(req, std::string("GET, ") + verbName(policy->setter) + (hasDelete ? ", DELETE" : "")));
}

void AdminRoutes::handleTopic(const Request& req, const Target& target, const Answer& done) {
    const auto& s = target.segments;
    auto reply = [&done](Response r) { done(std::move(r), nullptr); };
    auto answer = [&req, &done](AdminResponse r) { done(fromAdmin(req, r), r.trace); };
    const auto method = req.method();
    bool persistent = s[2] == "persistent";
    std::string ns = s[3] + "/" + s[4];
    // The topic lists of a namespace: GET /admin/v2/{domain}/{t}/{ns}[/partitioned]
    // (a topic named `partitioned` cannot be reached by GET here, as in Pulsar's resource).
    bool listing = s.size() == 5 || (s.size() == 6 && s[5] == "partitioned" && method == V::get);
    if (listing) {
        if (method != V::get) return reply(methodNotAllowed(req, "GET"));
        if (!broker_.metadata().namespaceExists(ns)) return reply(error(req, 404, "Namespace does not exist"));
        auto names = s.size() == 5 ? broker_.topicsOfNamespace(ns, persistent, !persistent)
                                   : broker_.partitionedTopicsOfNamespace(ns, persistent);
        return reply(makeResponse(req.version(), req.keep_alive(), 200, dumpJson(Json(names))));
    }
    std::string why;
    auto topic = TopicName::parse(s[2] + "://" + s[3] + "/" + s[4] + "/" + s[5], &why);
    if (!topic) return reply(error(req, 412, "Invalid topic name: " + why));
    if (s.size() == 6) {
        if (method == V::delete_)
            return answer(admin_.deleteTopic(*topic, isTrue(target, "force"), isTrue(target, "deleteSchema")));
        if (method == V::put) return answer(admin_.createTopic(*topic));
        return reply(methodNotAllowed(req, "PUT, DELETE"));
    }
    if (s.size() == 7 && s[6] == "permissions") {
        if (method != V::get) return reply(methodNotAllowed(req, "GET"));
        return answer(admin_.topicPermissions(*topic));
    }
    if (s.size() == 8 && s[6] == "permissions") {
        // PersistentTopics.grantPermissionsOnTopic / revokePermissionsOnTopic.
        if (method == V::delete_) return answer(admin_.revokeTopicPermission(*topic, s[7]));
        if (method != V::post) return reply(methodNotAllowed(req, "POST, DELETE"));
        Response refusal;
        auto actions = permissionBody(req, &refusal);
        if (!actions) return reply(std::move(refusal));
        return answer(admin_.grantTopicPermission(*topic, s[7], *actions));
    }
    if (auto what = notModelledTopicPath(s)) return answer(admin_.notModelled(*what));
    if (s.size() != 7) return reply(error(req, 404, "HTTP 404 Not Found"));
    const auto& leaf = s[6];
    if (leaf == "stats") {
        if (method != V::get) return reply(methodNotAllowed(req, "GET"));
        return answer(admin_.topicStats(*topic));
    }
    if (leaf == "terminate") {
        if (method != V::post) return reply(methodNotAllowed(req, "POST"));
        return answer(admin_.terminateTopic(*topic));
    }
    if (leaf == "unload") {
        if (method != V::put) return reply(methodNotAllowed(req, "PUT"));
        return answer(admin_.unloadTopic(*topic));
    }
    if (leaf == "partitions") {
        if (method == V::get) return answer(admin_.getPartitionedMetadata(*topic));
        if (method == V::delete_)
            return answer(admin_.deletePartitionedTopic(*topic, isTrue(target, "force"), isTrue(target, "deleteSchema")));
        if (method == V::put && isPartitionedTopicMetadata(req)) {
            Response refusal;
            std::optional<AdminResponse> notModelled;
            auto count = partitionedTopicMetadataBody(admin_, req, &notModelled, &refusal);
            if (!count) return notModelled ? answer(*notModelled) : reply(std::move(refusal));
            return answer(admin_.createPartitionedTopic(*topic, *count));
        }
        if (method == V::put || method == V::post) {
            Response refusal;
            auto count = countBody(req, &refusal);
            if (!count) return reply(std::move(refusal));
            return answer(method == V::put ? admin_.createPartitionedTopic(*topic, *count)
                                           : admin_.updatePartitionedTopic(*topic, *count));
        }
        return reply(methodNotAllowed(req, "GET, PUT, POST, DELETE"));
    }
    const auto* policy = findPolicy(kTopicPolicies, leaf);
    if (!policy) return reply(error(req, 404, "HTTP 404 Not Found"));
    bool hasDelete = policy->setter == V::put;  // schemaCompatibilityStrategy has DELETE, schemaValidationEnforced not
    if (method == V::get) return answer(admin_.getTopicPolicy(*topic, policy->field, isTrue(target, "applied")));
    if (method == policy->setter || (hasDelete && method == V::delete_)) {
        if (auto refusal = admin_.topicPolicyEndpointRefusal(policy->field)) return answer(*refusal);
        if (method == V::delete_) return answer(admin_.setTopicPolicy(*topic, policy->field, std::nullopt));
        Response refusal;
        auto value = policyValue(req, *policy, &refusal);
        if (!value) return reply(std::move(refusal));
        return answer(admin_.setTopicPolicy(*topic, policy->field, std::string_view(*value)));
    }
    reply(methodNotAllowed(req, std::string("GET, ") + verbName(policy->setter) + (hasDelete ? ", DELETE" : "")));
}

}  // namespace cnx::serve::http
