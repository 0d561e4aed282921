// Avro definition parsing (§6.3, §6.7): the parser accepts what Avro Java's
// Schema.Parser (default validation off) accepts and fails with its exception
// class and message. Rows cite the throw site in apache/avro
// lang/java/avro/src/main/java/org/apache/avro/Schema.java (1.11.x text read)
// unless stated otherwise.

#include <catch2/catch.hpp>

#include <string>

#include "broker_model/compat/avro/avro_schema.h"
#include "broker_model/compat/avro/json_text.h"
#include "broker_model/compat/avro/avro_check.h"

using namespace cnx::compat;
namespace av = cnx::compat::avro;

namespace {

av::ParseResult parse112(const std::string& def) { return av::parse(def, av::ParseOptions{AvroVersion::v1_12_0, false}); }

constexpr const char* kParse = "org.apache.avro.SchemaParseException";
constexpr const char* kRuntime = "org.apache.avro.AvroRuntimeException";
constexpr const char* kType = "org.apache.avro.AvroTypeException";

struct Invalid {
    const char* rule;
    const char* definition;
    const char* cls;
    const char* message;
};

}  // namespace

TEST_CASE("invalid Avro definitions fail with Avro's exception and message", "[avro][parse]") {
    const Invalid rows[] = {
        // Parser.parse: readTree returns null for no content -> Schema.parse(null)
        {"no content", "", kParse, "Cannot parse <null> schema"},
        {"whitespace only", "  \n ", kParse, "Cannot parse <null> schema"},
        // getRequiredText(schema, "type", "No type")
        {"object without type", "{}", kParse, "No type: {}"},
        {"non-text type", R"({"type":5})", kParse, R"(No type: {"type":5})"},
        {"nested type object is not a type name", R"({"type":{"type":"int"}})", kParse, R"(No type: {"type":{"type":"int"}})"},
        // textual schema: names.get -> "Undefined name: " + node
        {"unknown top-level name", R"("Foo")", kParse, R"(Undefined name: "Foo")"},
        // neither text, object nor array
        {"number as schema", "5", kParse, "Schema not yet supported: 5"},
        {"boolean as schema", "true", kParse, "Schema not yet supported: true"},
        // object with an unknown type name
        {"unknown type in object", R"({"type":"foo"})", kParse, "Type not supported: foo"},
        // named types: getRequiredText(schema, "name", "No name in schema")
        {"record without name", R"({"type":"record","fields":[]})", kParse, R"(No name in schema: {"type":"record","fields":[]})"},
        {"record without fields", R"({"type":"record","name":"R"})", kParse, R"(Record has no fields: {"type":"record","name":"R"})"},
        {"record fields not an array", R"({"type":"record","name":"R","fields":{}})", kParse,
         R"(Record has no fields: {"type":"record","name":"R","fields":{}})"},
        // validateName
        {"illegal initial character", R"({"type":"record","name":"1R","fields":[]})", kParse, "Illegal initial character: 1R"},
        {"illegal character", R"({"type":"record","name":"R-x","fields":[]})", kParse, "Illegal character in: R-x"},
        {"empty name", R"({"type":"record","name":"","fields":[]})", kParse, "Empty name"},
        {"dotted name validates its last part", R"({"type":"record","name":"a.b.9c","fields":[]})", kParse, "Illegal initial character: 9c"},
        // fields
        {"field without name", R"({"type":"record","name":"R","fields":[{"type":"int"}]})", kParse, R"(No field name: {"type":"int"})"},
        {"field without type", R"({"type":"record","name":"R","fields":[{"name":"a"}]})", kParse, R"(No field type: {"name":"a"})"},
        {"field type not defined", R"({"type":"record","name":"R","fields":[{"name":"a","type":"Foo"}]})", kParse,
         R"("Foo" is not a defined name. The type of the "a" field must be a defined name or a {"type": ...} expression.)"},
        {"field type name is validated during lookup", R"({"type":"record","name":"R","fields":[{"name":"a","type":"my-type"}]})", kParse,
         "Illegal character in: my-type"},
        {"illegal field name", R"({"type":"record","name":"R","fields":[{"name":"1a","type":"int"}]})", kParse, "Illegal initial character: 1a"},
        // RecordSchema.setFields: AvroRuntimeException, not a parse exception
        {"duplicate field", R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"a","type":"string"}]})", kRuntime,
         "Duplicate field a in record R: a type:STRING pos:1 and a type:INT pos:0."},
        // Names.put
        {"redefined name", R"({"type":"record","name":"R","fields":[{"name":"a","type":{"type":"record","name":"R","fields":[]}}]})", kParse,
         "Can't redefine: R"},
        {"redefined namespaced name", R"({"type":"record","name":"n.R","fields":[{"name":"a","type":{"type":"enum","name":"R","symbols":["A"]}}]})",
         kParse, "Can't redefine: n.R"},
        // NamedSchema constructor
        {"named after a primitive", R"({"type":"record","name":"int","fields":[]})", kType, "Schemas may not be named after primitives: int"},
        // enums
        {"enum without symbols", R"({"type":"enum","name":"E"})", kParse, R"(Enum has no symbols: {"type":"enum","name":"E"})"},
        {"duplicate enum symbol", R"({"type":"enum","name":"E","symbols":["A","A"]})", kParse, "Duplicate enum symbol: A"},
        {"illegal enum symbol", R"({"type":"enum","name":"E","symbols":["1A"]})", kParse, "Illegal initial character: 1A"},
        {"enum default not a symbol (1.9+)", R"({"type":"enum","name":"E","symbols":["A","B"],"default":"C"})", kParse,
         "The Enum Default: C is not in the enum symbol set: [A, B]"},
        // arrays, maps, fixed
        {"array without items", R"({"type":"array"})", kParse, R"(Array has no items type: {"type":"array"})"},
        {"map without values", R"({"type":"map"})", kParse, R"(Map has no values type: {"type":"map"})"},
        {"fixed without size", R"({"type":"fixed","name":"F"})", kParse, R"(Invalid or no size: {"type":"fixed","name":"F"})"},
        {"fixed size as text", R"({"type":"fixed","name":"F","size":"16"})", kParse, R"(Invalid or no size: {"type":"fixed","name":"F","size":"16"})"},
        // UnionSchema constructor: AvroRuntimeException
        {"duplicate union branch", R"(["int","int"])", kRuntime, "Duplicate in union:int"},
        {"nested union", R"(["int",["string"]])", kRuntime, R"(Nested union: ["int",["string"]])"},
        // parseAliases
        {"aliases not an array", R"({"type":"record","name":"R","fields":[],"aliases":"x"})", kParse,
         R"(aliases not an array: {"type":"record","name":"R","fields":[],"aliases":"x"})"},
        {"alias not a string", R"({"type":"record","name":"R","fields":[],"aliases":[1]})", kParse, "alias not a string: 1"},
        // Parser.parse(JsonParser, false): dangling content (1.11.3+ in our model)
        {"dangling content", R"({"type":"int"} x)", kParse, "dangling content after end of schema: x"},
        // Field.Order.valueOf: IllegalArgumentException escapes the parser
        {"unknown field order", R"({"type":"record","name":"R","fields":[{"name":"a","type":"int","order":"up"}]})",
         "java.lang.IllegalArgumentException", "No enum constant org.apache.avro.Schema.Field.Order.UP"},
        // textual float/double default: Double.valueOf
        {"textual double default not a number", R"({"type":"record","name":"R","fields":[{"name":"d","type":"double","default":"abc"}]})",
         "java.lang.NumberFormatException", R"(For input string: "abc")"},
    };
    for (const auto& row : rows) {
        INFO(row.rule << ": " << row.definition);
        auto r = parse112(row.definition);
        REQUIRE_FALSE(r.ok());
        CHECK(r.failure->cls == row.cls);
        CHECK(r.failure->message == row.message);
        CHECK(avroParseError(row.definition, CheckOptions{}) == std::optional<std::string>(row.message));
    }
    STATIC_REQUIRE(sizeof rows / sizeof rows[0] >= 25);
}

TEST_CASE("valid Avro definitions parse", "[avro][parse]") {
    const char* valid[] = {
        R"("int")",
        R"({"type":"string","logicalType":"uuid"})",                             // logical types are annotations (props)
        R"({"type":"error","name":"Err","fields":[]})",                           // "error" is a record
        R"({"type":"record","name":"R","fields":[{"name":"a","type":"int","default":"not an int"}]})",  // defaults not validated (§6.3)
        R"({"type":"record","name":"R","fields":[{"name":"f","type":{"type":"fixed","name":"F","size":4}},{"name":"g","type":"F"}]})",
        R"({"type":"record","name":"a.b.R","fields":[{"name":"e","type":{"type":"enum","name":"E","symbols":["X"]}},{"name":"f","type":"a.b.E"}]})",
        R"({"type":"record","name":"L","fields":[{"name":"next","type":["null","L"]}]})",  // recursion by name
        R"({"type":"record","name":"N","fields":[{"name":"next","type":"N"}]})",          // direct self-recursion parses
        R"(// comment
           {"type":"map","values":"long"})",                                       // ALLOW_COMMENTS
        R"({"type":"record","name":"R","fields":[{"name":"d","type":"double","default":"NaN"}]})",
        R"({"type":"enum","name":"E","symbols":["A"],"default":"A"})",
        R"({"type":"record","name":"R","namespace":"","fields":[]})",             // empty namespace = null
    };
    for (const char* d : valid) {
        INFO(d);
        auto r = parse112(d);
        CHECK(r.ok());
        if (!r.ok()) WARN(r.failure->toString());
    }
}

TEST_CASE("name resolution follows the Avro full-name rules", "[avro][parse]") {
    // Inner named types inherit the enclosing namespace; a dotted name sets its own.
    auto r = parse112(R"({"type":"record","name":"R","namespace":"a","fields":[
        {"name":"x","type":{"type":"enum","name":"E","symbols":["A"]}},
        {"name":"y","type":{"type":"fixed","name":"b.F","size":1}},
        {"name":"z","type":"a.E"},
        {"name":"w","type":"E"},
        {"name":"v","type":{"type":"record","name":"S","namespace":"c","fields":[{"name":"u","type":"b.F"}]}}]})");
    REQUIRE(r.ok());
    const auto& root = r.schema->rootNode();
    CHECK(root.name.full == "a.R");
    CHECK(r.schema->at(root.fields[0].type).name.full == "a.E");
    CHECK(r.schema->at(root.fields[1].type).name.full == "b.F");
    CHECK(root.fields[2].type == root.fields[0].type);
    CHECK(root.fields[3].type == root.fields[0].type);
    CHECK(r.schema->at(root.fields[4].type).name.full == "c.S");
    // A name defined in the null namespace is found from inside a namespace (Names.get fallback).
    CHECK(parse112(R"(["null",{"type":"record","name":"T","fields":[{"name":"t","type":{"type":"record","name":"q.U","fields":[{"name":"b","type":"T"}]}}]}])").ok());
}

TEST_CASE("version switches of the parser", "[avro][parse][versions]") {
    const char* enumWithBadDefault = R"({"type":"enum","name":"E","symbols":["A"],"default":"Z"})";
    // 1.8.2 had no enum defaults: "default" was an ordinary property.
    CHECK(av::parse(enumWithBadDefault, {AvroVersion::v1_8_2, false}).ok());
    CHECK_FALSE(av::parse(enumWithBadDefault, {AvroVersion::v1_9_1, false}).ok());
    // Dangling content is ignored before the 1.11 parser (UNCONFIRMED for 1.9/1.10).
    CHECK(av::parse(R"("int" trailing)", {AvroVersion::v1_10_2, false}).ok());
    // Pulsar 4.2 compatible name validator accepts '$' (§4.5).
    const char* dollar = R"({"type":"record","name":"Outer$Inner","fields":[]})";
    CHECK(av::parse(dollar, {AvroVersion::v1_12_0, true}).ok());
    CHECK(av::parse(dollar, {AvroVersion::v1_11_4, false}).failure->message == "Illegal character in: Outer$Inner");
}

TEST_CASE("deep nesting is refused, not a crash", "[avro][parse][limits]") {
    std::string deep;
    for (int i = 0; i < 10000; ++i) deep += R"({"type":"array","items":)";
    deep += R"("int")";
    for (int i = 0; i < 10000; ++i) deep += "}";
    auto r = parse112(deep);
    REQUIRE_FALSE(r.ok());
    CHECK(r.failure->cls == kParse);
    CHECK(r.failure->message.find("StreamConstraintsException") != std::string::npos);
}

TEST_CASE("Schema.toString(true) matches Jackson's pretty printer", "[avro][json]") {
    auto r = parse112(R"({"type":"record","name":"U","namespace":"n","doc":"d","fields":[
        {"name":"a","type":["null","string"],"default":null},
        {"name":"b","type":{"type":"array","items":"U"}},
        {"name":"c","type":{"type":"map","values":{"type":"int","logicalType":"date"}},"aliases":["cc"]},
        {"name":"d","type":"double","default":1e10}],"aliases":["V"],"x-prop":{"k":[]}})");
    REQUIRE(r.ok());
    const std::string expected =
        "{\n"
        "  \"type\" : \"record\",\n"
        "  \"name\" : \"U\",\n"
        "  \"namespace\" : \"n\",\n"
        "  \"doc\" : \"d\",\n"
        "  \"fields\" : [ {\n"
        "    \"name\" : \"a\",\n"
        "    \"type\" : [ \"null\", \"string\" ],\n"
        "    \"default\" : null\n"
        "  }, {\n"
        "    \"name\" : \"b\",\n"
        "    \"type\" : {\n"
        "      \"type\" : \"array\",\n"
        "      \"items\" : \"U\"\n"
        "    }\n"
        "  }, {\n"
        "    \"name\" : \"c\",\n"
        "    \"type\" : {\n"
        "      \"type\" : \"map\",\n"
        "      \"values\" : {\n"
        "        \"type\" : \"int\",\n"
        "        \"logicalType\" : \"date\"\n"
        "      }\n"
        "    },\n"
        "    \"aliases\" : [ \"cc\" ]\n"
        "  }, {\n"
        "    \"name\" : \"d\",\n"
        "    \"type\" : \"double\",\n"
        "    \"default\" : 1.0E10\n"
        "  } ],\n"
        "  \"x-prop\" : {\n"
        "    \"k\" : [ ]\n"
        "  },\n"
        "  \"aliases\" : [ \"V\" ]\n"
        "}";
    CHECK(av::toJsonText(*r.schema, true) == expected);
    CHECK(av::toJsonText(*r.schema, false).rfind(R"({"type":"record","name":"U","namespace":"n","doc":"d","fields":[{"name":"a")", 0) == 0);
}

TEST_CASE("Java Double.toString layout", "[avro][json]") {
    CHECK(av::javaDoubleToString(1.0) == "1.0");
    CHECK(av::javaDoubleToString(0.5) == "0.5");
    CHECK(av::javaDoubleToString(1e7) == "1.0E7");
    CHECK(av::javaDoubleToString(9999999.0) == "9999999.0");
    CHECK(av::javaDoubleToString(0.001) == "0.001");
    CHECK(av::javaDoubleToString(0.0001) == "1.0E-4");
    CHECK(av::javaDoubleToString(-123.25) == "-123.25");
}
