// `cnxsim run --accept`: expectations are written into the file's text; every
// other byte (comments, blank lines, layout) stays as it was.

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/accept/accept_writer.h"
#include "sim/scenario/loader.h"

namespace {

using namespace cnx::sim;

std::string edited(std::string text, std::vector<AcceptEdit> edits) {
    auto error = applyAcceptEditsToText(text, std::move(edits));
    INFO(error.value_or(""));
    REQUIRE_FALSE(error);
    return text;
}

// The positions the runner takes from the loaded scenario.
AcceptEdit editFor(const std::string& text, std::size_t step, const std::string& yaml) {
    auto result = loadScenarioText(text, "a.yaml", ".");
    REQUIRE(result.errors.empty());
    const Step& s = result.scenarios.at(0).steps.at(step);
    AcceptEdit e{s.pos.line, s.pos.column, std::nullopt, yaml};
    if (s.expect.present) e.expectLine = s.expect.pos.line;
    return e;
}

}  // namespace

TEST_CASE("accept inserts expect into block-style steps", "[accept]") {
    const std::string text = R"(name: x   # the scenario
steps:
  # open it
  - producer: { topic: t, name: p1 }

  # a comment about the next step
  - producer:
      topic: t
      name: p2
      # trailing comment inside the step

  - close: p1
)";
    std::string out = edited(text, {editFor(text, 0, "ok"), editFor(text, 1, "{ error: ProducerBusy }"),
                                    editFor(text, 2, "ok")});
    CHECK(out == R"(name: x   # the scenario
steps:
  # open it
  - producer: { topic: t, name: p1 }
    expect: ok

  # a comment about the next step
  - producer:
      topic: t
      name: p2
    expect: { error: ProducerBusy }
      # trailing comment inside the step

  - close: p1
    expect: ok
)");
    auto reloaded = loadScenarioText(out, "a.yaml", ".");
    REQUIRE(reloaded.errors.empty());
    CHECK(reloaded.scenarios[0].steps[1].expect.single->error == "ProducerBusy");
}

TEST_CASE("accept handles a last line without newline and CRLF files", "[accept]") {
    CHECK(edited("name: x\nsteps:\n  - producer: { topic: t }", {{3, 5, std::nullopt, "ok"}}) ==
          "name: x\nsteps:\n  - producer: { topic: t }\n    expect: ok");
    CHECK(edited("name: x\r\nsteps:\r\n- producer: { topic: t }\r\n# end\r\n", {{3, 3, std::nullopt, "ok"}}) ==
          "name: x\r\nsteps:\r\n- producer: { topic: t }\r\n  expect: ok\r\n# end\r\n");
}

TEST_CASE("accept replaces an existing expect, whatever its shape", "[accept]") {
    const std::string text = R"(name: x
steps:
  - producer: { topic: t, name: p1 }
    expect: { error: IncompatibleSchema }   # was flaky
    id: first
  - producer: { topic: t, name: p2 }
    expect:
      "<3.0": { error: IncompatibleSchema,
                message: "old" }
      # per profile
      default: ok

  # next
  - expect: ok
    subscribe: { topic: t, subscription: s }
)";
    std::string out = edited(text, {editFor(text, 0, "ok"), editFor(text, 1, "{ schema_version: 0 }"),
                                    editFor(text, 2, "{ error: ConsumerBusy }")});
    CHECK(out == R"(name: x
steps:
  - producer: { topic: t, name: p1 }
    expect: ok   # was flaky
    id: first
  - producer: { topic: t, name: p2 }
    expect: { schema_version: 0 }

  # next
  - expect: { error: ConsumerBusy }
    subscribe: { topic: t, subscription: s }
)");
    REQUIRE(loadScenarioText(out, "a.yaml", ".").errors.empty());
}

TEST_CASE("accept edits flow-style steps", "[accept]") {
    const std::string text = R"(name: x
steps:
  - { producer: { topic: t, name: "p,1" } }   # keep me
  - { producer: { topic: t, name: p2 }, expect: { error: ProducerBusy }, id: two }
  - {
      subscribe: { topic: t, subscription: s },
      expect: ok
    }
  - { close: p2, }
)";
    std::string out = edited(text, {editFor(text, 0, "ok"), editFor(text, 1, "ok"),
                                    editFor(text, 2, "{ error: IncompatibleSchema, message: \"a, b}\" }"),
                                    editFor(text, 3, "ok")});
    CHECK(out == R"(name: x
steps:
  - { producer: { topic: t, name: "p,1" }, expect: ok }   # keep me
  - { producer: { topic: t, name: p2 }, expect: ok, id: two }
  - {
      subscribe: { topic: t, subscription: s },
      expect: { error: IncompatibleSchema, message: "a, b}" }
    }
  - { close: p2, expect: ok }
)");
    auto reloaded = loadScenarioText(out, "a.yaml", ".");
    REQUIRE(reloaded.errors.empty());
    CHECK(reloaded.scenarios[0].steps[2].expect.single->message == "a, b}");
}

TEST_CASE("accept edits flow sequences of steps on one line", "[accept]") {
    const std::string text = "name: x\nsteps: [ { producer: { topic: t } }, { producer: { topic: u } } ]\n";
    CHECK(edited(text, {editFor(text, 0, "ok"), editFor(text, 1, "{ error: TopicNotFound }")}) ==
          "name: x\nsteps: [ { producer: { topic: t }, expect: ok }, { producer: { topic: u }, expect: { error: "
          "TopicNotFound } } ]\n");
}

TEST_CASE("accept refuses edits that do not match the text", "[accept]") {
    std::string text = "name: x\nsteps:\n  - producer: { topic: t }\n";
    const std::string original = text;
    CHECK(applyAcceptEditsToText(text, {{9, 5, std::nullopt, "ok"}}) == "no step at line 9");
    CHECK(applyAcceptEditsToText(text, {{3, 1, std::nullopt, "ok"}}) == "no step key at 3:1");
    CHECK(applyAcceptEditsToText(text, {{3, 5, 3, "ok"}}) == "no 'expect' key on line 3");
    CHECK(applyAcceptEditsToText(text, {{3, 5, std::nullopt, "a\nb"}}) ==
          "expect value must be one non-empty line of YAML");
    CHECK(applyAcceptEditsToText(text, {{3, 5, std::nullopt, "ok"}, {3, 5, std::nullopt, "ok"}}) ==
          "two edits for the step at 3:5");
    CHECK(text == original);
}

TEST_CASE("applyAcceptEdits replaces the file atomically and keeps its mode", "[accept]") {
    auto dir = std::filesystem::temp_directory_path() / ("cnxsim-accept-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    auto file = dir / "s.yaml";
    std::ofstream(file) << "# header\nname: x\nsteps:\n  - producer: { topic: t }\n";
    ::chmod(file.c_str(), 0640);
    REQUIRE_FALSE(applyAcceptEdits(file, {{4, 5, std::nullopt, "ok"}}));
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    CHECK(text.str() == "# header\nname: x\nsteps:\n  - producer: { topic: t }\n    expect: ok\n");
    struct stat st {};
    REQUIRE(::stat(file.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0640);
    int entries = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++entries;
    CHECK(entries == 1);  // no temporary file left behind
    auto error = applyAcceptEdits(dir / "missing.yaml", {{1, 1, std::nullopt, "ok"}});
    REQUIRE(error);
    CHECK(error->find("missing.yaml") != std::string::npos);
    std::filesystem::remove_all(dir);
}
