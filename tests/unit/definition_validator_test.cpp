// §6.7 definition validation per release: #24103 refuses an AVRO definition whose
// top level is a union (3.0.12, 3.3.7, 4.0.5, 4.1.0), and nothing else.

#include <catch2/catch.hpp>

#include <optional>
#include <string>

#include "broker_model/compat/key_value/key_value_check.h"
#include "broker_model/profile/profile.h"
#include "broker_model/registry/definition_validator.h"

using namespace cnx;

namespace {

const BehaviourProfile& at(const char* version) {
    const auto* p = profileFor(version);
    REQUIRE(p != nullptr);
    return *p;
}

SchemaData avro(const std::string& definition) { return {SchemaType::AVRO, definition, {}}; }

constexpr const char* kUnionRefused = "Avro schema typed [UNION] is not supported";
constexpr const char* kRecord = R"({"type":"record","name":"User","fields":[{"name":"id","type":"long"}]})";

}  // namespace

TEST_CASE("§6.7 #24103: a top-level AVRO union is refused only where the fix is carried", "[validator][ref-6.7]") {
    SchemaData unionDef = avro(R"(["null","string"])");
    CHECK(validateSchemaDefinition(at("3.0.11"), unionDef, false) == std::nullopt);
    CHECK(validateSchemaDefinition(at("3.2"), unionDef, false) == std::nullopt);
    CHECK(validateSchemaDefinition(at("3.3.6"), unionDef, false) == std::nullopt);
    for (const char* after : {"3.0.12", "3.3.7", "4.0.5", "4.1.0", "4.2", "5.0"}) {
        INFO(after);
        CHECK(validateSchemaDefinition(at(after), unionDef, false) == std::optional<std::string>(kUnionRefused));
        // A union of records is a union too; JSON-layout does not matter.
        CHECK(validateSchemaDefinition(at(after), avro(std::string(" [ \"null\" , ") + kRecord + "]"), false) ==
              std::optional<std::string>(kUnionRefused));
    }
}

TEST_CASE("§6.7 #24103 refuses only UNION: primitives, records and other types pass", "[validator][ref-6.7]") {
    const auto& p = at("4.2");
    // A top-level primitive AVRO definition is logged and accepted, in either spelling.
    CHECK(validateSchemaDefinition(p, avro(R"({"type":"string"})"), false) == std::nullopt);
    CHECK(validateSchemaDefinition(p, avro(R"("long")"), false) == std::nullopt);
    CHECK(validateSchemaDefinition(p, avro(kRecord), false) == std::nullopt);
    // A union inside a record is fine.
    CHECK(validateSchemaDefinition(
              p, avro(R"({"type":"record","name":"U","fields":[{"name":"a","type":["null","string"],"default":null}]})"),
              false) == std::nullopt);
    // Unparseable stays the parse refusal, not the union text.
    CHECK(validateSchemaDefinition(p, avro(R"(["null","null"])"), false) ==
          std::optional<std::string>("Invalid schema definition data for AVRO schema"));
    // JSON is not AVRO: the rule names AVRO only.
    CHECK(validateSchemaDefinition(p, SchemaData{SchemaType::JSON, R"(["null","string"])", {}}, false) == std::nullopt);
}

TEST_CASE("§6.7 #24103 reaches AVRO components of a KEY_VALUE schema", "[validator][ref-6.7]") {
    SchemaData key{SchemaType::STRING, "", {}};
    SchemaData kv = compat::encodeKeyValue(key, avro(R"(["null","string"])"), "INLINE");
    CHECK(validateSchemaDefinition(at("4.2"), kv, false) == std::optional<std::string>(kUnionRefused));
    CHECK(validateSchemaDefinition(at("3.2"), kv, false) == std::nullopt);
}
