#pragma once
// The scenario loader: reads scenario files (doc/scenario-format.md),
// checks them and resolves them into the scenario model (sim/scenario/scenario.h).
// Problems are returned as values, each pointing at the offending node as
// `file:line:column: message`; nothing here throws.

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "broker_model/core/fast_paths.h"
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
    /// The file is a schemas file (one document of only `schemas` and
    /// `imports`): checked, it holds no scenario; `schemaCount` definitions.
    bool schemasFile = false;
    std::size_t schemaCount = 0;

    bool ok() const { return errors.empty(); }
};

/// A schemas file (`imports:` of a scenario) as loaded: its definitions,
/// those it imports included, and the problems inside it at its own positions.
struct ImportedFile {
    std::optional<std::string> readError;            // unreadable: reported at the import
    std::map<std::string, SchemaRef> schemas;        // alias -> definition
    std::map<std::string, SourcePos> definedAt;      // alias -> its key in the file that defines it
    std::set<std::string> failed;                    // aliases whose definition is bad (in `errors`)
    std::vector<LoadError> errors;
};

/// The schemas files of one run: each is read and loaded once, however many
/// scenarios (or documents, or other schemas files) import it.
class ImportCache {
public:
    /// `fastPaths` off: every file of the run (scenarios and schemas files) is
    /// parsed by yaml-cpp alone, without the quick tree (core/fast_paths.h).
    explicit ImportCache(FastPaths fastPaths = FastPaths::on) : fastPaths_(fastPaths) {}
    FastPaths fastPaths() const { return fastPaths_; }
    /// The schemas file at `file`, loaded on its first request. nullptr when it
    /// is being loaded already: the request closes an import cycle, whose files
    /// `cycle` then lists (the first again at the end).
    const ImportedFile* get(const std::filesystem::path& file, std::vector<std::string>& cycle);
    /// Keeps a schemas file loaded by other means (the file given to `lint`).
    void remember(const std::filesystem::path& file, ImportedFile loaded);
    /// How many files were read from disk.
    int reads() const { return reads_; }
    /// How many schemas files are being loaded, one inside the other: the
    /// depth of the import chain at the file being read.
    std::size_t depth() const { return loading_.size(); }
    /// The longest import chain: a scenario and at most this many schemas
    /// files below it (doc/scenario-format.md, Limits). Loading recurses once
    /// per file of the chain; the bound keeps that far from the stack's end.
    static constexpr std::size_t kMaxDepth = 64;
    /// The file at the top of the chain being loaded ("" when none is).
    const std::string& chainStart() const;

private:
    static std::filesystem::path keyOf(const std::filesystem::path& file);
    std::map<std::filesystem::path, ImportedFile> files_;
    std::vector<std::pair<std::filesystem::path, std::string>> loading_;
    int reads_ = 0;
    FastPaths fastPaths_;
};

/// Loads every `---` document of `file`. Schema-definition `file:` paths are
/// resolved relative to the folder of `file`.
LoadResult loadScenarioFile(const std::filesystem::path& file);
/// The same, reading imported schemas files through `imports`.
LoadResult loadScenarioFile(const std::filesystem::path& file, ImportCache& imports);

/// Loads scenarios from `text`; `displayName` is the file name used in
/// positions, `baseDir` the folder schema `file:` paths are relative to.
LoadResult loadScenarioText(std::string_view text, const std::string& displayName,
                            const std::filesystem::path& baseDir, FastPaths fastPaths = FastPaths::on);

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
