#include "sim/run/broker_setup.h"

namespace cnx::sim {

std::optional<std::string> applyBrokerSetup(const Scenario& scenario, Broker& broker, AdminApi& admin) {
    for (const auto& s : scenario.brokerConfig) {
        if (!s.value) continue;  // null: the release's default
        if (auto err = broker.setConfig(s.key, *s.value)) return *err;
    }
    // Policies are set as an operator sets them: through the admin API.
    auto applied = [](const AdminResponse& r) -> std::optional<std::string> {
        if (r.ok()) return std::nullopt;
        return r.reason;
    };
    auto valueOf = [](const Setting& s) -> std::optional<std::string_view> {
        if (s.value) return std::string_view(*s.value);
        return std::nullopt;
    };
    // `broker: { tenants, namespaces }`: only the listed ones exist (and what
    // `namespaces:` and `topics:` declare); otherwise every one does.
    if (scenario.explicitMetadata) {
        auto& meta = broker.metadata();
        meta.implicit = false;
        for (const auto& t : scenario.existingTenants) meta.tenants.insert(t);
        for (const auto& ns : scenario.existingNamespaces) meta.declareNamespace(ns);
    }
    for (const auto& ns : scenario.namespaces) {
        broker.metadata().declareNamespace(ns.name);
        for (const auto& s : ns.policies) {
            if (auto err = applied(admin.setNamespacePolicy(ns.name, s.key, valueOf(s)))) return *err;
        }
    }
    for (const auto& t : scenario.topics) {
        auto name = TopicName::parse(t.name);
        if (!name) return "invalid topic name '" + t.name + "'";
        broker.declareTopic(*name, t.partitions);
        for (const auto& s : t.policies) {
            if (auto err = applied(admin.setTopicPolicy(*name, s.key, valueOf(s)))) return *err;
        }
    }
    return std::nullopt;
}

}  // namespace cnx::sim
