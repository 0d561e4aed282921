// The bounded reader (sim/io/file_read.h) and the libyaml gate in front of
// yaml-cpp (sim/scenario/yaml_precheck.h), issue 7 items 5 and 7: every file is read
// only if regular and within its limit, and no text yaml-cpp 0.7.0 cannot
// survive reaches it.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "sim/io/file_read.h"
#include "sim/scenario/loader.h"
#include "sim/scenario/yaml_precheck.h"

using namespace cnx::sim;

namespace {

std::filesystem::path scratch(const std::string& name) {
    auto dir = std::filesystem::temp_directory_path() / ("cnxsim-file-read-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    return dir / name;
}

std::filesystem::path writeFile(const std::string& name, const std::string& text) {
    auto path = scratch(name);
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

std::string reasonOf(const std::variant<std::string, FileReadError>& r) {
    const auto* e = std::get_if<FileReadError>(&r);
    return e ? e->reason : "(read " + std::to_string(std::get<std::string>(r).size()) + " bytes)";
}

constexpr FileKind kTiny{"tiny files", 10};

}  // namespace

TEST_CASE("a regular file within its limit is read whole", "[file_read]") {
    auto path = writeFile("ten.txt", "0123456789");
    auto r = readFileBounded(path, kTiny);
    REQUIRE(std::holds_alternative<std::string>(r));
    CHECK(std::get<std::string>(r) == "0123456789");
}

TEST_CASE("a file over its limit is refused, with both sizes", "[file_read]") {
    auto path = writeFile("eleven.txt", "0123456789A");
    auto r = readFileBounded(path, kTiny);
    REQUIRE(std::holds_alternative<FileReadError>(r));
    CHECK(std::get<FileReadError>(r).message() == path.string() + ": 11 bytes is over the 10 bytes limit for tiny files");
}

TEST_CASE("files that are not regular are refused without being read", "[file_read]") {
    CHECK(reasonOf(readFileBounded("/dev/zero", kScenarioFile)) == "not a regular file (it is a device)");
    CHECK(reasonOf(readFileBounded(std::filesystem::temp_directory_path(), kScenarioFile)) ==
          "not a regular file (it is a directory)");
    auto fifo = scratch("a.fifo");
    std::filesystem::remove(fifo);
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK(reasonOf(readFileBounded(fifo, kScenarioFile)) == "not a regular file (it is a fifo)");  // no writer: no wait
    CHECK(reasonOf(readFileBounded(scratch("missing"), kScenarioFile)) == "does not exist");
}

TEST_CASE("sizes are written as people read them", "[file_read]") {
    CHECK(sizeText(1) == "1 byte");
    CHECK(sizeText(1023) == "1023 bytes");
    CHECK(sizeText(3 * 1024) == "3 KiB");
    CHECK(sizeText(70u << 20) == "70 MiB");
    CHECK(sizeText((3u << 20) / 2) == "1.5 MiB");
}

TEST_CASE("the yaml-cpp 0.7.0 hangs never reach yaml-cpp", "[yaml_precheck]") {
    // yaml-cpp#1040: a ',' where a block node starts loops allocating until bad_alloc.
    for (std::string text : {",", ",,", ", a", "# c\n,", "---\n, a\n"}) {
        INFO(text);
        auto problem = precheckYaml(text);
        REQUIRE(problem);
        CHECK(problem->message == "invalid YAML: did not find expected node content (while parsing a block node)");
    }
    // libyaml accepts these; yaml-cpp reads a document end after the anchor or tag and loops on the ','.
    for (std::string text : {"&a \t...\n,---\n&&a ", "&a ...x\n,", "!t ...\n,", "&a ---\n,"}) {
        INFO(text);
        auto problem = precheckYaml(text);
        REQUIRE(problem);
        CHECK(problem->message ==
              "a plain scalar may not start with '---' or '...' (yaml-cpp reads a document marker there); quote it");
    }
}

TEST_CASE("the precheck's limits hold, each at its position", "[yaml_precheck]") {
    YamlLimits small{3, 4, 6};
    CHECK_FALSE(precheckYaml("a: [b, [c]]", small));
    auto deep = precheckYaml("a: [b, [[c]]]", small);
    REQUIRE(deep);
    CHECK((deep->line == 1 && deep->column == 9));
    auto longScalar = precheckYaml("a: abcde", small);
    REQUIRE(longScalar);
    CHECK(longScalar->message == "a YAML scalar of 5 bytes is over the 4 bytes limit for one value");
    auto many = precheckYaml("a: &x [b, c]\nd: *x\n", small);  // map, a, x(3), d, *x(3) = 8 nodes
    REQUIRE(many);
    CHECK((many->line == 2 && many->column == 4));
    auto recursive = precheckYaml("a: &x [*x]");
    REQUIRE(recursive);
    CHECK(recursive->message == "the YAML alias *x refers to a node that contains it");
}

TEST_CASE("loadScenarioText refuses text over the scenario file limit, as the file reader does", "[loader]") {
    std::string text(kScenarioFile.limitBytes + 1, '#');
    auto result = loadScenarioText(text, "big.yaml", ".");
    REQUIRE(result.errors.size() == 1);
    CHECK(result.errors[0].format() == "big.yaml:1:1: 8388609 bytes is over the 8 MiB limit for scenario files");
}
