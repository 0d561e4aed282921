// Issue 7 item 1: `--accept=all` destroyed hand-written per-version
// expectations (it rebuilt the map from the failing versions only, so a map
// that passed on 4.2 failed on 4.2 afterwards), wrote one key per release,
// copied whole broker messages with embedded schemas, and left `schema:` out
// of get-schema results. Each test runs the real CLI in-process on a copy,
// then re-runs the written file with --strict.

#include <catch2/catch.hpp>

#include "issue7_test_support.h"

namespace {

using namespace issue7;

// §4.7 #12721: under ALWAYS_COMPATIBLE a typed consumer on a topic without
// schema is refused before 2.8.2 / 2.9.2 / 2.10.0 and admitted after.
std::string consumerScenario(const std::string& versions, const std::string& subscribeExpect) {
    return "name: consumer on a topic without schema\n"
           "broker:\n  version: [" + versions + "]\n"
           "namespaces:\n  public/default:\n    schema_compatibility_strategy: ALWAYS_COMPATIBLE\n"
           "schemas:\n  user-v1:\n    type: AVRO\n"
           "    schema: '{\"type\":\"record\",\"name\":\"User\",\"namespace\":\"com.example\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}'\n"
           "steps:\n"
           "  - producer: { topic: t1, name: p-bytes, schema: BYTES }\n"
           "    expect: ok\n"
           "  - subscribe: { topic: t1, subscription: typed, consumer: c-typed, schema: user-v1 }\n" +
           subscribeExpect;
}

}  // namespace

TEST_CASE("accept=all keeps the expectations of versions that passed", "[accept][issue7]") {
    TempDir dir;
    auto file = dir / "s.yaml";
    // Wrong on 2.8.1 only (refused there); right on 2.10 and 4.2.
    writeText(file, consumerScenario("\"2.8.1\", \"2.10\", \"4.2\"", "    expect:\n      \"2.8\": ok\n      default: ok\n"));
    REQUIRE(cli({"run", file.string()}).status == 1);
    auto accepted = cli({"run", file.string(), "--accept=all"});
    INFO(accepted.out << accepted.err);
    REQUIRE(accepted.status == 1);  // the run itself still reports the mismatch it fixed
    auto text = readText(file);
    INFO(text);
    auto strict = cli({"run", file.string(), "--strict"});
    INFO(strict.out << strict.err);
    CHECK(strict.status == 0);
    CHECK(text.find("\"<2.10\"") != std::string::npos);
}

TEST_CASE("accept writes the fewest version ranges, not one key per release", "[accept][issue7]") {
    TempDir dir;
    auto file = dir / "s.yaml";
    writeText(file, consumerScenario("\"2.7\", \"2.8.1\", \"2.10\", \"3.0\", \"4.2\"", ""));
    auto accepted = cli({"run", file.string(), "--accept"});
    INFO(accepted.out << accepted.err);
    REQUIRE(accepted.status == 0);
    auto text = readText(file);
    INFO(text);
    CHECK(text.find("expect: { \"<2.10\": { error: IncompatibleSchema, message: \"Topic does not have schema to check\" }, "
                    "\">=2.10\": ok }") != std::string::npos);
    CHECK(text.find("\"2.7\":") == std::string::npos);
    CHECK(text.find("\"3.0\":") == std::string::npos);
    CHECK(cli({"run", file.string(), "--strict"}).status == 0);
}

TEST_CASE("accept ranges for outcomes that change back and forth still pass under --strict", "[accept][issue7]") {
    TempDir dir;
    auto file = dir / "s.yaml";
    writeText(file, consumerScenario("\"2.8.1\", \"2.8.2\", \"2.9.1\", \"2.9.2\", \"4.2\"", ""));
    REQUIRE(cli({"run", file.string(), "--accept"}).status == 0);
    auto text = readText(file);
    INFO(text);
    CHECK(countOf(text, "\"<") + countOf(text, "\">=") == 4);  // four runs of equal outcomes
    auto strict = cli({"run", file.string(), "--strict"});
    INFO(strict.out << strict.err);
    CHECK(strict.status == 0);
}

TEST_CASE("accept writes the root of a long broker message, without embedded schemas", "[accept][issue7]") {
    TempDir dir;
    auto file = dir / "s.yaml";
    writeText(file,
              "name: incompatible avro producer\n"
              "broker:\n  version: [\"2.7\", \"4.2\"]\n"
              "namespaces:\n  public/default:\n    schema_compatibility_strategy: BACKWARD\n"
              "schemas:\n"
              "  v1: { type: AVRO, schema: '{\"type\":\"record\",\"name\":\"U\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}' }\n"
              "  v2: { type: AVRO, schema: '{\"type\":\"record\",\"name\":\"U\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"},{\"name\":\"age\",\"type\":\"int\"}]}' }\n"
              "steps:\n"
              "  - producer: { topic: t2, name: p1, schema: v1 }\n"
              "  - producer: { topic: t2, name: p2, schema: v2 }\n");
    REQUIRE(cli({"run", file.string(), "--accept"}).status == 0);
    auto text = readText(file);
    INFO(text);
    auto at = text.find("expect: { error: IncompatibleSchema, message: \"");
    REQUIRE(at != std::string::npos);
    auto start = at + std::string("expect: { error: IncompatibleSchema, message: \"").size();
    auto message = text.substr(start, text.find('"', start) - start);
    CHECK(!message.empty());
    CHECK(message.size() <= 120);
    CHECK(message.find('{') == std::string::npos);
    CHECK(message.find("\\n") == std::string::npos);
    CHECK(message.find("caused by") == std::string::npos);
    // The same root on a release without the "caused by" wrapping (2.7): one value, no map.
    CHECK(text.find("\"<") == std::string::npos);
    CHECK(cli({"run", file.string(), "--strict"}).status == 0);
}

TEST_CASE("accept writes schema: with the alias on get-schema results", "[accept][issue7]") {
    TempDir dir;
    auto file = dir / "s.yaml";
    writeText(file,
              "name: get-schema names the schema\n"
              "schemas:\n"
              "  v1: { type: AVRO, schema: '{\"type\":\"record\",\"name\":\"U\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]}', properties: { owner: billing } }\n"
              "steps:\n"
              "  - upload-schema: { topic: t3, schema: v1 }\n"
              "  - get-schema: { topic: t3 }\n");
    REQUIRE(cli({"run", file.string(), "--accept"}).status == 0);
    auto text = readText(file);
    INFO(text);
    CHECK(text.find("expect: { schema_version: 0, type: AVRO, schema: v1, properties: { \"owner\": \"billing\" } }") !=
          std::string::npos);
    CHECK(cli({"run", file.string(), "--strict"}).status == 0);
}

// Issue 40, item 13: a stored NONE schema was accepted as `schema: NONE`, which
// the loader refuses (`NONE needs a definition`); `type: NONE` says it.
TEST_CASE("accept writes a get-schema of a NONE schema as the loader reads it back", "[accept]") {
    TempDir dir;
    auto file = dir / "s.yaml";
    writeText(file,
              "name: get-schema of a NONE schema\n"
              "steps:\n"
              "  - upload-schema: { topic: t, schema: { type: NONE } }\n"
              "  - get-schema: { topic: t }\n");
    REQUIRE(cli({"run", file.string(), "--accept"}).status == 0);
    auto text = readText(file);
    INFO(text);
    CHECK(text.find("expect: { schema_version: 0, type: NONE, properties: {} }") != std::string::npos);
    CHECK(cli({"lint", file.string()}).status == 0);
    CHECK(cli({"run", file.string(), "--strict"}).status == 0);
}
