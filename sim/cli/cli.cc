#include "sim/cli/cli.h"

#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "sim/cli/cli_args.h"
#include "sim/cli/cli_commands.h"
#include "sim/cli/compat_command.h"
#include "sim/cli/version.h"
#include "sim/cli/record_command.h"
#include "sim/scenario/did_you_mean.h"
#include "sim/scenario/load/json_schema.h"
#include "sim/cli/serve_command.h"

namespace cnx::sim {
namespace {

constexpr std::string_view kUsage =
    "usage: cnxsim <command> [options]\n"
    "\n"
    "commands:\n"
    "  run [PATH...]      replay scenarios (default: the bundled scenarios/)\n"
    "  explain FILE       print the decision trace of every step of FILE\n"
    "  lint [PATH...]     check scenario files without running them (default: the bundled suite)\n"
    "  profiles           list the broker behaviour profiles\n"
    "  compat             check a schema against a schema history, as the broker would\n"
    "  serve              serve the model to real Pulsar clients on a TCP port\n"
    "  record             a proxy in front of a real broker that records the session\n"
    "  schema             print the JSON Schema of the scenario format (doc/scenario.schema.json)\n"
    "  completion bash    print a bash completion script\n"
    "  help [COMMAND]     this text, or a command's options\n"
    "\n"
    "Every command takes -h/--help (as `cnxsim help COMMAND`); run, explain, lint,\n"
    "profiles, compat, serve and record also -v/-vv/--verbose (diagnostics on\n"
    "stderr: info, debug).\n"
    "\n"
    "exit status: 0 all passed, 1 some failed, 2 invalid input\n";

constexpr std::string_view kSchemaUsage =
    "usage: cnxsim schema\n"
    "\n"
    "Prints the JSON Schema (draft 2020-12) of the scenario format, generated from\n"
    "the loader's own tables; doc/scenario.schema.json is this output. Editors\n"
    "that speak the yaml-language-server modeline use it (doc/scenario-format.md,\n"
    "\"Editor support\").\n";

constexpr std::string_view kCompletionUsage =
    "usage: cnxsim completion bash\n"
    "\n"
    "Prints a bash completion script: commands, their options and the values\n"
    "known for them (--schedule fifo|random, --shard-by runs|interleavings),\n"
    "files for paths. Install it with\n"
    "  cnxsim completion bash > ~/.local/share/bash-completion/completions/cnxsim\n"
    "or, for the current shell, `source <(cnxsim completion bash)`.\n";

void setVerbosity(int v) {
    static auto logger = [] {
        auto l = spdlog::stderr_color_mt("cnxsim");
        spdlog::set_default_logger(l);
        return l;
    }();
    (void)logger;
    spdlog::set_level(v >= 2 ? spdlog::level::debug : v == 1 ? spdlog::level::info : spdlog::level::warn);
}

std::string_view usageOf(const std::string& command) {
    if (command == "run") return cli::runUsage();
    if (command == "explain") return cli::explainUsage();
    if (command == "lint") return cli::lintUsage();
    if (command == "profiles") return cli::profilesUsage();
    if (command == "compat") return compatUsage();
    if (command == "serve") return serve::serveUsage();
    if (command == "record") return record::recordUsage();
    if (command == "completion") return kCompletionUsage;
    if (command == "schema") return kSchemaUsage;
    return kUsage;
}

// CNXSIM_FAST_PATHS (broker_model/core/fast_paths.h): read here, once, and
// handed to the command as a value; the model never looks it up. nullopt,
// said on `err`, when it is neither on nor off.
std::optional<FastPaths> environmentFastPaths(std::ostream& err) {
    const char* text = std::getenv("CNXSIM_FAST_PATHS");
    auto fastPaths = fastPathsFromText(text ? text : "");
    if (!fastPaths) err << "cnxsim: CNXSIM_FAST_PATHS takes on or off (1 or 0), got '" << text << "'\n";
    return fastPaths;
}

bool asksForHelp(const std::vector<std::string>& args) {
    return args.size() == 1 && (args[0] == "-h" || args[0] == "--help");
}

int commandSchema(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    if (asksForHelp(args)) {
        out << kSchemaUsage;
        return kExitPassed;
    }
    if (!args.empty()) {
        err << "cnxsim schema: takes no arguments\n" << kSchemaUsage;
        return kExitInvalid;
    }
    out << load::scenarioJsonSchema();
    return kExitPassed;
}

int commandCompletion(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    if (asksForHelp(args)) {
        out << kCompletionUsage;
        return kExitPassed;
    }
    if (args.size() != 1 || args[0] != "bash") {
        err << "cnxsim completion: expected the shell, bash\n" << kCompletionUsage;
        return kExitInvalid;
    }
    out << bashCompletion();
    return kExitPassed;
}

// The commands whose options parseArgs reads (cli_args.h): run, explain, lint, profiles.
int runParsedCommand(const std::string& command, const std::vector<std::string>& rest, std::ostream& out,
                     std::ostream& err, FastPaths fastPaths) {
    if (!parsedCommand(command)) {
        auto hint = closestMatch(command, commandNames());
        err << "cnxsim: unknown command '" << command << "'" << (hint ? " (did you mean '" + *hint + "'?)" : "") << "\n"
            << kUsage;
        return kExitInvalid;
    }
    Args args;
    if (auto e = parseArgs(command, rest, args)) {
        err << "cnxsim " << command << ": " << *e << "\n" << usageOf(command);
        return kExitInvalid;
    }
    if (args.options.count("--help")) {
        out << usageOf(command);
        return kExitPassed;
    }
    setVerbosity(args.verbosity);
    if (command == "run") return cli::commandRun(args, out, err, fastPaths);
    if (command == "explain") return cli::commandExplain(args, out, err, fastPaths);
    if (command == "lint") return cli::commandLint(args, out, err, fastPaths);
    return cli::commandProfiles(args, out, err);
}

}  // namespace

int runCli(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    if (argv.empty() || argv[0] == "--help" || argv[0] == "-h") {
        (argv.empty() ? err : out) << kUsage;
        return argv.empty() ? kExitInvalid : kExitPassed;
    }
    const std::string& command = argv[0];
    if (command == "help") {
        out << usageOf(argv.size() > 1 ? argv[1] : "");
        return kExitPassed;
    }
    const auto fastPaths = environmentFastPaths(err);
    if (!fastPaths) return kExitInvalid;
    const std::vector<std::string> rest(argv.begin() + 1, argv.end());
    if (command == "--version" || command == "version") {
        printVersion(out);
        return kExitPassed;
    }
    if (command == "schema") return commandSchema(rest, out, err);
    if (command == "compat") return runCompat(rest, out, err);
    if (command == "serve") return serve::runServe(rest, out, err, *fastPaths);
    if (command == "record") return record::runRecord(rest, out, err);
    if (command == "completion") return commandCompletion(rest, out, err);
    return runParsedCommand(command, rest, out, err, *fastPaths);
}

}  // namespace cnx::sim
