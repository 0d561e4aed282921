#include "broker_model/policy/policy_resolution.h"

namespace cnx {
namespace {

std::string name(CompatibilityStrategy s) { return std::string(to_string_view(s)); }

// `detail` as Trace::add takes it: a string, a literal, or a lambda that builds it.
template <class Detail>
void note(Trace* trace, TraceText section, TraceText rule, Detail&& detail) {
    if (trace) trace->add(std::move(section), std::move(rule), std::forward<Detail>(detail));
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

std::optional<CompatibilityStrategy> topicLevel(const PolicyStore& store, const TopicName& topic) {
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
CompatibilityStrategy firstDefined(std::initializer_list<Level> levels, const TraceText& section, const TraceText& rule,
                                   Trace* trace) {
    // The detail is written into one string (this runs on every admission), and
    // only when it is kept.
    if (trace && !trace->detailed()) trace = nullptr;
    std::string detail;
    if (trace) detail.reserve(96);
    for (const auto& l : levels) {
        if (l.value != CompatibilityStrategy::UNDEFINED) {
            if (trace) detail.append(l.what).append(" -> ").append(to_string_view(l.value));
            note(trace, section, rule, std::move(detail));
            return l.value;
        }
        if (trace) detail.append(l.what).append(" unset; ");
    }
    if (trace) detail.append("nothing defined -> UNDEFINED");
    note(trace, section, rule, std::move(detail));
    return CompatibilityStrategy::UNDEFINED;
}

}  // namespace

NamespacePolicies PolicyStore::namespaceOf(const TopicName& topic) const {
    auto it = namespaces.find(topic.namespaceView());
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
    // A partition's policies are its partitioned base's; a name without a partition is its own base.
    auto it = topic.partitionIndex() < 0 ? topics.find(topic.toString()) : topics.find(topic.partitionedBase().toString());
    return it == topics.end() ? TopicPolicies{} : it->second;
}

namespace {

/// The levels a topic's strategy can come from; UNDEFINED = unset.
struct Levels {
    CompatibilityStrategy topic, namespaceExplicit, namespaceAutoUpdate, broker;
};

Levels levelsOf(const BehaviourProfile& profile, const PolicyStore& store, const TopicName& topic) {
    auto ns = store.namespaceOf(topic);
    return {topicLevel(store, topic).value_or(CompatibilityStrategy::UNDEFINED),
            ns.schema_compatibility_strategy, autoUpdateLevel(profile, ns), brokerLevel(profile, store)};
}

/// §5.3 / §7.3: the first defined level in `order`'s sequence wins.
CompatibilityStrategy resolve(StrategyResolution order, const Levels& l, const TraceText& section, const TraceText& rule,
                              Trace* trace) {
    const Level topic{"topic policy schemaCompatibilityStrategy", l.topic};
    const Level explicitNs{"namespace schema_compatibility_strategy", l.namespaceExplicit};
    const Level autoUpdate{"namespace schema_auto_update_compatibility_strategy", l.namespaceAutoUpdate};
    const Level broker{"broker schemaCompatibilityStrategy", l.broker};
    switch (order) {
        case StrategyResolution::namespaceAutoUpdateOnly: return firstDefined({autoUpdate}, section, rule, trace);
        case StrategyResolution::namespaceThenAutoUpdate:
            return firstDefined({explicitNs, autoUpdate}, section, rule, trace);
        case StrategyResolution::namespaceBrokerAutoUpdate:
            return firstDefined({explicitNs, broker, autoUpdate}, section, rule, trace);
        case StrategyResolution::namespaceAutoUpdateBroker:
            return firstDefined({explicitNs, autoUpdate, broker}, section, rule, trace);
        case StrategyResolution::hierarchy:
            return firstDefined({topic, explicitNs, autoUpdate, broker}, section, rule, trace);
    }
    return CompatibilityStrategy::UNDEFINED;
}

}  // namespace

// §5.3, one order per release range; system topics first where #12598 applies.
CompatibilityStrategy effectiveStrategy(const BehaviourProfile& profile, const PolicyStore& store,
                                        const TopicName& topic, Trace* trace) {
    if (profile.systemTopicStrategy && topic.isSystemTopic()) {
        if (profile.systemTopicsCheckedUnderFull) {
            note(trace, "§5.3", "effective strategy",
                 "system topic -> AbstractTopic's initial FULL: branch-2.9's #13557 never sets it (#17979, fixed by #17986)");
            return CompatibilityStrategy::FULL;
        }
        auto s = store.broker.systemTopicSchemaCompatibilityStrategy;
        note(trace, "§5.3", "effective strategy",
             [&] { return "system topic -> systemTopicSchemaCompatibilityStrategy=" + name(s); });
        return s;
    }
    if (!topic.persistent() && topicLevel(store, topic))
        noteGap(profile, Gap::nonPersistentTopicPoliciesLoad, trace, "topic-level strategy of " + topic.toString());
    return resolve(profile.strategyResolution, levelsOf(profile, store, topic), "§5.3", "effective strategy", trace);
}

// §7.3: the admin endpoints; no system-topic special case. POST /compatibility
// of 2.5.0-2.9.x ignored the broker level (`forCompatibilityCheck`).
CompatibilityStrategy adminStrategy(const BehaviourProfile& profile, const PolicyStore& store, const TopicName& topic,
                                    Trace* trace, bool forCompatibilityCheck) {
    auto levels = levelsOf(profile, store, topic);
    if (forCompatibilityCheck && !profile.adminCompatibilityUsesBroker) levels.broker = CompatibilityStrategy::UNDEFINED;
    StrategyResolution order = StrategyResolution::hierarchy;
    switch (profile.adminStrategyResolution) {
        case AdminStrategyResolution::fullHardcoded:
            note(trace, "§7.3", "admin strategy", "hard-coded FULL (#4821)");
            return CompatibilityStrategy::FULL;
        case AdminStrategyResolution::namespaceAutoUpdate: order = StrategyResolution::namespaceAutoUpdateOnly; break;
        case AdminStrategyResolution::namespaceThenAutoUpdate: order = StrategyResolution::namespaceThenAutoUpdate; break;
        case AdminStrategyResolution::namespaceBrokerAutoUpdate: order = StrategyResolution::namespaceBrokerAutoUpdate; break;
        case AdminStrategyResolution::hierarchy: order = StrategyResolution::hierarchy; break;
    }
    return resolve(order, levels, "§7.3", "admin strategy", trace);
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
            note(trace, "§5.4", "isAllowAutoUpdateSchema",
                 [&] { return std::string("namespace value -> ") + (v ? "true" : "false"); });
            return v;
        }
        case AutoUpdateResolution::namespaceThenBroker: break;
    }
    if (ns.is_allow_auto_update_schema) {
        bool v = *ns.is_allow_auto_update_schema;
        note(trace, "§5.4", "isAllowAutoUpdateSchema",
             [&] { return std::string("namespace is_allow_auto_update_schema=") + (v ? "true" : "false"); });
        return v;
    }
    bool v = store.broker.isAllowAutoUpdateSchemaEnabled;
    note(trace, "§5.4", "isAllowAutoUpdateSchema", [&] {
        return std::string("namespace unset -> broker isAllowAutoUpdateSchemaEnabled=") + (v ? "true" : "false");
    });
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
