// Issue 13, scenario language A: `check` values per version, `~` as a
// deliberately unasserted per-version value (expect, check, race outcomes),
// `check` of policies as set (a namespace's own strategy, an unset topic
// policy), and the version path `2.10 → 3.0` of a scenario that upgrades.

#include <catch2/catch.hpp>

#include "issue7_test_support.h"

namespace {

using namespace issue7;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

CliRun runText(const std::string& yaml, std::vector<std::string> extra = {}, const std::string& command = "run") {
    TempDir dir;
    auto file = dir / "s.yaml";
    writeText(file, yaml);
    std::vector<std::string> args{command, file.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return cli(args);
}

const char* const kHeader =
    "name: lang-a\n"
    "broker:\n"
    "  version: [\"2.10\", \"3.0\"]\n"
    "steps:\n"
    "  - producer: { topic: t, name: p1, schema: STRING }\n"
    "    expect: ok\n";

}  // namespace

TEST_CASE("a check value given per version is asserted with that version's value", "[lang-a]") {
    auto r = runText(std::string(kHeader) +
                         "  - check: { topic: t, producers: { \"2.10\": 1, default: 1 }, consumers: { \">=3.0\": 0, default: 0 } }\n",
                     {"--strict"});
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    CHECK(has(r.out, "2 passed, 0 failed"));
}

TEST_CASE("a failing per-version check value names the version and the key that chose it", "[lang-a]") {
    auto r = runText(std::string(kHeader) + "  - check: { topic: t, producers: { \"2.10\": 1, default: 2 } }\n");
    INFO(r.out << r.err);
    CHECK(r.status == 1);
    CHECK(has(r.out, "1 passed, 1 failed"));
    CHECK(has(r.out, "producers on 3.0"));
    CHECK(has(r.out, "(default): expected 2, found 1"));
}

TEST_CASE("a per-version check value no key covers fails only under --strict", "[lang-a]") {
    std::string yaml = std::string(kHeader) + "  - check: { topic: t, producers: { \"2.10\": 1 } }\n";
    auto plain = runText(yaml);
    INFO(plain.out << plain.err);
    CHECK(plain.status == 0);
    CHECK(has(plain.out, "1 step(s) not asserted on 3.0"));
    auto strict = runText(yaml, {"--strict"});
    INFO(strict.out << strict.err);
    CHECK(strict.status == 1);
    CHECK(has(strict.out, "no value of 'producers' covers version 3.0"));
}

TEST_CASE("a ~ in a check value is deliberately not asserted, also under --strict", "[lang-a]") {
    std::string yaml = std::string(kHeader) + "  - check: { topic: t, producers: { \"2.10\": ~, default: 1 } }\n";
    auto r = runText(yaml, {"--strict"});
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    CHECK(has(r.out, "2 passed, 0 failed"));
    auto e = runText(yaml, {}, "explain");
    INFO(e.out << e.err);
    CHECK(has(e.out, "check producers: not asserted on 2.10"));
}

TEST_CASE("a ~ in a per-version expect is not asserted there: the step runs, --strict accepts it", "[lang-a]") {
    std::string yaml =
        "name: lang-a\n"
        "broker:\n"
        "  version: [\"2.10\", \"3.0\"]\n"
        "steps:\n"
        "  - producer: { topic: t, name: p1, schema: STRING }\n"
        "    expect: { \"2.10\": ~, default: ok }\n"
        "  - producer: { topic: t, name: p2, schema: STRING }\n"
        "    expect: { \"3.0\": ~, default: { error: IncompatibleSchema } }\n";
    auto r = runText(yaml, {"--strict"});
    INFO(r.out << r.err);
    // 3.0: p2 not asserted; 2.10: p1 not asserted but p2 expects an error it does not get.
    CHECK(r.status == 1);
    CHECK(has(r.out, "1 passed, 1 failed"));
    CHECK(has(r.out, "expected an error, got ok"));
    auto e = runText(yaml, {}, "explain");
    INFO(e.out << e.err);
    CHECK(has(e.out, "expected: ~  [not asserted on 2.10]"));
    CHECK(has(e.out, "expected: ~  [not asserted on 3.0]"));
    auto lint = runText(yaml, {}, "lint");
    INFO(lint.out << lint.err);
    CHECK(lint.status == 0);
}

TEST_CASE("accept keeps ~ and fills in only what is missing", "[lang-a]") {
    TempDir dir;
    auto file = dir / "s.yaml";
    writeText(file,
              "name: lang-a\n"
              "broker:\n"
              "  version: [\"2.10\", \"3.0\"]\n"
              "steps:\n"
              "  - producer: { topic: t, name: p1, schema: STRING }\n"
              "    expect: { \"2.10\": ~, \"3.0\": { error: TopicNotFound } }\n");
    auto r = cli({"run", file.string(), "--accept=all"});
    INFO(r.out << r.err);
    auto text = readText(file);
    INFO(text);
    CHECK(has(text, "\"<3.0\": ~"));
    CHECK(has(text, "\">=3.0\": { schema_version: 0 }"));
    CHECK(!has(text, "TopicNotFound"));
}

TEST_CASE("a ~ as a race's outcomes for a version leaves the race unasserted there", "[lang-a]") {
    std::string yaml =
        "name: lang-a race\n"
        "broker:\n"
        "  version: [\"2.10\", \"3.0\"]\n"
        "steps:\n"
        "  - concurrently:\n"
        "      - producer: { topic: r, name: p1, schema: STRING }\n"
        "      - producer: { topic: r, name: p2, schema: STRING }\n"
        "    outcomes:\n"
        "      \"2.10\": ~\n"
        "      default:\n"
        "        - [ok, ok]\n";
    auto r = runText(yaml, {"--strict"});
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    CHECK(has(r.out, "1 step(s) not asserted on 2.10"));
    CHECK(!has(r.out, "not asserted on 3.0"));
}

TEST_CASE("check reads a namespace's policies as set: unset until set-policy sets them", "[lang-a]") {
    auto r = runText(
        "name: lang-a policies\n"
        "broker:\n"
        "  version: [\"2.10\", \"3.0\"]\n"
        "steps:\n"
        "  - check: { namespace: public/default, policies: { schema_compatibility_strategy: null } }\n"
        "  - check: { topic: t, strategy: FULL }\n"
        "  - set-policy: { namespace: public/default, schema_compatibility_strategy: BACKWARD }\n"
        "    expect: ok\n"
        "  - check: { namespace: public/default, policies: { schema_compatibility_strategy: BACKWARD } }\n"
        "  - check: { topic: t, strategy: BACKWARD, policies: { schemaCompatibilityStrategy: null } }\n"
        "  - check: { namespace: public/default, policies: { schema_compatibility_strategy: FULL } }\n",
        {});
    INFO(r.out << r.err);
    CHECK(r.status == 1);
    CHECK(has(r.out, "0 passed, 2 failed"));
    CHECK(has(r.out, "policies: expected schema_compatibility_strategy: FULL, found BACKWARD"));
    CHECK(!has(r.out, "schemaCompatibilityStrategy: null, found"));
}

TEST_CASE("check reads a topic policy as set, distinct from the effective strategy", "[lang-a]") {
    auto r = runText(
        "name: lang-a topic policy\n"
        "broker:\n"
        "  version: \"3.0\"\n"
        "  config: { topicLevelPoliciesEnabled: true, systemTopicEnabled: true }\n"
        "topics:\n"
        "  t: ~\n"
        "steps:\n"
        "  - set-policy: { topic: t, schemaCompatibilityStrategy: FORWARD }\n"
        "    expect: ok\n"
        "  - check: { topic: t, strategy: FORWARD, policies: { schemaCompatibilityStrategy: FORWARD } }\n"
        "  - check: { topic: u, policies: { schemaCompatibilityStrategy: null } }\n",
        {"--strict"});
    INFO(r.out << r.err);
    CHECK(r.status == 0);
}

TEST_CASE("a namespace check takes only policies", "[lang-a]") {
    auto r = runText(std::string(kHeader) + "  - check: { namespace: public/default, producers: 1 }\n", {}, "lint");
    INFO(r.out << r.err);
    CHECK(r.status == 2);
    CHECK(has(r.out + r.err, "a namespace check takes only 'policies'"));
}

TEST_CASE("a scenario that upgrades shows its version path in run and explain", "[lang-a]") {
    std::string yaml =
        "name: lang-a upgrade\n"
        "broker:\n"
        "  version: \"2.10\"\n"
        "steps:\n"
        "  - producer: { topic: t, name: p1, schema: STRING }\n"
        "    expect: ok\n"
        "  - upgrade-broker: \"3.0\"\n"
        "    expect: ok\n"
        "  - check: { topic: t, producers: { \"2.10\": 1, default: 0 } }\n";
    auto r = runText(yaml);
    INFO(r.out << r.err);
    CHECK(r.status == 0);  // per-version keys after the upgrade still match the starting 2.10
    CHECK(has(r.out, "lang-a upgrade [2.10 \u2192 3.0]"));
    auto e = runText(yaml, {}, "explain");
    INFO(e.out << e.err);
    CHECK(has(e.out, "lang-a upgrade [2.10 \u2192 3.0]"));
}
