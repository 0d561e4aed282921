#pragma once
// What the commands of `cnxsim` share (sim/cli/cli.cc dispatches to them):
// loading scenario paths, and run, explain, lint and profiles with their
// usage texts (each in its own file: cli_run.cc, cli_explain.cc,
// cli_profiles.cc).

#include <cstddef>
#include <iosfwd>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "broker_model/core/fast_paths.h"
#include "sim/cli/cli_args.h"
#include "sim/parallel/ordered_pool.h"
#include "sim/scenario/loader.h"

namespace cnx::sim::cli {

/// Scenario files as loaded: each scenario with its file, every load error,
/// and the schemas files that hold no scenario.
struct Loaded {
    std::vector<std::pair<std::string, Scenario>> scenarios;  // (file, scenario)
    std::vector<LoadError> errors;
    std::vector<std::pair<std::string, std::size_t>> schemasFiles;  // (file, definitions): no scenario
};

/// Loads the scenario files under `paths` on `jobs` threads; scenarios and
/// errors come in file order, as on one thread (cli_load.cc says how).
Loaded loadPaths(const std::vector<std::string>& paths, FastPaths fastPaths, unsigned jobs = defaultJobs());

/// Prints each load error and their count on `err`; returns kExitInvalid.
int reportErrors(const std::vector<LoadError>& errors, std::ostream& err);

/// The bundled suite: ./scenarios if there is one, else the installed one,
/// else the source tree's.
std::vector<std::string> defaultScenarioPaths();

/// The usage texts `cnxsim help COMMAND` prints.
std::string_view runUsage();
std::string_view explainUsage();
std::string_view lintUsage();
std::string_view profilesUsage();

/// The commands; each returns the exit status (kExitPassed, kExitFailed, kExitInvalid).
/// `environmentFastPaths` is CNXSIM_FAST_PATHS as runCli read it; `--no-fast-paths` turns them off.
int commandRun(const Args& args, std::ostream& out, std::ostream& err, FastPaths environmentFastPaths);
int commandExplain(const Args& args, std::ostream& out, std::ostream& err, FastPaths environmentFastPaths);
int commandLint(const Args& args, std::ostream& out, std::ostream& err, FastPaths environmentFastPaths);

/// The fast-paths switch of one command (broker_model/core/fast_paths.h):
/// `--no-fast-paths`, else CNXSIM_FAST_PATHS as runCli read it.
FastPaths fastPathsOf(const Args& args, FastPaths fromEnvironment);
int commandProfiles(const Args& args, std::ostream& out, std::ostream& err);

}  // namespace cnx::sim::cli
