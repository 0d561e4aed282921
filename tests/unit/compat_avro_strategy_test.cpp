// The AVRO checker's strategies and messages (§6.3 strategy table), following
// Pulsar's AvroSchemaBasedCompatibilityCheck.createSchemaValidator and Avro's
// ValidateCanRead / ValidateCanBeRead / ValidateMutualRead / ValidateLatest /
// ValidateAll, NeverSchemaValidator and SchemaValidationException.getMessage.

#include <catch2/catch.hpp>

#include <vector>

#include "broker_model/compat/avro/avro_check.h"

using namespace cnx;
using namespace cnx::compat;

namespace {

SchemaData avro(std::string def) { return SchemaData{SchemaType::AVRO, std::move(def), {}}; }

// v1 {a:int}; v2 adds b with default; v3 drops a (v3 cannot be read by v1 readers needing a).
const SchemaData kV1 = avro(R"({"type":"record","name":"U","fields":[{"name":"a","type":"int"}]})");
const SchemaData kV2 = avro(R"({"type":"record","name":"U","fields":[{"name":"a","type":"int"},{"name":"b","type":"string","default":""}]})");
const SchemaData kNoDefault = avro(R"({"type":"record","name":"U","fields":[{"name":"a","type":"int"},{"name":"c","type":"string"}]})");
const SchemaData kDropA = avro(R"({"type":"record","name":"U","fields":[{"name":"b","type":"string","default":""}]})");

struct Row {
    const char* rule;
    CompatibilityStrategy strategy;
    const SchemaData* existing;
    const SchemaData* candidate;
    Verdict expected;
};

}  // namespace

TEST_CASE("strategy directions against the latest schema", "[avro][strategy]") {
    using S = CompatibilityStrategy;
    const Row rows[] = {
        {"BACKWARD: new reads old; added field with default", S::BACKWARD, &kV1, &kV2, Verdict::compatible},
        {"BACKWARD: added field without default", S::BACKWARD, &kV1, &kNoDefault, Verdict::incompatible},
        {"FORWARD: old reads new; new lacks a field old needs", S::FORWARD, &kV1, &kDropA, Verdict::incompatible},
        {"FORWARD: added field without default is fine", S::FORWARD, &kV1, &kNoDefault, Verdict::compatible},
        {"FULL: both directions", S::FULL, &kV1, &kV2, Verdict::compatible},
        {"FULL: fails in one direction", S::FULL, &kV1, &kNoDefault, Verdict::incompatible},
        {"ALWAYS_COMPATIBLE passes", S::ALWAYS_COMPATIBLE, &kV1, &kNoDefault, Verdict::compatible},
        {"ALWAYS_INCOMPATIBLE fails even for identical", S::ALWAYS_INCOMPATIBLE, &kV1, &kV1, Verdict::incompatible},
        {"UNDEFINED behaves as NeverSchemaValidator", S::UNDEFINED, &kV1, &kV1, Verdict::incompatible},
    };
    auto check = makeAvroCheck();
    for (const auto& row : rows) {
        INFO(row.rule);
        CHECK(check->checkCompatible(*row.existing, *row.candidate, row.strategy, CheckOptions{}).verdict == row.expected);
    }
}

TEST_CASE("incompatibility message is Pulsar's wrapping of SchemaValidationException", "[avro][strategy][message]") {
    auto check = makeAvroCheck();
    CheckOptions older;  // the wrapping before the "with strategy" prefix
    older.avroValidationMessageWithStrategy = false;
    auto r = check->checkCompatible(avro(R"("int")"), avro(R"("string")"), CompatibilityStrategy::BACKWARD, older);
    REQUIRE(r.verdict == Verdict::incompatible);
    CHECK(r.exceptionClass == exception_class::kIncompatibleSchema);
    // "Unable to read schema: \n" + writer.toString(true) + "\nusing schema:\n" + reader.toString(true)
    CHECK(r.message == "org.apache.avro.SchemaValidationException: Unable to read schema: \n\"int\"\nusing schema:\n\"string\"");
    REQUIRE_FALSE(r.problems.empty());
    CHECK(r.problems[0].kind == "type_mismatch");
    // FORWARD: the existing schema is the reader.
    auto f = check->checkCompatible(avro(R"("int")"), avro(R"("string")"), CompatibilityStrategy::FORWARD, older);
    CHECK(f.message == "org.apache.avro.SchemaValidationException: Unable to read schema: \n\"string\"\nusing schema:\n\"int\"");
    // FULL checks "existing reads new" first (ValidateMutualRead: canRead(toValidate, existing)).
    auto full = check->checkCompatible(avro(R"("int")"), avro(R"("string")"), CompatibilityStrategy::FULL, older);
    CHECK(full.message == f.message);
    // NeverSchemaValidator: SchemaValidationException(new, new).
    auto never = check->checkCompatible(avro(R"("int")"), avro(R"("long")"), CompatibilityStrategy::ALWAYS_INCOMPATIBLE, older);
    CHECK(never.message == "org.apache.avro.SchemaValidationException: Unable to read schema: \n\"long\"\nusing schema:\n\"long\"");
}

TEST_CASE("newest wrapping names the strategy", "[avro][strategy][message]") {
    // NEWEST AvroSchemaBasedCompatibilityCheck (c9629049): String.format("Error during schema
    // compatibility check with strategy %s: %s: %s", strategy, e.getClass().getName(), e.getMessage()).
    auto check = makeAvroCheck();
    auto r = check->checkCompatible(avro(R"("int")"), avro(R"("string")"), CompatibilityStrategy::BACKWARD, CheckOptions{});
    CHECK(r.message == "Error during schema compatibility check with strategy BACKWARD: "
                       "org.apache.avro.SchemaValidationException: Unable to read schema: \n\"int\"\nusing schema:\n\"string\"");
    // Parse failures keep IncompatibleSchemaException(e): "<class>: <text>", no strategy.
    auto p = check->checkCompatible(avro(R"("int")"), avro(R"({"type":"nope"})"), CompatibilityStrategy::BACKWARD, CheckOptions{});
    CHECK(p.message.rfind("org.apache.avro.SchemaParseException: ", 0) == 0);
}

TEST_CASE("transitive strategies check every live schema, newest first", "[avro][strategy][transitive]") {
    auto check = makeAvroCheck();
    std::vector<SchemaData> history{kV1, kV2};
    // kDropA (only b) : BACKWARD latest (v2) ok: reader kDropA reads v2 (b present). Transitive also ok (b has default).
    CHECK(check->checkCompatible(history, kDropA, CompatibilityStrategy::BACKWARD, CheckOptions{}).ok());
    CHECK(check->checkCompatible(history, kDropA, CompatibilityStrategy::BACKWARD_TRANSITIVE, CheckOptions{}).ok());
    // FORWARD_TRANSITIVE: v1 and v2 readers need a: fails against the newest first (v2 is the reader in the message).
    auto r = check->checkCompatible(history, kDropA, CompatibilityStrategy::FORWARD_TRANSITIVE, CheckOptions{});
    REQUIRE(r.verdict == Verdict::incompatible);
    CHECK(r.message.find("\"name\" : \"b\",\n    \"type\" : \"string\",\n    \"default\" : \"\"\n  } ]\n}") != std::string::npos);
    // Only the oldest is incompatible: latest passes, transitive fails.
    std::vector<SchemaData> h2{kNoDefault, kV1};
    auto cand = kV1;
    CHECK(check->checkCompatible(h2, cand, CompatibilityStrategy::FORWARD, CheckOptions{}).ok());
    CHECK(check->checkCompatible(h2, cand, CompatibilityStrategy::FORWARD_TRANSITIVE, CheckOptions{}).verdict == Verdict::incompatible);
    // Empty history: every strategy passes, ALWAYS_INCOMPATIBLE too (NeverSchemaValidator needs an existing schema).
    std::vector<SchemaData> none;
    CHECK(check->checkCompatible(none, kV1, CompatibilityStrategy::FULL_TRANSITIVE, CheckOptions{}).ok());
    CHECK(check->checkCompatible(none, kV1, CompatibilityStrategy::ALWAYS_INCOMPATIBLE, CheckOptions{}).ok());
    CHECK_FALSE(check->checkCompatible(history, kV2, CompatibilityStrategy::ALWAYS_INCOMPATIBLE, CheckOptions{}).ok());
}

TEST_CASE("parse failures: SchemaParseException is incompatible, others are errors", "[avro][strategy][parse]") {
    auto check = makeAvroCheck();
    auto bad = avro(R"({"type":"record","name":"R","fields":[{"name":"a","type":"Nope"}]})");
    auto r = check->checkCompatible(kV1, bad, CompatibilityStrategy::BACKWARD, CheckOptions{});
    CHECK(r.verdict == Verdict::incompatible);
    CHECK(r.exceptionClass == exception_class::kIncompatibleSchema);
    CHECK(r.message ==
          "org.apache.avro.SchemaParseException: \"Nope\" is not a defined name. The type of the \"a\" field must be a defined name or a {\"type\": ...} expression.");
    // Parsing happens before the strategy: even ALWAYS_COMPATIBLE reports it.
    CHECK(check->checkCompatible(kV1, bad, CompatibilityStrategy::ALWAYS_COMPATIBLE, CheckOptions{}).verdict == Verdict::incompatible);
    // An existing entry that does not parse fails first.
    CHECK(check->checkCompatible(bad, kV1, CompatibilityStrategy::BACKWARD, CheckOptions{}).message.find("Nope") != std::string::npos);
    // AvroRuntimeException (duplicate field) is not caught by Pulsar: the validator fails with an error.
    auto dup = avro(R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"a","type":"int"}]})");
    auto e = check->checkCompatible(kV1, dup, CompatibilityStrategy::BACKWARD, CheckOptions{});
    CHECK(e.verdict == Verdict::error);
    CHECK(e.exceptionClass == exception_class::kAvroRuntime);
}

TEST_CASE("validator throws become Verdict::error", "[avro][strategy][error]") {
    auto check = makeAvroCheck();
    auto withBadDefault = avro(R"({"type":"record","name":"U","fields":[{"name":"a","type":"int"},{"name":"b","type":"int","default":"x"}]})");
    auto r = check->checkCompatible(kV1, withBadDefault, CompatibilityStrategy::BACKWARD, CheckOptions{});
    CHECK(r.verdict == Verdict::error);
    CHECK(r.exceptionClass == "org.apache.avro.AvroTypeException");
    CHECK(r.message == "Non-numeric default value for int: \"x\"");
    // FORWARD does not need that default: compatible.
    CHECK(check->checkCompatible(kV1, withBadDefault, CompatibilityStrategy::FORWARD, CheckOptions{}).ok());
    auto direct = avro(R"({"type":"record","name":"N","fields":[{"name":"next","type":"N"}]})");
    auto o = check->checkCompatible(direct, direct, CompatibilityStrategy::FULL, CheckOptions{});
    CHECK(o.verdict == Verdict::error);
    CHECK(o.exceptionClass == "java.lang.StackOverflowError");
}

TEST_CASE("long histories are checked", "[avro][strategy][transitive]") {
    auto check = makeAvroCheck();
    std::vector<SchemaData> history;
    std::string fields = R"({"name":"a","type":"int"})";
    for (int i = 0; i < 1000; ++i) {
        fields += R"(,{"name":"f)" + std::to_string(i) + R"(","type":"int","default":0})";
        history.push_back(avro(R"({"type":"record","name":"H","fields":[)" + fields + "]}"));
    }
    auto candidate = history.back();
    history.pop_back();
    CHECK(check->checkCompatible(history, candidate, CompatibilityStrategy::FULL_TRANSITIVE, CheckOptions{}).ok());
}
