#include "sim/rest/admin_routes_table.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "broker_model/core/topic_name.h"

namespace cnx::rest {
namespace {

using M = Method;
using C = Call;

// Namespaces' schema and producer policies (the model's Policies field names).
constexpr PolicyLeaf kNsCompatibility{"schemaCompatibilityStrategy", "schema_compatibility_strategy",
                                      "schema_compatibility_strategy", M::put, "SchemaCompatibilityStrategy",
                                      BodyKind::text, "\"UNDEFINED\"", Recorded::yes};
constexpr PolicyLeaf kNsAutoUpdate{"schemaAutoUpdateCompatibilityStrategy", "schema_auto_update_compatibility_strategy",
                                   "schema_auto_update_compatibility_strategy", M::put,
                                   "SchemaAutoUpdateCompatibilityStrategy", BodyKind::text, "", Recorded::yes};
constexpr PolicyLeaf kNsAllowAutoUpdate{"isAllowAutoUpdateSchema", "is_allow_auto_update_schema",
                                        "is_allow_auto_update_schema", M::post, "boolean", BodyKind::flag, "",
                                        Recorded::yes};
constexpr PolicyLeaf kNsValidation{"schemaValidationEnforced", "schema_validation_enforced", "schema_validation_enforced",
                                   M::post, "boolean", BodyKind::flag, "", Recorded::yes};
// A count is not a body the recorder writes: its setters are left out of recordings.
constexpr PolicyLeaf kNsMaxProducers{"maxProducersPerTopic", "max_producers_per_topic", "max_producers_per_topic",
                                     M::post, "int", BodyKind::count, "", Recorded::no};
// Topic policies (the model's topic policy names are Pulsar's).
constexpr PolicyLeaf kTopicCompatibility{"schemaCompatibilityStrategy", "schemaCompatibilityStrategy",
                                         "schema_compatibility_strategy", M::put, "SchemaCompatibilityStrategy",
                                         BodyKind::text, "", Recorded::yes};
constexpr PolicyLeaf kTopicValidation{"schemaValidationEnforced", "schemaValidationEnforced", "schema_validation_enforced",
                                      M::post, "boolean", BodyKind::flag, "", Recorded::yes};

#define NS "/admin/v2/namespaces/{tenant}/{namespace}"
#define TOPIC "/admin/v2/{domain}/{tenant}/{namespace}/{topic}"
#define SCHEMAS "/admin/v2/schemas/{tenant}/{namespace}/{topic}"

constexpr Route kRoutes[] = {
    // BrokersBase, ClustersBase, the metrics servlet
    {M::get, "/metrics", C::metrics},
    {M::get, "/admin/v2/brokers/version", C::brokerVersion},
    {M::get, "/admin/v2/brokers/health", C::brokerHealth},
    {M::get, "/admin/v2/brokers/configuration", C::brokerConfigNames},
    {.method = M::get, .pattern = "/admin/v2/brokers/configuration/runtime", .call = C::brokerConfigRuntime,
     .inAllow = InAllow::no},
    {.method = M::get, .pattern = "/admin/v2/brokers/configuration/values", .call = C::brokerConfigValues,
     .inAllow = InAllow::no},
    {M::post, "/admin/v2/brokers/configuration/{key}/{value}", C::setBrokerConfig},
    {M::del, "/admin/v2/brokers/configuration/{key}", C::deleteBrokerConfig},
    {M::get, "/admin/v2/clusters", C::getClusters},
    {M::get, "/admin/v2/clusters/{cluster}", C::getCluster},
    {M::put, "/admin/v2/clusters/{cluster}", C::createCluster},
    // cnxsim's own control
    {.method = M::get, .pattern = "/cnxsim/status", .call = C::cnxsimStatus, .needs = Needs::lifecycle},
    {.method = M::get, .pattern = "/cnxsim/trace", .call = C::cnxsimTrace, .query = "last", .needs = Needs::lifecycle},
    {.method = M::post, .pattern = "/cnxsim/upgrade", .call = C::cnxsimUpgrade, .query = "version",
     .needs = Needs::lifecycle},
    {.method = M::post, .pattern = "/cnxsim/restart", .call = C::cnxsimRestart, .needs = Needs::lifecycle},
    {.method = M::post, .pattern = "/cnxsim/reset", .call = C::cnxsimReset, .needs = Needs::lifecycle},
    // TopicLookupBase
    {M::get, "/lookup/v2/topic/{domain}/{tenant}/{namespace}/{topic}", C::lookupTopic, "listenerName"},
    // SchemasResource
    {M::get, SCHEMAS "/schema", C::getSchema},
    {M::post, SCHEMAS "/schema", C::postSchema},
    {M::del, SCHEMAS "/schema", C::deleteSchema, "force"},
    {M::get, SCHEMAS "/schema/{version}", C::getSchemaAtVersion},
    {M::get, SCHEMAS "/schemas", C::getAllSchemas},
    {M::post, SCHEMAS "/compatibility", C::testCompatibility},
    {M::post, SCHEMAS "/version", C::getVersionBySchema},
    // TenantsBase
    {M::get, "/admin/v2/tenants", C::getTenants},
    {M::get, "/admin/v2/tenants/{tenant}", C::getTenant},
    {M::put, "/admin/v2/tenants/{tenant}", C::createTenant},
    {M::post, "/admin/v2/tenants/{tenant}", C::updateTenant},
    {M::del, "/admin/v2/tenants/{tenant}", C::deleteTenant},
    // Namespaces
    {M::get, "/admin/v2/namespaces/{tenant}", C::getNamespaces},
    {M::get, NS, C::getNamespacePolicies},
    {M::put, NS, C::createNamespace},
    {M::del, NS, C::deleteNamespace, "force"},
    {M::get, NS "/topics", C::getNamespaceTopics, "mode"},
    {M::get, NS "/permissions", C::getNamespacePermissions},
    {M::post, NS "/permissions/{role}", C::grantNamespacePermission},
    {M::del, NS "/permissions/{role}", C::revokeNamespacePermission},
    {M::get, NS "/deduplication", C::namespaceNotModelled, {}, nullptr,
     "namespace deduplication: the broker does not drop re-sent sequence ids"},
    {M::post, NS "/deduplication", C::namespaceNotModelled, {}, nullptr,
     "namespace deduplication: the broker does not drop re-sent sequence ids"},
    {M::del, NS "/deduplication", C::namespaceNotModelled, {}, nullptr,
     "namespace deduplication: the broker does not drop re-sent sequence ids"},
    {M::get, NS "/backlogQuota", C::namespaceNotModelled, {}, nullptr,
     "namespace backlog quotas: producers are never held or refused for a backlog"},
    {M::post, NS "/backlogQuota", C::namespaceNotModelled, {}, nullptr,
     "namespace backlog quotas: producers are never held or refused for a backlog"},
    {M::del, NS "/backlogQuota", C::namespaceNotModelled, {}, nullptr,
     "namespace backlog quotas: producers are never held or refused for a backlog"},
    {M::get, NS "/schemaCompatibilityStrategy", C::getNamespacePolicy, "applied", &kNsCompatibility},
    {M::put, NS "/schemaCompatibilityStrategy", C::setNamespacePolicy, {}, &kNsCompatibility},
    {M::get, NS "/schemaAutoUpdateCompatibilityStrategy", C::getNamespacePolicy, "applied", &kNsAutoUpdate},
    {M::put, NS "/schemaAutoUpdateCompatibilityStrategy", C::setNamespacePolicy, {}, &kNsAutoUpdate},
    {M::get, NS "/isAllowAutoUpdateSchema", C::getNamespacePolicy, "applied", &kNsAllowAutoUpdate},
    {M::post, NS "/isAllowAutoUpdateSchema", C::setNamespacePolicy, {}, &kNsAllowAutoUpdate},
    {M::get, NS "/schemaValidationEnforced", C::getNamespacePolicy, "applied", &kNsValidation},
    {M::post, NS "/schemaValidationEnforced", C::setNamespacePolicy, {}, &kNsValidation},
    {M::get, NS "/maxProducersPerTopic", C::getNamespacePolicy, "applied", &kNsMaxProducers},
    {M::post, NS "/maxProducersPerTopic", C::setNamespacePolicy, {}, &kNsMaxProducers},
    {M::del, NS "/maxProducersPerTopic", C::removeNamespacePolicy, {}, &kNsMaxProducers},
    // PersistentTopics / NonPersistentTopics (a topic named `partitioned` cannot be read by GET)
    {M::get, "/admin/v2/{domain}/{tenant}/{namespace}", C::listTopics},
    {.method = M::get, .pattern = "/admin/v2/{domain}/{tenant}/{namespace}/partitioned",
     .call = C::listPartitionedTopics, .inAllow = InAllow::no},
    {M::put, TOPIC, C::createTopic},
    {M::del, TOPIC, C::deleteTopic, "force,deleteSchema"},
    {M::get, TOPIC "/permissions", C::getTopicPermissions},
    {M::post, TOPIC "/permissions/{role}", C::grantTopicPermission},
    {M::del, TOPIC "/permissions/{role}", C::revokeTopicPermission},
    {M::get, TOPIC "/stats", C::topicStats},
    {M::post, TOPIC "/terminate", C::terminateTopic},
    {M::put, TOPIC "/unload", C::unloadTopic},
    {M::get, TOPIC "/partitions", C::getPartitionedMetadata},
    {M::put, TOPIC "/partitions", C::createPartitionedTopic},
    {M::post, TOPIC "/partitions", C::updatePartitionedTopic},
    {M::del, TOPIC "/partitions", C::deletePartitionedTopic, "force,deleteSchema"},
    {M::get, TOPIC "/schemaCompatibilityStrategy", C::getTopicPolicy, "applied", &kTopicCompatibility},
    {M::put, TOPIC "/schemaCompatibilityStrategy", C::setTopicPolicy, {}, &kTopicCompatibility},
    {M::del, TOPIC "/schemaCompatibilityStrategy", C::removeTopicPolicy, {}, &kTopicCompatibility},
    {M::get, TOPIC "/schemaValidationEnforced", C::getTopicPolicy, "applied", &kTopicValidation},
    {M::post, TOPIC "/schemaValidationEnforced", C::setTopicPolicy, {}, &kTopicValidation},
    // Paths of PersistentTopics the model does not serve: 501 `not modelled`, any
    // method, instead of the router's 404, so a client sees the feature is missing.
    {M::any, TOPIC "/ledger/**", C::topicNotModelled, {}, nullptr,
     "reading a message by its id (…/ledger/{ledgerId}/entry/{entryId})"},
    {M::any, TOPIC "/examinemessage/**", C::topicNotModelled, {}, nullptr, "examining a message (…/examinemessage)"},
    {M::any, TOPIC "/lastMessageId/**", C::topicNotModelled, {}, nullptr,
     "the last message id over REST (…/lastMessageId; GET_LAST_MESSAGE_ID is served)"},
    {M::any, TOPIC "/internalStats/**", C::topicNotModelled, {}, nullptr,
     "internal stats of the managed ledger (…/internalStats)"},
    {M::any, TOPIC "/partitioned-stats/**", C::topicNotModelled, {}, nullptr,
     "partitioned topic stats (…/partitioned-stats)"},
    {M::any, TOPIC "/partitioned-internalStats/**", C::topicNotModelled, {}, nullptr,
     "partitioned internal stats (…/partitioned-internalStats)"},
    {M::any, TOPIC "/subscriptions/**", C::topicNotModelled, {}, nullptr, "subscription admin over REST (…/subscriptions)"},
    {M::any, TOPIC "/subscription/**", C::topicNotModelled, {}, nullptr,
     "subscription admin over REST (…/subscription/{name}/…)"},
    {M::any, TOPIC "/backlog/**", C::topicNotModelled, {}, nullptr, "backlog estimates (…/backlog)"},
    {M::any, TOPIC "/compaction/**", C::topicNotModelled, {}, nullptr, "topic compaction (…/compaction)"},
    {M::any, TOPIC "/properties/**", C::topicNotModelled, {}, nullptr, "topic properties (…/properties)"},
    {M::any, TOPIC "/messageTTL/**", C::topicNotModelled, {}, nullptr, "message TTL (…/messageTTL)"},
    {M::any, TOPIC "/retention/**", C::topicNotModelled, {}, nullptr, "retention policies (…/retention)"},
    {M::any, TOPIC "/backlogQuota/**", C::topicNotModelled, {}, nullptr, "backlog quotas (…/backlogQuota)"},
    {M::any, TOPIC "/backlogQuotaMap/**", C::topicNotModelled, {}, nullptr, "backlog quotas (…/backlogQuotaMap)"},
};

// Paths under a topic: a name that does not parse is refused (412) whatever
// the method and the rest of the path, as Pulsar's resources validate the
// topic before anything else.
constexpr std::string_view kTopicScopes[] = {SCHEMAS "/**", TOPIC "/**"};

#undef NS
#undef TOPIC
#undef SCHEMAS

bool available(const Route& r, const Serving& serving) { return r.needs == Needs::nothing || serving.lifecycle; }

}  // namespace

bool matchPattern(std::string_view pattern, const std::vector<std::string>& segments, Params* params) {
    std::size_t i = 0;
    std::size_t at = 1;  // past the leading '/'
    while (at <= pattern.size()) {
        auto slash = pattern.find('/', at);
        auto p = pattern.substr(at, slash == std::string_view::npos ? std::string_view::npos : slash - at);
        at = slash == std::string_view::npos ? pattern.size() + 1 : slash + 1;
        if (p == "**") return true;
        if (i >= segments.size() || segments[i].empty()) return false;
        const auto& s = segments[i++];
        if (p.front() != '{') {
            if (p != s) return false;
            continue;
        }
        auto name = p.substr(1, p.size() - 2);
        if (name == "domain" && s != "persistent" && s != "non-persistent") return false;
        if (params) params->insert_or_assign(std::string(name), s);
    }
    return i == segments.size();
}

namespace {

bool matches(std::string_view pattern, const std::vector<std::string>& segments, Params* params) {
    return matchPattern(pattern, segments, params);
}

// 412 `Topic name is not valid` for the topic of the matched route, or of a
// topic scope the path is in: Pulsar's AdminResource.validateTopicName, which
// refuses whatever TopicName.get refuses, a tenant, namespace or topic segment
// that decodes to hold `/` (%2F) among them. A `.` or `..` segment is a name
// like any other there (Jetty passes it on; checked on 4.2.4).
std::optional<std::string> invalidTopic(const Route* route, const Params& params, const std::vector<std::string>& s) {
    const Params* of = route ? &params : nullptr;
    Params scoped;
    if (!route) {
        for (auto scope : kTopicScopes) {
            if (!matches(scope, s, &scoped)) continue;
            of = &scoped;
            break;
        }
    }
    if (!of) return std::nullopt;
    auto name = topicOf(route ? *route : Route{M::any, {}, C::topicNotModelled}, *of);
    if (!name) return std::nullopt;
    bool separator = false;
    for (const char* part : {"tenant", "namespace", "topic"})
        if (auto it = of->find(part); it != of->end() && it->second.find('/') != std::string::npos) separator = true;
    if (!separator && TopicName::parse(*name)) return std::nullopt;
    return std::string("Topic name is not valid");
}

// A route under /admin/v2/namespaces/{tenant}/{namespace} whose tenant or
// namespace is no name (a `/` decoded from %2F, a character Pulsar's
// NamedEntity.checkName refuses): Pulsar's validateNamespaceName answers 412
// `Namespace name is not valid` before the resource looks the namespace up
// (checked on 4.2.4: a policy read of public/a%2Fb is 412, not 404).
bool invalidNamespace(const Route& route, const Params& params) {
    if (!route.pattern.starts_with("/admin/v2/namespaces/{tenant}/{namespace}") || params.count("topic")) return false;
    auto tenant = params.find("tenant");
    auto ns = params.find("namespace");
    if (tenant == params.end() || ns == params.end()) return false;
    return !TopicName::validNamePart(tenant->second) || !TopicName::validNamePart(ns->second);
}

// Allow of a 405: the methods served at the path, in GET, PUT, POST, DELETE order.
std::string allowOf(const std::vector<std::string>& segments, const Serving& serving) {
    constexpr std::array<Method, 4> kOrder{M::get, M::put, M::post, M::del};
    std::string allow;
    for (auto m : kOrder) {
        bool served = std::any_of(std::begin(kRoutes), std::end(kRoutes), [&](const Route& r) {
            return r.method == m && r.inAllow == InAllow::yes && available(r, serving) && matches(r.pattern, segments, nullptr);
        });
        if (!served) continue;
        if (!allow.empty()) allow += ", ";
        allow += to_string_view(m);
    }
    return allow;
}

bool readsFlag(const Route& route, std::string_view key) {
    std::string_view q = route.query;
    while (!q.empty()) {
        auto comma = q.find(',');
        if (q.substr(0, comma) == key) return true;
        if (comma == std::string_view::npos) break;
        q.remove_prefix(comma + 1);
    }
    return false;
}

}  // namespace

Method methodFromName(std::string_view name) {
    if (name == "GET") return M::get;
    if (name == "PUT") return M::put;
    if (name == "POST") return M::post;
    if (name == "DELETE") return M::del;
    return M::other;
}

std::span<const Route> adminRoutes() { return kRoutes; }

Resolution resolve(Method method, const std::vector<std::string>& segments, const Serving& serving) {
    Resolution r;
    for (const auto& route : kRoutes) {
        if (!available(route, serving) || (route.method != M::any && route.method != method)) continue;
        Params p;
        if (!matches(route.pattern, segments, &p)) continue;
        r.route = &route;
        r.params = std::move(p);
        break;
    }
    if (auto why = invalidTopic(r.route, r.params, segments)) {
        r = Resolution{};
        r.kind = Resolution::Kind::refused;
        r.status = 412;
        r.reason = std::move(*why);
        return r;
    }
    if (r.route && invalidNamespace(*r.route, r.params)) {
        r = Resolution{};
        r.kind = Resolution::Kind::refused;
        r.status = 412;
        r.reason = "Namespace name is not valid";
        return r;
    }
    if (r.route) {
        r.kind = Resolution::Kind::route;
        return r;
    }
    r.allow = allowOf(segments, serving);
    r.kind = r.allow.empty() ? Resolution::Kind::notFound : Resolution::Kind::methodNotAllowed;
    return r;
}

const Route* routeOf(Call call, std::string_view leaf) {
    for (const auto& r : kRoutes)
        if (r.call == call && (leaf.empty() || (r.policy && r.policy->leaf == leaf))) return &r;
    return nullptr;
}

const PolicyLeaf* policyLeaf(Call call, std::string_view leaf) {
    const auto* r = routeOf(call, leaf);
    return r && !leaf.empty() ? r->policy : nullptr;
}

const PolicyLeaf* policyByKey(Call call, std::string_view key) {
    for (const auto& r : kRoutes)
        if (r.call == call && r.policy && (r.policy->field == key || r.policy->scenarioKey == key)) return r.policy;
    return nullptr;
}

std::optional<std::string> topicOf(const Route& route, const Params& params) {
    auto topic = params.find("topic");
    if (topic == params.end()) return std::nullopt;
    auto domain = params.find("domain");
    std::string name = domain == params.end() ? std::string("persistent") : domain->second;
    (void)route;
    return name + "://" + params.at("tenant") + "/" + params.at("namespace") + "/" + topic->second;
}

std::string encodeSegment(std::string_view text) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : text) {
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

std::optional<std::string> buildTarget(const Route& route, const Params& params,
                                       const std::vector<std::pair<std::string, std::string>>& query) {
    std::string out;
    std::string_view pattern = route.pattern;
    std::size_t at = 1;
    while (at <= pattern.size()) {
        auto slash = pattern.find('/', at);
        auto p = pattern.substr(at, slash == std::string_view::npos ? std::string_view::npos : slash - at);
        at = slash == std::string_view::npos ? pattern.size() + 1 : slash + 1;
        if (p == "**") break;
        if (p.front() != '{') {
            out += "/" + std::string(p);
            continue;
        }
        auto value = params.find(p.substr(1, p.size() - 2));
        if (value == params.end() || value->second.empty()) return std::nullopt;
        out += "/" + encodeSegment(value->second);
    }
    char sep = '?';
    for (const auto& [key, value] : query) {
        if (!readsFlag(route, key)) return std::nullopt;
        out += sep + encodeSegment(key) + "=" + encodeSegment(value);
        sep = '&';
    }
    return out;
}

}  // namespace cnx::rest
