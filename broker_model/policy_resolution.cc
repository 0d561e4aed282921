#include "broker_model/policy_resolution.h"

namespace cnx {
namespace {

std::string name(CompatibilityStrategy s) { return std::string(to_string_view(s)); }

void note(Trace* trace, const char* section, const char* rule, std::string detail) {
    if (trace) trace->add(section, rule, std::move(detail));
}

/// §5.1: the namespace's auto-update strategy, converted; null is
/// ALWAYS_INCOMPATIBLE up to 2.8.2/2.9.1 and "unset" (UNDEFINED) after #13938.
CompatibilityStrategy autoUpdateLevel(const BehaviourProfile& profile, const NamespacePolicies& ns) {
    if (ns.schema_auto_update_compatibility_strategy)
        return fromAutoUpdatePolicy(*ns.schema_auto_update_compatibility_strategy);
    return profile.nullAutoUpdateIsAlwaysIncompatible ? CompatibilityStrategy::ALWAYS_INCOMPATIBLE
                                                      : CompatibilityStrategy::UNDEFINED;
}

/// The broker's `schemaCompatibilityStrategy`, UNDEFINED when the release has no such key.
CompatibilityStrategy brokerLevel(const BehaviourProfile& profile, const PolicyStore& store) {
    return profile.brokerHasStrategyKey ? store.broker.schemaCompatibilityStrategy : CompatibilityStrategy::UNDEFINED;
}

std::optional<CompatibilityStrategy> topicLevel(const BehaviourProfile& profile, const PolicyStore& store,
                                                const TopicName& topic) {
    if (!store.broker.topicLevelPoliciesEnabled || !store.broker.systemTopicEnabled) return std::nullopt;
    auto t = store.topicOf(topic).schemaCompatibilityStrategy;
    if (!t || *t == CompatibilityStrategy::UNDEFINED) return std::nullopt;
    return t;
}

struct Level {
    const char* what;
    CompatibilityStrategy value;
};

/// The first defined level wins; the trace lists what was looked at.
CompatibilityStrategy firstDefined(std::initializer_list<Level> levels, const char* section, const char* rule,
                                   Trace* trace) {
    std::string looked;
    for (const auto& l : levels) {
        if (l.value != CompatibilityStrategy::UNDEFINED) {
            note(trace, section, rule, looked + l.what + " -> " + name(l.value));
            return l.value;
        }
        looked += std::string(l.what) + " unset; ";
    }
    note(trace, section, rule, looked + "nothing defined -> UNDEFINED");
    return CompatibilityStrategy::UNDEFINED;
}

}  // namespace

NamespacePolicies PolicyStore::namespaceOf(const TopicName& topic) const {
    auto it = namespaces.find(topic.namespaceName());
    return it == namespaces.end() ? createdNamespace : it->second;
}

NamespacePolicies& PolicyStore::namespaceFor(const std::string& name) {
    return namespaces.try_emplace(name, createdNamespace).first->second;
}

NamespacePolicies namespaceCreatedOn(const BehaviourProfile& profile) {
    NamespacePolicies p;
    if (profile.namespaceCreatedWithAutoUpdateFull) p.schema_auto_update_compatibility_strategy = AutoUpdateStrategy::Full;
    if (profile.namespaceCreatedWithAllowAutoUpdate) p.is_allow_auto_update_schema = true;
    return p;
}

TopicPolicies PolicyStore::topicOf(const TopicName& topic) const {
    auto it = topics.find(topic.partitionedBase().toString());
    return it == topics.end() ? TopicPolicies{} : it->second;
}

// §5.3, one branch per release range.
CompatibilityStrategy effectiveStrategy(const BehaviourProfile& profile, const PolicyStore& store,
                                        const TopicName& topic, Trace* trace) {
    if (profile.systemTopicStrategy && topic.isSystemTopic()) {
        auto s = store.broker.systemTopicSchemaCompatibilityStrategy;
        note(trace, "§5.3", "effective strategy", "system topic -> systemTopicSchemaCompatibilityStrategy=" + name(s));
        return s;
    }
    auto ns = store.namespaceOf(topic);
    auto explicitNs = ns.schema_compatibility_strategy;
    auto autoUpdate = autoUpdateLevel(profile, ns);
    auto broker = brokerLevel(profile, store);
    switch (profile.strategyResolution) {
        case StrategyResolution::namespaceAutoUpdateOnly:
            return firstDefined({{"namespace schema_auto_update_compatibility_strategy", autoUpdate}}, "§5.3",
                                "effective strategy", trace);
        case StrategyResolution::namespaceThenAutoUpdate:
            return firstDefined({{"namespace schema_compatibility_strategy", explicitNs},
                                 {"namespace schema_auto_update_compatibility_strategy", autoUpdate}},
                                "§5.3", "effective strategy", trace);
        case StrategyResolution::namespaceBrokerAutoUpdate:
            return firstDefined({{"namespace schema_compatibility_strategy", explicitNs},
                                 {"broker schemaCompatibilityStrategy", broker},
                                 {"namespace schema_auto_update_compatibility_strategy", autoUpdate}},
                                "§5.3", "effective strategy", trace);
        case StrategyResolution::namespaceAutoUpdateBroker:
            return firstDefined({{"namespace schema_compatibility_strategy", explicitNs},
                                 {"namespace schema_auto_update_compatibility_strategy", autoUpdate},
                                 {"broker schemaCompatibilityStrategy", broker}},
                                "§5.3", "effective strategy", trace);
        case StrategyResolution::hierarchy: break;
    }
    auto t = topicLevel(profile, store, topic).value_or(CompatibilityStrategy::UNDEFINED);
    return firstDefined({{"topic policy schemaCompatibilityStrategy", t},
                         {"namespace schema_compatibility_strategy", explicitNs},
                         {"namespace schema_auto_update_compatibility_strategy", autoUpdate},
                         {"broker schemaCompatibilityStrategy", broker}},
                        "§5.3", "effective strategy", trace);
}

// §7.3: the admin endpoints; no system-topic special case. POST /compatibility
// of 2.5.0-2.9.x ignored the broker level (`forCompatibilityCheck`).
CompatibilityStrategy adminStrategy(const BehaviourProfile& profile, const PolicyStore& store, const TopicName& topic,
                                    Trace* trace, bool forCompatibilityCheck) {
    auto ns = store.namespaceOf(topic);
    auto explicitNs = ns.schema_compatibility_strategy;
    auto autoUpdate = autoUpdateLevel(profile, ns);
    auto broker = brokerLevel(profile, store);
    if (forCompatibilityCheck && !profile.adminCompatibilityUsesBroker) broker = CompatibilityStrategy::UNDEFINED;
    switch (profile.adminStrategyResolution) {
        case AdminStrategyResolution::fullHardcoded:
            note(trace, "§7.3", "admin strategy", "hard-coded FULL (#4821)");
            return CompatibilityStrategy::FULL;
        case AdminStrategyResolution::namespaceAutoUpdate:
            return firstDefined({{"namespace schema_auto_update_compatibility_strategy", autoUpdate}}, "§7.3",
                                "admin strategy", trace);
        case AdminStrategyResolution::namespaceThenAutoUpdate:
            return firstDefined({{"namespace schema_compatibility_strategy", explicitNs},
                                 {"namespace schema_auto_update_compatibility_strategy", autoUpdate}},
                                "§7.3", "admin strategy", trace);
        case AdminStrategyResolution::namespaceBrokerAutoUpdate:
            return firstDefined({{"namespace schema_compatibility_strategy", explicitNs},
                                 {"broker schemaCompatibilityStrategy", broker},
                                 {"namespace schema_auto_update_compatibility_strategy", autoUpdate}},
                                "§7.3", "admin strategy", trace);
        case AdminStrategyResolution::hierarchy: break;
    }
    auto t = topicLevel(profile, store, topic).value_or(CompatibilityStrategy::UNDEFINED);
    return firstDefined({{"topic policy schemaCompatibilityStrategy", t},
                         {"namespace schema_compatibility_strategy", explicitNs},
                         {"namespace schema_auto_update_compatibility_strategy", autoUpdate},
                         {"broker schemaCompatibilityStrategy", broker}},
                        "§7.3", "admin strategy", trace);
}

bool effectiveAutoUpdate(const BehaviourProfile& profile, const PolicyStore& store, const TopicName& topic,
                         Trace* trace) {
    if (profile.systemTopicsAlwaysAutoUpdate && topic.isSystemTopic()) {
        note(trace, "§4.8", "isAllowAutoUpdateSchema", "system topic -> true (#14809)");
        return true;
    }
    auto ns = store.namespaceOf(topic);
    switch (profile.autoUpdateResolution) {
        case AutoUpdateResolution::absent:
            note(trace, "§5.4", "isAllowAutoUpdateSchema", "no such setting before 2.5 -> clients may register");
            return true;
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
