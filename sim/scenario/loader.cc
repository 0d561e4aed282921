#include "sim/scenario/loader.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/exceptions.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <variant>

#include "sim/io/file_read.h"
#include "sim/scenario/load/document_loader.h"
#include "sim/scenario/load/yaml_quick_tree.h"
#include "sim/scenario/yaml_precheck.h"

// The reading of one document is in sim/scenario/load/ (document_loader.h says
// which file holds which concern); this file holds the files and documents.

namespace cnx::sim {
namespace {

using load::inQuotes;
using load::kMaxReportedErrors;
using load::posText;

// ---------------------------------------------------------------------------
// Files

void sortAndCap(std::vector<LoadError>& errors) {
    std::stable_sort(errors.begin(), errors.end(), [](const LoadError& a, const LoadError& b) {
        return std::pair(a.pos.line, a.pos.column) < std::pair(b.pos.line, b.pos.column);
    });
    if (errors.size() <= kMaxReportedErrors) return;
    std::size_t more = errors.size() - kMaxReportedErrors;
    SourcePos at = errors[kMaxReportedErrors].pos;
    errors.resize(kMaxReportedErrors);
    errors.push_back({at, "too many errors; " + std::to_string(more) + " more not shown"});
}

LoadError errorAt(const std::string& file, int line, int column, std::string message) {
    LoadError e;
    e.pos.file = file;
    e.pos.line = line;
    e.pos.column = column;
    e.message = std::move(message);
    return e;
}

std::optional<load::YamlDocuments> parseDocuments(std::string_view text, const std::string& file,
                                                  std::vector<LoadError>& errors, FastPaths fastPaths) {
    auto at = [&](const YAML::Mark& m) {
        return SourcePos{file, m.line < 0 ? 1 : m.line + 1, m.column < 0 ? 1 : m.column + 1};
    };
    // yaml-cpp 0.7.0 only sees text libyaml accepted within the limits (sim/scenario/yaml_precheck.h),
    // and only text whose tree could not be built from libyaml's events as
    // yaml-cpp would build it (sim/scenario/load/yaml_quick_tree.h).
    // Fast paths off (core/fast_paths.h): no quick tree, yaml-cpp builds every tree.
    std::size_t documents = 0;
    load::YamlQuickTree quick(text);
    load::YamlQuickTree* observer = enabled(fastPaths) ? &quick : nullptr;
    if (auto problem = precheckYaml(text, {}, &documents, observer)) {
        errors.push_back(errorAt(file, problem->line, problem->column, std::move(problem->message)));
        return std::nullopt;
    }
    if (observer != nullptr) {
        if (auto docs = quick.take()) return docs;
    }
    try {
        load::YamlDocuments docs;
        YAML::Mark extra;
        if (docs.parse(text, documents, &extra)) return docs;
        errors.push_back({at(extra), yamlCppExtraDocumentMessage(documents)});
    } catch (const YAML::DeepRecursion& e) {  // not reached: the precheck's depth limit is lower
        errors.push_back(errorAt(file, 1, 1, "YAML nested too deeply (" + e.msg + ")"));
    } catch (const YAML::ParserException& e) {
        errors.push_back({at(e.mark), "invalid YAML: " + e.msg});
    } catch (const YAML::Exception& e) {
        errors.push_back({at(e.mark), "invalid YAML: " + e.msg});
    } catch (const std::exception& e) {  // e.g. std::bad_alloc: still an answer, not a crash
        errors.push_back(errorAt(file, 1, 1, std::string("cannot parse: ") + e.what()));
    }
    return std::nullopt;
}

void checkScenarioNames(std::vector<Scenario>& scenarios, std::vector<LoadError>& errors) {
    std::map<std::string, SourcePos> seen;
    for (const Scenario& s : scenarios) {
        if (auto [it, fresh] = seen.emplace(s.name, s.pos); !fresh)
            errors.push_back({s.pos, "duplicate scenario name " + inQuotes(s.name) + " (first at " +
                                         posText(it->second) + ")"});
    }
}

// A file holding one document of only `schemas` (and `imports`) is a schemas
// file, not a scenario: `run` on a folder skips it, `lint` checks it as one.
bool isSchemasOnly(const load::YamlDocuments& docs) {
    if (docs.size() != 1 || !docs[0].IsMap()) return false;
    bool schemas = false;
    for (const auto& kv : docs[0].pairs()) {
        if (!kv.first.IsScalar()) return false;
        const std::string& key = kv.first.Scalar();
        if (key == "schemas") {
            schemas = true;
        } else if (key != "imports") {
            return false;
        }
    }
    return schemas;
}

// Loads the documents of a schemas file (one document expected).
ImportedFile schemasFileOf(const load::YamlDocuments& docs, const std::string& displayName,
                           const std::filesystem::path& baseDir, ImportCache& imports) {
    ImportedFile out;
    if (docs.size() > 1) {
        auto second = docs[1].Mark();
        out.errors.push_back(errorAt(displayName, second.line < 0 ? 1 : second.line + 1, 1,
                                     "a schemas file holds one document; this is a second ('---')"));
        return out;
    }
    load::Ctx ctx{displayName, baseDir, {}};
    ctx.schemasFile = true;
    ctx.imports = &imports;
    Scenario holder;
    load::YamlRef root = docs.empty() ? load::YamlRef() : docs[0];
    load::DocumentLoader loader(ctx, holder);
    loader.load({root, docs.empty() ? SourcePos{displayName, 1, 1} : ctx.pos(root), "schemas file"});
    out.schemas = std::move(holder.schemas);
    for (const auto& [alias, ref] : out.schemas) out.definedAt.emplace(alias, loader.definedAt().at(alias));
    out.failed = loader.failedSchemas();
    out.errors = std::move(ctx.errors);
    return out;
}

std::filesystem::path baseDirOf(const std::filesystem::path& file) {
    std::filesystem::path base = file.parent_path();
    return base.empty() ? std::filesystem::path(".") : base;
}

}  // namespace

std::filesystem::path ImportCache::keyOf(const std::filesystem::path& file) {
    std::error_code ec;
    auto key = std::filesystem::weakly_canonical(file, ec);
    return ec ? file.lexically_normal() : key;
}

const ImportedFile* ImportCache::get(const std::filesystem::path& file, std::vector<std::string>& cycle) {
    auto key = keyOf(file);
    if (auto it = files_.find(key); it != files_.end()) return &it->second;
    for (std::size_t i = 0; i < loading_.size(); ++i) {
        if (loading_[i].first != key) continue;
        for (std::size_t j = i; j < loading_.size(); ++j) cycle.push_back(loading_[j].second);
        cycle.push_back(file.string());
        return nullptr;
    }
    ImportedFile loaded;
    ++reads_;
    auto read = readFileBounded(file, kScenarioFile);
    if (auto* e = std::get_if<FileReadError>(&read)) {
        loaded.readError = e->reason;
    } else {
        std::vector<LoadError> errors;
        auto docs = parseDocuments(std::get<std::string>(read), file.string(), errors, fastPaths_);
        loading_.emplace_back(key, file.string());
        if (docs) loaded = schemasFileOf(*docs, file.string(), baseDirOf(file), *this);
        loading_.pop_back();
        loaded.errors.insert(loaded.errors.begin(), errors.begin(), errors.end());
    }
    return &files_.emplace(key, std::move(loaded)).first->second;
}

const std::string& ImportCache::chainStart() const {
    static const std::string none;
    return loading_.empty() ? none : loading_.front().second;
}

void ImportCache::remember(const std::filesystem::path& file, ImportedFile loaded) {
    files_.emplace(keyOf(file), std::move(loaded));
}

std::string LoadError::format() const {
    return pos.file + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column) + ": " + message;
}

namespace {

// Identical problems (an imported file's, reported through each document that imports it) once.
void dropRepeats(std::vector<LoadError>& errors) {
    std::set<std::string> seen;
    std::erase_if(errors, [&](const LoadError& e) { return !seen.insert(e.format()).second; });
}

LoadResult loadText(std::string_view text, const std::string& displayName, const std::filesystem::path& baseDir,
                    bool setupFile, ImportCache& imports, const std::filesystem::path* file) {
    LoadResult result;
    if (text.size() > kScenarioFile.limitBytes) {  // as readFileBounded refuses a file
        result.errors.push_back(errorAt(displayName, 1, 1, overLimitReason(text.size(), kScenarioFile)));
        return result;
    }
    auto docs = parseDocuments(text, displayName, result.errors, imports.fastPaths());
    if (!docs) return result;
    if (setupFile && docs->size() > 1) {
        auto second = (*docs)[1].Mark();
        result.errors.push_back(errorAt(displayName, second.line < 0 ? 1 : second.line + 1, 1,
                                        "a setup file holds one document; this is a second ('---')"));
        return result;
    }
    if (!setupFile && isSchemasOnly(*docs)) {
        ImportedFile loaded = schemasFileOf(*docs, displayName, baseDir, imports);
        result.schemasFile = true;
        result.schemaCount = loaded.schemas.size();
        result.errors = loaded.errors;
        sortAndCap(result.errors);
        if (file) imports.remember(*file, std::move(loaded));
        return result;
    }
    if (setupFile && docs->empty()) docs->addEmpty();  // nothing to set up
    if (docs->empty()) {
        result.errors.push_back(errorAt(displayName, 1, 1, "the file holds no scenario (it is empty or only comments)"));
        return result;
    }
    for (std::size_t i = 0; i < docs->size(); ++i) {
        load::Ctx ctx{displayName, baseDir, {}};
        ctx.setupFile = setupFile;
        ctx.imports = &imports;
        Scenario scenario;
        scenario.documentIndex = static_cast<int>(i);
        load::DocumentLoader(ctx, scenario).load({(*docs)[i], ctx.pos((*docs)[i]), "scenario"});
        if (ctx.errors.empty()) result.scenarios.push_back(std::move(scenario));
        result.errors.insert(result.errors.end(), ctx.errors.begin(), ctx.errors.end());
    }
    checkScenarioNames(result.scenarios, result.errors);
    dropRepeats(result.errors);
    sortAndCap(result.errors);
    return result;
}

LoadResult loadFile(const std::filesystem::path& file, bool setupFile, ImportCache& imports) {
    auto read = readFileBounded(file, kScenarioFile);
    if (auto* e = std::get_if<FileReadError>(&read)) {
        LoadResult result;
        result.errors.push_back(errorAt(file.string(), 1, 1, e->reason));
        return result;
    }
    return loadText(std::get<std::string>(read), file.string(), baseDirOf(file), setupFile, imports, &file);
}

}  // namespace

LoadResult loadScenarioText(std::string_view text, const std::string& displayName,
                            const std::filesystem::path& baseDir, FastPaths fastPaths) {
    ImportCache imports(fastPaths);
    return loadText(text, displayName, baseDir, false, imports, nullptr);
}

LoadResult loadScenarioFile(const std::filesystem::path& file) {
    ImportCache imports;
    return loadFile(file, false, imports);
}

LoadResult loadScenarioFile(const std::filesystem::path& file, ImportCache& imports) {
    return loadFile(file, false, imports);
}

LoadResult loadSetupFile(const std::filesystem::path& file) {
    ImportCache imports;
    return loadFile(file, true, imports);
}

namespace {

bool isScenarioFile(const std::filesystem::directory_entry& entry) {
    std::error_code ec;
    if (!entry.is_regular_file(ec)) return false;
    auto ext = entry.path().extension();
    return ext == ".yaml" || ext == ".yml";
}

std::vector<std::filesystem::path> scenarioFilesUnder(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> out;
    std::error_code ec;
    auto options = std::filesystem::directory_options::skip_permission_denied;
    for (std::filesystem::recursive_directory_iterator it(dir, options, ec), end; !ec && it != end; it.increment(ec)) {
        if (isScenarioFile(*it)) out.push_back(it->path());
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

std::vector<std::filesystem::path> collectScenarioFiles(const std::vector<std::string>& paths,
                                                        std::vector<LoadError>& errors) {
    std::vector<std::filesystem::path> out;
    std::set<std::filesystem::path> seen;
    auto add = [&](const std::filesystem::path& p) {
        std::error_code ec;
        auto key = std::filesystem::weakly_canonical(p, ec);
        if (seen.insert(ec ? p : key).second) out.push_back(p);
    };
    for (const std::string& arg : paths) {
        std::filesystem::path p(arg);
        std::error_code ec;
        auto status = std::filesystem::status(p, ec);
        if (!std::filesystem::exists(status)) {
            errors.push_back(errorAt(arg, 1, 1, "no such file or folder"));
            continue;
        }
        if (!std::filesystem::is_directory(status)) {
            add(p);
            continue;
        }
        for (const auto& f : scenarioFilesUnder(p)) add(f);
    }
    return out;
}

}  // namespace cnx::sim
