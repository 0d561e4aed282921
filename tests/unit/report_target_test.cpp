// Issue 40 item 16: `run --junit`, `--report` and `--json` replaced a
// read-only target file (as root, and as another user's file), exit 0. They
// refuse it as --accept refuses a read-only scenario (the mode bits are
// checked, so root is refused too), with a clear error, exit 2, before
// anything runs; the writer itself refuses it as well.

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include "issue7_test_support.h"
#include "sim/io/file_write.h"
#include "sim/report/json_report.h"
#include "sim/report/reports.h"

namespace {

using namespace issue7;
using namespace cnx::sim;

const std::string kScenario = std::string(CNXSIM_SOURCE_DIR) + "/doc/examples/first-scenario.yaml";

}  // namespace

TEST_CASE("run refuses a read-only --junit, --report or --json target before running, even as root",
          "[write][issue40]") {
    for (const char* option : {"--junit", "--report", "--json"}) {
        DYNAMIC_SECTION(option) {
            TempDir dir;
            std::string name = std::string(option) == "--report" ? "report.md" : "out.txt";
            auto target = dir / name;
            writeText(target, "keep me\n");
            REQUIRE(::chmod(target.c_str(), 0444) == 0);
            auto r = cli({"run", kScenario, option, target.string()});
            INFO(r.out << r.err);
            CHECK(r.status == 2);
            CHECK(r.err.find(std::string("cnxsim run: ") + option + ": refusing to write " + target.string() +
                             ": the file is read-only (mode 0444)") != std::string::npos);
            CHECK(r.out.find("PASS") == std::string::npos);  // nothing ran
            CHECK(readText(target) == "keep me\n");
            CHECK((modeOf(target) & 07777) == 0444);
            CHECK(entriesOf(dir.path()) == std::vector<std::string>{name});
        }
    }
}

TEST_CASE("run refuses another user's read-only report target", "[write][issue40]") {
    TempDir dir;
    auto target = dir / "junit.xml";
    writeText(target, "theirs\n");
    REQUIRE(::chmod(target.c_str(), 0444) == 0);
    if (::geteuid() == 0) REQUIRE(::chown(target.c_str(), 65534, 65534) == 0);  // nobody's, when we may give it away
    auto r = cli({"run", kScenario, "--junit", target.string()});
    INFO(r.out << r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find("read-only") != std::string::npos);
    CHECK(readText(target) == "theirs\n");
}

TEST_CASE("the report writers refuse a read-only target themselves and leave it alone", "[write][issue40]") {
    TempDir dir;
    auto target = dir / "report.md";
    writeText(target, "keep me\n");
    REQUIRE(::chmod(target.c_str(), 0444) == 0);
    const std::vector<ScenarioResult> none;
    for (auto error : {writeJUnit(target.string(), none, 1), writeReport(target.string(), none, 1),
                       writeJsonLines(target.string(), none, 1)}) {
        REQUIRE(error);
        CHECK(error->find("read-only") != std::string::npos);
    }
    CHECK(readText(target) == "keep me\n");
    CHECK(entriesOf(dir.path()) == std::vector<std::string>{"report.md"});
}

TEST_CASE("checkWriteTarget passes an absent or writable target and refuses what the writer refuses",
          "[write][issue40]") {
    TempDir dir;
    CHECK_FALSE(checkWriteTarget(dir / "absent.xml"));
    writeText(dir / "rw.xml", "x");
    REQUIRE(::chmod((dir / "rw.xml").c_str(), 0644) == 0);
    CHECK_FALSE(checkWriteTarget(dir / "rw.xml"));
    std::filesystem::create_symlink("rw.xml", dir / "link.xml");
    auto link = checkWriteTarget(dir / "link.xml");
    REQUIRE(link);
    CHECK(link->find("symbolic link") != std::string::npos);
    std::filesystem::create_directory(dir / "folder.xml");
    auto folder = checkWriteTarget(dir / "folder.xml");
    REQUIRE(folder);
    CHECK(folder->find("a directory, not a regular file") != std::string::npos);
}

TEST_CASE("run writes a writable report target as before", "[write][issue40]") {
    TempDir dir;
    auto target = dir / "junit.xml";
    writeText(target, "old\n");
    REQUIRE(::chmod(target.c_str(), 0640) == 0);
    auto r = cli({"run", kScenario, "--junit", target.string()});
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    CHECK(readText(target).find("<testsuites") != std::string::npos);
    CHECK((modeOf(target) & 07777) == 0640);
}
