// Tenants, namespaces, partitioned topics and the schema-policy reads of
// AdminApi: what `pulsar-admin tenants|namespaces|topics …` get from
// TenantsBase, NamespacesBase and PersistentTopicsBase. Reasons are Pulsar's
// own texts (RestException: `{"reason": …}` and the reason phrase). Kept apart
// from admin_api.cc (the schema resource, §7) and admin_config_api.cc (the
// policy and configuration writes).

#include "broker_model/admin/admin_api.h"

#include "broker_model/policy/policy_resolution.h"

namespace cnx {
namespace {

AdminResponse noContent(TracePtr trace) { return AdminResponse::success(std::move(trace), 204, nullptr); }

AdminResponse refused(TracePtr trace, TraceText what, int status, std::string reason) {
    trace->add("§7", what, [&] { return std::to_string(status) + " " + reason; });
    return AdminResponse::failure(std::move(trace), status, std::move(reason));
}

std::string tenantOf(const std::string& ns) { return ns.substr(0, ns.find('/')); }

// PersistentTopicsBase / AdminResource (create and update): with
// maxNumPartitionsPerPartitionedTopic set, a larger count is NOT_ACCEPTABLE.
// cnxsim always has it set, to Broker::kMaxPartitions.
std::optional<AdminResponse> overMaxPartitions(const TracePtr& trace, TraceText what, int partitions) {
    if (partitions <= Broker::kMaxPartitions) return std::nullopt;
    return refused(trace, std::move(what), 406,
                   "Number of partitions should be less than or equal to " + std::to_string(Broker::kMaxPartitions));
}

bool isStrategyField(std::string_view field) {
    return field == "schema_compatibility_strategy" || field == "schemaCompatibilityStrategy";
}

}  // namespace

// §7.5: the schema resource on a topic of a missing tenant or namespace. The
// ownership lookup comes first and passes (a namespace without policies gets
// one full bundle, NamespaceBundleFactory); then a tenant-admin check
// (validateAdminAccessForTenantAsync) reads the tenant even without
// authorization, and the strategy read (POST schema, POST compatibility) reads
// the namespace policies (AdminResource.getNamespacePoliciesAsync). An
// endpoint with neither answers from the registry.
std::optional<AdminResponse> AdminApi::missingTenantOrNamespace(const TopicName& topic, TraceText what,
                                                                bool tenantAdminCheck, bool readsNamespacePolicies,
                                                                const TracePtr& trace) const {
    const auto& meta = broker_.metadata();
    auto ns = topic.namespaceName();
    if (meta.namespaceExists(ns)) return std::nullopt;
    if (tenantAdminCheck && !meta.tenantExists(std::string(topic.tenant()))) {
        trace->add("§7.5", what,
                   [&] {
                       return "tenant " + std::string(topic.tenant()) +
                              " does not exist: the tenant-admin check answers 404";
                   });
        return AdminResponse::failure(trace, 404, "Tenant does not exist");
    }
    if (readsNamespacePolicies) {
        trace->add("§7.5", what, [&] { return "namespace " + ns + " does not exist: the strategy read answers 404"; });
        return AdminResponse::failure(trace, 404, "Namespace does not exist");
    }
    trace->add("§7.5", what, [&] {
        return "namespace " + ns + " does not exist: this endpoint does not read it and goes on";
    });
    return std::nullopt;
}

AdminResponse AdminApi::createTenant(const std::string& tenant) {
    auto trace = broker_.newTrace();
    auto& meta = broker_.metadata();
    // TenantsBase.createTenant: NamedEntity.checkName first (issue 40 item 2: a
    // 0xFF byte in the name was stored, and killed the server when listed).
    if (!TopicName::validNamePart(tenant)) return refused(trace, "create tenant", 412, "Tenant name is not valid");
    if (meta.tenantExists(tenant)) return refused(trace, "create tenant", 409, "Tenant already exist");
    meta.tenants.insert(tenant);
    trace->add("§7", "create tenant", [&] { return tenant + " created"; });
    return noContent(trace);
}

AdminResponse AdminApi::getTenants() const {
    auto trace = broker_.newTrace();
    return AdminResponse::success(trace, 200, nlohmann::json(broker_.metadata().tenants));
}

AdminResponse AdminApi::getTenant(const std::string& tenant) const {
    auto trace = broker_.newTrace();
    if (!broker_.metadata().tenantExists(tenant)) return refused(trace, "get tenant", 404, "Tenant does not exist");
    nlohmann::json admins = nlohmann::json::array();
    if (auto it = broker_.metadata().tenantAdminRoles.find(tenant); it != broker_.metadata().tenantAdminRoles.end())
        for (const auto& role : it->second) admins.push_back(role);
    return AdminResponse::success(trace, 200, {{"adminRoles", admins}, {"allowedClusters", {"standalone"}}});
}

AdminResponse AdminApi::deleteTenant(const std::string& tenant) {
    auto trace = broker_.newTrace();
    auto& meta = broker_.metadata();
    if (!meta.tenantExists(tenant)) return refused(trace, "delete tenant", 404, "Tenant doesn't exist");
    for (const auto& ns : meta.namespaces)
        if (tenantOf(ns) == tenant) return refused(trace, "delete tenant", 409, "The tenant still has active namespaces");
    meta.tenants.erase(tenant);
    meta.tenantAdminRoles.erase(tenant);
    trace->add("§7", "delete tenant", [&] { return tenant + " deleted"; });
    return noContent(trace);
}

AdminResponse AdminApi::createNamespace(const std::string& ns) {
    auto trace = broker_.newTrace();
    auto& meta = broker_.metadata();
    // Namespaces.createNamespace: validateNamespaceName (NamespaceName.get) first.
    auto slash = ns.find('/');
    if (slash == std::string::npos || !TopicName::validNamePart(ns.substr(0, slash)) ||
        !TopicName::validNamePart(ns.substr(slash + 1)))
        return refused(trace, "create namespace", 412, "Namespace name is not valid");
    if (!meta.tenantExists(tenantOf(ns))) return refused(trace, "create namespace", 404, "Tenant does not exist");
    if (meta.namespaceExists(ns) && !meta.implicit) return refused(trace, "create namespace", 409, "Namespace already exists");
    meta.namespaces.insert(ns);
    // §5.2: a namespace stores the defaults of the release it is created on.
    broker_.policies().namespaces[ns] = namespaceCreatedOn(broker_.profile());
    trace->add("§5.2", "create namespace", [&] {
        return ns + " created with Pulsar " + broker_.profile().release.toString() + "'s defaults";
    });
    return noContent(trace);
}

AdminResponse AdminApi::getNamespaces(const std::string& tenant) const {
    auto trace = broker_.newTrace();
    const auto& meta = broker_.metadata();
    if (!meta.tenantExists(tenant)) return refused(trace, "list namespaces", 404, "Tenant not found");
    auto names = nlohmann::json::array();
    for (const auto& ns : meta.namespaces)
        if (tenantOf(ns) == tenant) names.push_back(ns);
    return AdminResponse::success(trace, 200, names);
}

AdminResponse AdminApi::getNamespacePolicies(const std::string& ns) const {
    auto trace = broker_.newTrace();
    if (!broker_.metadata().namespaceExists(ns)) return refused(trace, "get policies", 404, "Namespace does not exist");
    const auto& store = broker_.policies();
    auto it = store.namespaces.find(ns);
    const NamespacePolicies& p = it == store.namespaces.end() ? store.createdNamespace : it->second;
    nlohmann::json body{{"replication_clusters", {"standalone"}},
                        {"schema_compatibility_strategy", std::string(to_string_view(p.schema_compatibility_strategy))},
                        {"schema_validation_enforced", p.schema_validation_enforced}};
    body["schema_auto_update_compatibility_strategy"] =
        p.schema_auto_update_compatibility_strategy
            ? nlohmann::json(std::string(to_string_view(*p.schema_auto_update_compatibility_strategy)))
            : nlohmann::json(nullptr);
    // Newer brokers fill an unset flag with the broker's value before answering.
    body["is_allow_auto_update_schema"] =
        p.is_allow_auto_update_schema.value_or(store.broker.isAllowAutoUpdateSchemaEnabled);
    if (p.max_producers_per_topic) body["max_producers_per_topic"] = *p.max_producers_per_topic;
    // Policies.auth_policies: always present, as a real 4.2.4 broker answers it.
    {
        nlohmann::json namespaceAuth = nlohmann::json::object(), destinationAuth = nlohmann::json::object();
        for (const auto& [role, actions] : p.namespace_auth) namespaceAuth[role] = actionsJson(actions);
        for (const auto& [topic, grants] : p.destination_auth)
            for (const auto& [role, actions] : grants) destinationAuth[topic][role] = actionsJson(actions);
        body["auth_policies"] = {{"namespace_auth", namespaceAuth},
                                 {"destination_auth", destinationAuth},
                                 {"subscription_auth_roles", p.subscription_auth_roles}};
    }
    trace->add("§5.2", "get policies", [&] { return ns + ": the schema fields the model keeps"; });
    return AdminResponse::success(trace, 200, body);
}

AdminResponse AdminApi::deleteNamespace(const std::string& ns, bool force) {
    auto trace = broker_.newTrace();
    auto& meta = broker_.metadata();
    if (!meta.namespaceExists(ns)) return refused(trace, "delete namespace", 404, "Namespace does not exist");
    auto topics = broker_.topicsOfNamespace(ns, true, true);
    if (!topics.empty() && !force) return refused(trace, "delete namespace", 409, "Cannot delete non empty namespace");
    for (const auto& full : topics) {
        auto name = TopicName::parse(full);
        if (!name) continue;
        broker_.deleteTopicState(name->partitionedBase());
        broker_.registry().deleteSchema(name->schemaId(), true);
    }
    meta.namespaces.erase(ns);
    broker_.policies().namespaces.erase(ns);
    trace->add("§7", "delete namespace", [&] {
        return ns + " deleted with " + std::to_string(topics.size()) + " topic(s)";
    });
    return noContent(trace);
}

AdminResponse AdminApi::getNamespacePolicy(const std::string& ns, std::string_view field, bool applied) const {
    auto trace = broker_.newTrace();
    const auto& profile = broker_.profile();
    if (!broker_.metadata().namespaceExists(ns)) return refused(trace, "get policy", 404, "Namespace does not exist");
    const auto& store = broker_.policies();
    auto it = store.namespaces.find(ns);
    const NamespacePolicies& p = it == store.namespaces.end() ? store.createdNamespace : it->second;
    std::string what = "namespace " + ns + " " + std::string(field);
    if (field == "schema_compatibility_strategy") {
        auto value = p.schema_compatibility_strategy;
        if (!profile.adminNamespaceStrategyGetRaw && value == CompatibilityStrategy::UNDEFINED &&
            p.schema_auto_update_compatibility_strategy) {
            value = fromAutoUpdatePolicy(*p.schema_auto_update_compatibility_strategy);
            trace->add("§5.2", "get policy", [&] {
                return what + ": UNDEFINED answered as the converted auto-update strategy (before #13938)";
            });
        }
        trace->add("§5.2", "get policy", [&] { return what + " = " + std::string(to_string_view(value)); });
        return AdminResponse::success(trace, 200, std::string(to_string_view(value)));
    }
    if (field == "schema_auto_update_compatibility_strategy") {
        if (!p.schema_auto_update_compatibility_strategy) {
            trace->add("§5.2", "get policy", [&] { return what + " is null: 204 without a body"; });
            return noContent(trace);
        }
        return AdminResponse::success(trace, 200, std::string(to_string_view(*p.schema_auto_update_compatibility_strategy)));
    }
    if (field == "is_allow_auto_update_schema") {
        if (profile.autoUpdateResolution == AutoUpdateResolution::absent)
            return refused(trace, "get policy", 404, "HTTP 404 Not Found");
        bool value = p.is_allow_auto_update_schema.value_or(store.broker.isAllowAutoUpdateSchemaEnabled);
        trace->add("§5.4", "get policy", [&] {
            return what + " = " + (value ? "true" : "false") +
                   (p.is_allow_auto_update_schema ? "" : " (unset: the broker's isAllowAutoUpdateSchemaEnabled)");
        });
        return AdminResponse::success(trace, 200, value);
    }
    if (field == "max_producers_per_topic") {
        // NamespacesBase.getMaxProducersPerTopic: an Integer, null (204) when unset.
        if (!p.max_producers_per_topic) return noContent(trace);
        return AdminResponse::success(trace, 200, *p.max_producers_per_topic);
    }
    if (field == "schema_validation_enforced") {
        bool value = p.schema_validation_enforced;
        if (applied && profile.adminValidationEnforcedApplied && !value) {
            value = store.broker.isSchemaValidationEnforced;
            trace->add("§5.5", "get policy", [&] {
                return what + ": applied, false -> the broker's isSchemaValidationEnforced";
            });
        }
        return AdminResponse::success(trace, 200, value);
    }
    return refused(trace, "get policy", 404, "HTTP 404 Not Found");
}

std::optional<AdminResponse> AdminApi::topicPolicyEndpointRefusal(std::string_view field) const {
    const auto& profile = broker_.profile();
    bool exists = isStrategyField(field) ? profile.adminTopicStrategyEndpoint : profile.adminTopicValidationEndpoint;
    auto trace = broker_.newTrace();
    if (!exists) {
        trace->add("§5.2", "topic policy", [&] {
            return std::string(field) + ": no topic-level endpoint in this release (#13297 / #15712)";
        });
        return AdminResponse::failure(trace, 404, "HTTP 404 Not Found");
    }
    const auto& config = broker_.policies().broker;
    if (!config.topicLevelPoliciesEnabled || !config.systemTopicEnabled)
        return refused(trace, "topic policy", 405,
                       "Topic level policies is disabled, to enable the topic level policy and retry.");
    return std::nullopt;
}

AdminResponse AdminApi::getTopicPolicy(const TopicName& topic, std::string_view field, bool applied) const {
    if (auto refusal = topicPolicyEndpointRefusal(field)) return *refusal;
    auto trace = broker_.newTrace();
    if (!broker_.metadata().namespaceExists(topic.namespaceName()))
        return refused(trace, "get topic policy", 404, "Namespace does not exist");
    const auto& store = broker_.policies();
    auto own = store.topicOf(topic);
    if (isStrategyField(field)) {
        if (applied) {
            auto value = adminStrategy(broker_.profile(), store, topic, trace.get());
            return AdminResponse::success(trace, 200, std::string(to_string_view(value)));
        }
        if (!own.schemaCompatibilityStrategy) {
            trace->add("§5.2", "get topic policy", "schemaCompatibilityStrategy unset: 204 without a body");
            return noContent(trace);
        }
        return AdminResponse::success(trace, 200, std::string(to_string_view(*own.schemaCompatibilityStrategy)));
    }
    if (own.schemaValidationEnforced) return AdminResponse::success(trace, 200, *own.schemaValidationEnforced);
    bool value = false;
    if (applied) value = store.namespaceOf(topic).schema_validation_enforced || store.broker.isSchemaValidationEnforced;
    trace->add("§5.5", "get topic policy", [&] {
        return std::string("schemaValidationEnforced unset") + (applied ? ": namespace or broker" : ": false");
    });
    return AdminResponse::success(trace, 200, value);
}

AdminResponse AdminApi::createPartitionedTopic(const TopicName& topic, int partitions) {
    auto trace = broker_.newTrace();
    if (!broker_.metadata().namespaceExists(topic.namespaceName()))
        return refused(trace, "create partitioned topic", 404, "Namespace not found");
    if (partitions < 1) return refused(trace, "create partitioned topic", 406, "Number of partitions should be more than 0");
    if (auto tooMany = overMaxPartitions(trace, "create partitioned topic", partitions)) return *tooMany;
    if (broker_.partitionsOf(topic) > 0 || broker_.topicExists(topic))
        return refused(trace, "create partitioned topic", 409, "This topic already exists");
    broker_.declareTopic(topic, partitions);
    trace->add("§3", "create partitioned topic", [&] {
        return topic.toString() + " with " + std::to_string(partitions) + " partition(s)";
    });
    return noContent(trace);
}

AdminResponse AdminApi::createTopic(const TopicName& topic) {
    auto trace = broker_.newTrace();
    if (!broker_.metadata().namespaceExists(topic.namespaceName()))
        return refused(trace, "create topic", 404, "Namespace not found");
    if (broker_.partitionsOf(topic) > 0 || broker_.topicExists(topic)) return refused(trace, "create topic", 409, "This topic already exists");
    broker_.declareTopic(topic, 0);
    trace->add("§3", "create topic", [&] { return topic.toString() + " (non-partitioned)"; });
    return noContent(trace);
}

AdminResponse AdminApi::updatePartitionedTopic(const TopicName& topic, int partitions) {
    auto trace = broker_.newTrace();
    int existing = broker_.partitionsOf(topic);
    bool async = broker_.profile().adminUpdatePartitionsAsync;  // #19166
    if (existing == 0)
        return refused(trace, "update partitions", 409,
                       async ? "Topic " + topic.toString() + " is not the partitioned topic." : "Topic is not partitioned topic");
    if (async && partitions == existing) {
        trace->add("§7", "update partitions", [&] {
            return "the same count (" + std::to_string(existing) + "): nothing changes (#19166)";
        });
        return noContent(trace);
    }
    if (partitions <= existing) {
        if (async)
            return refused(trace, "update partitions", 422,
                           "Expect partitions " + std::to_string(partitions) + " can't less than current partitions " +
                               std::to_string(existing) + ".");
        return refused(trace, "update partitions", 409, "number of partitions must be more than existing " + std::to_string(existing));
    }
    if (auto tooMany = overMaxPartitions(trace, "update partitions", partitions)) return *tooMany;
    broker_.declareTopic(topic, partitions);
    trace->add("§3", "update partitions", [&] {
        return topic.toString() + ": " + std::to_string(existing) + " -> " + std::to_string(partitions);
    });
    trace->notModelled("§3", "update partitions",
                       "the durable subscriptions of the existing partitions are not created on the new ones, as Pulsar does");
    return noContent(trace);
}

AdminResponse AdminApi::getPartitionedMetadata(const TopicName& topic) const {
    auto trace = broker_.newTrace();
    nlohmann::json metadata = {{"partitions", broker_.partitionsOf(topic)}};
    // PartitionedTopicMetadata.deleted (#18193): true only while a deletion runs, which a
    // served admin call never leaves half done.
    if (broker_.profile().adminPartitionedMetadataHasDeleted) metadata["deleted"] = false;
    return AdminResponse::success(trace, 200, metadata);
}

AdminResponse AdminApi::deletePartitionedTopic(const TopicName& topic, bool force, bool deleteSchema) {
    if (broker_.partitionsOf(topic) == 0) {
        auto trace = broker_.newTrace();
        if (broker_.topicExists(topic))
            return refused(trace, "delete partitioned topic", 409,
                           topic.toString() + " is a non-partitioned topic. Instead of calling delete-partitioned-topic please call delete.");
        return refused(trace, "delete partitioned topic", 404, "Topic " + topic.toString() + " not found.");
    }
    return deleteTopic(topic, force, deleteSchema);
}

}  // namespace cnx
