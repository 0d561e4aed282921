#pragma once
// Tenants and namespaces: the metadata store's /admin/policies nodes. A
// scenario never creates them: every namespace it names exists (the format's
// rule), so `implicit` is true in `cnxsim run`. A broker double serving real
// clients keeps them explicit, as a standalone broker does: what the
// standalone set-up creates, and what the admin API creates and deletes.

#include <map>
#include <set>
#include <string>
#include <string_view>

namespace cnx {

struct ClusterMetadata {
    bool implicit = true;
    std::set<std::string> tenants;
    std::set<std::string, std::less<>> namespaces;  // `tenant/namespace`
    /// TenantInfo.adminRoles, by tenant (absent: none); they administer the tenant
    /// when authorization is on (PulsarAuthorizationProvider.validateTenantAdminAccess).
    std::map<std::string, std::set<std::string>, std::less<>> tenantAdminRoles;

    bool tenantExists(const std::string& tenant) const { return implicit || tenants.count(tenant) > 0; }
    bool namespaceExists(std::string_view ns) const { return implicit || namespaces.count(ns) > 0; }

    /// Explicit, with what `bin/pulsar standalone` creates from 2.11 on: the
    /// tenants `public` and `pulsar`, the namespaces `public/default` and
    /// `pulsar/system`. (2.8-2.10 standalone also created `sample/ns1`; the
    /// release that dropped it is not known, so it is not created.)
    void makeStandalone() {
        implicit = false;
        tenants = {"public", "pulsar"};
        namespaces = {"public/default", "pulsar/system"};
    }
    /// Creates `tenant/namespace` and its tenant (a declared namespace or topic).
    void declareNamespace(const std::string& ns) {
        namespaces.insert(ns);
        tenants.insert(ns.substr(0, ns.find('/')));
    }
};

}  // namespace cnx
