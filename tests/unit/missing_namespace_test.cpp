// Explicit tenants and namespaces (issue 13): the scenario keys broker.tenants
// and broker.namespaces (doc/scenario-format.md, broker), the set-up they give
// (sim/run/broker_setup.h), and the schema resource's answers for a topic of a
// missing tenant or namespace (doc/broker-behaviour.md §7.5).

#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include "broker_model/admin/admin_api.h"
#include "admin_test_support.h"
#include "model_test_support.h"
#include "sim/run/broker_setup.h"
#include "sim/scenario/loader.h"

using namespace cnx;
using cnx::testing::AdminFixture;
using cnx::testing::BrokerFixture;

namespace {

const BehaviourProfile& release(const char* v) {
    const auto* p = profileFor(v);
    REQUIRE(p);
    return *p;
}

sim::Scenario loaded(const std::string& yaml) {
    auto r = sim::loadScenarioText(yaml, "case.yaml", ".");
    std::string errors;
    for (const auto& e : r.errors) errors += e.format() + "\n";
    INFO(errors);
    REQUIRE(r.errors.empty());
    REQUIRE(r.scenarios.size() == 1);
    return r.scenarios[0];
}

const char* kExplicit = R"(name: x
broker:
  tenants: [acme]
  namespaces: [public/default, other/ns]
namespaces:
  declared/policies: { schema_validation_enforced: true }
topics:
  persistent://from/topic/t: {}
steps:
  - producer: { topic: t }
)";

struct Explicit : AdminFixture {
    explicit Explicit(const BehaviourProfile& p = newestProfile()) : AdminFixture(p) {
        auto s = loaded(kExplicit);
        REQUIRE_FALSE(sim::applyBrokerSetup(s, f.broker, api));
    }
    AdminResponse post(const TopicName& t) {
        return wait([&](AdminApi::Callback cb) { api.postSchema(t, {SchemaType::STRING, "", {}}, std::move(cb)); });
    }
    AdminResponse get(const TopicName& t) {
        return wait([&](AdminApi::Callback cb) { api.getSchema(t, std::nullopt, std::move(cb)); });
    }
    AdminResponse version(const TopicName& t) {
        return wait([&](AdminApi::Callback cb) { api.getVersionBySchema(t, {SchemaType::STRING, "", {}}, std::move(cb)); });
    }
    AdminResponse compat(const TopicName& t) {
        return wait([&](AdminApi::Callback cb) { api.testCompatibility(t, {SchemaType::STRING, "", {}}, std::move(cb)); });
    }
    AdminResponse del(const TopicName& t) {
        return wait([&](AdminApi::Callback cb) { api.deleteSchema(t, false, std::move(cb)); });
    }
};

TopicName topic(const char* name) { return *TopicName::parse(name); }

void checkRefused(const AdminResponse& r, const char* reason) {
    CHECK(r.status == 404);
    CHECK(r.reason == reason);
}

}  // namespace

TEST_CASE("broker.tenants and broker.namespaces make the metadata explicit", "[metadata][loader]") {
    auto s = loaded(kExplicit);
    CHECK(s.explicitMetadata);
    CHECK(s.existingTenants == std::vector<std::string>{"acme"});
    CHECK(s.existingNamespaces == std::vector<std::string>{"public/default", "other/ns"});
    auto plain = loaded("name: x\nsteps:\n  - producer: { topic: t }\n");
    CHECK_FALSE(plain.explicitMetadata);
    auto onlyTenants = loaded("name: x\nbroker: { tenants: [] }\nsteps:\n  - producer: { topic: t }\n");
    CHECK(onlyTenants.explicitMetadata);
}

TEST_CASE("explicit metadata holds the listed and the declared tenants and namespaces only", "[metadata]") {
    Explicit e;
    const auto& meta = e.f.broker.metadata();
    CHECK_FALSE(meta.implicit);
    for (const char* t : {"acme", "public", "other", "declared", "from"}) CHECK(meta.tenantExists(t));
    CHECK_FALSE(meta.tenantExists("nobody"));
    for (const char* ns : {"public/default", "other/ns", "declared/policies", "from/topic"}) CHECK(meta.namespaceExists(ns));
    CHECK_FALSE(meta.namespaceExists("acme/missing"));
    CHECK_FALSE(meta.namespaceExists("public/other"));
}

TEST_CASE("implicit metadata: every namespace exists and the schema resource answers as before", "[metadata]") {
    BrokerFixture f;
    AdminApi api(f.broker);
    auto s = loaded("name: x\nsteps:\n  - producer: { topic: t }\n");
    REQUIRE_FALSE(sim::applyBrokerSetup(s, f.broker, api));
    CHECK(f.broker.metadata().namespaceExists("nobody/ns"));
    std::optional<AdminResponse> r;
    api.postSchema(topic("persistent://nobody/ns/t"), {SchemaType::STRING, "", {}}, [&r](AdminResponse a) { r = a; });
    f.scheduler.runUntilIdle();
    REQUIRE(r);
    CHECK(r->ok());
}

TEST_CASE("a missing namespace of an existing tenant: 404 Namespace does not exist where the policies are read",
          "[metadata][admin]") {
    Explicit e;
    auto t = topic("persistent://acme/missing/t");
    checkRefused(e.post(t), "Namespace does not exist");
    checkRefused(e.compat(t), "Namespace does not exist");
    checkRefused(e.get(t), "Schema not found");  // reads neither: the registry answers
    auto v = e.version(t);
    CHECK(v.ok());
    CHECK(e.del(t).ok());
    checkRefused(e.api.setNamespacePolicy("acme/missing", "schema_compatibility_strategy", std::string_view("FORWARD")),
                 "Namespace does not exist");
    checkRefused(e.api.getNamespacePolicy("acme/missing", "schema_compatibility_strategy", false),
                 "Namespace does not exist");
}

TEST_CASE("a missing tenant: the tenant-admin check answers 404 Tenant does not exist, by release", "[metadata][admin]") {
    auto t = topic("persistent://nobody/ns/t");
    SECTION("3.0: topic-operation checks (#15956, #18074) read no tenant") {
        Explicit e(release("3.0"));
        checkRefused(e.post(t), "Namespace does not exist");
        checkRefused(e.get(t), "Schema not found");
        CHECK(e.version(t).ok());
        checkRefused(e.compat(t), "Tenant does not exist");
        checkRefused(e.del(t), "Tenant does not exist");
    }
    SECTION("2.10: tenant-admin checks everywhere") {
        Explicit e(release("2.10"));
        checkRefused(e.post(t), "Tenant does not exist");
        checkRefused(e.get(t), "Tenant does not exist");
        checkRefused(e.version(t), "Tenant does not exist");
        checkRefused(e.compat(t), "Tenant does not exist");
        checkRefused(e.del(t), "Tenant does not exist");
    }
    SECTION("2.4.0: the upload uses FULL without reading the namespace") {
        Explicit e(release("2.4.0"));
        checkRefused(e.post(t), "Tenant does not exist");
        CHECK(e.post(topic("persistent://acme/missing/t")).ok());
    }
}

TEST_CASE("listed namespaces answer as usual", "[metadata][admin]") {
    Explicit e;
    auto t = topic("persistent://public/default/t");
    CHECK(e.post(t).ok());
    CHECK(e.get(t).ok());
    CHECK(e.compat(t).ok());
}
