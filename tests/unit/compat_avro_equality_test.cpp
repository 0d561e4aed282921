// Avro Schema.equals for de-duplication (§4.5). Rules from Schema.java
// (RecordSchema/EnumSchema/FixedSchema/UnionSchema.equals, Field.equals:
// name, schema, defaultValue (JsonNode equality), order, props; never doc or
// aliases) — apache/avro lang/java/avro, 1.11.x text read.

#include <catch2/catch.hpp>

#include "broker_model/compat/avro/avro_check.h"

using namespace cnx::compat;

namespace {

struct Row {
    const char* rule;
    const char* a;
    const char* b;
    bool equal;
};

}  // namespace

TEST_CASE("avroDefinitionsEqual follows Schema.equals", "[avro][equality]") {
    const Row rows[] = {
        {"whitespace and key order ignored", R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"}]})",
         R"({ "fields" : [ {"type":"int", "name":"a"} ], "name":"R", "type":"record" })", true},
        {"doc ignored", R"({"type":"record","name":"R","doc":"x","fields":[{"name":"a","type":"int","doc":"y"}]})",
         R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"}]})", true},
        {"type aliases ignored", R"({"type":"record","name":"R","aliases":["Q"],"fields":[]})", R"({"type":"record","name":"R","fields":[]})", true},
        {"field aliases ignored", R"({"type":"record","name":"R","fields":[{"name":"a","type":"int","aliases":["b"]}]})",
         R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"}]})", true},
        {"record name matters", R"({"type":"record","name":"R","fields":[]})", R"({"type":"record","name":"S","fields":[]})", false},
        {"namespace matters", R"({"type":"record","name":"R","namespace":"a","fields":[]})", R"({"type":"record","name":"R","namespace":"b","fields":[]})", false},
        {"dotted name equals name+namespace", R"({"type":"record","name":"a.R","fields":[]})", R"({"type":"record","name":"R","namespace":"a","fields":[]})", true},
        {"field order matters", R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"int"}]})",
         R"({"type":"record","name":"R","fields":[{"name":"b","type":"int"},{"name":"a","type":"int"}]})", false},
        {"field type matters", R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"}]})",
         R"({"type":"record","name":"R","fields":[{"name":"a","type":"long"}]})", false},
        {"default matters", R"({"type":"record","name":"R","fields":[{"name":"a","type":"int","default":1}]})",
         R"({"type":"record","name":"R","fields":[{"name":"a","type":"int","default":2}]})", false},
        {"default 1 vs 1.0 differ (IntNode vs DoubleNode)", R"({"type":"record","name":"R","fields":[{"name":"a","type":"int","default":1}]})",
         R"({"type":"record","name":"R","fields":[{"name":"a","type":"int","default":1.0}]})", false},
        {"object default key order ignored", R"({"type":"record","name":"R","fields":[{"name":"a","type":{"type":"map","values":"int"},"default":{"x":1,"y":2}}]})",
         R"({"type":"record","name":"R","fields":[{"name":"a","type":{"type":"map","values":"int"},"default":{"y":2,"x":1}}]})", true},
        {"field order attribute matters", R"({"type":"record","name":"R","fields":[{"name":"a","type":"int","order":"descending"}]})",
         R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"}]})", false},
        {"custom schema property matters", R"({"type":"record","name":"R","x":1,"fields":[]})", R"({"type":"record","name":"R","fields":[]})", false},
        {"custom field property matters", R"({"type":"record","name":"R","fields":[{"name":"a","type":"int","x":true}]})",
         R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"}]})", false},
        {"logical type is a property", R"({"type":"int","logicalType":"date"})", R"("int")", false},
        {"primitive object form equals the name", R"({"type":"int"})", R"("int")", true},
        {"enum symbols order matters", R"({"type":"enum","name":"E","symbols":["A","B"]})", R"({"type":"enum","name":"E","symbols":["B","A"]})", false},
        {"enum default ignored (1.9+ not in equals)", R"({"type":"enum","name":"E","symbols":["A","B"],"default":"A"})",
         R"({"type":"enum","name":"E","symbols":["A","B"]})", true},
        {"fixed size matters", R"({"type":"fixed","name":"F","size":4})", R"({"type":"fixed","name":"F","size":8})", false},
        {"union branch order matters", R"(["null","int"])", R"(["int","null"])", false},
        {"recursive schemas compare", R"({"type":"record","name":"L","fields":[{"name":"n","type":["null","L"]}]})",
         R"({"type":"record","name":"L","fields":[{"name":"n","type":["null","L"]}]})", true},
        {"error vs record not distinguished", R"({"type":"error","name":"R","fields":[]})", R"({"type":"record","name":"R","fields":[]})", true},
    };
    for (const auto& row : rows) {
        INFO(row.rule);
        CHECK(avroDefinitionsEqual(row.a, row.b, CheckOptions{}) == std::optional<bool>(row.equal));
    }
}

TEST_CASE("avroDefinitionsEqual is nullopt when either side does not parse", "[avro][equality]") {
    CHECK_FALSE(avroDefinitionsEqual("{", R"("int")", CheckOptions{}).has_value());
    CHECK_FALSE(avroDefinitionsEqual(R"("int")", R"({"type":"nope"})", CheckOptions{}).has_value());
}

TEST_CASE("Avro 1.8.2 treats an enum default as a custom property", "[avro][equality][versions]") {
    CheckOptions o;
    o.avro = AvroVersion::v1_8_2;
    CHECK(avroDefinitionsEqual(R"({"type":"enum","name":"E","symbols":["A"],"default":"A"})", R"({"type":"enum","name":"E","symbols":["A"]})", o) ==
          std::optional<bool>(false));
}
