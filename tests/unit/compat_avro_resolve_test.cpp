// Reader/writer resolution as Avro's resolving grammar decides it (§6.3).
// Rules come from apache/avro Resolver.java / ResolvingGrammarGenerator.java /
// Symbol.java (read; see avro_resolve.cc). Each row: writer, reader, expected
// verdict, and the rule it encodes. "ALL" = every modelled Avro version.

#include <catch2/catch.hpp>

#include <string>

#include "broker_model/compat/avro/avro_resolve.h"
#include "broker_model/compat/avro/avro_schema.h"

using namespace cnx::compat;
namespace av = cnx::compat::avro;

namespace {

const AvroVersion kAll[] = {AvroVersion::v1_8_2, AvroVersion::v1_9_1, AvroVersion::v1_10_2,
                            AvroVersion::v1_11_3, AvroVersion::v1_11_4, AvroVersion::v1_12_0};

av::Resolution resolve(const std::string& writer, const std::string& reader, AvroVersion v) {
    auto w = av::parse(writer, {v, false});
    auto r = av::parse(reader, {v, false});
    REQUIRE(w.ok());
    REQUIRE(r.ok());
    return av::canRead(*w.schema, *r.schema, v);
}

struct Row {
    std::string rule;
    std::string writer;  // owned: rows are built from temporaries
    std::string reader;
    Verdict expected;
};

void runAll(const Row* rows, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        for (AvroVersion v : kAll) {
            INFO(rows[i].rule << " @ Avro " << to_string_view(v));
            CHECK(resolve(rows[i].writer, rows[i].reader, v).verdict == rows[i].expected);
        }
    }
}

std::string rec(const std::string& name, const std::string& fields) {
    return R"({"type":"record","name":")" + name + R"(","fields":[)" + fields + "]}";
}

constexpr Verdict OK = Verdict::compatible;
constexpr Verdict NO = Verdict::incompatible;
constexpr Verdict ERR = Verdict::error;

}  // namespace

TEST_CASE("promotions", "[avro][resolve][promotions]") {
    const Row rows[] = {
        // Resolver.Promote.isValid / old generate() reader-type switch
        {"int -> long", R"("int")", R"("long")", OK},
        {"int -> float", R"("int")", R"("float")", OK},
        {"int -> double", R"("int")", R"("double")", OK},
        {"long -> float", R"("long")", R"("float")", OK},
        {"long -> double", R"("long")", R"("double")", OK},
        {"float -> double", R"("float")", R"("double")", OK},
        {"string -> bytes", R"("string")", R"("bytes")", OK},
        {"bytes -> string", R"("bytes")", R"("string")", OK},
        {"long -> int is not a promotion", R"("long")", R"("int")", NO},
        {"double -> float is not a promotion", R"("double")", R"("float")", NO},
        {"float -> long is not a promotion", R"("float")", R"("long")", NO},
        {"int -> string", R"("int")", R"("string")", NO},
        {"boolean -> int", R"("boolean")", R"("int")", NO},
        {"null -> string", R"("null")", R"("string")", NO},
        {"same primitive", R"("boolean")", R"("boolean")", OK},
        {"array items promote", R"({"type":"array","items":"int"})", R"({"type":"array","items":"long"})", OK},
        {"map values do not demote", R"({"type":"map","values":"long"})", R"({"type":"map","values":"int"})", NO},
        {"array vs map", R"({"type":"array","items":"int"})", R"({"type":"map","values":"int"})", NO},
        {"logical types are annotations only", R"({"type":"int","logicalType":"date"})", R"({"type":"long","logicalType":"timestamp-millis"})", OK},
    };
    runAll(rows, std::size(rows));
}

TEST_CASE("records: names never compared, fields by name, defaults", "[avro][resolve][records]") {
    const Row rows[] = {
        // §6.3: "the names of W and R are never compared" (Resolver.RecordAdjust comment)
        {"record names differ", rec("A", R"({"name":"x","type":"int"})"), rec("B", R"({"name":"x","type":"int"})"), OK},
        {"writer-only field skipped", rec("R", R"({"name":"x","type":"int"},{"name":"y","type":"string"})"),
         rec("R", R"({"name":"x","type":"int"})"), OK},
        {"reader field without default missing", rec("R", R"({"name":"x","type":"int"})"),
         rec("R", R"({"name":"x","type":"int"},{"name":"y","type":"string"})"), NO},
        {"reader field with default", rec("R", R"({"name":"x","type":"int"})"),
         rec("R", R"({"name":"x","type":"int"},{"name":"y","type":"string","default":"d"})"), OK},
        {"field order irrelevant", rec("R", R"({"name":"x","type":"int"},{"name":"y","type":"long"})"),
         rec("R", R"({"name":"y","type":"long"},{"name":"x","type":"int"})"), OK},
        {"field type mismatch", rec("R", R"({"name":"x","type":"string"})"), rec("R", R"({"name":"x","type":"int"})"), NO},
        {"nullable default null for [null, T]", rec("R", ""), rec("R", R"({"name":"o","type":["null","int"],"default":null})"), OK},
        {"record vs primitive", rec("R", ""), R"("int")", NO},
        // §6.3: a default that does not encode makes the validator throw (Verdict::error)
        {"bad default needed -> throws", rec("R", ""), rec("R", R"({"name":"y","type":"int","default":"abc"})"), ERR},
        {"bad default not needed -> no throw", rec("R", R"({"name":"y","type":"int"})"),
         rec("R", R"({"name":"y","type":"int","default":"abc"})"), OK},
        {"bad record default throws", rec("R", ""),
         rec("R", R"({"name":"y","type":{"type":"record","name":"S","fields":[{"name":"z","type":"int"}]},"default":{}})"), ERR},
    };
    runAll(rows, std::size(rows));
}

TEST_CASE("missing-field message names the last missing field from 1.9, the first in 1.8.2", "[avro][resolve][versions]") {
    std::string w = rec("R", R"({"name":"x","type":"int"})");
    std::string r = rec("R", R"({"name":"x","type":"int"},{"name":"a","type":"int"},{"name":"b","type":"int"})");
    auto v12 = resolve(w, r, AvroVersion::v1_12_0);
    REQUIRE(v12.problems.size() == 1);
    CHECK(v12.problems[0].kind == "reader_field_missing_default_value");
    CHECK(v12.problems[0].path == "/fields/1");
    CHECK(v12.problems[0].detail == "Found R, expecting R, missing required field b");
    CHECK(resolve(w, r, AvroVersion::v1_8_2).problems[0].detail == "Found R, expecting R, missing required field a");
}

TEST_CASE("problems carry reader paths and fragments", "[avro][resolve][problems]") {
    std::string w = rec("R", R"({"name":"a","type":"int"},{"name":"b","type":{"type":"array","items":"string"}},{"name":"c","type":"long"})");
    std::string r = rec("R", R"({"name":"c","type":"int"},{"name":"a","type":"int"},{"name":"b","type":{"type":"array","items":"int"}})");
    auto res = resolve(w, r, AvroVersion::v1_11_4);
    CHECK(res.verdict == NO);
    REQUIRE(res.problems.size() == 2);  // collected across the whole recursion
    CHECK(res.problems[0].path == "/fields/2/type/items");
    CHECK(res.problems[0].kind == "type_mismatch");
    CHECK(res.problems[0].detail == "Found string, expecting int");
    CHECK(res.problems[0].writer == R"("string")");
    CHECK(res.problems[1].path == "/fields/0/type");
    CHECK(res.problems[1].detail == "Found long, expecting int");
}

TEST_CASE("enums: names compared, symbols never", "[avro][resolve][enums]") {
    const Row rows[] = {
        // §6.3: a missing symbol is a decode-time failure, not an error symbol
        {"reader lacks a writer symbol", R"({"type":"enum","name":"E","symbols":["A","B","C"]})", R"({"type":"enum","name":"E","symbols":["A"]})", OK},
        {"symbols reordered", R"({"type":"enum","name":"E","symbols":["A","B"]})", R"({"type":"enum","name":"E","symbols":["B","A"]})", OK},
        {"enum names differ", R"({"type":"enum","name":"E","symbols":["A"]})", R"({"type":"enum","name":"F","symbols":["A"]})", NO},
        {"enum vs string", R"({"type":"enum","name":"E","symbols":["A"]})", R"("string")", NO},
    };
    runAll(rows, std::size(rows));
}

TEST_CASE("enum and fixed namespaces: full names up to 1.10, short names from 1.11 (AVRO-3133)", "[avro][resolve][versions]") {
    const char* we = R"({"type":"enum","name":"a.E","symbols":["X"]})";
    const char* re = R"({"type":"enum","name":"b.E","symbols":["X"]})";
    const char* wf = R"({"type":"fixed","name":"a.F","size":2})";
    const char* rf = R"({"type":"fixed","name":"b.F","size":2})";
    for (AvroVersion v : {AvroVersion::v1_8_2, AvroVersion::v1_9_1, AvroVersion::v1_10_2}) {
        CHECK(resolve(we, re, v).verdict == NO);
        CHECK(resolve(wf, rf, v).verdict == NO);
    }
    for (AvroVersion v : {AvroVersion::v1_11_3, AvroVersion::v1_11_4, AvroVersion::v1_12_0}) {
        CHECK(resolve(we, re, v).verdict == OK);
        CHECK(resolve(wf, rf, v).verdict == OK);
    }
}

TEST_CASE("fixed: names and sizes", "[avro][resolve][fixed]") {
    const Row rows[] = {
        {"same fixed", R"({"type":"fixed","name":"F","size":4})", R"({"type":"fixed","name":"F","size":4})", OK},
        {"size differs", R"({"type":"fixed","name":"F","size":4})", R"({"type":"fixed","name":"F","size":8})", NO},
        {"name differs", R"({"type":"fixed","name":"F","size":4})", R"({"type":"fixed","name":"G","size":4})", NO},
        {"fixed vs bytes", R"({"type":"fixed","name":"F","size":4})", R"("bytes")", NO},
    };
    runAll(rows, std::size(rows));
    auto res = resolve(R"({"type":"fixed","name":"F","size":4})", R"({"type":"fixed","name":"F","size":8})", AvroVersion::v1_12_0);
    CHECK(res.problems.at(0).kind == "fixed_size_mismatch");
}

TEST_CASE("unions", "[avro][resolve][unions]") {
    const Row rows[] = {
        // writer union: every branch must resolve against the reader
        {"writer union, reader has all branches", R"(["null","int"])", R"(["null","int","string"])", OK},
        {"writer union branch unreadable", R"(["null","int","string"])", R"(["null","int"])", NO},
        {"writer union vs non-union reader", R"(["null","int"])", R"("int")", NO},
        {"writer union branches promote into reader", R"(["int","long"])", R"("double")", OK},
        // reader union: first matching branch (same type, then promotion)
        {"non-union writer, reader union same type", R"("int")", R"(["null","int"])", OK},
        {"non-union writer promotes into reader branch", R"("int")", R"(["null","double"])", OK},
        {"string into bytes branch", R"("string")", R"(["null","bytes"])", OK},
        {"no matching branch", R"("boolean")", R"(["null","int"])", NO},
        {"union reordered", R"(["int","null"])", R"(["null","int"])", OK},
        {"record branch matched by full name", rec("R", R"({"name":"x","type":"int"})"),
         ("[\"null\"," + rec("R", R"({"name":"x","type":"int"})") + "]"), OK},
        {"record branch matched by structure despite other name", rec("A", R"({"name":"x","type":"int"})"),
         ("[\"null\"," + rec("B", R"({"name":"x","type":"int"})") + "]"), OK},
        {"record branch without structure match", rec("A", R"({"name":"x","type":"int"})"),
         ("[\"null\"," + rec("B", R"({"name":"y","type":"int"})") + "]"), NO},
        {"enum branch needs the same full name", R"({"type":"enum","name":"E","symbols":["A"]})",
         R"(["null",{"type":"enum","name":"F","symbols":["A"]}])", NO},
    };
    runAll(rows, std::size(rows));
    auto res = resolve(R"("boolean")", R"(["null","int"])", AvroVersion::v1_12_0);
    CHECK(res.problems.at(0).kind == "missing_union_branch");
    CHECK(res.problems.at(0).detail == "Found boolean, expecting union");
}

TEST_CASE("aliases apply from Avro 1.9 (Schema.applyAliases in Resolver.resolve), not in 1.8.2", "[avro][resolve][aliases][versions]") {
    std::string w = rec("R", R"({"name":"old","type":"int"})");
    std::string r = rec("R", R"({"name":"new","type":"int","aliases":["old"]})");
    CHECK(resolve(w, r, AvroVersion::v1_8_2).verdict == NO);
    CHECK(resolve(w, r, AvroVersion::v1_9_1).verdict == OK);
    CHECK(resolve(w, r, AvroVersion::v1_12_0).verdict == OK);
    // Field aliases are keyed by the reader record's name: a renamed record needs a type alias too.
    std::string w2 = rec("Old", R"({"name":"old","type":"int"})");
    std::string r2 = rec("New", R"({"name":"new","type":"int","aliases":["old"]})");
    CHECK(resolve(w2, r2, AvroVersion::v1_12_0).verdict == NO);
    std::string r3 = R"({"type":"record","name":"New","aliases":["Old"],"fields":[{"name":"new","type":"int","aliases":["old"]}]})";
    CHECK(resolve(w2, r3, AvroVersion::v1_12_0).verdict == OK);
    // Enum type alias.
    const char* we = R"({"type":"enum","name":"E1","symbols":["A"]})";
    const char* re = R"({"type":"enum","name":"E2","aliases":["E1"],"symbols":["A"]})";
    CHECK(resolve(we, re, AvroVersion::v1_8_2).verdict == NO);
    CHECK(resolve(we, re, AvroVersion::v1_10_2).verdict == OK);
}

TEST_CASE("recursion", "[avro][resolve][recursion]") {
    std::string list = rec("L", R"({"name":"v","type":"int"},{"name":"next","type":["null","L"]})");
    std::string list2 = rec("L", R"({"name":"v","type":"long"},{"name":"next","type":["null","L"]})");
    // Recursion through a union: memoised since 1.9; 1.8.2's hasErrors recursed forever (§6.3).
    CHECK(resolve(list, list, AvroVersion::v1_8_2).verdict == ERR);
    CHECK(resolve(list, list2, AvroVersion::v1_8_2).verdict == ERR);
    for (AvroVersion v : {AvroVersion::v1_9_1, AvroVersion::v1_10_2, AvroVersion::v1_11_4, AvroVersion::v1_12_0}) {
        CHECK(resolve(list, list, v).verdict == OK);
        CHECK(resolve(list, list2, v).verdict == OK);
        CHECK(resolve(list2, list, v).verdict == NO);
    }
    // 1.8.2: an error found before the search reaches the cycle decides (fields searched last to first).
    std::string bad = rec("L", R"({"name":"next","type":["null","L"]},{"name":"v","type":"string"})");
    std::string badReader = rec("L", R"({"name":"next","type":["null","L"]},{"name":"v","type":"int"})");
    CHECK(resolve(bad, badReader, AvroVersion::v1_8_2).verdict == NO);
    // Direct self-recursion (no union/array/map): flattenedSize never ends, every version (§6.3).
    std::string direct = rec("N", R"({"name":"next","type":"N"})");
    for (AvroVersion v : kAll) {
        auto r = resolve(direct, direct, v);
        CHECK(r.verdict == ERR);
        CHECK(r.thrown->cls == "java.lang.StackOverflowError");
    }
    // Through an array: a repeater meets itself and is skipped, also in 1.8.2.
    std::string tree = rec("T", R"({"name":"kids","type":{"type":"array","items":"T"}})");
    for (AvroVersion v : kAll) CHECK(resolve(tree, tree, v).verdict == OK);
    // Mutual recursion through two arrays loops in 1.8.2 (two repeaters).
    std::string mutual = R"({"type":"record","name":"A","fields":[{"name":"bs","type":{"type":"array","items":{"type":"record","name":"B","fields":[{"name":"as","type":{"type":"array","items":"A"}}]}}}]})";
    CHECK(resolve(mutual, mutual, AvroVersion::v1_8_2).verdict == ERR);
    CHECK(resolve(mutual, mutual, AvroVersion::v1_12_0).verdict == OK);
}

TEST_CASE("10,000-level nesting through named records does not crash", "[avro][resolve][limits]") {
    // Deep chain of records defined one inside the other up to the JSON nesting limit.
    std::string def;
    const int depth = 300;
    for (int i = 0; i < depth; ++i) def += R"({"type":"record","name":"R)" + std::to_string(i) + R"(","fields":[{"name":"f","type":)";
    def += R"("int")";
    for (int i = 0; i < depth; ++i) def += "}]}";
    auto r = resolve(def, def, AvroVersion::v1_12_0);
    CHECK(r.verdict == OK);
}

TEST_CASE("records of 10,000 fields resolve", "[avro][resolve][limits]") {
    std::string fields;
    for (int i = 0; i < 10000; ++i) fields += (i ? "," : "") + std::string(R"({"name":"f)") + std::to_string(i) + R"(","type":"int"})";
    std::string s = rec("Big", fields);
    CHECK(resolve(s, s, AvroVersion::v1_12_0).verdict == OK);
}
