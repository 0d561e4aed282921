#include "broker_model/policy_resolution.h"

namespace cnx {
namespace {

std::string name(CompatibilityStrategy s) { return std::string(to_string_view(s)); }

void note(Trace* trace, const char* section, const char* rule, std::string detail) {
    if (trace) trace->add(section, rule, std::move(detail));
}

/// The namespace part of the hierarchy: explicit value, else the converted
/// auto-update strategy, else unset (UNDEFINED).
CompatibilityStrategy namespaceLevel(const NamespacePolicies& ns) {
    if (ns.schema_compatibility_strategy != CompatibilityStrategy::UNDEFINED) return ns.schema_compatibility_strategy;
    if (ns.schema_auto_update_compatibility_strategy)
        return fromAutoUpdatePolicy(*ns.schema_auto_update_compatibility_strategy);
    return CompatibilityStrategy::UNDEFINED;
}

std::optional<CompatibilityStrategy> topicLevel(const BehaviourProfile& profile, const PolicyStore& store,
                                                const TopicName& topic) {
    if (!profile.topicLevelStrategy || !store.broker.topicLevelPoliciesEnabled || !store.broker.systemTopicEnabled)
        return std::nullopt;
    auto t = store.topicOf(topic).schemaCompatibilityStrategy;
    if (!t || *t == CompatibilityStrategy::UNDEFINED) return std::nullopt;
    return t;
}

// §5.3, v2.10.0 - NEWEST: topic -> namespace -> broker; system topics skip
// topic and namespace and use systemTopicSchemaCompatibilityStrategy.
CompatibilityStrategy hierarchy(const BehaviourProfile& profile, const PolicyStore& store, const TopicName& topic,
                                Trace* trace) {
    if (topic.isSystemTopic()) {
        auto s = store.broker.systemTopicSchemaCompatibilityStrategy;
        note(trace, "§5.3", "effective strategy", "system topic -> systemTopicSchemaCompatibilityStrategy=" + name(s));
        return s;
    }
    if (auto t = topicLevel(profile, store, topic)) {
        note(trace, "§5.3", "effective strategy", "topic policy schemaCompatibilityStrategy=" + name(*t));
        return *t;
    }
    auto ns = store.namespaceOf(topic);
    if (auto n = namespaceLevel(ns); n != CompatibilityStrategy::UNDEFINED) {
        note(trace, "§5.3", "effective strategy",
             "topic policy unset; namespace " + topic.namespaceName() + " -> " + name(n));
        return n;
    }
    auto b = store.broker.schemaCompatibilityStrategy;
    note(trace, "§5.3", "effective strategy",
         "topic and namespace policies unset -> broker schemaCompatibilityStrategy=" + name(b));
    return b;
}

// §5.3, v2.5.0 - v2.8.1: namespace explicit -> converted auto-update (default Full).
CompatibilityStrategy namespaceThenAutoUpdate(const PolicyStore& store, const TopicName& topic, Trace* trace) {
    auto ns = store.namespaceOf(topic);
    if (ns.schema_compatibility_strategy != CompatibilityStrategy::UNDEFINED) {
        note(trace, "§5.3", "effective strategy", "namespace explicit -> " + name(ns.schema_compatibility_strategy));
        return ns.schema_compatibility_strategy;
    }
    auto converted = fromAutoUpdatePolicy(ns.schema_auto_update_compatibility_strategy.value_or(AutoUpdateStrategy::Full));
    note(trace, "§5.3", "effective strategy", "namespace auto-update strategy converted -> " + name(converted));
    return converted;
}

}  // namespace

NamespacePolicies PolicyStore::namespaceOf(const TopicName& topic) const {
    auto it = namespaces.find(topic.namespaceName());
    return it == namespaces.end() ? NamespacePolicies{} : it->second;
}

TopicPolicies PolicyStore::topicOf(const TopicName& topic) const {
    auto it = topics.find(topic.partitionedBase().toString());
    return it == topics.end() ? TopicPolicies{} : it->second;
}

CompatibilityStrategy effectiveStrategy(const BehaviourProfile& profile, const PolicyStore& store,
                                        const TopicName& topic, Trace* trace) {
    switch (profile.strategyResolution) {
        case StrategyResolution::namespaceThenAutoUpdate: return namespaceThenAutoUpdate(store, topic, trace);
        case StrategyResolution::hierarchy: return hierarchy(profile, store, topic, trace);
    }
    return CompatibilityStrategy::FULL;
}

// §7.3, 2.10.0 - NEWEST: topic (when topic policies are enabled) -> namespace
// explicit -> converted auto-update -> broker; no system-topic special case.
CompatibilityStrategy adminStrategy(const BehaviourProfile& profile, const PolicyStore& store, const TopicName& topic,
                                    Trace* trace) {
    switch (profile.strategyResolution) {
        case StrategyResolution::namespaceThenAutoUpdate: return namespaceThenAutoUpdate(store, topic, trace);
        case StrategyResolution::hierarchy: break;
    }
    if (auto t = topicLevel(profile, store, topic)) {
        note(trace, "§7.3", "admin strategy", "topic policy -> " + name(*t));
        return *t;
    }
    if (auto n = namespaceLevel(store.namespaceOf(topic)); n != CompatibilityStrategy::UNDEFINED) {
        note(trace, "§7.3", "admin strategy", "namespace -> " + name(n));
        return n;
    }
    note(trace, "§7.3", "admin strategy", "broker schemaCompatibilityStrategy=" + name(store.broker.schemaCompatibilityStrategy));
    return store.broker.schemaCompatibilityStrategy;
}

bool effectiveAutoUpdate(const BehaviourProfile& profile, const PolicyStore& store, const TopicName& topic,
                         Trace* trace) {
    if (profile.systemTopicsAlwaysAutoUpdate && topic.isSystemTopic()) {
        note(trace, "§4.8", "isAllowAutoUpdateSchema", "system topic -> true (#14809)");
        return true;
    }
    auto ns = store.namespaceOf(topic);
    switch (profile.autoUpdateResolution) {
        case AutoUpdateResolution::namespaceOnly: {
            bool v = ns.is_allow_auto_update_schema.value_or(true);
            note(trace, "§5.4", "isAllowAutoUpdateSchema", std::string("namespace value -> ") + (v ? "true" : "false"));
            return v;
        }
        case AutoUpdateResolution::namespaceThenBroker: break;
    }
    if (ns.is_allow_auto_update_schema) {
        bool v = *ns.is_allow_auto_update_schema;
        note(trace, "§5.4", "isAllowAutoUpdateSchema",
             std::string("namespace is_allow_auto_update_schema=") + (v ? "true" : "false"));
        return v;
    }
    bool v = store.broker.isAllowAutoUpdateSchemaEnabled;
    note(trace, "§5.4", "isAllowAutoUpdateSchema",
         std::string("namespace unset -> broker isAllowAutoUpdateSchemaEnabled=") + (v ? "true" : "false"));
    return v;
}

bool topicValidationEnforced(const BehaviourProfile& profile, const PolicyStore& store, const TopicName& topic) {
    auto ns = store.namespaceOf(topic);
    switch (profile.enforcementSource) {
        case EnforcementSource::namespaceOnly: return ns.schema_validation_enforced;
        case EnforcementSource::topicThenNamespace: break;
    }
    if (store.broker.topicLevelPoliciesEnabled) {
        if (auto t = store.topicOf(topic).schemaValidationEnforced) return *t;
    }
    return ns.schema_validation_enforced;
}

}  // namespace cnx
