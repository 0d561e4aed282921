// The exact answers of the admin endpoints (doc/broker-behaviour.md §7.2, §7.4):
// status, JSON body and reason of each, and the runner's reading of them
// (sim/clients/admin_client.h), which takes nothing from the registry (issue 8 item 7).

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "broker_model/admin/admin_api.h"
#include "broker_model/compat/key_value/key_value_check.h"
#include "admin_test_support.h"
#include "model_test_support.h"
#include "sim/clients/admin_client.h"

using namespace cnx;
using cnx::testing::AdminFixture;
using cnx::testing::BrokerFixture;
using cnx::testing::kUserV1Avro;
using cnx::testing::schemaOf;
using Json = nlohmann::json;

namespace {

const char* kUserV2Avro =
    R"({"type":"record","name":"User","namespace":"cnx.test","fields":[{"name":"id","type":"long"},)"
    R"({"name":"email","type":["null","string"],"default":null}]})";

const BehaviourProfile& release(const char* v) {
    const auto* p = profileFor(v);
    REQUIRE(p);
    return *p;
}

struct Admin : AdminFixture {
    using AdminFixture::AdminFixture;
    TopicName topic = *TopicName::parse("persistent://public/default/admin-bodies");

    AdminResponse post(const SchemaData& s) {
        return wait([&](AdminApi::Callback cb) { api.postSchema(topic, s, std::move(cb)); });
    }
    AdminResponse get(std::optional<SchemaVersion> v = std::nullopt) {
        return wait([&](AdminApi::Callback cb) { api.getSchema(topic, v, std::move(cb)); });
    }
    AdminResponse getAll() {
        return wait([&](AdminApi::Callback cb) { api.getAllSchemas(topic, std::move(cb)); });
    }
    AdminResponse version(const SchemaData& s) {
        return wait([&](AdminApi::Callback cb) { api.getVersionBySchema(topic, s, std::move(cb)); });
    }
    AdminResponse compatibility(const SchemaData& s) {
        return wait([&](AdminApi::Callback cb) { api.testCompatibility(topic, s, std::move(cb)); });
    }
    AdminResponse remove(bool force) {
        return wait([&](AdminApi::Callback cb) { api.deleteSchema(topic, force, std::move(cb)); });
    }
};

Json schemaResponse(std::int64_t version, const char* type, const std::string& data, Json properties = Json::object()) {
    return Json{{"version", version}, {"type", type}, {"timestamp", 0}, {"data", data}, {"properties", properties}};
}

}  // namespace

TEST_CASE("admin bodies: POST schema answers {\"version\": {\"version\": n}}, 200 from 2.11, 202 before", "[admin][bodies]") {
    Admin now;
    auto r = now.post(schemaOf(SchemaType::AVRO, kUserV1Avro));
    CHECK(r.status == 200);
    CHECK(r.body == Json{{"version", {{"version", 0}}}});
    CHECK(r.reason.empty());

    Admin old(release("2.10"));
    auto o = old.post(schemaOf(SchemaType::AVRO, kUserV1Avro));
    CHECK(o.status == 202);
    CHECK(o.body == Json{{"version", {{"version", 0}}}});
}

TEST_CASE("admin bodies: GET schema is a GetSchemaResponse with every field", "[admin][bodies]") {
    Admin a;
    REQUIRE(a.post(schemaOf(SchemaType::AVRO, kUserV1Avro, {{"owner", "team-a"}})).ok());
    REQUIRE(a.post(schemaOf(SchemaType::AVRO, kUserV2Avro)).ok());
    auto latest = a.get();
    CHECK(latest.status == 200);
    CHECK(latest.body == schemaResponse(1, "AVRO", kUserV2Avro));
    auto first = a.get(0);
    CHECK(first.status == 200);
    CHECK(first.body == schemaResponse(0, "AVRO", kUserV1Avro, {{"owner", "team-a"}}));
    // `data` is the definition as text, not base64; a primitive's is "".
    Admin p;
    REQUIRE(p.post(schemaOf(SchemaType::STRING)).ok());
    CHECK(p.get().body == schemaResponse(0, "STRING", ""));
}

TEST_CASE("admin bodies: GET schema renders KEY_VALUE data as {key, value}, components in their own key order",
          "[admin][bodies][key-value]") {
    Admin a;
    auto kv = compat::encodeKeyValue(schemaOf(SchemaType::AVRO, kUserV1Avro), schemaOf(SchemaType::STRING), "SEPARATED");
    REQUIRE(a.post(kv).ok());
    auto r = a.get();
    REQUIRE(r.status == 200);
    // Gson writes the component back compactly, fields in the order they were written;
    // the primitive value is "".
    std::string data = std::string(R"({"key":)") + kUserV1Avro + R"(,"value":""})";
    Json props;
    for (const auto& [k, v] : kv.properties) props[k] = v;
    CHECK(r.body == schemaResponse(0, "KEY_VALUE", data, props));
    CHECK(r.body["properties"]["kv.encoding.type"] == "SEPARATED");
    CHECK(r.body["properties"]["key.schema.type"] == "AVRO");
    CHECK(r.body["properties"]["value.schema.type"] == "STRING");

    // The runner reads it back into the stored binary layout, as the Java admin client does.
    std::string error;
    auto back = sim::schemaFromGetSchemaResponse(r.body, &error);
    INFO(error);
    REQUIRE(back);
    CHECK(back->first == 0);
    CHECK(back->second.type == SchemaType::KEY_VALUE);
    CHECK(back->second.data == kv.data);
    CHECK(back->second.properties == kv.properties);
}

TEST_CASE("admin bodies: GET schemas lists the live versions oldest first, empty is 200, not 404", "[admin][bodies]") {
    Admin a;
    auto empty = a.getAll();
    CHECK(empty.status == 200);
    CHECK(empty.body == Json{{"getSchemaResponses", Json::array()}});
    REQUIRE(a.post(schemaOf(SchemaType::AVRO, kUserV1Avro)).ok());
    REQUIRE(a.post(schemaOf(SchemaType::AVRO, kUserV2Avro)).ok());
    auto all = a.getAll();
    CHECK(all.status == 200);
    CHECK(all.body == Json{{"getSchemaResponses",
                            Json::array({schemaResponse(0, "AVRO", kUserV1Avro), schemaResponse(1, "AVRO", kUserV2Avro)})}});
    REQUIRE(a.remove(false).ok());
    CHECK(a.getAll().body == Json{{"getSchemaResponses", Json::array()}});

    Admin old(release("2.4.0"));  // #4800 added the endpoint in 2.4.2 / 2.5.0
    CHECK(old.getAll().status == 404);
}

TEST_CASE("admin bodies: POST version answers {\"version\": n} or -1, 200 from 2.11, 202 before", "[admin][bodies]") {
    Admin a;
    REQUIRE(a.post(schemaOf(SchemaType::AVRO, kUserV1Avro)).ok());
    auto hit = a.version(schemaOf(SchemaType::AVRO, kUserV1Avro));
    CHECK(hit.status == 200);
    CHECK(hit.body == Json{{"version", 0}});
    CHECK(a.version(schemaOf(SchemaType::AVRO, kUserV2Avro)).body == Json{{"version", -1}});

    Admin old(release("2.10"));
    REQUIRE(old.post(schemaOf(SchemaType::AVRO, kUserV1Avro)).ok());
    auto o = old.version(schemaOf(SchemaType::AVRO, kUserV1Avro));
    CHECK(o.status == 202);
    CHECK(o.body == Json{{"version", 0}});
}

TEST_CASE("admin bodies: POST compatibility answers 202 with both fields, or a 500 with the reason", "[admin][bodies]") {
    Admin a;
    REQUIRE(a.f.broker.policies().namespaceFor("public/default").set("schema_compatibility_strategy", "FULL") == std::nullopt);
    REQUIRE(a.post(schemaOf(SchemaType::AVRO, kUserV1Avro)).ok());
    auto yes = a.compatibility(schemaOf(SchemaType::AVRO, kUserV2Avro));
    CHECK(yes.status == 202);
    CHECK(yes.body == Json{{"compatibility", true}, {"schemaCompatibilityStrategy", "FULL"}});
    auto no = a.compatibility(schemaOf(SchemaType::STRING));
    CHECK(no.status == 500);
    REQUIRE(no.body.is_object());
    CHECK(no.body.size() == 1);
    CHECK(no.body["reason"] == no.reason);
    CHECK(no.reason.find("Incompatible schema") != std::string::npos);
}

TEST_CASE("admin bodies: DELETE schema answers the marker's version, or -1 when forced", "[admin][bodies]") {
    Admin a;
    REQUIRE(a.post(schemaOf(SchemaType::AVRO, kUserV1Avro)).ok());
    auto soft = a.remove(false);
    CHECK(soft.status == 200);
    CHECK(soft.body == Json{{"version", 1}});
    REQUIRE(a.post(schemaOf(SchemaType::AVRO, kUserV1Avro)).ok());
    auto hard = a.remove(true);
    CHECK(hard.status == 200);
    CHECK(hard.body == Json{{"version", -1}});
}

TEST_CASE("admin bodies: error answers carry {\"reason\"} or only the reason phrase, per §7.2", "[admin][bodies][errors]") {
    SECTION("GET of a missing schema: 404 `Schema not found` from 2.10, a bare 404 before") {
        Admin a;
        auto r = a.get();
        CHECK(r.status == 404);
        CHECK(r.body == Json{{"reason", "Schema not found"}});
        CHECK(r.reason == "Schema not found");
        Admin old(release("2.9"));
        auto o = old.get();
        CHECK(o.status == 404);
        CHECK(o.body.is_null());
        CHECK(o.reason.empty());
    }
    SECTION("POST schema's 409 and 422 are bare: the text is in the reason phrase only (Jetty 9)") {
        Admin a(release("4.1"));
        REQUIRE(a.f.broker.policies().namespaceFor("public/default").set("schema_compatibility_strategy", "FULL") == std::nullopt);
        REQUIRE(a.post(schemaOf(SchemaType::AVRO, kUserV1Avro)).ok());
        auto incompatible = a.post(schemaOf(SchemaType::STRING));
        CHECK(incompatible.status == 409);
        CHECK(incompatible.body.is_null());
        CHECK(incompatible.reason.find("Incompatible schema") != std::string::npos);
        auto invalid = a.post(schemaOf(SchemaType::AVRO, "not a schema"));
        CHECK(invalid.status == 422);
        CHECK(invalid.body.is_null());
        CHECK_FALSE(invalid.reason.empty());
    }
    SECTION("Jetty 12 (#25100, 4.2.0): a bare 409 / 422 reads as the status's own phrase, as a real 4.2.4 broker answers") {
        Admin a(release("4.2"));
        REQUIRE(a.f.broker.policies().namespaceFor("public/default").set("schema_compatibility_strategy", "FULL") == std::nullopt);
        REQUIRE(a.post(schemaOf(SchemaType::AVRO, kUserV1Avro)).ok());
        auto incompatible = a.post(schemaOf(SchemaType::STRING));
        CHECK(incompatible.status == 409);
        CHECK(incompatible.body.is_null());
        CHECK(incompatible.reason == "Conflict");
        auto invalid = a.post(schemaOf(SchemaType::AVRO, "not a schema"));
        CHECK(invalid.status == 422);
        CHECK(invalid.reason == "Unprocessable Entity");
    }
    SECTION("policy and configuration endpoints: 204 without a body; 400 / 412 with {\"reason\"}") {
        Admin a;
        auto set = a.api.setNamespacePolicy("public/default", "schema_compatibility_strategy", "BACKWARD");
        CHECK(set.status == 204);
        CHECK(set.body.is_null());
        auto bad = a.api.setNamespacePolicy("public/default", "schema_compatibility_strategy", "SOMETIMES");
        CHECK(bad.status == 400);
        CHECK(bad.body == Json{{"reason", bad.reason}});
        auto fixed = a.api.updateDynamicConfig("topicLevelPoliciesEnabled", "false");
        CHECK(fixed.status == 412);
        CHECK(fixed.body == Json{{"reason", "Can't update non-dynamic configuration"}});
    }
}

// ---- the runner's reading of the answers ---------------------------------------------------

TEST_CASE("admin client: a get-schema observation is the body's, and a body of the wrong shape is refused",
          "[admin][client]") {
    Admin a;
    REQUIRE(a.post(schemaOf(SchemaType::AVRO, kUserV1Avro, {{"owner", "team-a"}})).ok());
    auto r = a.get();
    auto o = sim::observeAdmin(sim::AdminCall::getSchema, r);
    REQUIRE(o.ok);
    CHECK(o.httpStatus == 200);
    CHECK(o.schemaVersion == 0);
    REQUIRE(o.schema);
    CHECK(o.schema->type == SchemaType::AVRO);
    CHECK(o.schema->data == kUserV1Avro);
    CHECK(o.schema->properties == SchemaProperties{{"owner", "team-a"}});

    // What the endpoint says is what is observed, whatever the registry holds.
    r.body = Json{{"type", "BOGUS"}, {"data", "garbage"}};
    auto bogus = sim::observeAdmin(sim::AdminCall::getSchema, r);
    CHECK_FALSE(bogus.ok);
    CHECK(bogus.error == "BadResponse");
    r.body = schemaResponse(7, "JSON", "{}");
    auto other = sim::observeAdmin(sim::AdminCall::getSchema, r);
    REQUIRE(other.schema);
    CHECK(other.schemaVersion == 7);
    CHECK(other.schema->type == SchemaType::JSON);
    CHECK(other.schema->data == "{}");
}

TEST_CASE("admin client: versions, compatibility and errors are read from the bodies", "[admin][client]") {
    Admin a;
    auto posted = sim::observeAdmin(sim::AdminCall::uploadSchema, a.post(schemaOf(SchemaType::AVRO, kUserV1Avro)));
    CHECK(posted.ok);
    CHECK(posted.schemaVersion == 0);
    auto v = sim::observeAdmin(sim::AdminCall::getSchemaVersion, a.version(schemaOf(SchemaType::AVRO, kUserV2Avro)));
    CHECK(v.schemaVersion == -1);
    auto c = sim::observeAdmin(sim::AdminCall::testCompatibility, a.compatibility(schemaOf(SchemaType::AVRO, kUserV2Avro)));
    CHECK(c.ok);
    CHECK(c.compatible == true);
    REQUIRE(c.strategy);
    auto d = sim::observeAdmin(sim::AdminCall::deleteSchema, a.remove(false));
    CHECK(d.schemaVersion == 1);
    auto missing = sim::observeAdmin(sim::AdminCall::getSchema, a.get());
    CHECK_FALSE(missing.ok);
    CHECK(missing.error == "404");
    CHECK(missing.httpStatus == 404);
    CHECK(missing.message == "Schema not found");

    // A bare error: the message comes from the reason phrase.
    AdminResponse bare;
    bare.status = 409;
    bare.reason = "Incompatible schema: …";
    auto b = sim::observeAdmin(sim::AdminCall::uploadSchema, bare);
    CHECK(b.error == "409");
    CHECK(b.message == "Incompatible schema: …");

    // A 2xx answer without the documented field is not a version.
    AdminResponse empty;
    empty.status = 200;
    empty.body = Json::object();
    for (auto call : {sim::AdminCall::uploadSchema, sim::AdminCall::getSchemaVersion, sim::AdminCall::deleteSchema,
                      sim::AdminCall::testCompatibility, sim::AdminCall::getSchema}) {
        auto o = sim::observeAdmin(call, empty);
        CHECK_FALSE(o.ok);
        CHECK(o.error == "BadResponse");
    }
}

TEST_CASE("admin client: a body is observed as its JSON text parsed again, whatever its strings and numbers",
          "[admin][client]") {
    // observeAdmin reads a body whose text would give it back unchanged as it
    // is, and dumps and parses the others; both must observe what a client
    // reading the text observes.
    auto viaText = [](const Json& body) {
        return Json::parse(body.dump(-1, ' ', false, Json::error_handler_t::replace), nullptr, false);
    };
    auto same = [](const sim::Observed& a, const sim::Observed& b) {
        CHECK(a.ok == b.ok);
        CHECK(a.error == b.error);
        CHECK(a.message == b.message);
        CHECK(a.httpStatus == b.httpStatus);
        CHECK(a.schemaVersion == b.schemaVersion);
        CHECK(a.schema == b.schema);
        CHECK(a.compatible == b.compatible);
        CHECK(a.strategy == b.strategy);
    };
    const std::string notText[] = {
        "\xff",              // never a UTF-8 byte
        "\xc0\xaf",          // overlong '/'
        "\xe0\x80\xaf",      // overlong, three bytes
        "\xed\xa0\x80",      // a surrogate
        "\xf4\x90\x80\x80",  // past U+10FFFF
        "\xe2\x82",          // cut short
        "ok \xc3",           // cut short at the end
    };
    const std::string text[] = {"", "plain", "\xc3\xa9t\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xef\xbf\xbd",
                                std::string("nul \0 inside", 12), "\x7f\x01"};
    std::vector<std::pair<sim::AdminCall, Json>> bodies;
    for (const auto& s : text) {
        bodies.emplace_back(sim::AdminCall::getSchema, schemaResponse(3, "BYTES", s, Json{{"k", s}}));
        bodies.emplace_back(sim::AdminCall::getSchema, schemaResponse(3, "STRING", "x", Json{{s, "v"}}));
    }
    for (const auto& s : notText) {
        bodies.emplace_back(sim::AdminCall::getSchema, schemaResponse(3, "BYTES", s));
        bodies.emplace_back(sim::AdminCall::getSchema, schemaResponse(3, "STRING", "x", Json{{"k", s}}));
        bodies.emplace_back(sim::AdminCall::getSchema, schemaResponse(3, "STRING", "x", Json{{s, "v"}}));
        bodies.emplace_back(sim::AdminCall::testCompatibility,
                            Json{{"compatibility", true}, {"schemaCompatibilityStrategy", s}});
    }
    for (const Json& v : {Json(1.0), Json(-0.0), Json(2.5), Json(std::numeric_limits<double>::quiet_NaN()),
                          Json(std::numeric_limits<double>::infinity()), Json(std::uint64_t{7}), Json(-1),
                          Json(std::uint64_t{1} << 63), Json::array({1}), Json(nullptr)}) {
        bodies.emplace_back(sim::AdminCall::getSchemaVersion, Json{{"version", v}});
        bodies.emplace_back(sim::AdminCall::uploadSchema, Json{{"version", Json{{"version", v}}}});
        bodies.emplace_back(sim::AdminCall::getSchema,
                            Json{{"version", v}, {"type", "STRING"}, {"timestamp", 0}, {"data", ""}});
    }
    bodies.emplace_back(sim::AdminCall::getSchema, Json::binary({1, 2, 3}));
    bodies.emplace_back(sim::AdminCall::deleteSchema, Json{{"version", Json::binary({1})}});
    for (const auto& [call, body] : bodies) {
        CAPTURE(body.dump(-1, ' ', true, Json::error_handler_t::replace));
        for (int status : {200, 404}) {
            AdminResponse direct;
            direct.status = status;
            direct.body = body;
            AdminResponse reparsed = direct;
            reparsed.body = viaText(body);
            REQUIRE_FALSE(reparsed.body.is_discarded());
            same(sim::observeAdmin(call, direct), sim::observeAdmin(call, reparsed));
        }
    }
    // The replaced bytes are what a client reads: U+FFFD, not the raw byte.
    auto bad = sim::observeAdmin(sim::AdminCall::getSchema, [&] {
        AdminResponse r;
        r.body = schemaResponse(0, "BYTES", "a\xff" "b");
        return r;
    }());
    REQUIRE(bad.schema);
    CHECK(bad.schema->data == "a\xef\xbf\xbd" "b");
}
