// One option table (sim/cli/cli_args) parses every command with options:
// run, explain, lint and profiles, and compat, serve and record, which read
// the parsed words into their own arguments. What a user sees is the same on
// each: did-you-mean, "needs a value", "given twice", -h and -v.

#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "sim/cli/cli.h"
#include "sim/cli/cli_args.h"

using cnx::sim::Args;
using cnx::sim::parseArgs;

namespace {

std::string parseError(const std::string& command, const std::vector<std::string>& words) {
    Args args;
    auto e = parseArgs(command, words, args);
    return e ? *e : std::string("(parsed)");
}

int cli(const std::vector<std::string>& argv, std::string& out, std::string& err) {
    std::ostringstream o, e;
    int status = cnx::sim::runCli(argv, o, e);
    out = o.str();
    err = e.str();
    return status;
}

}  // namespace

TEST_CASE("every option in a command's table is in its help, and --help works on each", "[cli][args]") {
    for (const std::string command : {"run", "explain", "lint", "profiles", "compat", "serve", "record"}) {
        std::string out, err;
        INFO(command);
        REQUIRE(cli({command, "--help"}, out, err) == 0);
        CHECK_THAT(out, Catch::StartsWith("usage: cnxsim " + command));
        std::string shortHelp;
        REQUIRE(cli({command, "-h"}, shortHelp, err) == 0);
        CHECK(shortHelp == out);
        auto options = cnx::sim::optionsOf(command);
        if (command != "lint") CHECK_FALSE(options.empty());
        for (const auto& name : options) {
            INFO(name);
            CHECK_THAT(out, Catch::Contains(name));
        }
    }
}

TEST_CASE("serve, record and compat suggest the option meant", "[cli][args]") {
    CHECK(parseError("serve", {"--prot", "1"}) == "unknown option '--prot' for 'cnxsim serve' (did you mean '--port'?)");
    CHECK(parseError("record", {"--upstrem", "h:1"}) ==
          "unknown option '--upstrem' for 'cnxsim record' (did you mean '--upstream'?)");
    CHECK(parseError("compat", {"--stratgy", "FULL"}) ==
          "unknown option '--stratgy' for 'cnxsim compat' (did you mean '--strategy'?)");
}

TEST_CASE("a single-valued option of serve, record or compat given twice is an error", "[cli][args]") {
    CHECK(parseError("serve", {"--config", "a.conf", "--config=b.conf"}) == "option --config is given twice");
    CHECK(parseError("record", {"-o", "a.yaml", "--output", "b.yaml"}) == "option --output is given twice");
    CHECK(parseError("compat", {"--new", "a.avsc", "--new", "b.avsc"}) == "option --new is given twice");
    // run keeps the last one, as scripts that append an option expect.
    CHECK(parseError("run", {"--seed", "1", "--seed", "2"}) == "(parsed)");
}

TEST_CASE("an option without its value says so, whether last or given empty", "[cli][args]") {
    CHECK(parseError("serve", {"--port"}) == "option --port needs a value");
    CHECK(parseError("record", {"--upstream", "h:1", "-o"}) == "option -o needs a value");
    CHECK(parseError("serve", {"--setup="}) == "option --setup needs a value");
}

TEST_CASE("repeatable and many-valued options keep every value in order", "[cli][args]") {
    Args serve;
    REQUIRE_FALSE(parseArgs("serve", {"--set", "a=1", "--fault", "LOOKUP:drop", "--set=b=2", "--trace", "-", "-vv"}, serve));
    CHECK(serve.lists["--set"] == std::vector<std::string>{"a=1", "b=2"});
    CHECK(serve.lists["--fault"] == std::vector<std::string>{"LOOKUP:drop"});
    CHECK(serve.options["--trace"] == "-");  // standard output, not an option
    CHECK(serve.verbosity == 2);

    Args compat;
    REQUIRE_FALSE(parseArgs("compat", {"--existing", "v1.avsc", "v2.avsc", "--new", "v3.avsc", "--existing", "v0.avsc"}, compat));
    CHECK(compat.lists["--existing"] == std::vector<std::string>{"v1.avsc", "v2.avsc", "v0.avsc"});
    CHECK(compat.options["--new"] == "v3.avsc");
    CHECK(compat.positional.empty());
}

TEST_CASE("the typed commands check their values after parsing", "[cli][args]") {
    std::string out, err;
    CHECK(cli({"serve", "--port", "70000"}, out, err) == 2);
    CHECK_THAT(err, Catch::Contains("--port takes a number from 0 to 65535 or none (got '70000')"));
    CHECK(cli({"serve", "stray"}, out, err) == 2);
    CHECK_THAT(err, Catch::Contains("unknown argument 'stray' for 'cnxsim serve'"));
    CHECK(cli({"record", "--upstream", "nohost", "-o", "x.yaml"}, out, err) == 2);
    CHECK_THAT(err, Catch::Contains("--upstream takes HOST:PORT (got 'nohost')"));
    CHECK(cli({"record", "-o", "x.yaml"}, out, err) == 2);
    CHECK_THAT(err, Catch::Contains("--upstream HOST:PORT is required"));
    CHECK(cli({"compat", "stray.avsc"}, out, err) == 2);
    CHECK_THAT(err, Catch::Contains("unexpected argument 'stray.avsc' (files go after --existing or --new)"));
}
