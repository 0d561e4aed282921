#pragma once
// Authorization as Pulsar's default PulsarAuthorizationProvider decides it
// (reference: pulsar-broker-common 4.2.4, AuthorizationService and
// PulsarAuthorizationProvider, decompiled; the same rules since 2.8): super
// users (`superUserRoles`) may do anything; a tenant's admin roles may do
// anything in the tenant; other roles need a namespace grant
// (`auth_policies.namespace_auth`) or a topic grant (`destination_auth`) of
// the action, `produce` or `consume`, or, with
// `authorizationAllowWildcardsMatching`, a grant to a role pattern with a
// leading or trailing `*`. A lookup needs either action. A subscription listed
// in `subscription_auth_roles` is open only to the roles listed.
//
// The checks are pure functions of the broker's metadata; the modelled
// ServerCnx and serve's admin port call them with the connection's or the
// request's authenticated role.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker_model/policy/cluster_metadata.h"
#include "broker_model/core/topic_name.h"
#include "broker_model/policy/policy_resolution.h"

namespace cnx::auth {

/// The broker.conf keys authorization reads.
struct AuthorizationSettings {
    bool authenticationEnabled = false;
    bool authorizationEnabled = false;
    std::vector<std::string> superUserRoles;
    bool allowWildcardsMatching = false;
};

/// Pulsar's TopicOperation values the broker double checks.
enum class TopicOperation { LOOKUP, PRODUCE, CONSUME, SUBSCRIBE, GET_METADATA, GET_STATS, UNLOAD, TERMINATE, COMPACT };
std::string_view to_string_view(TopicOperation op);

/// Pulsar's NamespaceOperation values the broker double checks.
enum class NamespaceOperation { GET_TOPICS, CREATE_TOPIC, DELETE_TOPIC, GRANT_PERMISSION, GET_PERMISSION, REVOKE_PERMISSION };
std::string_view to_string_view(NamespaceOperation op);

/// An authorization answer: allowed or not, or the check failed (`error`: the
/// exception's message, as a missing tenant's "Tenant does not exist").
struct Verdict {
    bool allowed = false;
    std::optional<std::string> error;
    static Verdict yes() { return {true, std::nullopt}; }
    static Verdict no() { return {false, std::nullopt}; }
    static Verdict failed(std::string message) { return {false, std::move(message)}; }
};

class Authorizer {
public:
    Authorizer(const AuthorizationSettings& settings, const ClusterMetadata& metadata, const PolicyStore& policies)
        : settings_(settings), metadata_(metadata), policies_(policies) {}

    bool enabled() const { return settings_.authorizationEnabled; }
    /// AuthorizationProvider.isSuperUser: `role` is one of superUserRoles.
    bool isSuperUser(const std::string& role) const;
    /// PulsarAuthorizationProvider.validateTenantAdminAccess: a super user, or
    /// one of the tenant's admin roles; "Tenant does not exist" when it does not.
    Verdict tenantAdmin(std::string_view tenant, const std::string& role) const;
    /// AuthorizationService.allowTopicOperationAsync (`subscription` for CONSUME/SUBSCRIBE).
    Verdict allowTopicOperation(const TopicName& topic, TopicOperation op, const std::string& role,
                                std::string_view subscription = {}) const;
    /// AuthorizationService.allowNamespaceOperationAsync.
    Verdict allowNamespaceOperation(std::string_view ns, NamespaceOperation op, const std::string& role) const;

private:
    /// PulsarAuthorizationProvider.checkPermission: a namespace or topic grant of `action`.
    bool checkPermission(const TopicName& topic, const std::string& role, std::string_view action) const;
    bool canConsume(const TopicName& topic, const std::string& role, std::string_view subscription) const;
    bool namespaceAction(std::string_view ns, const std::string& role, std::string_view action) const;

    const AuthorizationSettings& settings_;
    const ClusterMetadata& metadata_;
    const PolicyStore& policies_;
};

}  // namespace cnx::auth
