// Every fast path against its reference, on seeded generated inputs with
// hostile ones among them (issue 45 item 4, broker_model/core/fast_paths.h):
// JsonTape's reader against nlohmann::json, the Avro fast pass against the
// full resolver, parse() and the loader with the switch on and off, and the
// quick parser's disagreement turned into a counted fallback. The quick
// parser against the full one on generated definitions is in
// compat_avro_quick_parse_test.cpp, the YAML quick tree against yaml-cpp's in
// yaml_quick_tree_test.cpp.

#include <catch2/catch.hpp>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "broker_model/compat/avro/avro_fast_pass.h"
#include "broker_model/compat/avro/avro_quick_parse.h"
#include "broker_model/compat/avro/avro_resolve.h"
#include "broker_model/compat/avro/avro_schema.h"
#include "broker_model/compat/avro/json_tape.h"
#include "broker_model/broker/broker.h"
#include "broker_model/runtime/large_stack.h"
#include "broker_model/core/fast_paths.h"
#include "broker_model/protocol/server_cnx.h"
#include "broker_model/wire/frame.h"
#include "sim/runtime/sim_scheduler.h"
#include "sim/scenario/loader.h"
#include "tests/differential/schema_generator.h"

using cnx::FastPaths;
using cnx::compat::AvroVersion;
using cnx::compat::Verdict;
namespace av = cnx::compat::avro;

namespace {

constexpr AvroVersion kVersions[] = {AvroVersion::v1_8_2,  AvroVersion::v1_9_1,  AvroVersion::v1_10_2,
                                     AvroVersion::v1_11_3, AvroVersion::v1_11_4, AvroVersion::v1_12_0};

// CNXSIM_FAST_PATHS_SEED runs the generated cases from another seed by hand.
std::uint32_t seedOr(std::uint32_t fallback) {
    const char* s = std::getenv("CNXSIM_FAST_PATHS_SEED");
    return s ? static_cast<std::uint32_t>(std::strtoul(s, nullptr, 10)) : fallback;
}

// ---- generated JSON texts, valid and hostile ----

class JsonGen {
public:
    explicit JsonGen(std::uint32_t seed) : rng_(seed) {}

    /// An object or array, at most `depth` levels of containers deep.
    std::string document(int depth) { return space() + container(depth, pick(2) == 0) + space(); }

    /// `text` with 1-3 random byte edits (JSON punctuation, quotes, high bytes).
    std::string mutated(std::string text) {
        static const std::string alphabet = "{}[],:\"\\/*- 0e.+tfn\x80\xC3\xFF\x01u";
        for (int i = 0, n = 1 + pick(3); i < n && !text.empty(); ++i) {
            std::size_t at = rng_() % text.size();
            switch (pick(3)) {
                case 0: text.erase(at, 1); break;
                case 1: text.insert(at, 1, alphabet[rng_() % alphabet.size()]); break;
                default: text[at] = alphabet[rng_() % alphabet.size()]; break;
            }
        }
        return text;
    }

    int pick(int n) { return static_cast<int>(rng_() % static_cast<unsigned>(n)); }
    /// One of `list`: from its first `safe` entries (valid JSON the reader takes)
    /// but one time in `odds`, when from any entry, hostile ones included.
    template <std::size_t N>
    const char* oneOf(const char* (&list)[N], int safe, int odds) {
        return list[pick(pick(odds) == 0 ? static_cast<int>(N) : safe)];
    }

private:
    std::string container(int depth, bool object) {
        std::string out = object ? "{" : "[";
        int n = depth <= 0 ? 0 : pick(5);
        for (int i = 0; i < n; ++i) {
            if (i > 0) out += "," + space();
            if (object) out += key() + space() + ":" + space();
            out += value(depth - 1);
        }
        if (n > 0 && pick(40) == 0) out += ",";  // a trailing comma: nlohmann refuses it
        return out + space() + (object ? "}" : "]");
    }

    std::string value(int depth) {
        switch (pick(depth > 0 ? 7 : 4)) {
            case 0: return string();
            case 1: return number();
            case 2: return literal();
            case 3: return string();
            case 4:
            case 5: return container(depth, true);
            default: return container(depth, false);
        }
    }

    std::string key() {
        static const char* keys[] = {"\"a\"", "\"b\"", "\"type\"", "\"name\"", "\"fields\"", "\"\"", "\"a\""};
        return pick(3) == 0 ? string() : keys[pick(static_cast<int>(std::size(keys)))];  // duplicates among them
    }

    std::string string() {
        static const char* pieces[] = {
            "abc", "Z", " ", "\\n", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\r", "\\t", "\\u0041", "\\u00e9",
            "\\u0000", "\\ud83d\\ude00", "\\ud800", "\\udc00x", "\\uD834\\uDD1E", "\\u12", "\\x41", "\\U0041",
            "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\x80", "\xC0\xAF", "\xED\xA0\x80", "\xF5\x80\x80\x80",
            "\xE2\x82", "\xFF", "\x01", "\t", "\x7F", "//", "/*"};
        std::string out = "\"";
        for (int i = 0, n = pick(5); i < n; ++i) out += oneOf(pieces, 12, 12);
        return out + "\"";
    }

    std::string number() {
        static const char* numbers[] = {
            "0", "-0", "7", "-42", "123456789", "2147483648", "9223372036854775807", "-9223372036854775808",
            "9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616",
            "100000000000000000000000000000", "1.5", "-0.25", "1e5", "1E+2", "2e-3", "01", "-", "+1", ".5",
            "1.", "0x10", "1e400", "-1e400", "1e", "00", "-01"};
        return oneOf(numbers, 8, 6);
    }

    std::string literal() {
        static const char* literals[] = {"true", "false", "null", "true", "false", "null", "tru", "nul", "True", "NaN"};
        return oneOf(literals, 6, 8);
    }

    std::string space() {
        static const char* spaces[] = {"", "", "", " ", "\n", "\t", "\r\n", "/* c */", "// c\n", "\f"};
        return oneOf(spaces, 7, 30);
    }

    std::mt19937 rng_;
};

// Nested containers: `levels` of arrays or of objects, closed or not.
std::string nested(std::size_t levels, bool objects, bool closed) {
    std::string out;
    for (std::size_t i = 0; i < levels; ++i) out += objects ? "{\"k\":" : "[";
    out += "1";
    if (closed)
        for (std::size_t i = 0; i < levels; ++i) out += objects ? "}" : "]";
    return out;
}

// The tape's read of `text` against nlohmann's parse (comments ignored, as the
// Avro parser calls it): where the tape takes a text, nlohmann takes the same
// text and builds the same tree, and the tape adopted from nlohmann's tree
// prints the same Jackson text. True when the tape took it.
bool tapeAgrees(av::JsonTape& tape, const std::string& text) {
    std::size_t start = text.find_first_of("{[");
    if (start == std::string::npos || text.find_first_not_of(" \t\r\n\f") != start) return false;
    tape.clear();
    std::size_t end = 0;
    if (!tape.read(text, start, &end)) return false;
    INFO("text: " << text);
    REQUIRE(end > start);
    REQUIRE(end <= text.size());
    const std::string value = text.substr(start, end - start);
    av::Json reference;
    bool parsed = true;
    try {
        reference = av::Json::parse(value, nullptr, true, true);
    } catch (const av::Json::exception&) {
        parsed = false;
    }
    REQUIRE(parsed);
    REQUIRE(tape.json(tape.root()) == reference);
    av::JsonTape adopted;
    adopted.adopt(reference);
    REQUIRE(tape.compact(tape.root()) == adopted.compact(adopted.root()));
    return true;
}

}  // namespace

TEST_CASE("fast paths: JsonTape's reader builds nlohmann's tree wherever it takes a text", "[fast-paths][json-tape]") {
    JsonGen gen(seedOr(45));
    av::JsonTape tape;  // reused, as each thread's parser reuses its own
    std::size_t tried = 0, took = 0, tookMutated = 0;
    for (int round = 0; round < 3000; ++round) {
        std::string text = gen.document(1 + gen.pick(5));
        ++tried;
        took += tapeAgrees(tape, text) ? 1 : 0;
        std::string bad = gen.mutated(text);
        ++tried;
        tookMutated += tapeAgrees(tape, bad) ? 1 : 0;
    }
    INFO(tried << " texts: " << took << " generated and " << tookMutated << " mutated ones taken");
    CHECK(took > 300);        // the generator does reach the reader...
    CHECK(tookMutated > 100);  // ...and so do its mutations
    CHECK(took < 3000);       // ...and hostile pieces make it decline some
}

TEST_CASE("fast paths: JsonTape on deep nesting, huge numbers, bad UTF-8 and escapes", "[fast-paths][json-tape]") {
    av::JsonTape tape;
    // Nesting around the reader's limit (1,000, Jackson's), closed and not.
    for (std::size_t levels : {1, 2, 999, 1000, 1001, 1100, 5000})
        for (bool objects : {false, true})
            for (bool closed : {true, false}) tapeAgrees(tape, nested(levels, objects, closed));
    REQUIRE(tapeAgrees(tape, nested(999, false, true)));
    REQUIRE_FALSE(tapeAgrees(tape, nested(1001, false, true)));  // past the limit: nlohmann decides
    const char* texts[] = {
        "[9223372036854775807,-9223372036854775808,18446744073709551615]",
        "[9223372036854775808]", "[-9223372036854775809]", "[18446744073709551616]",
        "[1e400]", "[1.5]", "[-0]", "[01]", "[1.]", "[+1]",
        "[\"\\u00e9\\n\\t\\\"\\\\\\/\\b\\f\\r\"]", "[\"\\ud83d\\ude00\"]", "[\"\\ud800\"]", "[\"\\udc00\"]",
        "[\"\\u0000\"]", "[\"\\u12\"]", "[\"\\x41\"]", "[\"\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\"]",
        "[\"\x80\"]", "[\"\xC0\xAF\"]", "[\"\xED\xA0\x80\"]", "[\"\xF5\x80\x80\x80\"]", "[\"\xE2\x82\"]",
        "[\"\x01\"]", "[\"\t\"]", "{\"a\":1,\"a\":2}", "{\"a\":1,}", "[1,]", "[/* c */ 1]", "[1 // c\n]",
        "{\"\\u0061\":1,\"a\":2}", "{\"\":{\"\":[]}}", "[true,false,null]", "[tru]", "[]", "{}"};
    std::size_t took = 0;
    for (const char* t : texts) took += tapeAgrees(tape, t) ? 1 : 0;
    CHECK(took > 5);
}

namespace {

bool sameProblems(const std::vector<cnx::Problem>& a, const std::vector<cnx::Problem>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i].kind != b[i].kind || a[i].path != b[i].path || a[i].detail != b[i].detail ||
            a[i].reader != b[i].reader || a[i].writer != b[i].writer)
            return false;
    }
    return true;
}

// canRead with the fast pass and without: the same verdict, problems and
// exception. True when the fast pass itself answered.
bool fastPassAgrees(const av::Schema& w, const av::Schema& r, AvroVersion v) {
    namespace rs = av::resolve;
    const rs::Rules rules = rs::rulesFor(v);
    const bool fast = rs::FastPass::applies(w, r, rules) && rs::FastPass(w, r, rules).compatible();
    av::Resolution on = av::canRead(w, r, v, FastPaths::on);
    av::Resolution off = av::canRead(w, r, v, FastPaths::off);
    REQUIRE(on.verdict == off.verdict);
    REQUIRE(sameProblems(on.problems, off.problems));
    REQUIRE(on.thrown.has_value() == off.thrown.has_value());
    if (on.thrown) {
        REQUIRE(on.thrown->cls == off.thrown->cls);
        REQUIRE(on.thrown->message == off.thrown->message);
    }
    if (fast) {  // "compatible" from the fast pass is the full resolution's answer
        REQUIRE(off.verdict == Verdict::compatible);
        REQUIRE(off.problems.empty());
    }
    return fast;
}

std::shared_ptr<const av::Schema> parsedFull(const std::string& def, AvroVersion v) {
    av::ParseResult r = av::parseFull(def, {v, false, FastPaths::off});
    return r.ok() ? r.schema : nullptr;
}

// A reader field with a default, hostile ones among them (huge numbers,
// escapes, lone surrogates, wrong types): the fast pass must encode each
// default as the full resolution does, or leave the answer to it.
std::string withDefaultedField(const std::string& def, std::mt19937& rng) {
    static const char* fields[] = {
        R"({"name":"zz","type":"int","default":2147483647})", R"({"name":"zz","type":"int","default":2147483648})",
        R"({"name":"zz","type":"long","default":9223372036854775807})",
        R"({"name":"zz","type":"long","default":9223372036854775808})",
        R"({"name":"zz","type":"long","default":100000000000000000000000})",
        R"({"name":"zz","type":"float","default":1e400})", R"({"name":"zz","type":"double","default":-0.0})",
        R"({"name":"zz","type":"int","default":1.5})", R"({"name":"zz","type":"string","default":"\ud800"})",
        R"({"name":"zz","type":"string","default":"\u00e9\n\"x\""})", R"({"name":"zz","type":"bytes","default":"\u00ff"})",
        R"({"name":"zz","type":"bytes","default":"\u0100"})", R"({"name":"zz","type":"boolean","default":"true"})",
        R"({"name":"zz","type":["null","int"],"default":null})", R"({"name":"zz","type":["int","null"],"default":null})",
        R"({"name":"zz","type":{"type":"array","items":"int"},"default":[1,2,"x"]})",
        R"({"name":"zz","type":{"type":"map","values":"long"},"default":{"a":1,"b":99999999999999999999}})",
        R"({"name":"zz","type":{"type":"fixed","name":"ZF","size":2},"default":"ab"})",
        R"({"name":"zz","type":{"type":"fixed","name":"ZF","size":2},"default":"abc"})",
        R"({"name":"zz","type":{"type":"enum","name":"ZE","symbols":["A"]},"default":"Z"})",
        R"({"name":"zz","type":"string"})"};
    auto j = av::Json::parse(def, nullptr, false);
    if (!j.is_object() || !j.contains("fields") || !j["fields"].is_array()) return def;
    auto field = av::Json::parse(fields[rng() % std::size(fields)], nullptr, false);  // 1e400: nlohmann refuses it
    if (field.is_discarded()) return def;
    j["fields"].push_back(field);
    return j.dump();
}

// A record whose one field is `levels` arrays deep, with an extra defaulted
// field or not: depths around the fast pass's own bound (kMaxFastDepth, 1000).
std::string deepArrays(int levels, bool extra) {
    std::string t = R"({"type":"record","name":"Deep","fields":[{"name":"a","type":)";
    for (int i = 0; i < levels; ++i) t += R"({"type":"array","items":)";
    t += "\"int\"" + std::string(static_cast<std::size_t>(levels), '}') + "}";
    if (extra) t += R"(,{"name":"b","type":"long","default":9223372036854775807})";
    return t + "]}";
}

}  // namespace

TEST_CASE("fast paths: the Avro fast pass answers as the full resolver on generated schema pairs", "[fast-paths][avro]") {
    const auto cases = cnx::differential::generateCases(seedOr(4545), 250);
    std::mt19937 rng(seedOr(4545));
    std::size_t pairs = 0, fast = 0;
    for (const auto& c : cases) {
        std::vector<std::string> defs = c.existing;
        defs.push_back(c.candidate);
        defs.push_back(withDefaultedField(c.candidate, rng));
        defs.push_back(withDefaultedField(c.existing.front(), rng));
        const AvroVersion v = kVersions[static_cast<std::size_t>(c.id) % std::size(kVersions)];
        std::vector<std::shared_ptr<const av::Schema>> schemas;
        for (const auto& d : defs)
            if (auto s = parsedFull(d, v)) schemas.push_back(s);
        for (std::size_t i = 0; i < schemas.size(); ++i) {
            for (std::size_t j = 0; j < schemas.size(); ++j) {
                INFO("case " << c.id << ", writer " << i << ", reader " << j);
                ++pairs;
                fast += fastPassAgrees(*schemas[i], *schemas[j], v) ? 1 : 0;
            }
        }
    }
    INFO(pairs << " pairs, " << fast << " answered by the fast pass");
    CHECK(fast * 4 > pairs);  // the fast pass does answer a good share of them
    CHECK(fast < pairs);
}

TEST_CASE("fast paths: the Avro fast pass at depths around its bound", "[fast-paths][avro]") {
    cnx::compat::onCheckerStack([] {
        for (int levels : {10, 500, 998, 999, 1000}) {
            for (AvroVersion v : {AvroVersion::v1_8_2, AvroVersion::v1_12_0}) {
                INFO(levels << " levels");
                auto plain = parsedFull(deepArrays(levels, false), v);
                auto extra = parsedFull(deepArrays(levels, true), v);
                if (!plain || !extra) continue;  // past Jackson's nesting limit: a parse error, not a check
                fastPassAgrees(*plain, *extra, v);
                fastPassAgrees(*extra, *plain, v);
                fastPassAgrees(*plain, *plain, v);
            }
        }
        return 0;
    });
}

TEST_CASE("fast paths: parse() with the switch off is the full parser, with the same answer", "[fast-paths][avro]") {
    const auto cases = cnx::differential::generateCases(seedOr(4546), 60);
    for (const auto& c : cases) {
        for (AvroVersion v : kVersions) {
            av::ParseResult on = av::parse(c.candidate, {v, false, FastPaths::on});
            av::ParseResult off = av::parse(c.candidate, {v, false, FastPaths::off});
            REQUIRE(on.ok() == off.ok());
            if (!on.ok()) continue;
            REQUIRE_FALSE(off.schema->nodesDeferred());  // never the quick parser's
            REQUIRE(av::schemaEquals(*on.schema, *off.schema));
            REQUIRE(av::toJsonText(*on.schema, false) == av::toJsonText(*off.schema, false));
        }
    }
    // The parse cache keeps the two apart.
    const std::string def = R"({"type":"record","name":"Off","namespace":"fast.paths.cache","fields":[{"name":"a","type":"int"}]})";
    REQUIRE(av::parseCached(def, {AvroVersion::v1_12_0, false, FastPaths::on}).schema->nodesDeferred());
    REQUIRE_FALSE(av::parseCached(def, {AvroVersion::v1_12_0, false, FastPaths::off}).schema->nodesDeferred());
    REQUIRE_FALSE(av::lookUpForCheck(def + " ", {AvroVersion::v1_12_0, false, FastPaths::off}).parsed());
}

TEST_CASE("fast paths: a quick parse the full parser disagrees with is counted and takes the full parser's nodes",
          "[fast-paths][avro]") {
    const std::string def = R"({"type":"record","name":"R","namespace":"fast.paths.disagree","fields":[{"name":"a","type":["null","int"]}]})";
    std::shared_ptr<av::Schema> quick = av::quickParse(def, {});
    REQUIRE(quick);
    REQUIRE(quick->nodesDeferred());
    // A quick parser bug, made by hand: a summary the full parser does not give.
    quick->recursive = !quick->recursive;
    const std::uint64_t before = av::quickParseDisagreements();
    const std::vector<av::Node>* nodes = nullptr;
    REQUIRE_NOTHROW(nodes = &quick->nodes());
    REQUIRE(av::quickParseDisagreements() == before + 1);
    av::ParseResult full = av::parseFull(def, {});
    REQUIRE(full.ok());
    REQUIRE(nodes->size() == full.schema->nodes().size());
    REQUIRE(quick->at(quick->root).name.full == "fast.paths.disagree.R");
    REQUIRE(av::toJsonText(*quick, false) == av::toJsonText(*full.schema, false));
    // Built once: asking again counts nothing more.
    quick->nodes();
    REQUIRE(av::quickParseDisagreements() == before + 1);
}

TEST_CASE("fast paths: the loader gives the same result with the YAML quick tree and without", "[fast-paths][yaml]") {
    JsonGen gen(seedOr(4547));
    const std::string base =
        "name: fast-paths\nbroker: {version: [\"4.2\"]}\nsteps:\n"
        "  - producer: {topic: t, schema: {type: AVRO, definition: '{\"type\":\"int\"}'}, expect: ok}\n"
        "  - subscribe: {topic: \"t\", subscription: s, schema: STRING, expect: {error: IncompatibleSchema}}\n"
        "  - check: {topic: t, idle: false}\n";
    for (int round = 0; round < 400; ++round) {
        const std::string text = round == 0 ? base : gen.mutated(base);
        auto on = cnx::sim::loadScenarioText(text, "f.yaml", ".", FastPaths::on);
        auto off = cnx::sim::loadScenarioText(text, "f.yaml", ".", FastPaths::off);
        INFO("text: " << text);
        REQUIRE(on.errors.size() == off.errors.size());
        for (std::size_t i = 0; i < on.errors.size(); ++i) REQUIRE(on.errors[i].format() == off.errors[i].format());
        REQUIRE(on.scenarios.size() == off.scenarios.size());
        for (std::size_t i = 0; i < on.scenarios.size(); ++i) {
            REQUIRE(on.scenarios[i].name == off.scenarios[i].name);
            REQUIRE(on.scenarios[i].steps.size() == off.scenarios[i].steps.size());
        }
    }
}

TEST_CASE("fast paths: with the switch off, the broker hands every command over encoded", "[fast-paths][hand-off]") {
    for (FastPaths fast : {FastPaths::on, FastPaths::off}) {
        INFO("fast paths " << cnx::to_string_view(fast));
        cnx::sim::SimScheduler scheduler;
        cnx::Broker broker(cnx::newestProfile(), scheduler, fast);
        REQUIRE(broker.fastPaths() == fast);
        std::size_t handed = 0, encoded = 0, asItself = 0;
        cnx::ServerCnx cnx(broker, cnx::ServerCnx::Receiver([&](cnx::wire::PooledCommand cmd, std::string_view frame) {
            ++handed;
            asItself += cnx::wire::decodesToItself(*cmd) ? 1 : 0;
            if (frame.empty()) return;
            ++encoded;
            std::string error;
            auto decoded = cnx::wire::decodeFrame(frame, &error);
            REQUIRE(decoded);
            REQUIRE(decoded->command.type() == cmd->type());
        }));
        pulsar::proto::BaseCommand connect;
        connect.set_type(pulsar::proto::BaseCommand::CONNECT);
        connect.mutable_connect()->set_client_version("fast-paths-test");
        connect.mutable_connect()->set_protocol_version(21);
        REQUIRE_FALSE(cnx.receive(connect));  // handed in as it is (on) or encoded and decoded (off)
        scheduler.runUntilIdle();
        REQUIRE(handed == 1);  // CONNECTED
        if (cnx::enabled(fast)) CHECK(encoded == handed - asItself);  // only what would not decode to itself
        else CHECK(encoded == handed);                                 // every command, as on a socket
        CHECK(asItself == 1);  // CONNECTED would go across as it is, when the fast path may
    }
}
