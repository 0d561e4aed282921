#pragma once
// The admin REST routes cnxsim knows (reference §7, doc/serve/admin-api.md):
// one table of {method, path pattern, call}, as Redpanda's admin route table.
// Three readers, one meaning (issue 45 item 2):
//   - serve's HTTP adapter (sim/serve/http/admin_routes.cc) resolves each
//     request here and dispatches on the call;
//   - the recorder (sim/record/admin_steps.cc) classifies an exchange here
//     before it turns it into a scenario step;
//   - the modelled admin client (sim/clients/admin_client.h) builds the
//     requests of scenario steps from the same routes.
// Depends on broker_model and the standard library only.
//
// A pattern is `/`-separated: a literal, `{name}` (one non-empty segment),
// `{domain}` (`persistent` or `non-persistent` only), and a last `**` (zero or
// more segments). Segments are decoded (%XX) before they are matched, so an
// encoded `/` stays inside its segment and never splits it.

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cnx::rest {

/// The HTTP methods routes are declared for; `other` is any other method (it
/// matches only `any` routes); `any` only in the table (every method).
enum class Method : std::uint8_t { get, put, post, del, other, any };

constexpr std::string_view to_string_view(Method m) {
    switch (m) {
        case Method::get: return "GET";
        case Method::put: return "PUT";
        case Method::post: return "POST";
        case Method::del: return "DELETE";
        case Method::other: return "OTHER";
        case Method::any: return "ANY";
    }
    return "OTHER";
}
/// GET, PUT, POST, DELETE by name; anything else is `other`.
Method methodFromName(std::string_view name);

/// What a route does, in Pulsar's resource method words.
enum class Call : std::uint8_t {
    // broker, clusters, metrics (BrokersBase, ClustersBase)
    metrics, brokerVersion, brokerHealth, brokerConfigNames, brokerConfigRuntime, brokerConfigValues,
    setBrokerConfig, deleteBrokerConfig, getClusters, getCluster, createCluster,
    // cnxsim's own control (/cnxsim/, sim/serve/lifecycle.h)
    cnxsimStatus, cnxsimTrace, cnxsimUpgrade, cnxsimRestart, cnxsimReset,
    // TopicLookupBase
    lookupTopic,
    // SchemasResource
    getSchema, getSchemaAtVersion, postSchema, deleteSchema, getAllSchemas, testCompatibility, getVersionBySchema,
    // TenantsBase
    getTenants, getTenant, createTenant, updateTenant, deleteTenant,
    // Namespaces
    getNamespaces, getNamespacePolicies, createNamespace, deleteNamespace, getNamespaceTopics,
    getNamespacePermissions, grantNamespacePermission, revokeNamespacePermission, namespaceNotModelled,
    getNamespacePolicy, setNamespacePolicy, removeNamespacePolicy,
    // PersistentTopics / NonPersistentTopics
    listTopics, listPartitionedTopics, createTopic, deleteTopic, getTopicPermissions, grantTopicPermission,
    revokeTopicPermission, topicStats, terminateTopic, unloadTopic, getPartitionedMetadata, createPartitionedTopic,
    updatePartitionedTopic, deletePartitionedTopic, getTopicPolicy, setTopicPolicy, removeTopicPolicy,
    topicNotModelled,
};

/// The JSON body a policy setter takes, as Jackson reads it.
enum class BodyKind : std::uint8_t { text, flag, count };  // a JSON string, boolean, integer

/// Whether the recorder writes a `set-policy` step for a policy's setters.
enum class Recorded : bool { no, yes };

/// A namespace or topic policy path (Namespaces, PersistentTopics).
struct PolicyLeaf {
    std::string_view leaf;         // the path's last segment, Pulsar's name
    std::string_view field;        // the model's field (Policies, or the topic policy)
    std::string_view scenarioKey;  // the key a set-policy step writes (doc/scenario-format.md)
    Method setter;                 // PUT or POST, as Pulsar has it
    std::string_view bodyType;     // Jackson's target type, for the 400 text
    BodyKind body;
    std::string_view unsetBody;    // the setter body that unsets it when there is no DELETE ("": none)
    Recorded recorded;
};

/// A route served only when serve has its /cnxsim/ control (a lifecycle).
enum class Needs : std::uint8_t { nothing, lifecycle };
/// Whether a 405 on the route's path lists the route's method in Allow. A
/// literal route carved out of a `{param}` route (configuration/runtime out of
/// configuration/{key}) is left out, so the 405 is the param route's, as
/// before the table.
enum class InAllow : bool { no, yes };

struct Route {
    Method method;
    std::string_view pattern;
    Call call;
    std::string_view query = {};         // the query flags it reads, `,`-separated
    const PolicyLeaf* policy = nullptr;  // set for the policy calls
    std::string_view note = {};          // what a not-modelled route lacks (the 501's text)
    Needs needs = Needs::nothing;
    InAllow inAllow = InAllow::yes;
};

/// Every route, in the order they are documented; no two match one (method, path).
std::span<const Route> adminRoutes();

/// Decoded named segments of a matched path (`tenant`, `namespace`, `topic`, ...).
using Params = std::map<std::string, std::string, std::less<>>;

/// What serve offers besides the table's plain routes.
struct Serving {
    bool lifecycle = true;  // the /cnxsim/ control routes
};

/// The answer of the table for one request.
struct Resolution {
    enum class Kind : std::uint8_t { route, notFound, methodNotAllowed, refused };
    Kind kind = Kind::notFound;
    const Route* route = nullptr;  // kind route
    Params params;                 // kind route
    std::string allow;             // kind methodNotAllowed: "GET, PUT" (GET, PUT, POST, DELETE order)
    int status = 0;                // kind refused: the status and reason to answer
    std::string reason;
};

/// Whether `pattern` matches the decoded path `segments`; its named segments go to `params` when given.
bool matchPattern(std::string_view pattern, const std::vector<std::string>& segments, Params* params);

/// The route of `method` at the decoded path `segments`, or why there is none:
/// 412 `Topic name is not valid` for a path under a topic whose name does not
/// parse (before the method is looked at, as Pulsar's resources do), 405 with
/// Allow when only other methods are served there, else 404.
Resolution resolve(Method method, const std::vector<std::string>& segments, const Serving& serving = {});

/// The route of `call` (the first one, for calls with several leaves), or nullptr.
const Route* routeOf(Call call, std::string_view leaf = {});
/// The policy leaf named `leaf` among `call`'s routes (namespace or topic level), or nullptr.
const PolicyLeaf* policyLeaf(Call call, std::string_view leaf);
/// The policy of `call`'s routes whose model field or scenario key is `key`, or nullptr.
const PolicyLeaf* policyByKey(Call call, std::string_view key);

/// The full name of the topic a matched path names: `{domain}://{tenant}/{namespace}/{topic}`
/// (`persistent` for the schemas paths); nullopt when the pattern names no topic.
std::optional<std::string> topicOf(const Route& route, const Params& params);

/// Pulsar's Codec.encode of a path segment (URLEncoder: `+` for a space, %XX for the rest).
std::string encodeSegment(std::string_view text);

/// The request target of `route` with `params` filled in (each encoded) and the
/// query flags given, e.g. "/admin/v2/schemas/public/default/t/schema?force=true".
/// nullopt when a named segment has no value or a flag is not one the route reads.
std::optional<std::string> buildTarget(const Route& route, const Params& params,
                                       const std::vector<std::pair<std::string, std::string>>& query = {});

}  // namespace cnx::rest
