// The JSON checker (§6.4), following apache/pulsar JsonSchemaCompatibilityCheck:
// pairs mix Avro-format and legacy Jackson JSON Schema definitions; lists use
// the inherited Avro-based check; 4.2 strict mode (PIP-464) accepts Avro only.

#include <catch2/catch.hpp>

#include <vector>

#include "broker_model/compat/avro/avro_check.h"

using namespace cnx;
using namespace cnx::compat;

namespace {

SchemaData json(std::string def) { return SchemaData{SchemaType::JSON, std::move(def), {}}; }

const SchemaData kAvroV1 = json(R"({"type":"record","name":"P","fields":[{"name":"a","type":["null","string"],"default":null}]})");
const SchemaData kAvroV2 = json(R"({"type":"record","name":"P","fields":[{"name":"a","type":["null","string"],"default":null},{"name":"b","type":"int"}]})");
const SchemaData kLegacyFoo = json(R"({"type":"object","id":"urn:jsonschema:org:example:Foo","properties":{"a":{"type":"string"}}})");
const SchemaData kLegacyFoo2 = json(R"({"type":"object","id":"urn:jsonschema:org:example:Foo","properties":{"b":{"type":"integer"}}})");
const SchemaData kLegacyBar = json(R"({"type":"object","id":"urn:jsonschema:org:example:Bar","properties":{}})");
const SchemaData kLegacyNoId = json(R"({"type":"object","properties":{}})");
const SchemaData kNeither = json(R"({"hello":"world"})");

CheckOptions legacy() {
    CheckOptions o;
    o.jsonAllowLegacyJacksonFormat = true;
    return o;
}

struct Row {
    const char* rule;
    const SchemaData* existing;
    const SchemaData* candidate;
    Verdict expected;
    const char* message;  // nullptr: not checked
};

}  // namespace

TEST_CASE("JSON pairs with legacy Jackson format allowed", "[json]") {
    const Row rows[] = {
        {"both Avro-format: Avro check", &kAvroV1, &kAvroV2, Verdict::incompatible, nullptr},
        {"both Avro-format compatible", &kAvroV2, &kAvroV1, Verdict::compatible, nullptr},
        {"existing Avro, new legacy: allowed for old clients", &kAvroV1, &kLegacyFoo, Verdict::compatible, nullptr},
        {"existing legacy, new Avro: overwrite", &kLegacyFoo, &kAvroV2, Verdict::compatible, nullptr},
        {"both legacy, same id", &kLegacyFoo, &kLegacyFoo2, Verdict::compatible, nullptr},
        {"both legacy, different id", &kLegacyFoo, &kLegacyBar, Verdict::incompatible, nullptr},
        {"existing Avro, new neither", &kAvroV1, &kNeither, Verdict::incompatible, "Unknown schema format"},
        {"existing legacy, new neither", &kLegacyFoo, &kNeither, Verdict::incompatible, "Unknown schema format"},
        {"existing neither: overwrite", &kNeither, &kAvroV1, Verdict::compatible, nullptr},
        {"existing legacy without id: getId() is null (NPE)", &kLegacyNoId, &kLegacyFoo, Verdict::error, nullptr},
    };
    auto check = makeJsonCheck();
    for (const auto& row : rows) {
        INFO(row.rule);
        auto r = check->checkCompatible(*row.existing, *row.candidate, CompatibilityStrategy::BACKWARD, legacy());
        CHECK(r.verdict == row.expected);
        if (row.message) CHECK(r.message == row.message);
    }
    auto r = check->checkCompatible(kLegacyFoo, kLegacyBar, CompatibilityStrategy::FULL, legacy());
    CHECK(r.message == "Incompatible Schema from " + kLegacyFoo.data + " + to " + kLegacyBar.data);
}

TEST_CASE("JSON lists use the Avro-based check directly", "[json][transitive]") {
    auto check = makeJsonCheck();
    std::vector<SchemaData> history{kLegacyFoo};
    // The legacy entry cannot be parsed by Avro: incompatible (SchemaParseException).
    auto r = check->checkCompatible(history, kAvroV1, CompatibilityStrategy::BACKWARD_TRANSITIVE, legacy());
    CHECK(r.verdict == Verdict::incompatible);
    CHECK(r.message.rfind("org.apache.avro.SchemaParseException: ", 0) == 0);
    // The same pair through the pair entry point passes (overwrite).
    CHECK(check->checkCompatible(kLegacyFoo, kAvroV1, CompatibilityStrategy::BACKWARD, legacy()).ok());
}

TEST_CASE("4.2 strict mode: only Avro-format JSON definitions", "[json][versions]") {
    auto check = makeJsonCheck();
    CheckOptions strict;  // jsonAllowLegacyJacksonFormat = false
    CHECK(check->checkCompatible(kAvroV1, kLegacyFoo, CompatibilityStrategy::BACKWARD, strict).verdict == Verdict::incompatible);
    CHECK(check->checkCompatible(kLegacyFoo, kAvroV1, CompatibilityStrategy::BACKWARD, strict).verdict == Verdict::incompatible);
    CHECK(check->checkCompatible(kAvroV2, kAvroV1, CompatibilityStrategy::BACKWARD, strict).ok());
}
