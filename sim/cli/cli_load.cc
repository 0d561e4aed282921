#include "sim/cli/cli_commands.h"

#include <algorithm>
#include <filesystem>
#include <ostream>

#include <spdlog/spdlog.h>

#include "sim/cli/cli.h"
#include "sim/cli/version.h"

namespace cnx::sim::cli {
namespace {

Loaded loadFiles(const std::vector<std::filesystem::path>& files, unsigned jobs, FastPaths fastPaths) {
    Loaded loaded;
    // Each imported schemas file is read once per thread: the cache is the
    // thread's own, and which files a thread loads is fixed (Deal::striped).
    std::vector<ImportCache> imports(std::max(1u, jobs), ImportCache(fastPaths));
    forEachOrdered(
        files.size(), jobs, Deal::striped,
        [&](std::size_t i, unsigned worker) {
            spdlog::info("loading {}", files[i].string());
            return loadScenarioFile(files[i], imports[worker]);
        },
        [&](std::size_t i, LoadResult r) {
            if (r.schemasFile) loaded.schemasFiles.emplace_back(files[i].string(), r.schemaCount);
            for (auto& e : r.errors) loaded.errors.push_back(std::move(e));
            for (auto& s : r.scenarios) loaded.scenarios.emplace_back(files[i].string(), std::move(s));
        });
    return loaded;
}

}  // namespace

// The files are loaded on `jobs` threads and taken in file order. A schemas
// file loaded directly and also imported is reported under whichever spelling
// of its path read it first; that order is the files' on one thread only, so
// when anything failed to load the files are loaded again on one thread and
// the errors are exactly those of a one-thread run.
Loaded loadPaths(const std::vector<std::string>& paths, FastPaths fastPaths, unsigned jobs) {
    std::vector<LoadError> collectErrors;
    auto files = collectScenarioFiles(paths, collectErrors);
    auto loaded = loadFiles(files, jobs, fastPaths);
    if (jobs > 1 && !loaded.errors.empty()) loaded = loadFiles(files, 1, fastPaths);
    loaded.errors.insert(loaded.errors.begin(), collectErrors.begin(), collectErrors.end());
    return loaded;
}

int reportErrors(const std::vector<LoadError>& errors, std::ostream& err) {
    for (const auto& e : errors) err << e.format() << "\n";
    err << errors.size() << " problem(s) in the input; nothing was run\n";
    return kExitInvalid;
}

std::vector<std::string> defaultScenarioPaths() {
    if (std::filesystem::is_directory("scenarios")) return {"scenarios"};
    if (auto installed = installedScenarios()) return {*installed};  // PREFIX/share/cnxsim/scenarios
    return {CNXSIM_DEFAULT_SCENARIOS};
}

FastPaths fastPathsOf(const Args& args, FastPaths fromEnvironment) {
    return args.has("--no-fast-paths") ? FastPaths::off : fromEnvironment;
}

}  // namespace cnx::sim::cli
