// The limits and gap rules `cnxsim help run` states are the ones the code
// applies (the constants of sim/io/file_read.h and sim/scenario/yaml_precheck.h), so the
// help text cannot drift from the reader and the YAML check.

#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "sim/cli/cli.h"
#include "sim/io/file_read.h"
#include "sim/scenario/yaml_precheck.h"

namespace {

std::string helpRun() {
    std::ostringstream out, err;
    REQUIRE(cnx::sim::runCli({"help", "run"}, out, err) == 0);
    return out.str();
}

}  // namespace

TEST_CASE("cnxsim help run states the limits the reader and the YAML check apply", "[cli][limits]") {
    auto text = helpRun();
    const cnx::sim::YamlLimits limits;
    CHECK_THAT(text, Catch::Contains("scenario file is at most " +
                                     std::to_string(cnx::sim::kScenarioFile.limitBytes >> 20) + " MiB"));
    CHECK_THAT(text, Catch::Contains("schema file at most " + std::to_string(cnx::sim::kSchemaFile.limitBytes >> 20) +
                                     " MiB"));
    CHECK_THAT(text, Catch::Contains("1,000,000 YAML nodes"));
    CHECK(limits.maxNodes == 1'000'000);
    CHECK_THAT(text, Catch::Contains("nesting at most " + std::to_string(limits.maxDepth) + " levels"));
    CHECK_THAT(text, Catch::Contains("one scalar at\nmost " + std::to_string(limits.maxScalarBytes >> 20) + " MiB"));
    CHECK_THAT(text, Catch::Contains("not modelled: #NNNN"));
}
