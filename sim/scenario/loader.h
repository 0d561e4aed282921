#pragma once
// The scenario loader: reads scenario files (doc/scenario-format.md),
// checks them and resolves them into the scenario model (sim/scenario/scenario.h).
// Problems are returned as values, each pointing at the offending node as
// `file:line:column: message`; nothing here throws.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario/scenario.h"

namespace cnx::sim {

/// One problem in a scenario file. `pos` is 1-based; whole-file problems
/// (unreadable, empty, missing path) point at 1:1.
struct LoadError {
    SourcePos pos;
    std::string message;

    /// Exactly `file:line:column: message`.
    std::string format() const;
};

/// The scenarios of a file and the problems found in it. Only documents
/// without errors produce a Scenario; `errors` is sorted by position.
struct LoadResult {
    std::vector<Scenario> scenarios;
    std::vector<LoadError> errors;

    bool ok() const { return errors.empty(); }
};

/// Loads every `---` document of `file`. Schema-definition `file:` paths are
/// resolved relative to the folder of `file`.
LoadResult loadScenarioFile(const std::filesystem::path& file);

/// Loads scenarios from `text`; `displayName` is the file name used in
/// positions, `baseDir` the folder schema `file:` paths are relative to.
LoadResult loadScenarioText(std::string_view text, const std::string& displayName,
                            const std::filesystem::path& baseDir);

/// Loads a `cnxsim serve --setup` file: one document in the scenario format
/// whose `name` and `steps` are optional and which may hold `faults`. On
/// success `scenarios` holds exactly that document.
LoadResult loadSetupFile(const std::filesystem::path& file);

/// Expands command-line PATHs into scenario files: a file is taken as given,
/// a folder is searched recursively for `*.yaml` / `*.yml` (sorted by path, so
/// runs are deterministic). Paths are kept in argument order without
/// duplicates. A path that does not exist adds an error to `errors`.
std::vector<std::filesystem::path> collectScenarioFiles(const std::vector<std::string>& paths,
                                                        std::vector<LoadError>& errors);

}  // namespace cnx::sim
