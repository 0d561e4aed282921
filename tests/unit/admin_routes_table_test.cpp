// The admin route table (sim/rest/admin_routes_table.h, issue 45 item 2):
// walked route by route. Every route resolves the path built from its own
// pattern, no two routes serve one (method, path), unknown paths and methods
// get 404 and 405 with the Allow serve always sent, hostile paths are refused
// or read as one segment. And the three readers agree: the request the
// modelled admin client builds for an admin step is dispatched by serve's
// adapter to that step's call, and the recorder makes the same step of it.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "admin_test_support.h"
#include "sim/clients/admin_client.h"
#include "sim/record/admin_steps.h"
#include "sim/record/scenario_writer.h"
#include "sim/rest/admin_routes_table.h"
#include "sim/serve/http/admin_routes.h"
#include "sim/net/request_target.h"

namespace {

using namespace cnx;
using rest::Method;
using Kind = rest::Resolution::Kind;

// A value for every named segment a pattern has.
rest::Params sampleParams() {
    return {{"domain", "persistent"}, {"tenant", "public"},  {"namespace", "default"}, {"topic", "t"},
            {"version", "3"},         {"role", "reader"},    {"key", "k"},             {"value", "v"},
            {"cluster", "standalone"}};
}

std::vector<std::string> segmentsOf(const std::string& target) {
    auto t = serve::http::parseRequestTarget(target);
    REQUIRE(t);
    return t->segments;
}

// The route's own example: its pattern filled in (a `**` route one segment deeper).
std::vector<std::string> exampleOf(const rest::Route& r) {
    auto target = rest::buildTarget(r, sampleParams());
    REQUIRE(target);
    auto s = segmentsOf(*target);
    if (r.pattern.size() >= 3 && r.pattern.substr(r.pattern.size() - 3) == "/**") s.push_back("1");
    return s;
}

Method methodOf(const rest::Route& r) { return r.method == Method::any ? Method::get : r.method; }

std::string routeName(const rest::Route& r) {
    return std::string(to_string_view(r.method)) + " " + std::string(r.pattern);
}

}  // namespace

TEST_CASE("admin route table: every route resolves the path built from its own pattern", "[admin][rest]") {
    for (const auto& r : rest::adminRoutes()) {
        INFO(routeName(r));
        auto res = rest::resolve(methodOf(r), exampleOf(r));
        REQUIRE(res.kind == Kind::route);
        CHECK(res.route == &r);
        for (const auto& [name, value] : res.params) CHECK(sampleParams().at(name) == value);
    }
}

TEST_CASE("admin route table: no two routes serve one method and path", "[admin][rest]") {
    const auto routes = rest::adminRoutes();
    for (const auto& a : routes) {
        auto path = exampleOf(a);
        for (auto m : {Method::get, Method::put, Method::post, Method::del, Method::other}) {
            int serving = 0;
            for (const auto& b : routes)
                if ((b.method == m || b.method == Method::any) && rest::matchPattern(b.pattern, path, nullptr)) ++serving;
            INFO(routeName(a) << " with " << to_string_view(m));
            CHECK(serving <= 1);
        }
    }
}

TEST_CASE("admin route table: unknown paths are 404 and other methods 405 with the Allow serve sends", "[admin][rest]") {
    for (const char* path : {"/", "/admin/v2", "/admin/v1/tenants", "/admin/v2/schemas/public/default",
                             "/admin/v2/bogus/public/default", "/admin/v2/namespaces/public/default/nope",
                             "/admin/v2/persistent/public/default/t/nope", "/cnxsim/status/x", "/metrics/x"}) {
        INFO(path);
        CHECK(rest::resolve(Method::get, segmentsOf(path)).kind == Kind::notFound);
    }
    struct Case {
        Method method;
        const char* path;
        const char* allow;
    };
    const Case cases[] = {
        {Method::put, "/admin/v2/schemas/public/default/t/schema", "GET, POST, DELETE"},
        {Method::other, "/admin/v2/tenants/public", "GET, PUT, POST, DELETE"},
        {Method::post, "/admin/v2/namespaces/public/default", "GET, PUT, DELETE"},
        {Method::del, "/admin/v2/namespaces/public/default/schemaCompatibilityStrategy", "GET, PUT"},
        {Method::put, "/admin/v2/namespaces/public/default/maxProducersPerTopic", "GET, POST, DELETE"},
        {Method::get, "/admin/v2/persistent/public/default/t", "PUT, DELETE"},
        {Method::post, "/admin/v2/persistent/public/default/partitioned", "PUT, DELETE"},
        {Method::put, "/admin/v2/brokers/configuration/runtime", "DELETE"},
        {Method::get, "/admin/v2/brokers/configuration/k/v", "POST"},
        {Method::post, "/admin/v2/non-persistent/public/default/t/schemaCompatibilityStrategy", "GET, PUT, DELETE"},
        {Method::other, "/admin/v2/persistent/public/default/t/partitions", "GET, PUT, POST, DELETE"},
        {Method::post, "/lookup/v2/topic/persistent/public/default/t", "GET"},
    };
    for (const auto& c : cases) {
        INFO(to_string_view(c.method) << " " << c.path);
        auto res = rest::resolve(c.method, segmentsOf(c.path));
        REQUIRE(res.kind == Kind::methodNotAllowed);
        CHECK(res.allow == c.allow);
    }
    // The /cnxsim/ control is not there without a lifecycle: 404, not 405.
    CHECK(rest::resolve(Method::put, segmentsOf("/cnxsim/status"), rest::Serving{false}).kind == Kind::notFound);
    CHECK(rest::resolve(Method::put, segmentsOf("/cnxsim/status")).kind == Kind::methodNotAllowed);
}

TEST_CASE("admin route table: a topic name that does not parse is 412 before the method is looked at", "[admin][rest]") {
    // A tenant or namespace outside [A-Za-z0-9-_.=:] (TopicName::parse; the local name is not checked).
    for (const char* path : {"/admin/v2/schemas/bad%20t/default/t/schema", "/admin/v2/schemas/public/bad%20ns/t/x",
                             "/admin/v2/persistent/bad%20t/default/t", "/admin/v2/persistent/public/bad%20ns/t/a/b/c",
                             "/admin/v2/non-persistent/bad%20t/default/t/stats"}) {
        INFO(path);
        for (auto m : {Method::get, Method::put, Method::other}) {
            auto res = rest::resolve(m, segmentsOf(path));
            REQUIRE(res.kind == Kind::refused);
            CHECK(res.status == 412);
            CHECK(res.reason == "Topic name is not valid");
        }
    }
    // The lookup checks its method first, as TopicLookupBase does.
    CHECK(rest::resolve(Method::post, segmentsOf("/lookup/v2/topic/persistent/bad%20t/default/t")).kind ==
          Kind::methodNotAllowed);
    CHECK(rest::resolve(Method::get, segmentsOf("/lookup/v2/topic/persistent/bad%20t/default/t")).kind == Kind::refused);
    // A namespace's topic list is not under a topic.
    CHECK(rest::resolve(Method::get, segmentsOf("/admin/v2/persistent/bad%20t/default/partitioned")).kind == Kind::route);
}

TEST_CASE("admin route table: hostile segments answer as Pulsar 4.2.4 does, and long paths resolve in linear time", "[admin][rest]") {
    // Jetty 12 passes `.`, `..` and %2e on unresolved: each is a name like any other
    // (a real 4.2.4 broker creates a topic, tenant or namespace called `..`).
    for (const char* path : {"/admin/v2/tenants/..", "/admin/v2/persistent/public/default/%2e%2e/partitions",
                             "/admin/v2/schemas/public/default/./schema", "/admin/v2/namespaces/public/../schemaCompatibilityStrategy"}) {
        INFO(path);
        CHECK(rest::resolve(Method::get, segmentsOf(path)).kind == Kind::route);
    }
    // An encoded slash in a topic path: TopicName.get refuses it (412, whatever the method).
    for (const char* path : {"/admin/v2/schemas/public/default/a%2Fb/schema", "/admin/v2/persistent/public/default/a%2fb",
                             "/admin/v2/persistent/a%2Fb/default/t/partitions"}) {
        INFO(path);
        auto res = rest::resolve(Method::put, segmentsOf(path));
        REQUIRE(res.kind == Kind::refused);
        CHECK(res.status == 412);
        CHECK(res.reason == "Topic name is not valid");
    }
    // In a namespace path: validateNamespaceName refuses it before any lookup.
    auto ns = rest::resolve(Method::get, segmentsOf("/admin/v2/namespaces/public/a%2Fb/schemaCompatibilityStrategy"));
    REQUIRE(ns.kind == Kind::refused);
    CHECK(ns.status == 412);
    CHECK(ns.reason == "Namespace name is not valid");
    // A tenant read is a lookup of a name that does not exist (the model answers 404).
    CHECK(rest::resolve(Method::get, segmentsOf("/admin/v2/tenants/a%2Fb")).kind == Kind::route);
    // Empty segments are not segments (`//` as before the table); an empty one given is never a name.
    CHECK(rest::resolve(Method::get, segmentsOf("//admin//v2//tenants//")).route->call == rest::Call::getTenants);
    CHECK(rest::resolve(Method::get, {"admin", "v2", "tenants", ""}).kind == Kind::notFound);
    // A name with dots is a name.
    CHECK(rest::resolve(Method::get, segmentsOf("/admin/v2/tenants/a..b")).kind == Kind::route);
    // Very long: one segment of a megabyte, and a hundred thousand segments.
    auto big = rest::resolve(Method::get, {"admin", "v2", "tenants", std::string(1 << 20, 'a')});
    CHECK(big.kind == Kind::route);
    std::vector<std::string> many(100000, "a");
    CHECK(rest::resolve(Method::get, many).kind == Kind::notFound);
}

TEST_CASE("admin route table: built targets encode each segment and take only the route's flags", "[admin][rest]") {
    const auto* del = rest::routeOf(rest::Call::deleteTopic);
    REQUIRE(del);
    auto params = sampleParams();
    params["topic"] = "a b/c";
    CHECK(rest::buildTarget(*del, params, {{"force", "true"}, {"deleteSchema", "true"}}) ==
          "/admin/v2/persistent/public/default/a+b%2Fc?force=true&deleteSchema=true");
    CHECK_FALSE(rest::buildTarget(*del, params, {{"applied", "true"}}));
    params.erase("tenant");
    CHECK_FALSE(rest::buildTarget(*del, params));
    // What the builder encodes, the parser decodes to the same segment.
    auto back = segmentsOf(*rest::buildTarget(*del, sampleParams()));
    CHECK(back.back() == "t");
}

namespace {

struct Agreement {
    sim::Step step;
    std::optional<sim::AdminRequest> request;
};

// Sends `request` to serve's admin routes on a broker with topic `t` and its
// schema; returns the exchange as the session taps see it.
serve::AdminExchange exchange(const sim::AdminRequest& request) {
    testing::AdminFixture a;
    auto t = *TopicName::parse("persistent://public/default/t");
    SchemaData schema;
    schema.type = SchemaType::AVRO;
    schema.data = R"({"type":"record","name":"Order","fields":[{"name":"id","type":"long"}]})";
    a.api.createTopic(t);
    a.wait([&](AdminApi::Callback cb) { a.api.postSchema(t, schema, std::move(cb)); });
    serve::http::AdminRoutes routes(a.f.broker, a.api, nullptr, nullptr, nullptr);
    serve::http::Request req{boost::beast::http::string_to_verb(request.method), request.target, 11};
    if (request.body) req.body() = *request.body;
    req.prepare_payload();
    std::optional<serve::http::Response> res;
    routes.handle(req, [&res](serve::http::Response r, TracePtr) { res = std::move(r); });
    a.f.scheduler.runUntilIdle();
    REQUIRE(res);
    return serve::http::exchangeOf(req, *res, nullptr);
}

sim::Step stepOf(std::string action, sim::Action body) {
    sim::Step s;
    s.action = std::move(action);
    s.body = std::move(body);
    return s;
}

std::vector<Agreement> agreements() {
    using C = rest::Call;
    const std::string topic = "persistent://public/default/t";
    auto params = sim::topicParams(*TopicName::parse(topic));
    std::vector<Agreement> out;
    auto versioned = params;
    versioned["version"] = "0";
    out.push_back({stepOf("get-schema", sim::GetSchemaStep{topic, {}, "admin", {}}), sim::adminRequest(C::getSchema, params)});
    out.push_back({stepOf("get-schema", sim::GetSchemaStep{topic, 0, "admin", {}}),
                   sim::adminRequest(C::getSchemaAtVersion, versioned)});
    out.push_back({stepOf("delete-schema", sim::DeleteSchemaStep{topic, true}),
                   sim::adminRequest(C::deleteSchema, params, std::nullopt, {{"force", "true"}})});
    out.push_back({stepOf("delete-topic", sim::DeleteTopicStep{topic, true, true}),
                   sim::adminRequest(C::deleteTopic, params, std::nullopt, {{"force", "true"}, {"deleteSchema", "true"}})});
    out.push_back({stepOf("unload", sim::UnloadStep{topic}), sim::adminRequest(C::unloadTopic, params)});
    for (const auto* key : {"schema_compatibility_strategy", "schema_validation_enforced"}) {
        auto value = std::string(key) == "schema_validation_enforced" ? "true" : "FULL";
        sim::SetPolicyStep set;
        set.topic = topic;
        set.settings.push_back({key, std::string(value), {}});
        out.push_back({stepOf("set-policy", set),
                       sim::policyRequest(*rest::policyByKey(C::setTopicPolicy, key), true, params, std::string(value))});
    }
    for (const auto& r : rest::adminRoutes()) {
        if (r.call != C::setNamespacePolicy || !r.policy || r.policy->recorded == rest::Recorded::no) continue;
        std::string value = r.policy->body == rest::BodyKind::flag ? "true" : "FULL";
        sim::SetPolicyStep set;
        set.namespaceName = "public/default";
        set.settings.push_back({std::string(r.policy->scenarioKey), value, {}});
        out.push_back({stepOf("set-policy", set),
                       sim::policyRequest(*r.policy, false, sim::namespaceParams("public/default"), value)});
    }
    sim::SetBrokerConfigStep config;
    config.settings.push_back({"isAllowAutoUpdateSchema", std::string("false"), {}});
    out.push_back({stepOf("set-broker-config", config),
                   sim::adminRequest(C::setBrokerConfig, {{"key", "isAllowAutoUpdateSchema"}, {"value", "false"}})});
    return out;
}

}  // namespace

TEST_CASE("admin route table: the client's request, serve's dispatch and the recorder's step agree", "[admin][rest][record]") {
    for (const auto& a : agreements()) {
        REQUIRE(a.request);
        INFO(a.request->method << " " << a.request->target);
        // serve's adapter resolves the target the client built to a route of the client's call.
        auto res = rest::resolve(rest::methodFromName(a.request->method), segmentsOf(a.request->target));
        REQUIRE(res.kind == Kind::route);
        // The recorder makes the step back of serve's answer.
        record::SchemaAliases aliases;
        auto effect = record::adminEffect(exchange(*a.request), aliases);
        REQUIRE(effect.step);
        record::RecordedStep want;
        want.step = a.step;
        want.observed = effect.step->observed;
        CHECK(record::writeStep(*effect.step, sim::Scenario{}) == record::writeStep(want, sim::Scenario{}));
    }
}
