// Shared schemas: `imports:` of schemas files (doc/scenario-format.md,
// "Shared schemas"). The malformed cases with a position are in
// tests/malformed/94..99; these are the rules across files and documents.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "sim/scenario/loader.h"
#include "loader_test_support.h"

namespace {

using namespace cnx;
using namespace cnx::sim;

using cnx::testing::errorsOf;
using cnx::testing::writeFile;

std::filesystem::path scratchDir(const std::string& name) { return cnx::testing::scratchDir("cnxsim-imports-", name); }

const std::string kUsers = "schemas:\n  user: { type: STRING }\n  kv: { type: KEY_VALUE, key: user, value: user }\n";

std::string scenarioUsing(const std::string& name, const std::string& imports, const std::string& schema) {
    return "name: " + name + "\nimports: " + imports + "\nsteps:\n  - producer: { topic: t, schema: " + schema + " }\n";
}

}  // namespace

TEST_CASE("an imported schemas file is read once for every scenario and document that imports it", "[loader][imports]") {
    auto dir = scratchDir("once");
    writeFile(dir / "common/users.yaml", kUsers);
    writeFile(dir / "a.yaml", scenarioUsing("a1", "[common/users.yaml]", "user") + "---\n" +
                                  scenarioUsing("a2", "[common/users.yaml]", "kv"));
    writeFile(dir / "sub/b.yaml", scenarioUsing("b", "../common/users.yaml", "user"));
    ImportCache imports;
    auto a = loadScenarioFile(dir / "a.yaml", imports);
    auto b = loadScenarioFile(dir / "sub/b.yaml", imports);
    INFO(errorsOf(a) + errorsOf(b));
    REQUIRE(a.errors.empty());
    REQUIRE(b.errors.empty());
    CHECK(imports.reads() == 1);
    REQUIRE(a.scenarios.size() == 2);
    CHECK(a.scenarios[0].steps[0].pos.file == (dir / "a.yaml").string());
    const SchemaRef& kv = a.scenarios[1].schemas.at("kv");
    CHECK(kv.data.type == SchemaType::KEY_VALUE);
    CHECK(kv.pos.file == (dir / "common/users.yaml").string());  // where it is defined
    CHECK(b.scenarios.at(0).schemas.at("user").data.type == SchemaType::STRING);
}

TEST_CASE("local definitions may build on imported ones, and names suggest imported aliases", "[loader][imports]") {
    auto dir = scratchDir("local");
    writeFile(dir / "users.yaml", kUsers);
    writeFile(dir / "ok.yaml", "name: ok\nimports: [users.yaml]\nschemas:\n  pair: { type: KEY_VALUE, key: user, value: STRING }\n"
                               "steps:\n  - producer: { topic: t, schema: pair }\n");
    auto ok = loadScenarioFile(dir / "ok.yaml");
    INFO(errorsOf(ok));
    REQUIRE(ok.errors.empty());
    CHECK(ok.scenarios.at(0).schemas.at("pair").data.type == SchemaType::KEY_VALUE);

    writeFile(dir / "typo.yaml", scenarioUsing("typo", "[users.yaml]", "usr"));
    auto typo = loadScenarioFile(dir / "typo.yaml");
    REQUIRE(typo.errors.size() == 1);
    CHECK(typo.errors[0].format() == (dir / "typo.yaml").string() + ":4:35: unknown schema 'usr'; did you mean 'user'?");
}

TEST_CASE("two imports defining one alias are an error naming both definitions, one file through two is not",
          "[loader][imports]") {
    auto dir = scratchDir("twice");
    writeFile(dir / "base.yaml", "schemas:\n  user: { type: STRING }\n");
    writeFile(dir / "left.yaml", "imports: [base.yaml]\nschemas:\n  left: { type: BYTES }\n");
    writeFile(dir / "right.yaml", "imports: [base.yaml]\nschemas:\n  right: { type: BYTES }\n");
    writeFile(dir / "other.yaml", "schemas:\n  user: { type: INT32 }\n");
    writeFile(dir / "diamond.yaml", scenarioUsing("d", "[left.yaml, right.yaml]", "user"));
    ImportCache imports;
    auto diamond = loadScenarioFile(dir / "diamond.yaml", imports);
    INFO(errorsOf(diamond));
    CHECK(diamond.errors.empty());
    CHECK(imports.reads() == 3);

    writeFile(dir / "clash.yaml", scenarioUsing("c", "[base.yaml, other.yaml]", "user"));
    auto clash = loadScenarioFile(dir / "clash.yaml", imports);
    REQUIRE(clash.errors.size() == 1);
    const std::string base = (dir / "base.yaml").string(), other = (dir / "other.yaml").string();
    CHECK(clash.errors[0].format() == (dir / "clash.yaml").string() + ":2:22: schema 'user' is imported from " + other +
                                          " (defined at " + other + ":2:3) and from " + base + " (defined at " + base +
                                          ":2:3)");
}

TEST_CASE("a file of only schemas is a schemas file: checked, no scenario", "[loader][imports]") {
    auto dir = scratchDir("alone");
    writeFile(dir / "users.yaml", "# shared\n" + kUsers + "imports: []\n");
    ImportCache imports;
    auto alone = loadScenarioFile(dir / "users.yaml", imports);
    INFO(errorsOf(alone));
    CHECK(alone.errors.empty());
    CHECK(alone.schemasFile);
    CHECK(alone.schemaCount == 2);
    CHECK(alone.scenarios.empty());
    // Loaded once: a scenario importing it later in the run does not read it again.
    writeFile(dir / "s.yaml", scenarioUsing("s", "[users.yaml]", "user"));
    CHECK(loadScenarioFile(dir / "s.yaml", imports).errors.empty());
    CHECK(imports.reads() == 0);

    writeFile(dir / "bad.yaml", "schemas:\n  u: { type: STRNG }\n");
    auto bad = loadScenarioFile(dir / "bad.yaml");
    CHECK(bad.schemasFile);
    REQUIRE(bad.errors.size() == 1);
    CHECK(bad.errors[0].format() == (dir / "bad.yaml").string() + ":2:14: unknown schema type 'STRNG'; did you mean 'STRING'?");

    // A name or steps make it a scenario again (and a scenario needs both).
    writeFile(dir / "scenario.yaml", "name: x\n" + kUsers);
    auto scenario = loadScenarioFile(dir / "scenario.yaml");
    CHECK_FALSE(scenario.schemasFile);
    CHECK(errorsOf(scenario).find("missing required key 'steps'") != std::string::npos);
}

TEST_CASE("an imported file's problems are reported once, at its own positions", "[loader][imports]") {
    auto dir = scratchDir("problems");
    writeFile(dir / "bad.yaml", "schemas:\n  u: { type: AVRO, schema: [1] }\n---\nschemas: {}\n");
    writeFile(dir / "s.yaml", scenarioUsing("s1", "bad.yaml", "u") + "---\n" + scenarioUsing("s2", "bad.yaml", "u"));
    auto r = loadScenarioFile(dir / "s.yaml");
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].format() == (dir / "bad.yaml").string() + ":4:1: a schemas file holds one document; this is a second ('---')");
    CHECK(r.scenarios.empty());
}

namespace {

// A scenario importing f1.yaml, which imports f2.yaml, ... down to f<depth>.yaml.
std::filesystem::path importChain(const std::string& name, int depth) {
    auto dir = scratchDir(name);
    for (int i = 1; i <= depth; ++i) {
        std::string text = i < depth ? "imports: [f" + std::to_string(i + 1) + ".yaml]\n" : "";
        writeFile(dir / ("f" + std::to_string(i) + ".yaml"), text + "schemas:\n  s" + std::to_string(i) + ": { type: STRING }\n");
    }
    writeFile(dir / "scenario.yaml", scenarioUsing("chain", "[f1.yaml]", "s" + std::to_string(depth)));
    return dir;
}

}  // namespace

// Issue 40 item 17: a chain 3,000 files deep crashed the loader (SIGSEGV: it
// recurses once per file). Imports nest at most ImportCache::kMaxDepth (64).
TEST_CASE("an import chain 3000 files deep is refused at the import past the bound, not a crash",
          "[loader][imports][issue40]") {
    auto dir = importChain("deep", 3000);
    auto r = loadScenarioFile(dir / "scenario.yaml");
    INFO(errorsOf(r));
    CHECK(r.scenarios.empty());
    REQUIRE(r.errors.size() == 1);
    CHECK(r.errors[0].format() == (dir / "f64.yaml").string() +
                                      ":1:11: imported file 'f65.yaml': imports nest more than 64 schemas files deep "
                                      "(the chain from " + (dir / "f1.yaml").string() + "); flatten the chain");
}

TEST_CASE("an import chain of exactly 64 schemas files loads, and 65 is one too many", "[loader][imports][issue40]") {
    STATIC_REQUIRE(ImportCache::kMaxDepth == 64);
    auto ok = loadScenarioFile(importChain("depth64", 64) / "scenario.yaml");
    INFO(errorsOf(ok));
    CHECK(ok.errors.empty());
    REQUIRE(ok.scenarios.size() == 1);
    CHECK(ok.scenarios[0].schemas.count("s1") == 1);
    CHECK(ok.scenarios[0].schemas.count("s64") == 1);
    auto over = loadScenarioFile(importChain("depth65", 65) / "scenario.yaml");
    REQUIRE(over.errors.size() == 1);
    CHECK(over.errors[0].message.find("imports nest more than 64 schemas files deep") != std::string::npos);
}
