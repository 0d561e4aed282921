// Issue 7 items 11 and 12: report, JUnit and --accept writes could be
// redirected or destroy special files. The JUnit writer used a fixed
// temporary name `<path>.tmp-cnxsim` opened without O_EXCL/O_NOFOLLOW (a
// planted symlink redirected the write), its rename replaced fifos and device
// nodes, it reset the file's mode and said "Success" on failure; --accept
// rewrote read-only files and replaced a symlinked scenario by a regular file.

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstring>

#include "issue7_test_support.h"
#include "sim/accept/accept_writer.h"
#include "sim/report/reports.h"

namespace {

using namespace issue7;
using namespace cnx::sim;

const std::vector<ScenarioResult> kNoResults;

}  // namespace

TEST_CASE("a symlink planted at the old temporary name does not redirect the JUnit write", "[write][issue7]") {
    TempDir dir;
    auto victim = dir / "victim.txt";
    writeText(victim, "precious\n");
    auto target = dir / "junit.xml";
    std::filesystem::create_symlink(victim, dir / "junit.xml.tmp-cnxsim");
    auto error = writeJUnit(target.string(), kNoResults, 1);
    INFO(error.value_or(""));
    CHECK_FALSE(error);
    CHECK(readText(victim) == "precious\n");
    CHECK(readText(target).find("<testsuites") != std::string::npos);
}

TEST_CASE("the JUnit writer refuses a fifo target and leaves it in place", "[write][issue7]") {
    TempDir dir;
    auto fifo = dir / "junit.xml";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    auto error = writeJUnit(fifo.string(), kNoResults, 1);
    REQUIRE(error);
    CHECK(error->find("not a regular file") != std::string::npos);
    CHECK(S_ISFIFO(modeOf(fifo)));
    CHECK(entriesOf(dir.path()) == std::vector<std::string>{"junit.xml"});  // no temporary left behind
}

TEST_CASE("the report writer refuses a directory target with a clear error", "[write][issue7]") {
    TempDir dir;
    auto sub = dir / "report.md";
    std::filesystem::create_directory(sub);
    auto error = writeReport(sub.string(), kNoResults, 1);
    REQUIRE(error);
    CHECK(error->find("is a directory, not a regular file") != std::string::npos);
    CHECK(std::filesystem::is_directory(sub));
    CHECK(entriesOf(dir.path()) == std::vector<std::string>{"report.md"});
}

TEST_CASE("the report writer does not replace or follow a symlinked target", "[write][issue7]") {
    TempDir dir;
    auto victim = dir / "victim.md";
    writeText(victim, "precious\n");
    auto link = dir / "report.md";
    std::filesystem::create_symlink(victim, link);
    auto error = writeReport(link.string(), kNoResults, 1);
    REQUIRE(error);
    CHECK(error->find("symbolic link") != std::string::npos);
    CHECK(std::filesystem::is_symlink(link));
    CHECK(readText(victim) == "precious\n");
}

TEST_CASE("the JUnit writer keeps an existing file's permissions", "[write][issue7]") {
    TempDir dir;
    auto target = dir / "junit.xml";
    writeText(target, "old\n");
    REQUIRE(::chmod(target.c_str(), 0640) == 0);
    REQUIRE_FALSE(writeJUnit(target.string(), kNoResults, 1));
    CHECK((modeOf(target) & 07777) == 0640);
}

TEST_CASE("a failed report write names the real error", "[write][issue7]") {
    TempDir dir;
    writeText(dir / "plain-file", "x");
    auto target = dir / "plain-file" / "junit.xml";  // a folder that is a file
    auto error = writeJUnit(target.string(), kNoResults, 1);
    REQUIRE(error);
    INFO(*error);
    CHECK(error->find(std::strerror(ENOTDIR)) != std::string::npos);
    CHECK(error->find("Success") == std::string::npos);
    CHECK(entriesOf(dir.path()) == std::vector<std::string>{"plain-file"});
}

TEST_CASE("a write that fails half-way removes its temporary file and names the error", "[write][issue7]") {
    TempDir dir;
    auto target = dir / "junit.xml";
    writeText(target, "old\n");
    // Files over 16 bytes cannot be written: write(2) fails with EFBIG.
    auto previous = std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit saved {};
    REQUIRE(::getrlimit(RLIMIT_FSIZE, &saved) == 0);
    struct rlimit small = saved;
    small.rlim_cur = 16;
    REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
    auto error = writeJUnit(target.string(), kNoResults, 1);
    ::setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, previous);
    REQUIRE(error);
    INFO(*error);
    CHECK(error->find(std::strerror(EFBIG)) != std::string::npos);
    CHECK(readText(target) == "old\n");
    CHECK(entriesOf(dir.path()) == std::vector<std::string>{"junit.xml"});
}

namespace {

const char* const kScenario =
    "name: accept target\n"
    "steps:\n"
    "  - producer: { topic: t, name: p1, schema: STRING }\n";

AcceptEdit firstStepOk() { return AcceptEdit{3, 5, std::nullopt, "ok"}; }

}  // namespace

TEST_CASE("run --accept refuses a read-only scenario, even as root", "[accept][write][issue7]") {
    TempDir dir;
    auto file = dir / "ro.yaml";
    writeText(file, kScenario);
    REQUIRE(::chmod(file.c_str(), 0444) == 0);
    auto error = applyAcceptEdits(file, {firstStepOk()});
    REQUIRE(error);
    CHECK(error->find("read-only") != std::string::npos);
    CHECK(readText(file) == kScenario);
    CHECK((modeOf(file) & 07777) == 0444);

    auto r = cli({"run", file.string(), "--accept"});
    INFO(r.out << r.err);
    CHECK(r.status == 2);
    CHECK(r.err.find("read-only") != std::string::npos);
    CHECK(readText(file) == kScenario);
}

TEST_CASE("run --accept on a symlinked scenario writes through to the link's target", "[accept][write][issue7]") {
    TempDir dir;
    std::filesystem::create_directory(dir / "real");
    auto real = dir / "real" / "s.yaml";
    writeText(real, kScenario);
    REQUIRE(::chmod(real.c_str(), 0640) == 0);
    auto link = dir / "s.yaml";
    std::filesystem::create_symlink("real/s.yaml", link);
    auto error = applyAcceptEdits(link, {firstStepOk()});
    INFO(error.value_or(""));
    REQUIRE_FALSE(error);
    CHECK(std::filesystem::is_symlink(link));
    CHECK(readText(real).find("    expect: ok\n") != std::string::npos);
    CHECK((modeOf(real) & 07777) == 0640);
    CHECK(entriesOf(dir / "real") == std::vector<std::string>{"s.yaml"});
}
