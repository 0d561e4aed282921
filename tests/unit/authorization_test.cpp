// policy/authorization.h: Pulsar's PulsarAuthorizationProvider rules, with the
// answers a real 4.2.4 broker gave (tests/oracle/run-broker with
// authorizationEnabled, superUserRoles=admin; issue 44).
#include <catch2/catch.hpp>

#include "broker_model/policy/authorization.h"

using namespace cnx;
using cnx::auth::Authorizer;
using cnx::auth::AuthorizationSettings;
using cnx::auth::NamespaceOperation;
using cnx::auth::TopicOperation;

namespace {

struct Fixture {
    AuthorizationSettings settings{true, true, {"admin"}, false};
    ClusterMetadata metadata;
    PolicyStore store;
    Fixture() {
        metadata.makeStandalone();
        store.namespaceFor("public/default");
        metadata.tenants.insert("acme");
        metadata.namespaces.insert("acme/orders");
        metadata.tenantAdminRoles["acme"] = {"acme-admin"};
        store.namespaceFor("acme/orders");
    }
    Authorizer authz() const { return {settings, metadata, store}; }
    static TopicName topic(const char* name) { return *TopicName::parse(name); }
};

}  // namespace

TEST_CASE("authorization: super users and a tenant's admins may do anything, other roles nothing ungranted", "[authorization]") {
    Fixture f;
    auto t = Fixture::topic("persistent://public/default/t");
    CHECK(f.authz().allowTopicOperation(t, TopicOperation::PRODUCE, "admin").allowed);
    CHECK(f.authz().allowTopicOperation(t, TopicOperation::UNLOAD, "admin").allowed);
    for (auto op : {TopicOperation::LOOKUP, TopicOperation::PRODUCE, TopicOperation::CONSUME, TopicOperation::GET_STATS,
                    TopicOperation::UNLOAD}) {
        auto v = f.authz().allowTopicOperation(t, op, "alice");
        CHECK_FALSE(v.allowed);
        CHECK_FALSE(v.error);
    }
    auto orders = Fixture::topic("persistent://acme/orders/o");
    CHECK(f.authz().allowTopicOperation(orders, TopicOperation::UNLOAD, "acme-admin").allowed);
    CHECK_FALSE(f.authz().allowTopicOperation(t, TopicOperation::LOOKUP, "acme-admin").allowed);
    CHECK(f.authz().allowNamespaceOperation("acme/orders", NamespaceOperation::GRANT_PERMISSION, "acme-admin").allowed);
    CHECK_FALSE(f.authz().allowNamespaceOperation("public/default", NamespaceOperation::GRANT_PERMISSION, "acme-admin").allowed);
}

TEST_CASE("authorization: a namespace grant of produce allows producing and lookups, not consuming", "[authorization]") {
    Fixture f;
    f.store.namespaceFor("public/default").namespace_auth["alice"] = {"produce"};
    auto t = Fixture::topic("persistent://public/default/t");
    CHECK(f.authz().allowTopicOperation(t, TopicOperation::PRODUCE, "alice").allowed);
    CHECK(f.authz().allowTopicOperation(t, TopicOperation::LOOKUP, "alice").allowed);
    CHECK(f.authz().allowTopicOperation(t, TopicOperation::GET_STATS, "alice").allowed);
    CHECK_FALSE(f.authz().allowTopicOperation(t, TopicOperation::CONSUME, "alice", "s").allowed);
    CHECK_FALSE(f.authz().allowTopicOperation(t, TopicOperation::UNLOAD, "alice").allowed);
    CHECK(f.authz().allowNamespaceOperation("public/default", NamespaceOperation::GET_TOPICS, "alice").allowed);
    CHECK_FALSE(f.authz().allowNamespaceOperation("public/default", NamespaceOperation::GET_PERMISSION, "alice").allowed);
    // A name Jackson did not know is stored as null (""), which grants nothing.
    f.store.namespaceFor("public/default").namespace_auth["alice"] = {""};
    CHECK_FALSE(f.authz().allowTopicOperation(t, TopicOperation::PRODUCE, "alice").allowed);
}

TEST_CASE("authorization: topic grants, partitions of a granted partitioned topic, and subscription roles", "[authorization]") {
    Fixture f;
    auto& ns = f.store.namespaceFor("public/default");
    ns.destination_auth["persistent://public/default/t"]["bob"] = {"consume"};
    ns.destination_auth["persistent://public/default/p"]["bob"] = {"produce"};
    auto t = Fixture::topic("persistent://public/default/t");
    CHECK(f.authz().allowTopicOperation(t, TopicOperation::CONSUME, "bob", "s").allowed);
    CHECK(f.authz().allowTopicOperation(t, TopicOperation::LOOKUP, "bob").allowed);
    CHECK_FALSE(f.authz().allowTopicOperation(t, TopicOperation::PRODUCE, "bob").allowed);
    CHECK_FALSE(f.authz().allowTopicOperation(Fixture::topic("persistent://public/default/u"), TopicOperation::CONSUME, "bob", "s").allowed);
    CHECK(f.authz().allowTopicOperation(Fixture::topic("persistent://public/default/p-partition-2"), TopicOperation::PRODUCE, "bob").allowed);
    ns.subscription_auth_roles["locked"] = {"carol"};
    CHECK_FALSE(f.authz().allowTopicOperation(t, TopicOperation::CONSUME, "bob", "locked").allowed);
    CHECK(f.authz().allowTopicOperation(t, TopicOperation::CONSUME, "bob", "open").allowed);
}

TEST_CASE("authorization: wildcard grants match only with authorizationAllowWildcardsMatching", "[authorization]") {
    Fixture f;
    f.store.namespaceFor("public/default").namespace_auth["team-*"] = {"produce"};
    f.store.namespaceFor("public/default").namespace_auth["*.svc"] = {"consume"};
    f.store.namespaceFor("public/default").namespace_auth[""] = {"produce"};  // never matches anything
    auto t = Fixture::topic("persistent://public/default/t");
    CHECK_FALSE(f.authz().allowTopicOperation(t, TopicOperation::PRODUCE, "team-a").allowed);
    f.settings.allowWildcardsMatching = true;
    CHECK(f.authz().allowTopicOperation(t, TopicOperation::PRODUCE, "team-a").allowed);
    CHECK_FALSE(f.authz().allowTopicOperation(t, TopicOperation::PRODUCE, "other").allowed);
    CHECK(f.authz().allowTopicOperation(t, TopicOperation::CONSUME, "orders.svc", "s").allowed);
    CHECK_FALSE(f.authz().allowTopicOperation(t, TopicOperation::CONSUME, "team-a", "s").allowed);
}

TEST_CASE("authorization: a tenant that does not exist fails the check, off allows everything", "[authorization]") {
    Fixture f;
    auto v = f.authz().allowTopicOperation(Fixture::topic("persistent://nosuch/default/t"), TopicOperation::PRODUCE, "alice");
    CHECK_FALSE(v.allowed);
    REQUIRE(v.error);
    CHECK(*v.error == "Tenant does not exist");
    // A super user never reaches the tenant lookup.
    CHECK(f.authz().allowTopicOperation(Fixture::topic("persistent://nosuch/default/t"), TopicOperation::PRODUCE, "admin").allowed);
    f.settings.authorizationEnabled = false;
    CHECK(f.authz().allowTopicOperation(Fixture::topic("persistent://nosuch/default/t"), TopicOperation::UNLOAD, "").allowed);
}
