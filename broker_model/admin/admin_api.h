#pragma once
// The admin REST endpoints that touch schemas, policies and topics
// (reference §7): `SchemasResource` plus topic deletion. Each call answers
// with an HTTP status, a JSON body or reason, and a decision trace; registry
// work is posted on the scheduler as the broker's async handlers do.

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "broker_model/broker/broker.h"
#include "broker_model/core/trace.h"

namespace cnx {

struct AdminResponse {
    int status = 200;
    nlohmann::json body;  // the response entity (null when none)
    std::string reason;   // error text (reason phrase / `{"reason": ...}`)
    TracePtr trace = std::make_shared<Trace>();

    bool ok() const { return status >= 200 && status < 300; }

    /// A success: `status` with `body` (null: no content).
    static AdminResponse success(TracePtr trace, int status, nlohmann::json body);
    /// A `RestException(status, reason)`: `{"reason": reason}` (no body when empty)
    /// and the reason as the reason phrase (§7.2).
    static AdminResponse failure(TracePtr trace, int status, std::string reason);
    /// A bare status and reason phrase, no body (the 409/422 of POST …/schema, §7.2).
    static AdminResponse bareFailure(TracePtr trace, int status, std::string reason);
};

class AdminApi {
public:
    using Callback = std::function<void(AdminResponse)>;

    /// `broker` must outlive the API object.
    explicit AdminApi(Broker& broker) : broker_(broker) {}

    /// POST .../schema (§7.4).
    void postSchema(const TopicName& topic, const SchemaData& schema, Callback done);
    /// GET .../schema and GET .../schema/{version}.
    void getSchema(const TopicName& topic, std::optional<SchemaVersion> version, Callback done);
    /// GET .../schemas (2.4.2/2.5.0, #4800): every live version, oldest first (§7.2).
    void getAllSchemas(const TopicName& topic, Callback done);
    /// POST .../version: the version of an equal live schema, or -1.
    void getVersionBySchema(const TopicName& topic, const SchemaData& schema, Callback done);
    /// DELETE .../schema[?force=true].
    void deleteSchema(const TopicName& topic, bool force, Callback done);
    /// POST .../compatibility.
    void testCompatibility(const TopicName& topic, const SchemaData& schema, Callback done);
    /// DELETE of a topic (persistent or not); `deleteSchema` asks for schema deletion
    /// (always done from 2.11, §3.6). Attached clients are disconnected when `force`.
    AdminResponse deleteTopic(const TopicName& topic, bool force, bool deleteSchema);
    /// PUT …/{topic}/unload: the topic (every partition of a partitioned one)
    /// is unloaded; its producers and consumers are closed through their
    /// connections and reconnect. 204. The model does not refuse a topic that
    /// does not exist or is not loaded (nothing to unload).
    AdminResponse unloadTopic(const TopicName& topic);

    // Policy and configuration endpoints (admin_config_api.cc). A null value
    // removes the setting (the `remove-…` commands / DELETE of the key).
    /// POST /admin/v2/namespaces/{tenant}/{namespace}/<policy>: 204, or 400 with the reason.
    AdminResponse setNamespacePolicy(const std::string& ns, std::string_view field, std::optional<std::string_view> value);
    /// POST /admin/v2/persistent/{tenant}/{namespace}/{topic}/<policy>: 204, or 400 with the reason.
    AdminResponse setTopicPolicy(const TopicName& topic, std::string_view field, std::optional<std::string_view> value);
    /// POST/DELETE /admin/v2/brokers/configuration/{key} (§5.6): 204; 412 for a key that
    /// is not dynamic; 400 for a value of the wrong form.
    AdminResponse updateDynamicConfig(std::string_view key, std::optional<std::string_view> value);

    // Tenants, namespaces, partitioned topics and the policy reads
    // (admin_namespace_api.cc), with the statuses and reasons of
    // TenantsBase, NamespacesBase and PersistentTopicsBase. Existence follows
    // the broker's ClusterMetadata: in a scenario every namespace exists.
    /// PUT /admin/v2/tenants/{tenant}: 204; 409 "Tenant already exist".
    AdminResponse createTenant(const std::string& tenant);
    /// GET /admin/v2/tenants: the names, sorted.
    AdminResponse getTenants() const;
    /// GET /admin/v2/tenants/{tenant}: TenantInfo; 404 "Tenant does not exist".
    AdminResponse getTenant(const std::string& tenant) const;
    /// DELETE /admin/v2/tenants/{tenant}: 204; 404; 409 while it has namespaces.
    AdminResponse deleteTenant(const std::string& tenant);
    /// PUT /admin/v2/namespaces/{tenant}/{ns}: 204; 409 "Namespace already exists"; 404 "Tenant does not exist".
    AdminResponse createNamespace(const std::string& ns);
    /// GET /admin/v2/namespaces/{tenant}: the namespaces, sorted; 404 "Tenant not found".
    AdminResponse getNamespaces(const std::string& tenant) const;
    /// GET /admin/v2/namespaces/{tenant}/{ns}: the Policies JSON (the schema fields the model keeps).
    AdminResponse getNamespacePolicies(const std::string& ns) const;
    /// DELETE /admin/v2/namespaces/{tenant}/{ns}: 204; 409 "Cannot delete non empty namespace" unless `force`.
    AdminResponse deleteNamespace(const std::string& ns, bool force);
    /// GET of one namespace schema policy (`field` as in NamespacePolicies), as
    /// NamespacesBase answers it: `applied` only where the release takes it.
    AdminResponse getNamespacePolicy(const std::string& ns, std::string_view field, bool applied) const;
    /// GET of a topic-level schema policy (?applied); 404 before the endpoint
    /// existed, 405 while topic-level policies are disabled.
    AdminResponse getTopicPolicy(const TopicName& topic, std::string_view field, bool applied) const;
    /// Whether the release serves the topic-level endpoint of `field` over REST
    /// and topic policies are enabled: nullopt, or the refusal to answer with.
    std::optional<AdminResponse> topicPolicyEndpointRefusal(std::string_view field) const;
    /// PUT …/{topic}: a non-partitioned topic, 204; 409 "This topic already exists".
    AdminResponse createTopic(const TopicName& topic);
    /// PUT …/{topic}/partitions: 204; 409 "This topic already exists"; 406 for a count below 1.
    AdminResponse createPartitionedTopic(const TopicName& topic, int partitions);
    /// POST …/{topic}/partitions: 204; 409 when not partitioned or not more partitions.
    AdminResponse updatePartitionedTopic(const TopicName& topic, int partitions);
    /// GET …/{topic}/partitions: {"partitions": N} (0 for a non-partitioned topic).
    AdminResponse getPartitionedMetadata(const TopicName& topic) const;
    /// DELETE …/{topic}/partitions: 204; 404 when not partitioned; the schema as deleteTopic.
    AdminResponse deletePartitionedTopic(const TopicName& topic, bool force, bool deleteSchema);

    // Lookup, topic stats and lifecycle, namespace grants (admin_topic_api.cc, issue 41).
    /// GET /lookup/v2/topic/{domain}/{tenant}/{ns}/{topic} (TopicLookupBase): LookupData
    /// JSON; 404 "Topic not found." when it does not exist and may not be auto-created;
    /// 500 for a listener the broker does not have.
    AdminResponse lookupTopic(const TopicName& topic, std::string_view listenerName) const;
    /// GET …/{topic}/stats: a subset of TopicStats (publishers, subscriptions and their
    /// consumers, as the model holds them); 404 "Topic not found".
    AdminResponse topicStats(const TopicName& topic);
    /// POST …/{topic}/terminate: the last message id; 405 for a partitioned topic, 404 when missing.
    AdminResponse terminateTopic(const TopicName& topic);
    /// POST /admin/v2/namespaces/{tenant}/{ns}/permissions/{role}: stores the grant, 204
    /// (auth_policies.namespace_auth; policy/authorization.h checks it).
    AdminResponse grantNamespacePermission(const std::string& ns, const std::string& role,
                                           const std::vector<std::string>& actions);
    /// DELETE …/namespaces/{tenant}/{ns}/permissions/{role}: the role's grant removed, 204.
    AdminResponse revokeNamespacePermission(const std::string& ns, const std::string& role);
    /// GET …/namespaces/{tenant}/{ns}/permissions: role -> actions.
    AdminResponse namespacePermissions(const std::string& ns) const;
    /// POST /admin/v2/{domain}/{tenant}/{ns}/{topic}/permissions/{role}: a topic grant
    /// (auth_policies.destination_auth; a partitioned topic's partitions too), 204.
    AdminResponse grantTopicPermission(const TopicName& topic, const std::string& role,
                                       const std::vector<std::string>& actions);
    /// DELETE …/{topic}/permissions/{role}: 204; 412 when the role has no topic grant.
    AdminResponse revokeTopicPermission(const TopicName& topic, const std::string& role);
    /// GET …/{topic}/permissions: the namespace's grants with the topic's added.
    AdminResponse topicPermissions(const TopicName& topic) const;
    /// A set of AuthAction names as Pulsar writes it: "" (a name Jackson did not
    /// know, read as null) becomes null.
    static nlohmann::json actionsJson(const std::vector<std::string>& actions);
    /// TenantInfo.adminRoles of PUT/POST /admin/v2/tenants/{tenant} (after createTenant for PUT).
    void setTenantAdminRoles(const std::string& tenant, std::set<std::string> roles);
    /// An endpoint Pulsar has and the model does not: 501 with `not modelled: #41 (what)`.
    AdminResponse notModelled(const std::string& what) const;

private:
    std::string schemaIdOf(const TopicName& topic) const;
    AdminResponse missingEndpoint(TraceText what) const;
    /// §7.5: what the schema resource (SchemasResourceBase) answers for a topic
    /// whose namespace does not exist (explicit metadata only): 404 "Tenant does
    /// not exist" from a tenant-admin check, 404 "Namespace does not exist" from
    /// the namespace-policies read; nullopt when the call goes on (noted in `trace`).
    std::optional<AdminResponse> missingTenantOrNamespace(const TopicName& topic, TraceText what, bool tenantAdminCheck,
                                                          bool readsNamespacePolicies, const TracePtr& trace) const;
    /// Notes the known gaps (gaps.h) a topic deletion meets.
    void noteDeleteTopicGaps(const TopicName& topic, int partitions, Trace& trace) const;
    /// §3.6: a deletion's effect on the topic-level policies and on the schema; `unloaded`:
    /// a persistent non-partitioned topic that is not loaded (#21075, #21093).
    void deleteTopicPolicies(const TopicName& topic, int partitions, bool unloaded, Trace& trace);
    void deleteTopicSchema(const TopicName& topic, bool deleteSchema, bool unloaded, Trace& trace);

    Broker& broker_;
};

}  // namespace cnx
