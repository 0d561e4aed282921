// The malformed-input table (issue 2, "Scenarios and tests"): every input
// must give exactly one error, `file:line:column: message`, and never crash
// or hang. The same cases live as files in tests/malformed/NN-*.yaml with
// their expected `line:column: message` in a first-line comment (lines there
// are one further down), for `cnxsim lint` to be checked against exit status 2.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "malformed_cases.h"
#include "sim/scenario/loader.h"

namespace {

using cnx::sim::loadScenarioText;
using namespace cnx::testing::malformed;


struct Fixture {
    const char* name;
    const char* json;
};

// Schema-definition files the cases refer to (also in tests/malformed/schemas/).
const Fixture kSchemaFiles[] = {
    {"broken.json", R"j({"type": "AVRO", "schema": }
)j"},
    {"no-type.json", R"j({"schema": "{\"type\":\"string\"}"}
)j"},
    {"typo-key.json", R"j({"type": "AVRO", "shema": "{}"}
)j"},
    {"user.json", R"j({"type": "AVRO", "schema": "{\"type\":\"record\",\"name\":\"User\",\"fields\":[]}", "properties": {}}
)j"},
};

std::filesystem::path fixtureDir() {
    static const std::filesystem::path dir = [] {
        auto d = std::filesystem::temp_directory_path() / ("cnxsim-malformed-" + std::to_string(::getpid()));
        std::filesystem::create_directories(d / "schemas");
        for (const Fixture& f : kSchemaFiles) std::ofstream(d / "schemas" / f.name) << f.json;
        return d;
    }();
    return dir;
}

}  // namespace

TEST_CASE("malformed inputs give one exact file:line:column error", "[loader][malformed]") {
    STATIC_REQUIRE(sizeof(kCases) / sizeof(kCases[0]) >= 35);
    for (const MalformedCase& c : kCases) {
        DYNAMIC_SECTION(c.name) {
            auto result = loadScenarioText(c.yaml, "case.yaml", fixtureDir());
            REQUIRE(result.errors.size() == 1);
            CHECK(result.errors[0].format() == c.expected);
        }
    }
}

TEST_CASE("a 4 MiB file (under the node limit) loads and reports its one typo", "[loader][malformed][slow]") {
    std::string text = "name: big\nsteps:\n  - producer: { topic: t, name: p0, schema: STRING }\n    expect: ok\n";
    int line = 4;
    for (int i = 0; text.size() < 4u * 1024 * 1024; ++i, ++line)
        text += "  - publish: { producer: p0, count: " + std::to_string(i % 100 + 1) + " }\n";
    text += "  - publsh: { producer: p0 }\n";
    ++line;
    auto result = loadScenarioText(text, "big.yaml", ".");
    REQUIRE(result.errors.size() == 1);
    CHECK(result.errors[0].format() ==
          "big.yaml:" + std::to_string(line) + ":5: unknown step action 'publsh'; did you mean 'publish'?");
}

TEST_CASE("a valid 4 MiB file (about 740,000 nodes, under the 1,000,000 limit) loads", "[loader][slow]") {
    std::string text = "name: big\nsteps:\n  - producer: { topic: t, name: p0, schema: STRING }\n";
    std::size_t steps = 1;
    for (; text.size() < 4u * 1024 * 1024; ++steps) text += "  - publish: { producer: p0, count: 2 }\n";
    auto result = loadScenarioText(text, "big.yaml", ".");
    REQUIRE(result.errors.empty());
    REQUIRE(result.scenarios.size() == 1);
    CHECK(result.scenarios[0].steps.size() == steps);
}

TEST_CASE("deep nesting is an error, not a stack overflow", "[loader][malformed]") {
    SECTION("100,000 [") {
        auto result = loadScenarioText(std::string(100000, '['), "deep.yaml", ".");
        REQUIRE(result.errors.size() == 1);
        CHECK(result.errors[0].format() ==
              "deep.yaml:1:257: YAML nested too deeply (at most 256 levels of mappings and sequences)");
    }
    SECTION("nested flow mappings inside a step") {
        std::string text = "name: x\nsteps:\n  - producer: ";
        for (int i = 0; i < 600; ++i) text += "{a: ";
        text += std::string(600, '}') + "\n";
        auto result = loadScenarioText(text, "deep.yaml", ".");
        REQUIRE(result.errors.size() == 1);
        CHECK(result.errors[0].format() ==
              "deep.yaml:3:1027: YAML nested too deeply (at most 256 levels of mappings and sequences)");
    }
    SECTION("600 levels of block mappings") {
        std::string text;
        for (int i = 0; i < 600; ++i) text += std::string(static_cast<std::size_t>(i), ' ') + "a:\n";
        auto result = loadScenarioText(text, "deep.yaml", ".");
        REQUIRE(result.errors.size() == 1);
        CHECK(result.errors[0].format() ==
              "deep.yaml:257:257: YAML nested too deeply (at most 256 levels of mappings and sequences)");
    }
}

// The refusal names the node limit: the precheck (sim/scenario/yaml_precheck.h)
// counted the aliases as what they expand to, without expanding them, and the
// text never reached yaml-cpp or the loader's walk, which would expand them.
TEST_CASE("aliases that would multiply the document are refused at the node limit", "[loader][malformed]") {
    // Each level doubles through YAML aliases: 2^40 nodes if expanded naively.
    SECTION("races of races") {
        std::string yaml = "name: x\nx-lists:\n  l0: &l0 [ { restart-broker: {} }, { restart-broker: {} } ]\n";
        for (int i = 1; i <= 40; ++i)
            yaml += "  l" + std::to_string(i) + ": &l" + std::to_string(i) + " [ { concurrently: *l" +
                    std::to_string(i - 1) + " }, { concurrently: *l" + std::to_string(i - 1) + " } ]\n";
        yaml += "steps: *l40\n";
        auto result = loadScenarioText(yaml, "alias.yaml", ".");
        // Refused before yaml-cpp sees it: the aliases expand to 2^40 nodes (sim/scenario/yaml_precheck.h).
        REQUIRE(result.errors.size() == 1);
        CHECK(result.errors[0].message ==
              "the file holds more than 1000000 YAML nodes (aliases counted as what they expand to); giving up");
    }
    SECTION("KEY_VALUE of KEY_VALUE") {
        std::string yaml = "name: x\nschemas:\n  k0: &k0 { type: STRING }\n";
        for (int i = 1; i <= 40; ++i)
            yaml += "  k" + std::to_string(i) + ": &k" + std::to_string(i) + " { type: KEY_VALUE, key: *k" +
                    std::to_string(i - 1) + ", value: *k" + std::to_string(i - 1) + " }\n";
        yaml += "steps:\n  - producer: { topic: t, schema: k40 }\n";
        auto result = loadScenarioText(yaml, "kv.yaml", ".");
        REQUIRE(result.errors.size() == 1);
        CHECK(result.errors.front().message ==
              "the file holds more than 1000000 YAML nodes (aliases counted as what they expand to); giving up");
    }
}

TEST_CASE("several errors in one file are all reported, in file order", "[loader][malformed]") {
    const char* yaml = R"(name: x
tgas: [a]
steps:
  - producer: { topic: t, shema: STRING }
  - subscribe: { topic: t, subscription: s, type: exclusive }
    expect: { error: IncompatibleSchemas }
  - close: nobody
)";
    auto result = loadScenarioText(yaml, "many.yaml", ".");
    std::vector<std::string> got;
    for (const auto& e : result.errors) got.push_back(e.format());
    CHECK(got == std::vector<std::string>{
                     "many.yaml:2:1: unknown key 'tgas' in the scenario; did you mean 'tags'?",
                     "many.yaml:4:27: unknown key 'shema' in producer; did you mean 'schema'?",
                     "many.yaml:5:51: unknown subscription type 'exclusive'; did you mean 'Exclusive'?",
                     "many.yaml:6:22: unknown ServerError name 'IncompatibleSchemas'; did you mean 'IncompatibleSchema'?",
                     "many.yaml:7:12: no earlier step opens a producer or consumer named 'nobody'",
                 });
    CHECK(result.scenarios.empty());
}

TEST_CASE("a schema with a bad definition is reported once, not at every use", "[loader][malformed]") {
    const char* yaml = R"(name: x
schemas:
  user: { type: AVOR, schema: "{}" }
steps:
  - producer: { topic: t, schema: user }
  - upload-schema: { topic: t, schema: user }
)";
    auto result = loadScenarioText(yaml, "once.yaml", ".");
    REQUIRE(result.errors.size() == 1);
    CHECK(result.errors[0].format() == "once.yaml:3:17: unknown schema type 'AVOR'; did you mean 'AVRO'?");
}

TEST_CASE("binary garbage and odd bytes never crash", "[loader][malformed]") {
    std::string garbage;
    for (int i = 0; i < 4096; ++i) garbage.push_back(static_cast<char>((i * 7919) % 256));
    auto result = loadScenarioText(garbage, "garbage.yaml", ".");
    CHECK_FALSE(result.errors.empty());
    auto nul = loadScenarioText(std::string("name: a\0b\nsteps: []\n", 20), "nul.yaml", ".");
    CHECK_FALSE(nul.errors.empty());
}

#if defined(CNX_MALFORMED_DIR)
#define MALFORMED_DIR CNX_MALFORMED_DIR
#elif defined(CNXSIM_SOURCE_DIR)
#define MALFORMED_DIR CNXSIM_SOURCE_DIR "/tests/malformed"
#endif

#ifdef MALFORMED_DIR
// `{dir}` in an expectation is the folder of the case; one starting with `{dir}/`
// names the file it is in (a problem inside a file the case imports).
std::string expectedError(const std::filesystem::path& file, std::string expected) {
    const std::string dir = file.parent_path().string();
    const bool ownFile = expected.rfind("{dir}/", 0) == 0;
    for (auto at = expected.find("{dir}"); at != std::string::npos; at = expected.find("{dir}", at + dir.size()))
        expected.replace(at, 5, dir);
    return ownFile ? expected : file.string() + ":" + expected;
}

// The files in tests/malformed/ carry their expected error in a first-line comment.
TEST_CASE("tests/malformed files give the error their comment states", "[loader][malformed]") {
    int checked = 0;
    for (const auto& entry : std::filesystem::directory_iterator(MALFORMED_DIR)) {
        if (entry.path().extension() != ".yaml") continue;
        std::ifstream in(entry.path());
        std::string first;
        std::getline(in, first);
        REQUIRE(first.rfind("# expect: ", 0) == 0);
        auto result = cnx::sim::loadScenarioFile(entry.path());
        INFO(entry.path().string());
        REQUIRE(result.errors.size() == 1);
        CHECK(result.errors[0].format() == expectedError(entry.path(), first.substr(10)));
        ++checked;
    }
    CHECK(checked >= 35);
}
#endif
