// Issue 7 item 2: a CI run could pass having checked nothing. A `--tags`
// filter that selected no scenario exited 0, and `--strict` passed a file
// whose steps had no `expect` at all. Selecting nothing is exit 2 naming the
// filter; under --strict every step with an outcome needs an expectation;
// `--exclude-tags` drops scenarios.

#include <catch2/catch.hpp>

#include "issue7_test_support.h"

namespace {

using namespace issue7;

const char* const kTwoScenarios =
    "name: tagged alpha\n"
    "tags: [alpha]\n"
    "steps:\n"
    "  - producer: { topic: a, name: p1, schema: STRING }\n"
    "    expect: ok\n"
    "---\n"
    "name: tagged beta\n"
    "tags: [beta, shared]\n"
    "steps:\n"
    "  - producer: { topic: b, name: p1, schema: STRING }\n"
    "    expect: ok\n";

}  // namespace

TEST_CASE("a --tags filter that selects no scenario exits 2 naming the filter", "[cli][issue7]") {
    TempDir dir;
    auto file = dir / "s.yaml";
    writeText(file, kTwoScenarios);
    auto r = cli({"run", file.string(), "--tags", "nothing-here"});
    INFO(r.out << r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find("--tags nothing-here selected no scenario") != std::string::npos);
}

TEST_CASE("run --exclude-tags drops the scenarios carrying a tag", "[cli][issue7]") {
    TempDir dir;
    auto file = dir / "s.yaml";
    writeText(file, kTwoScenarios);
    auto r = cli({"run", file.string(), "--exclude-tags", "alpha"});
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    CHECK(r.out.find("tagged beta") != std::string::npos);
    CHECK(r.out.find("tagged alpha") == std::string::npos);
    CHECK(r.out.find("1 passed, 0 failed") != std::string::npos);

    auto both = cli({"run", file.string(), "--tags", "beta", "--exclude-tags", "shared"});
    INFO(both.out << both.err);
    CHECK(both.status == 2);
    CHECK(both.err.find("--exclude-tags shared left no scenario") != std::string::npos);
}

TEST_CASE("run --strict fails a step with an outcome but no expectation", "[cli][issue7]") {
    TempDir dir;
    auto file = dir / "s.yaml";
    writeText(file,
              "name: nothing asserted\n"
              "steps:\n"
              "  - producer: { topic: t, name: p1, schema: STRING }\n"
              "  - upload-schema: { topic: t, schema: STRING }\n"
              "  - check: { topic: t, schema_versions: 1 }\n");
    REQUIRE(cli({"run", file.string()}).status == 0);
    auto r = cli({"run", file.string(), "--strict"});
    INFO(r.out << r.err);
    CHECK(r.status == 1);
    CHECK(r.out.find("step 1 (producer)") != std::string::npos);
    CHECK(r.out.find("step 2 (upload-schema)") != std::string::npos);
    CHECK(r.out.find("step 3 (check)") == std::string::npos);  // a check is its own assertion
    CHECK(r.out.find("has an outcome but no expectation (--strict)") != std::string::npos);
}

TEST_CASE("run --strict passes a file whose every outcome is asserted", "[cli][issue7]") {
    TempDir dir;
    auto file = dir / "s.yaml";
    writeText(file,
              "name: all asserted\n"
              "steps:\n"
              "  - producer: { topic: t, name: p1, schema: STRING }\n"
              "    expect: { schema_version: 0 }\n"
              "  - check: { topic: t, schema_versions: 1 }\n"
              "  - restart-broker:\n"    // p1 reconnects: an outcome, asserted
              "    expect: ok\n");
    auto r = cli({"run", file.string(), "--strict"});
    INFO(r.out << r.err);
    CHECK(r.status == 0);
}

TEST_CASE("run --help documents --exclude-tags and what --strict requires", "[cli][issue7]") {
    auto r = cli({"help", "run"});
    CHECK(r.out.find("--exclude-tags T[,T...]") != std::string::npos);
    CHECK(r.out.find("selects no scenario") != std::string::npos);
}

TEST_CASE("a path holding no scenario exits 2", "[cli][issue7]") {
    TempDir dir;
    std::filesystem::create_directory(dir / "empty");
    auto r = cli({"run", (dir / "empty").string()});
    INFO(r.out << r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find("no scenario in the given paths") != std::string::npos);
}

TEST_CASE("an empty --tags or --exclude-tags value is refused", "[cli][issue7]") {
    TempDir dir;
    auto file = dir / "s.yaml";
    writeText(file, kTwoScenarios);
    CHECK(cli({"run", file.string(), "--tags="}).status == 2);
    CHECK(cli({"run", file.string(), "--exclude-tags", ","}).status == 2);
}
