// The quick path of the Avro parser (avro_quick_parse.h, issue 14): where it
// takes a definition, it must build exactly the compact tables, root and
// summaries the full parser builds, and the full parser must accept it; where
// it declines, parse() must answer exactly as the full parser alone.

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "broker_model/compat/avro/avro_check.h"
#include "broker_model/compat/avro/avro_quick_parse.h"
#include "broker_model/compat/avro/avro_schema.h"
#include "broker_model/runtime/large_stack.h"
#include "broker_model/profile/profile.h"
#include "tests/differential/schema_generator.h"

using namespace cnx::compat;
namespace av = cnx::compat::avro;

namespace {

constexpr AvroVersion kVersions[] = {AvroVersion::v1_8_2,  AvroVersion::v1_9_1,  AvroVersion::v1_10_2,
                                     AvroVersion::v1_11_3, AvroVersion::v1_11_4, AvroVersion::v1_12_0};

av::ParseOptions opts(AvroVersion v = AvroVersion::v1_12_0, bool dollar = false) { return {v, dollar}; }

// True when the quick path took `def`; fails the test where it took it and disagrees with the full parser.
bool quickAgrees(const std::string& def, const av::ParseOptions& o) {
    INFO("definition: " << def);
    std::shared_ptr<av::Schema> quick = av::quickParse(def, o);
    av::ParseResult full = av::parseFull(def, o);
    av::ParseResult viaParse = av::parse(def, o);
    REQUIRE(viaParse.ok() == full.ok());
    if (!full.ok()) {
        REQUIRE(quick == nullptr);
        REQUIRE(viaParse.failure->cls == full.failure->cls);
        REQUIRE(viaParse.failure->message == full.failure->message);
        return false;
    }
    if (!quick) return false;
    // The quick path measures the text's JSON nesting as it goes: the scan's figure.
    REQUIRE(viaParse.nesting == std::optional<std::size_t>(jsonNesting(def)));
    const av::Schema& f = *full.schema;
    REQUIRE(quick->nodesDeferred());
    REQUIRE(quick->root == f.root);
    REQUIRE(quick->recursive == f.recursive);
    REQUIRE(quick->hasAliases == f.hasAliases);
    REQUIRE(quick->compact.nodes == f.compact.nodes);
    REQUIRE(quick->compact.fields == f.compact.fields);
    REQUIRE(quick->compact.branches == f.compact.branches);
    REQUIRE(quick->compact.slots == f.compact.slots);
    REQUIRE(quick->compact.names == f.compact.names);
    REQUIRE(quick->compact == f.compact);
    REQUIRE(quick->nodeCount() == f.nodes().size());
    // The deferred model, once built, is the full parser's.
    REQUIRE(av::schemaEquals(*quick, f));
    REQUIRE_FALSE(quick->nodesDeferred());
    REQUIRE(av::toJsonText(*quick, false) == av::toJsonText(f, false));
    return true;
}

// The same JSON with every object's keys in a shuffled order.
nlohmann::ordered_json shuffled(const nlohmann::ordered_json& j, std::mt19937& rng) {
    if (j.is_array()) {
        nlohmann::ordered_json out = nlohmann::ordered_json::array();
        for (const auto& e : j) out.push_back(shuffled(e, rng));
        return out;
    }
    if (!j.is_object()) return j;
    std::vector<std::string> keys;
    for (const auto& [k, v] : j.items()) keys.push_back(k);
    std::shuffle(keys.begin(), keys.end(), rng);
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const auto& k : keys) out[k] = shuffled(j.at(k), rng);
    return out;
}

}  // namespace

TEST_CASE("the quick Avro parse takes plain definitions and builds the full parser's graph", "[avro][parse][quick]") {
    const char* taken[] = {
        R"({"type":"record","name":"Wide","namespace":"org.cnxsim.bench","fields":[{"name":"f0","type":"int"},{"name":"f1","type":"long"},{"name":"f2","type":"string"},{"name":"added","type":["null","long"],"default":null}]})",
        R"({"type":"record","name":"E","fields":[]})",
        R"({"type":"error","name":"Oops","fields":[{"name":"why","type":"string"}]})",
        R"(  {"name":"R","type":"record","fields":[{"type":"int","name":"a"}]} )",
        "{\n  \"type\" : \"record\",\r\n\t\"name\" : \"R\",\n  \"fields\" : [ { \"name\" : \"a\" , \"type\" : \"int\" } ]\n}\n\f\v",
        R"(["null","int","string",{"type":"map","values":"long"},{"type":"array","items":"int"}])",
        R"([])",
        R"({"type":"int"})",
        R"({"type":"string","avro.java.string":"String","logicalType":"x","fields":7,"aliases-like":[1,2]})",
        R"({"type":"array","items":{"type":"record","name":"I","fields":[{"name":"x","type":"double","default":1}]}})",
        R"({"type":"map","values":["null",{"type":"fixed","name":"F","size":16}]})",
        R"({"type":"fixed","size":-3,"name":"neg.F"})",
        // namespaces: inherited, explicit, dotted, the null one, references in either
        R"({"type":"record","name":"Outer","namespace":"a.b","fields":[{"name":"in","type":{"type":"record","name":"Inner","fields":[]}},{"name":"again","type":"Inner"},{"name":"full","type":"a.b.Inner"},{"name":"other","type":{"type":"record","name":"x.y.Z","fields":[{"name":"z","type":"Z"}]}},{"name":"back","type":"Outer"}]})",
        R"({"type":"record","name":"Top","fields":[{"name":"n","type":{"type":"fixed","name":"N","namespace":"","size":1}},{"name":"m","type":"N"}]})",
        R"({"type":"record","name":"R","namespace":"ns","fields":[{"name":"a","type":{"type":"record","name":"G","namespace":"","fields":[]}},{"name":"b","type":"G"}]})",
        R"({"type":"record","name":"Ref","fields":[{"name":"a","type":{"type":"fixed","name":"F","size":2}},{"name":"b","type":{"type":"F"}},{"name":"c","type":{"type":"F","props":"ignored"}}]})",
        // recursion
        R"({"type":"record","name":"Node","fields":[{"name":"next","type":["null","Node"],"default":null},{"name":"kids","type":{"type":"array","items":"Node"}}]})",
        // field details: docs, props, orders, defaults of every shape
        R"({"type":"record","name":"D","doc":"a record","fields":[{"name":"a","type":"int","doc":"x","order":"descending","default":0},{"name":"b","type":"string","order":"IGNORE","default":"text"},{"name":"c","type":{"type":"map","values":"int"},"default":{"k":[1,2,{"z":null}]},"order":"Ascending"},{"name":"d","type":["string","null"],"default":null},{"name":"e","type":"null","default":null},{"name":"f","type":["null","int"],"default":7},{"name":"g","type":"boolean","default":true,"my-prop":{"deep":[[],{}]}},{"name":"h","type":"double","default":-12}]})",
        R"({"type":"record","name":"Num","fields":[{"name":"a","type":"double","default":1.5},{"name":"b","type":"float","default":-0.5E-3},{"name":"c","type":"double","default":2.5e+10},{"name":"d","type":"long","default":-9223372036854775808},{"name":"e","type":"long","default":18446744073709551615}]})",
        R"({"type":"record","name":"Dup","fields":[{"name":"a","type":"int","default":{"x":1,"x":2}}]})",
        // the same primitive many times: one shared node
        R"({"type":"record","name":"S","fields":[{"name":"a","type":"int"},{"name":"b","type":"int"},{"name":"c","type":["null","int"]},{"name":"d","type":{"type":"int"}}]})",
        // unions of records: several record branches
        R"(["null",{"type":"record","name":"A","fields":[]},{"type":"record","name":"B","fields":[{"name":"a","type":"A"}]}])",
        R"({"type":"record","name":"R","fields":[{"name":"u","type":[{"type":"array","items":"int"},{"type":"record","name":"array2","fields":[]}]}]})",
        R"({"type":"record","name":"R","fields":[],"trailing-prop":1,"doc":"after the fields is fine"})",
        // enums: symbols anywhere in the object, defaults, in unions and fields
        R"({"type":"enum","name":"E","symbols":["A","B","C"]})",
        R"({"symbols":[],"name":"x.E","type":"enum","doc":"d"})",
        R"({"type":"enum","name":"E","symbols":["A","B"],"default":"B"})",
        R"({"type":"enum","name":"E","symbols":["A","B"],"default":5})",
        R"(["null",{"type":"enum","name":"E","namespace":"n","symbols":["Z","Y","X"]},{"type":"record","name":"R","namespace":"n","fields":[{"name":"e","type":"E","default":"Z"},{"name":"f","type":{"type":"enum","name":"F","symbols":["S"]}}]}])",
    };
    for (const char* def : taken) {
        for (AvroVersion v : kVersions) {
            INFO("version " << static_cast<int>(v));
            REQUIRE(quickAgrees(def, opts(v)));
        }
    }
    // An enum default that is not a symbol: a prop before Avro 1.9, an error from it.
    const std::string badDefault = R"({"type":"enum","name":"E","symbols":["A"],"default":"Q"})";
    REQUIRE(quickAgrees(badDefault, opts(AvroVersion::v1_8_2)));
    REQUIRE_FALSE(quickAgrees(badDefault, opts(AvroVersion::v1_9_1)));
    // `$` in names: only with the 4.2 validator.
    const std::string dollar = R"({"type":"record","name":"R$1","fields":[{"name":"a$","type":"int"}]})";
    REQUIRE(quickAgrees(dollar, opts(AvroVersion::v1_12_0, true)));
    REQUIRE_FALSE(quickAgrees(dollar, opts(AvroVersion::v1_12_0, false)));
}

TEST_CASE("the quick Avro parse declines what it does not read, and parse() answers as the full parser", "[avro][parse][quick]") {
    const char* declined[] = {
        // outside the subset, valid
        R"("int")",
        R"(// a comment
{"type":"int"})",
        R"({"type":"record","name":"R","doc":"caf\u00e9","fields":[]})",
        "{\"type\":\"record\",\"name\":\"R\",\"doc\":\"caf\xc3\xa9\",\"fields\":[]}",
        R"({"type":"enum","name":"E","symbols":["A","A"]})",
        R"({"type":"enum","name":"E","symbols":["A","9"]})",
        R"({"type":"enum","name":"E","symbols":["A",null]})",
        R"({"type":"enum","name":"E","symbols":"A"})",
        R"({"type":"enum","name":"E"})",
        R"({"type":"enum","symbols":["A"]})",
        R"(["null",{"type":"enum","name":"string","symbols":["A"]},"string"])",
        R"({"type":"record","name":"R","aliases":["Q"],"fields":[]})",
        R"({"type":"record","name":"R","fields":[{"name":"a","type":"int","aliases":["b"]}]})",
        R"({"type":"record","name":"R","fields":[{"name":"a","type":"double","default":1e999}]})",
        R"({"type":"record","name":"R","fields":[{"name":"a","type":"double","default":1.e5}]})",
        R"({"type":"record","name":"R","fields":[{"name":"a","type":"double","default":.5}]})",
        R"({"type":"record","name":"R","fields":[{"name":"a","type":"double","default":-}]})",
        R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"}],"namespace":"late"})",
        R"({"type":"record","fields":[],"name":"R"})",
        R"({"fields":[],"type":"record","name":"R"})",
        R"({"items":"int","type":"array"})",
        R"({"type":"record","name":"R","name":"Q","fields":[]})",
        R"({"type":"record","name":"R","namespace":5,"fields":[]})",
        R"({"type":"record","name":"R","fields":[{"name":"a","type":"double","default":"1e3"}]})",
        R"({"type":"record","name":"R","fields":[]} trailing)",
        "\f{\"type\":\"int\"}",
        // a field of the plain shape {"name":…,"type":…} but for an escape in its type name
        R"({"type":"record","name":"R","fields":[{"name":"a","type":"in\u0074"}]})",
        // errors (the full parser's messages)
        R"({"type":"record","name":"R","fields":[{"name":"a","type":"Nope"}]})",
        R"({"type":"record","name":"R","fields":[{"name":"a","type":{"type":"record","name":"R","fields":[]}}]})",
        R"(["int","int"])",
        R"(["null",["int"]])",
        R"({"type":"record","name":"R","fields":[{"name":"u","type":[{"type":"map","values":"int"},{"type":"record","name":"map","fields":[]}]}]})",
        R"({"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"a","type":"long"}]})",
        R"({"type":"record","name":"9R","fields":[]})",
        R"({"type":"record","name":"R","fields":[{"name":"a-b","type":"int"}]})",
        R"({"type":"record","name":"int","fields":[]})",
        R"({"type":"record","name":"R","fields":[{"name":"a","type":"int","order":"sideways"}]})",
        R"({"type":"record","name":"R","fields":[{"name":"a","type":"int","order":1}]})",
        R"({"type":"fixed","name":"F","size":"16"})",
        R"({"type":"fixed","name":"F","size":4294967296})",
        R"({"type":"fixed","name":"F"})",
        R"({"type":"record","name":"R"})",
        R"({"type":"record","name":"R","fields":{}})",
        R"({"type":"array"})",
        R"({"type":"nope"})",
        R"({"name":"R"})",
        R"({"type":"record","name":"R","fields":[{"type":"int"}]})",
        R"({"type":"record","name":"R","fields":[{"name":"a"}]})",
        R"({"type":"record","name":"R","fields":["int"]})",
        R"({"type":"record","name":"R","fields":[{"name":"a","type":5}]})",
        R"({"type":"record","name":"R","fields":[,]})",
        R"({"type":"record","name":"R","fields":[]}})",  // a stray closing brace after the record
        R"({"type":"record","name":"R","fields":[{"name":"a","type":"int",}]})",
        R"({"type":"record","name":"R","fields":[{"name":"a","type":"int","default":01}]})",
        R"({"type":"record","name":"R","fields":[{"name":"a","type":"int","default":tru}]})",
        R"({"type":"record","name":"R","fields":[)",
        R"({"type":"record","name":"R","fields":[{"name":"a","type":"int")",
        R"({"type":"record","name":"R","fields":[{"name":"a\"b","type":"int"}]})",
        "",
        "   ",
    };
    for (const char* def : declined) {
        for (AvroVersion v : kVersions) {
            INFO("version " << static_cast<int>(v));
            REQUIRE_FALSE(quickAgrees(def, opts(v)));
        }
    }
}

TEST_CASE("the quick Avro parse agrees with the full parser on generated definitions, in any key order", "[avro][parse][quick]") {
    std::vector<cnx::differential::Case> cases = cnx::differential::generateCases(14, 400);
    std::mt19937 rng(14);
    std::size_t seen = 0, taken = 0, shuffledTaken = 0;
    for (const auto& c : cases) {
        std::vector<std::string> defs = c.existing;
        defs.push_back(c.candidate);
        for (const std::string& def : defs) {
            ++seen;
            AvroVersion v = kVersions[seen % std::size(kVersions)];
            if (quickAgrees(def, opts(v))) ++taken;
            std::string other = shuffled(nlohmann::ordered_json::parse(def), rng).dump();
            if (quickAgrees(other, opts(v))) ++shuffledTaken;
        }
    }
    INFO(seen << " definitions: " << taken << " taken as written, " << shuffledTaken << " shuffled");
    // The generator writes aliases into some (about one in seven); most of the rest are the quick path's to take.
    REQUIRE(taken * 3 > seen * 2);
    REQUIRE(shuffledTaken > 0);
}

TEST_CASE("a compatible check of quickly parsed schemas never builds their nodes, an incompatible one does", "[avro][parse][quick]") {
    CheckOptions o = cnx::newestProfile().checkOptions;
    av::ParseOptions po = av::parseOptionsFor(o);
    auto check = makeAvroCheck();
    // Definitions no other test uses, so the parse cache is cold for them.
    const std::string v1 = R"({"type":"record","name":"Q","namespace":"quick.test.a","fields":[{"name":"a","type":"int"}]})";
    const std::string v2 = R"({"type":"record","name":"Q","namespace":"quick.test.a","fields":[{"name":"a","type":"long"},{"name":"b","type":["null","string"],"default":null}]})";
    cnx::SchemaData s1{cnx::SchemaType::AVRO, v1, {}}, s2{cnx::SchemaType::AVRO, v2, {}};
    REQUIRE(check->checkCompatible(s1, s2, cnx::CompatibilityStrategy::BACKWARD, o).ok());
    REQUIRE(av::parseCached(v1, po).schema->nodesDeferred());
    REQUIRE(av::parseCached(v2, po).schema->nodesDeferred());

    // FORWARD: v1 cannot read long `a`; the verdict, its message and its problems need the full model.
    CheckResult r = check->checkCompatible(s1, s2, cnx::CompatibilityStrategy::FORWARD, o);
    REQUIRE(r.verdict == Verdict::incompatible);
    REQUIRE(r.message.find(R"("namespace" : "quick.test.a")") != std::string::npos);
    REQUIRE_FALSE(av::parseCached(v2, po).schema->nodesDeferred());
}

TEST_CASE("the deferred nodes of a shared schema are built once, whichever thread asks first", "[avro][parse][quick]") {
    const std::string def = R"({"type":"record","name":"T","namespace":"quick.threads","fields":[{"name":"a","type":["null","int"]}]})";
    std::shared_ptr<av::Schema> s = av::quickParse(def, opts());
    REQUIRE(s);
    std::vector<const std::vector<av::Node>*> seen(4, nullptr);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < seen.size(); ++i) threads.emplace_back([&, i] { seen[i] = &s->nodes(); });
    for (auto& t : threads) t.join();
    for (const auto* p : seen) REQUIRE(p == seen[0]);
    REQUIRE(s->nodes().size() == 4);  // record, null, int, union
    REQUIRE(s->at(s->root).name.full == "quick.threads.T");
}

TEST_CASE("the checker's look-up parses a new definition quickly into the cache, or scans it", "[avro][parse][quick]") {
    av::ParseOptions o = opts();
    const std::string plain = R"({"type":"record","name":"N","namespace":"quick.nesting","fields":[{"name":"a","type":{"type":"array","items":{"type":"map","values":"int"}}}]})";
    const std::string escaped = R"({"type":"record","name":"N","namespace":"quick.nesting","doc":"\"[[[","fields":[]})";
    REQUIRE_FALSE(av::cachedJsonNesting(plain, o));
    av::CheckInput first = av::lookUpForCheck(plain, o);
    REQUIRE(first.parsed());
    REQUIRE(first.nesting == jsonNesting(plain));
    REQUIRE(first.nesting == 5);  // record, fields, field, array, map
    REQUIRE(first.result.schema->nodesDeferred());
    // The quick parse is in the cache now: the same schema, and its nesting.
    REQUIRE(av::cachedJsonNesting(plain, o) == std::optional<std::size_t>(5));
    REQUIRE(av::parseCached(plain, o).schema == first.result.schema);
    REQUIRE(av::lookUpForCheck(plain, o).result.schema == first.result.schema);
    // Declined (an escape): a scan, nothing parsed or cached; the check parses it.
    av::CheckInput declined = av::lookUpForCheck(escaped, o);
    REQUIRE_FALSE(declined.parsed());
    REQUIRE(declined.nesting == jsonNesting(escaped));
    REQUIRE_FALSE(av::cachedJsonNesting(escaped, o));
    // Parsed by parseCached (full parser, nesting not measured): the look-up scans once and keeps it.
    av::ParseResult full = av::parseCached(escaped, o);
    REQUIRE(full.ok());
    av::CheckInput later = av::lookUpForCheck(escaped, o);
    REQUIRE(later.result.schema == full.schema);
    REQUIRE(later.nesting == jsonNesting(escaped));
    REQUIRE(av::cachedJsonNesting(escaped, o) == std::optional<std::size_t>(later.nesting));
    // Deeper than kShallowNesting: not parsed on the caller's stack; the quick path takes it through parseCached.
    std::string deep = R"({"type":"record","name":"Deep","namespace":"quick.nesting","fields":[{"name":"a","type":)";
    for (int i = 0; i < 70; ++i) deep += R"({"type":"array","items":)";
    deep += R"("int")" + std::string(70, '}') + "}]}";
    av::CheckInput d = av::lookUpForCheck(deep, o);
    REQUIRE_FALSE(d.parsed());
    REQUIRE(d.nesting > kShallowNesting);  // declined at that depth: no scan, a lower bound
    REQUIRE(d.nesting <= jsonNesting(deep));
    REQUIRE(av::parseCached(deep, o).schema->nodesDeferred());
}

namespace {

// A record definition with hostile pieces drawn at random (issue 45 item 4):
// escapes and bad UTF-8 in names, docs and defaults, huge numbers, long
// exponents, comments, duplicate keys, aliases, and nesting around the quick
// path's and Jackson's limits.
std::string hostileDefinition(std::mt19937& rng) {
    // Each piece is hostile one time in three, plain otherwise, so that many definitions reach the quick path.
    auto pick = [&rng](const auto& list) {
        return std::string(rng() % 3 == 0 ? list[rng() % std::size(list)] : list[0]);
    };
    static const char* names[] = {"R", "R", "a\\u0062", "\xC3\xA9t\xC3\xA9", "bad\x80", "R$1", "_r9", "1r", "", "a.b.C"};
    static const char* docs[] = {"", "", R"(,"doc":"plain")", R"(,"doc":"\"[{\n")", ",\"doc\":\"\xED\xA0\x80\"",
                                 ",\"doc\":\"\xC3\xA9\"", R"(,"doc":"\ud83d\ude00")", R"(,"doc":"\ud800")",
                                 R"(,"aliases":["X"])", R"(,"name":"Again")", R"(,"doc":"x","doc":"y")"};
    static const char* fields[] = {
        R"({"name":"a","type":["null",{"type":"map","values":{"type":"array","items":"long"}}],"default":null})",
        R"({"name":"a","type":"int","default":2147483647})", R"({"name":"a","type":"int","default":2147483648})",
        R"({"name":"a","type":"long","default":9223372036854775807})",
        R"({"name":"a","type":"long","default":12345678901234567890123})",
        R"({"name":"a","type":"double","default":1e400})", R"({"name":"a","type":"double","default":1.5e-300})",
        R"({"name":"a","type":"double","default":1e0001})", R"({"name":"a","type":"float","default":"NaN"})",
        R"({"name":"a","type":"string","default":"\u0000\t"})", R"({"name":"a","type":"bytes","default":"\u00ff"})",
        R"({"name":"a","type":"string","default":"\ud800"})", "{\"name\":\"a\",\"type\":\"string\",\"default\":\"\xF5\x80\"}",
        R"({"name":"a","type":["null","int"],"default":null})", R"({"name":"a","type":["int","int"]})",
        R"({"name":"a","type":{"type":"enum","name":"E","symbols":["A","A"]}})",
        R"({"name":"a","type":{"type":"fixed","name":"F","size":99999999999999999999}})",
        R"({"name":"a","type":"int","order":"sideways"})", R"({"name":"a" /* c */ ,"type":"int"})",
        R"({"name":"a","type":"int","name":"b"})", R"({"name":"a","type":"Undefined"})"};
    std::string def = "{\"type\":\"record\",\"name\":\"" + pick(names) + "\"" + pick(docs) + ",\"fields\":[";
    const int n = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < n; ++i) {
        std::string f = pick(fields);
        if (i > 0) {
            def += ",";
            f.replace(f.find("\"a\""), 3, "\"f" + std::to_string(i) + "\"");
        }
        def += f;
    }
    def += "]}";
    if (rng() % 4 == 0) {  // nested inside arrays, around kQuickMaxNesting
        const std::size_t levels = std::vector<std::size_t>{10, 990, 996, 997, 998, 1000, 1200}[rng() % 7];
        std::string wrapped;
        for (std::size_t i = 0; i < levels; ++i) wrapped += R"({"type":"array","items":)";
        def = wrapped + def + std::string(levels, '}');
    }
    return def;
}

}  // namespace

TEST_CASE("the quick Avro parse agrees with the full parser on hostile generated definitions", "[avro][parse][quick]") {
    std::mt19937 rng(45);
    std::size_t seen = 0, taken = 0;
    cnx::compat::onCheckerStack([&] {
        for (int round = 0; round < 1500; ++round) {
            const std::string def = hostileDefinition(rng);
            const AvroVersion v = kVersions[static_cast<std::size_t>(round) % std::size(kVersions)];
            ++seen;
            if (quickAgrees(def, opts(v, v == AvroVersion::v1_12_0 && round % 2 == 0))) ++taken;
        }
        return 0;
    });
    INFO(seen << " definitions, " << taken << " taken by the quick path");
    CHECK(taken > seen / 10);  // the plain ones among them do reach it
    CHECK(taken < seen);
}
