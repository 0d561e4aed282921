// Schema registry (reference §4): version numbering, soft and hard delete,
// the live list, de-duplication, the compatibility primitives, the consumer
// check routing, the auto-update-disabled lookup, definition validation and
// the §4.11 concurrent-registration race. Every operation is asynchronous:
// the tests post it and run the scheduler until idle.

#include <catch2/catch.hpp>

#include <optional>
#include <set>

#include "broker_model/compat/compatibility_check.h"
#include "broker_model/registry/schema_registry.h"
#include "model_test_support.h"

namespace {

using cnx::BrokerError;
using cnx::CompatibilityStrategy;
using cnx::Result;
using cnx::SchemaData;
using cnx::SchemaType;
using cnx::SchemaVersion;
using cnx::testing::schemaOf;
namespace exc = cnx::compat::exception_class;

constexpr const char* kId = "public/default/orders";

/// A registry on its own scheduler and its own (editable) copy of a profile.
struct RegistryFixture {
    explicit RegistryFixture(const cnx::BehaviourProfile& p = cnx::newestProfile()) : profile(p), registry(profile, scheduler) {}

    Result<SchemaVersion> put(const SchemaData& s, CompatibilityStrategy strategy = CompatibilityStrategy::FULL) {
        std::optional<Result<SchemaVersion>> out;
        registry.putSchemaIfAbsent(kId, s, strategy, std::make_shared<cnx::Trace>(),
                                   [&](Result<SchemaVersion> r) { out.emplace(std::move(r)); });
        scheduler.runUntilIdle();
        REQUIRE(out.has_value());
        return *out;
    }

    SchemaVersion putOk(const SchemaData& s, CompatibilityStrategy strategy = CompatibilityStrategy::FULL) {
        auto r = put(s, strategy);
        INFO((r.ok() ? std::string("ok") : r.error().message));
        REQUIRE(r.ok());
        return r.value();
    }

    Result<SchemaVersion> lookup(const SchemaData& s) {
        std::optional<Result<SchemaVersion>> out;
        registry.findExistingVersion(kId, s, std::make_shared<cnx::Trace>(),
                                     [&](Result<SchemaVersion> r) { out.emplace(std::move(r)); });
        scheduler.runUntilIdle();
        REQUIRE(out.has_value());
        return *out;
    }

    std::optional<BrokerError> consumerCheck(const SchemaData& s, CompatibilityStrategy strategy) {
        bool called = false;
        std::optional<BrokerError> out;
        registry.checkConsumerCompatibility(kId, s, strategy, std::make_shared<cnx::Trace>(),
                                            [&](std::optional<BrokerError> e) {
                                                called = true;
                                                out = std::move(e);
                                            });
        scheduler.runUntilIdle();
        REQUIRE(called);
        return out;
    }

    std::optional<BrokerError> withLatest(const SchemaData& s, CompatibilityStrategy strategy) {
        cnx::Trace t;
        return registry.checkWithLatest(kId, s, strategy, t);
    }
    std::optional<BrokerError> withAll(const SchemaData& s, CompatibilityStrategy strategy) {
        cnx::Trace t;
        return registry.checkWithAll(kId, s, strategy, t);
    }

    std::vector<SchemaVersion> liveVersions() const {
        std::vector<SchemaVersion> out;
        for (const auto& e : registry.liveList(kId)) out.push_back(e.version);
        return out;
    }

    cnx::BehaviourProfile profile;
    cnx::sim::SimScheduler scheduler;
    cnx::SchemaRegistry registry;
};

const SchemaData kString = schemaOf(SchemaType::STRING);
const SchemaData kInt32 = schemaOf(SchemaType::INT32);
const SchemaData kInt64 = schemaOf(SchemaType::INT64);

}  // namespace

TEST_CASE("§4.1 versions start at 0 and every append takes previous+1", "[registry][ref-4.1]") {
    RegistryFixture f;
    CHECK(f.registry.history(kId).empty());
    CHECK_FALSE(f.registry.latest(kId).has_value());
    CHECK(f.putOk(kString) == 0);
    CHECK(f.putOk(kInt32, CompatibilityStrategy::ALWAYS_COMPATIBLE) == 1);
    CHECK(f.putOk(kInt64, CompatibilityStrategy::ALWAYS_COMPATIBLE) == 2);
    REQUIRE(f.registry.latest(kId).has_value());
    CHECK(f.registry.latest(kId)->version == 2);
    CHECK(f.registry.latest(kId)->schema.type == SchemaType::INT64);
    // Other ids keep their own numbering.
    std::optional<Result<SchemaVersion>> other;
    f.registry.putSchemaIfAbsent("public/default/other", kString, CompatibilityStrategy::FULL,
                                 std::make_shared<cnx::Trace>(), [&](Result<SchemaVersion> r) { other.emplace(r); });
    f.scheduler.runUntilIdle();
    REQUIRE(other.has_value());
    REQUIRE(other->ok());
    CHECK(other->value() == 0);
}

TEST_CASE("§4.2/§4.9 a soft-delete marker consumes a version and empties the live list", "[registry][ref-4.2][ref-4.9]") {
    RegistryFixture f;
    REQUIRE(f.putOk(kString) == 0);
    REQUIRE(f.putOk(kInt32, CompatibilityStrategy::ALWAYS_COMPATIBLE) == 1);

    SECTION("the marker gets the next version; latest() and the live list say 'no schema'") {
        CHECK(f.registry.deleteSchema(kId, false) == 2);
        const auto& all = f.registry.history(kId);
        REQUIRE(all.size() == 3);
        CHECK(all.back().deleted);
        CHECK(all.back().version == 2);
        CHECK(all.back().schema.type == SchemaType::NONE);
        CHECK(all.back().schema.data.empty());
        CHECK_FALSE(f.registry.latest(kId).has_value());  // §3.2 hasSchema=false
        CHECK(f.registry.liveList(kId).empty());
    }
    SECTION("the next schema is appended after the marker without any check (version = marker + 1)") {
        f.registry.deleteSchema(kId, false);
        // INT64 vs the deleted INT32 would be a type mismatch under FULL; the live list is empty, so no check.
        CHECK(f.putOk(kInt64, CompatibilityStrategy::FULL) == 3);
        CHECK(f.liveVersions() == std::vector<SchemaVersion>{3});
        CHECK(f.putOk(schemaOf(SchemaType::INT64, "", {{"k", "v"}})) == 3);  // dedup sees only the live list
    }
    SECTION("an old schema from before the marker is not matched: it is compared, not de-duplicated") {
        f.registry.deleteSchema(kId, false);
        REQUIRE(f.putOk(kInt64) == 3);
        auto r = f.put(kString, CompatibilityStrategy::FULL);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().message == "Incompatible schema: exists schema type INT64, new schema type STRING");
        CHECK(f.putOk(kString, CompatibilityStrategy::ALWAYS_COMPATIBLE) == 4);  // a new version, not the old 0
    }
    SECTION("soft delete of an id without history creates a marker at version 0 (derived §4.9)") {
        CHECK(f.registry.deleteSchema("public/default/fresh", false) == 0);
        std::optional<Result<SchemaVersion>> r;
        f.registry.putSchemaIfAbsent("public/default/fresh", kString, CompatibilityStrategy::FULL,
                                     std::make_shared<cnx::Trace>(), [&](Result<SchemaVersion> v) { r.emplace(v); });
        f.scheduler.runUntilIdle();
        REQUIRE(r.has_value());
        REQUIRE(r->ok());
        CHECK(r->value() == 1);
    }
    SECTION("two markers in a row: the live list stays empty and versions keep counting") {
        CHECK(f.registry.deleteSchema(kId, false) == 2);
        CHECK(f.registry.deleteSchema(kId, false) == 3);
        CHECK(f.registry.liveList(kId).empty());
        CHECK(f.putOk(kString) == 4);
    }
}

TEST_CASE("§4.2 live list = entries after the last marker, oldest first", "[registry][ref-4.2]") {
    RegistryFixture f;
    f.putOk(kString);                                          // 0
    f.registry.deleteSchema(kId, false);                       // 1 (marker)
    f.putOk(kInt32);                                           // 2
    f.putOk(kInt64, CompatibilityStrategy::ALWAYS_COMPATIBLE);  // 3
    CHECK(f.liveVersions() == std::vector<SchemaVersion>{2, 3});
    f.registry.deleteSchema(kId, false);                       // 4
    f.putOk(kString);                                          // 5
    CHECK(f.liveVersions() == std::vector<SchemaVersion>{5});
    CHECK(f.registry.history(kId).size() == 6);
}

TEST_CASE("§4.9 hard (force) delete removes the history and numbering restarts at 0", "[registry][ref-4.9]") {
    RegistryFixture f;
    f.putOk(kString);
    f.putOk(kInt32, CompatibilityStrategy::ALWAYS_COMPATIBLE);
    f.registry.deleteSchema(kId, false);
    CHECK(f.registry.deleteSchema(kId, true) == cnx::kNoVersion);
    CHECK(f.registry.history(kId).empty());
    CHECK_FALSE(f.registry.latest(kId).has_value());
    // INT64 after a FULL STRING/INT32 history: no check, the id behaves as new.
    CHECK(f.putOk(kInt64, CompatibilityStrategy::FULL) == 0);
}

TEST_CASE("§4.3/§4.5 de-duplication searches the live list oldest first and may return an older version",
          "[registry][ref-4.3][ref-4.5]") {
    RegistryFixture f;
    REQUIRE(f.putOk(kString) == 0);
    REQUIRE(f.putOk(kInt32, CompatibilityStrategy::ALWAYS_COMPATIBLE) == 1);

    SECTION("re-registering the older STRING returns version 0 and appends nothing") {
        CHECK(f.putOk(kString, CompatibilityStrategy::FULL) == 0);
        CHECK(f.registry.history(kId).size() == 2);
    }
    SECTION("no compatibility check on a match: even ALWAYS_INCOMPATIBLE accepts a re-registration") {
        CHECK(f.putOk(kString, CompatibilityStrategy::ALWAYS_INCOMPATIBLE) == 0);
        CHECK(f.putOk(kInt32, CompatibilityStrategy::ALWAYS_INCOMPATIBLE) == 1);
        CHECK(f.registry.history(kId).size() == 2);
    }
}

TEST_CASE("§4.5 (2.8+) de-duplication is typed: STRING and INT32 with the same empty data differ",
          "[registry][ref-4.5]") {
    RegistryFixture f;
    REQUIRE(f.putOk(kString) == 0);
    SECTION("ALWAYS_COMPATIBLE: INT32 is appended as a new version, not matched to STRING v0") {
        CHECK(f.putOk(kInt32, CompatibilityStrategy::ALWAYS_COMPATIBLE) == 1);
        CHECK(f.registry.history(kId).size() == 2);
        CHECK(f.registry.latest(kId)->schema.type == SchemaType::INT32);
    }
    SECTION("FULL: INT32 is compared with STRING and refused with the type-mismatch text") {
        auto r = f.put(kInt32, CompatibilityStrategy::FULL);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().code() == pulsar::proto::IncompatibleSchema);
        CHECK(r.error().exceptionClass() == exc::kIncompatibleSchema);
        CHECK(r.error().message == "Incompatible schema: exists schema type STRING, new schema type INT32");
        CHECK(f.registry.history(kId).size() == 1);
    }
}

TEST_CASE("§4.5 schema properties are not part of equality", "[registry][ref-4.5]") {
    RegistryFixture f;
    REQUIRE(f.putOk(schemaOf(SchemaType::STRING, "", {{"owner", "billing"}})) == 0);
    CHECK(f.putOk(schemaOf(SchemaType::STRING, "", {{"owner", "shipping"}})) == 0);
    CHECK(f.putOk(schemaOf(SchemaType::STRING)) == 0);
    REQUIRE(f.registry.history(kId).size() == 1);
    // The stored entry keeps the properties of the first registration.
    CHECK(f.registry.history(kId)[0].schema.properties == cnx::SchemaProperties{{"owner", "billing"}});
    // The same holds for the auto-update-disabled lookup (§4.8).
    auto r = f.lookup(schemaOf(SchemaType::STRING, "", {{"x", "y"}}));
    REQUIRE(r.ok());
    CHECK(r.value() == 0);
}

TEST_CASE("§4.1 get-by-version answers only versions in the live list (2.6.0+)", "[registry][ref-4.1][ref-4.2]") {
    RegistryFixture f;
    f.putOk(kString);                     // 0
    f.registry.deleteSchema(kId, false);  // 1
    f.putOk(kInt32);                      // 2
    CHECK_FALSE(f.registry.byVersion(kId, 0).has_value());  // before the marker
    CHECK_FALSE(f.registry.byVersion(kId, 1).has_value());  // the marker itself
    CHECK_FALSE(f.registry.byVersion(kId, 3).has_value());  // beyond the latest
    CHECK_FALSE(f.registry.byVersion(kId, -1).has_value());
    REQUIRE(f.registry.byVersion(kId, 2).has_value());
    CHECK(f.registry.byVersion(kId, 2)->schema.type == SchemaType::INT32);
    CHECK_FALSE(f.registry.byVersion("public/default/unknown", 0).has_value());
}

TEST_CASE("§4.6 checkWithLatest / checkWithAll: type mismatch messages (2.7.2/2.8.0+)", "[registry][ref-4.6][ref-6.8]") {
    RegistryFixture f;
    REQUIRE(f.putOk(kString) == 0);
    REQUIRE(f.putOk(kInt32, CompatibilityStrategy::ALWAYS_COMPATIBLE) == 1);

    SECTION("latest path compares with the latest entry only") {
        auto e = f.withLatest(kInt64, CompatibilityStrategy::FULL);
        REQUIRE(e.has_value());
        CHECK(e->code() == pulsar::proto::IncompatibleSchema);
        CHECK(e->exceptionClass() == exc::kIncompatibleSchema);
        CHECK(e->message == "Incompatible schema: exists schema type INT32, new schema type INT64");
        CHECK_FALSE(f.withLatest(kInt32, CompatibilityStrategy::FULL).has_value());
    }
    SECTION("all path names the first offender, oldest first") {
        auto e = f.withAll(kInt64, CompatibilityStrategy::FULL_TRANSITIVE);
        REQUIRE(e.has_value());
        CHECK(e->message == "Incompatible schema: exists schema type STRING, new schema type INT64");
        auto e2 = f.withAll(kInt32, CompatibilityStrategy::BACKWARD_TRANSITIVE);
        REQUIRE(e2.has_value());  // STRING v0 differs from INT32 even though the latest matches
        CHECK(e2->message == "Incompatible schema: exists schema type STRING, new schema type INT32");
    }
    SECTION("producer path: a transitive strategy routes to checkWithAll") {
        auto r = f.put(kInt64, CompatibilityStrategy::FORWARD_TRANSITIVE);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().message == "Incompatible schema: exists schema type STRING, new schema type INT64");
        auto r2 = f.put(kInt64, CompatibilityStrategy::FORWARD);
        REQUIRE_FALSE(r2.ok());
        CHECK(r2.error().message == "Incompatible schema: exists schema type INT32, new schema type INT64");
    }
}

TEST_CASE("§4.6 ALWAYS_COMPATIBLE short-circuits both paths before the type check", "[registry][ref-4.6]") {
    RegistryFixture f;
    REQUIRE(f.putOk(kString) == 0);
    CHECK_FALSE(f.withLatest(kInt64, CompatibilityStrategy::ALWAYS_COMPATIBLE).has_value());
    CHECK_FALSE(f.withAll(kInt64, CompatibilityStrategy::ALWAYS_COMPATIBLE).has_value());
    CHECK(f.putOk(kInt64, CompatibilityStrategy::ALWAYS_COMPATIBLE) == 1);
}

TEST_CASE("§4.6/§6.2 ALWAYS_INCOMPATIBLE through the DEFAULT checker for primitive types", "[registry][ref-4.6][ref-6.2]") {
    RegistryFixture f;
    REQUIRE(f.putOk(kString) == 0);
    const auto stringNull = schemaOf(SchemaType::STRING, "null");  // a valid STRING definition with other bytes

    SECTION("latest path: a different definition of the same type reaches the checker and fails") {
        auto e = f.withLatest(stringNull, CompatibilityStrategy::ALWAYS_INCOMPATIBLE);
        REQUIRE(e.has_value());
        CHECK(e->code() == pulsar::proto::IncompatibleSchema);
        CHECK(e->message == "Schema compatibility strategy is ALWAYS_INCOMPATIBLE");
        auto r = f.put(stringNull, CompatibilityStrategy::ALWAYS_INCOMPATIBLE);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().message == "Schema compatibility strategy is ALWAYS_INCOMPATIBLE");
        CHECK(f.registry.history(kId).size() == 1);
    }
    SECTION("an identical schema passes the latest path (hash shortcut) but fails the all path") {
        CHECK_FALSE(f.withLatest(kString, CompatibilityStrategy::ALWAYS_INCOMPATIBLE).has_value());
        auto e = f.withAll(kString, CompatibilityStrategy::ALWAYS_INCOMPATIBLE);
        REQUIRE(e.has_value());
        CHECK(e->message == "Schema compatibility strategy is ALWAYS_INCOMPATIBLE");
    }
    SECTION("other strategies: the DEFAULT checker accepts") {
        CHECK_FALSE(f.withLatest(stringNull, CompatibilityStrategy::FULL).has_value());
        CHECK_FALSE(f.withAll(stringNull, CompatibilityStrategy::FULL_TRANSITIVE).has_value());
        CHECK(f.putOk(stringNull, CompatibilityStrategy::BACKWARD) == 1);
    }
}

TEST_CASE("§4.6 checkWithLatest without a live schema passes (#22720, 3.0.6/3.2.4/4.0.0+)", "[registry][ref-4.6]") {
    RegistryFixture f;
    CHECK_FALSE(f.withLatest(kString, CompatibilityStrategy::FULL).has_value());
    f.putOk(kInt32);
    f.registry.deleteSchema(kId, false);
    CHECK_FALSE(f.withLatest(kString, CompatibilityStrategy::FULL).has_value());
    CHECK_FALSE(f.withAll(kString, CompatibilityStrategy::FULL_TRANSITIVE).has_value());  // empty list: DEFAULT passes
}

TEST_CASE("§4.7 checkConsumerCompatibility routing", "[registry][ref-4.7]") {
    RegistryFixture f;

    SECTION("ALWAYS_COMPATIBLE passes even without a schema (#12721)") {
        CHECK_FALSE(f.consumerCheck(kString, CompatibilityStrategy::ALWAYS_COMPATIBLE).has_value());
    }
    SECTION("no live schema: 'Topic does not have schema to check' as NotExistSchemaException (NEWEST)") {
        auto e = f.consumerCheck(kString, CompatibilityStrategy::FULL);
        REQUIRE(e.has_value());
        CHECK(e->code() == pulsar::proto::IncompatibleSchema);
        CHECK(e->message == "Topic does not have schema to check");
        CHECK(e->kind == cnx::RefusalKind::schemaNotFound);
        CHECK(e->exceptionClass() == "org.apache.pulsar.broker.service.schema.exceptions.NotExistSchemaException");
        // Same after a soft delete: the latest entry is a marker.
        f.putOk(kString);
        f.registry.deleteSchema(kId, false);
        auto e2 = f.consumerCheck(kString, CompatibilityStrategy::BACKWARD);
        REQUIRE(e2.has_value());
        CHECK(e2->message == "Topic does not have schema to check");
        CHECK(e2->kind == cnx::RefusalKind::schemaNotFound);
    }
    SECTION("non-transitive strategies and FORWARD_TRANSITIVE check the latest only") {
        REQUIRE(f.putOk(kString) == 0);
        REQUIRE(f.putOk(kInt32, CompatibilityStrategy::ALWAYS_COMPATIBLE) == 1);
        for (auto s : {CompatibilityStrategy::BACKWARD, CompatibilityStrategy::FORWARD, CompatibilityStrategy::FULL,
                       CompatibilityStrategy::FORWARD_TRANSITIVE}) {
            INFO(to_string_view(s));
            CHECK_FALSE(f.consumerCheck(kInt32, s).has_value());  // STRING v0 is not looked at
            auto e = f.consumerCheck(kString, s);
            REQUIRE(e.has_value());
            CHECK(e->message == "Incompatible schema: exists schema type INT32, new schema type STRING");
        }
    }
    SECTION("BACKWARD_TRANSITIVE and FULL_TRANSITIVE check every live entry") {
        REQUIRE(f.putOk(kString) == 0);
        REQUIRE(f.putOk(kInt32, CompatibilityStrategy::ALWAYS_COMPATIBLE) == 1);
        for (auto s : {CompatibilityStrategy::BACKWARD_TRANSITIVE, CompatibilityStrategy::FULL_TRANSITIVE}) {
            INFO(to_string_view(s));
            auto e = f.consumerCheck(kInt32, s);
            REQUIRE(e.has_value());
            CHECK(e->message == "Incompatible schema: exists schema type STRING, new schema type INT32");
        }
    }
    SECTION("ALWAYS_INCOMPATIBLE checks all live entries and fails even for an identical schema") {
        REQUIRE(f.putOk(kString) == 0);
        auto e = f.consumerCheck(kString, CompatibilityStrategy::ALWAYS_INCOMPATIBLE);
        REQUIRE(e.has_value());
        CHECK(e->code() == pulsar::proto::IncompatibleSchema);
        CHECK(e->message == "Schema compatibility strategy is ALWAYS_INCOMPATIBLE");
    }
    SECTION("the consumer check never appends and never de-duplicates") {
        REQUIRE(f.putOk(kString) == 0);
        f.consumerCheck(kString, CompatibilityStrategy::FULL);
        f.consumerCheck(kInt32, CompatibilityStrategy::ALWAYS_COMPATIBLE);
        f.consumerCheck(kInt32, CompatibilityStrategy::FULL);
        CHECK(f.registry.history(kId).size() == 1);
    }
    SECTION("the consumer check runs no definition validator (§4.10)") {
        REQUIRE(f.putOk(kString) == 0);
        auto e = f.consumerCheck(schemaOf(SchemaType::INT32, "abc"), CompatibilityStrategy::FULL);
        REQUIRE(e.has_value());
        CHECK(e->message == "Incompatible schema: exists schema type STRING, new schema type INT32");
    }
}

TEST_CASE("§4.7 consumer check with the latest path forces BACKWARD (consumer reads the latest writer)",
          "[registry][ref-4.7][avro]") {
    // Writer {id, name} with `name` lacking a default; reader {id}. BACKWARD (reader=new) passes,
    // FORWARD (old schema reads new data) fails: `name` has no default.
    const auto writer = schemaOf(SchemaType::AVRO,
                                 R"({"type":"record","name":"User","fields":[{"name":"id","type":"long"},)"
                                 R"({"name":"name","type":"string"}]})");
    const auto reader =
        schemaOf(SchemaType::AVRO, R"({"type":"record","name":"User","fields":[{"name":"id","type":"long"}]})");
    RegistryFixture f;
    REQUIRE(f.putOk(writer) == 0);
    // Producer path with FORWARD really is FORWARD: it fails.
    REQUIRE(f.withLatest(reader, CompatibilityStrategy::FORWARD).has_value());
    // Consumer path with FORWARD / FULL / FORWARD_TRANSITIVE is checked as BACKWARD: it passes.
    CHECK_FALSE(f.consumerCheck(reader, CompatibilityStrategy::FORWARD).has_value());
    CHECK_FALSE(f.consumerCheck(reader, CompatibilityStrategy::FULL).has_value());
    CHECK_FALSE(f.consumerCheck(reader, CompatibilityStrategy::FORWARD_TRANSITIVE).has_value());
    // FULL_TRANSITIVE keeps its strategy: mutual read fails.
    CHECK(f.consumerCheck(reader, CompatibilityStrategy::FULL_TRANSITIVE).has_value());
}

TEST_CASE("§4.8 auto-update disabled: lookup of an equal live schema, else the refusal", "[registry][ref-4.8]") {
    RegistryFixture f;

    SECTION("no schema at all: even the first registration is refused") {
        auto r = f.lookup(kString);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().code() == pulsar::proto::IncompatibleSchema);
        CHECK(r.error().exceptionClass() == exc::kIncompatibleSchema);
        CHECK(r.error().message == "Schema not found and schema auto updating is disabled.");
        CHECK(f.registry.history(kId).empty());
    }
    SECTION("any live version (not only the latest) is found; nothing is appended") {
        f.putOk(kString);                                          // 0
        f.putOk(kInt32, CompatibilityStrategy::ALWAYS_COMPATIBLE);  // 1
        auto r0 = f.lookup(kString);
        REQUIRE(r0.ok());
        CHECK(r0.value() == 0);
        auto r1 = f.lookup(kInt32);
        REQUIRE(r1.ok());
        CHECK(r1.value() == 1);
        auto r2 = f.lookup(kInt64);
        REQUIRE_FALSE(r2.ok());
        CHECK(r2.error().message == "Schema not found and schema auto updating is disabled.");
        CHECK(f.registry.history(kId).size() == 2);
    }
    SECTION("entries before a soft delete are not found") {
        f.putOk(kString);
        f.registry.deleteSchema(kId, false);
        auto r = f.lookup(kString);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().message == "Schema not found and schema auto updating is disabled.");
    }
    SECTION("no definition validation on the lookup path") {
        auto r = f.lookup(schemaOf(SchemaType::INT32, "abc"));
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().message == "Schema not found and schema auto updating is disabled.");
    }
}

TEST_CASE("§6.7/§4.10 definition validation before putSchemaIfAbsent", "[registry][ref-6.7][ref-4.10]") {
    RegistryFixture f;
    auto refused = [&](const SchemaData& s) {
        auto r = f.put(s, CompatibilityStrategy::ALWAYS_COMPATIBLE);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().code() == pulsar::proto::IncompatibleSchema);
        CHECK(r.error().kind == cnx::RefusalKind::invalidSchemaData);
        return r.error().message;
    };
    SECTION("primitive with data") {
        CHECK(refused(schemaOf(SchemaType::INT32, "abc")) ==
              "Invalid schema definition data for primitive schemas :length of schema data should be zero, but 3 "
              "bytes is found");
        CHECK(refused(schemaOf(SchemaType::BOOLEAN, "x")) ==
              "Invalid schema definition data for primitive schemas :length of schema data should be zero, but 1 "
              "bytes is found");
    }
    SECTION("STRING with data other than empty or 'null'") {
        CHECK(refused(schemaOf(SchemaType::STRING, "abc")) == "Invalid schema definition data for string schema : 'abc'");
        CHECK(f.putOk(schemaOf(SchemaType::STRING, "null")) == 0);  // Python client quirk accepted
    }
    SECTION("client-side types") {
        CHECK(refused(schemaOf(SchemaType::AUTO_CONSUME)) == "Schema AUTO_CONSUME is a client-side schema type");
        CHECK(refused(schemaOf(SchemaType::AUTO_PUBLISH)) == "Schema AUTO_PUBLISH is a client-side schema type");
        CHECK(refused(schemaOf(SchemaType::AUTO)) == "Schema AUTO is a client-side schema type");
    }
    SECTION("AVRO that does not parse") {
        CHECK(refused(schemaOf(SchemaType::AVRO, "not json")) == "Invalid schema definition data for AVRO schema");
    }
    SECTION("NONE and BYTES are accepted") {
        CHECK(f.putOk(schemaOf(SchemaType::NONE)) == 0);
        // BYTES after NONE is another type: ALWAYS_COMPATIBLE lets it through as version 1.
        CHECK(f.putOk(schemaOf(SchemaType::BYTES), CompatibilityStrategy::ALWAYS_COMPATIBLE) == 1);
        CHECK(f.registry.history(kId).size() == 2);
    }
    SECTION("nothing is stored for a refused definition") {
        refused(schemaOf(SchemaType::INT64, "1"));
        CHECK(f.registry.history(kId).empty());
    }
}

TEST_CASE("§4.11 concurrent identical registrations (2.10.3/2.11/3.0+): the decision is re-run, one version",
          "[registry][ref-4.11]") {
    RegistryFixture f;
    std::vector<Result<SchemaVersion>> results;
    auto collect = [&](Result<SchemaVersion> r) { results.push_back(std::move(r)); };
    // Both are posted before the scheduler runs: both reads see an empty list.
    f.registry.putSchemaIfAbsent(kId, kString, CompatibilityStrategy::FULL, std::make_shared<cnx::Trace>(), collect);
    f.registry.putSchemaIfAbsent(kId, kString, CompatibilityStrategy::FULL, std::make_shared<cnx::Trace>(), collect);
    CHECK(f.scheduler.pending() == 2);
    f.scheduler.runUntilIdle();
    REQUIRE(results.size() == 2);
    for (const auto& r : results) {
        REQUIRE(r.ok());
        CHECK(r.value() == 0);
    }
    CHECK(f.registry.history(kId).size() == 1);
}

TEST_CASE("§4.11 without the whole-decision retry (before #18701/#18760) two identical versions are appended (#18292)",
          "[registry][ref-4.11]") {
    auto old = cnx::newestProfile();
    old.registryRetriesWholeDecision = false;
    RegistryFixture f(old);
    std::vector<SchemaVersion> versions;
    auto collect = [&](Result<SchemaVersion> r) {
        REQUIRE(r.ok());
        versions.push_back(r.value());
    };
    f.registry.putSchemaIfAbsent(kId, kString, CompatibilityStrategy::FULL, std::make_shared<cnx::Trace>(), collect);
    f.registry.putSchemaIfAbsent(kId, kString, CompatibilityStrategy::FULL, std::make_shared<cnx::Trace>(), collect);
    f.scheduler.runUntilIdle();
    REQUIRE(versions.size() == 2);
    CHECK(versions[0] != versions[1]);
    CHECK(std::set<SchemaVersion>(versions.begin(), versions.end()) == std::set<SchemaVersion>{0, 1});
    const auto& all = f.registry.history(kId);
    REQUIRE(all.size() == 2);
    CHECK(all[0].schema == all[1].schema);  // two identical versions
    // Run sequentially, the same profile de-duplicates as usual, and with two
    // equal live entries the oldest wins (§4.4: oldest first, first match).
    CHECK(f.putOk(kString) == 0);
    CHECK(f.registry.history(kId).size() == 2);
}

// §6.7 says BYTES is "accepted (stored as NONE)" and §4.1 that negative Java
// types are stored as NONE (stored enum = Java value + 1, negatives -> NONE).
// Only reachable through the admin API (the binary protocol has no BYTES type, §2.4).
TEST_CASE("§4.1/§6.7 a BYTES schema is stored as NONE", "[registry][ref-4.1][ref-6.7]") {
    RegistryFixture f;
    REQUIRE(f.putOk(schemaOf(SchemaType::BYTES)) == 0);
    REQUIRE(f.registry.latest(kId).has_value());
    CHECK(f.registry.latest(kId)->schema.type == SchemaType::NONE);
}

TEST_CASE("issue 40 item 4: an upload's trace does not list the whole history", "[registry][issue40]") {
    // ALWAYS_COMPATIBLE and a new field name each time: every upload appends.
    RegistryFixture f;
    auto record = [](int i) {
        return schemaOf(SchemaType::AVRO,
                        R"({"type":"record","name":"R","fields":[{"name":"f)" + std::to_string(i) + R"(","type":"string"}]})");
    };
    for (int i = 0; i < 300; ++i) REQUIRE(f.put(record(i), CompatibilityStrategy::ALWAYS_COMPATIBLE).ok());
    auto trace = std::make_shared<cnx::Trace>();
    std::optional<Result<SchemaVersion>> out;
    f.registry.putSchemaIfAbsent(kId, record(300), CompatibilityStrategy::ALWAYS_COMPATIBLE, trace,
                                 [&](Result<SchemaVersion> r) { out.emplace(std::move(r)); });
    f.scheduler.runUntilIdle();
    REQUIRE(out.has_value());
    REQUIRE(out->ok());
    std::size_t text = 0;
    for (const auto& e : trace->entries()) text += e.detail.size();
    CHECK(text < 1000);  // listing 300 versions alone takes over 1,000 characters
    bool named = false;
    for (const auto& e : trace->entries()) named = named || e.detail.find("[0,1,2,...,298,299] (300 versions)") != std::string::npos;
    CHECK(named);
}
