// `imports:` (schemas files whose definitions a scenario or a schemas file
// uses) and the reading of a schemas file itself. Each file is loaded once per
// run by the ImportCache (sim/scenario/loader.cc); its problems are reported
// at its own positions.
#include <filesystem>

#include "sim/scenario/did_you_mean.h"
#include "sim/scenario/load/format.h"
#include "sim/scenario/load/names.h"

namespace cnx::sim::load {
namespace {

// The files of an import cycle, relative to the folder of the file that closes it.
std::string joined(const std::vector<std::string>& files, const std::filesystem::path& base) {
    std::string out;
    for (const std::string& f : files) {
        auto shown = std::filesystem::path(f).lexically_relative(base);
        out += (out.empty() ? "" : " -> ") + (shown.empty() ? f : shown.string());
    }
    return out;
}

bool samePlace(const SourcePos& a, const SourcePos& b) {
    return a.file == b.file && a.line == b.line && a.column == b.column;
}

}  // namespace

void DocumentLoader::loadSchemasFile(const Entries& top) {
    for (const Entry& e : top) {
        if (contains(kSchemasFileKeys, e.key)) continue;
        if (contains(kScenarioKeys, e.key) || contains(kSetupKeys, e.key)) {
            ctx_.error(e.keyPos, inQuotes(e.key) +
                                     " is a scenario key: a schemas file (imported) holds only 'imports' and 'schemas'");
            continue;
        }
        ctx_.error(e.keyPos, "unknown key " + inQuotes(e.key) + " in the schemas file" +
                                 didYouMeanSuffix(e.key, kSchemasFileKeys));
    }
    if (!findEntry(top, "schemas")) ctx_.error(s_.pos, "missing required key 'schemas' in the schemas file");
    readFields(*this, kSchemasFileFields, top, s_);
}

void DocumentLoader::loadImports(const Value& v) {
    if (v.node.IsNull()) return;
    std::vector<Value> items{v};
    if (v.node.IsSequence()) {
        auto seq = sequenceOf(ctx_, v);
        if (!seq) return;
        items = std::move(*seq);
    }
    for (const Value& item : items) {
        auto name = nonEmptyScalarOf(ctx_, item);
        if (!name) continue;
        std::filesystem::path file = ctx_.baseDir / *name;
        if (!ctx_.imports) {
            ctx_.error(item.pos, "imported file " + inQuotes(*name) + ": imports are not read here");
            continue;
        }
        if (ctx_.imports->depth() >= ImportCache::kMaxDepth) {
            ctx_.error(item.pos, "imported file " + inQuotes(*name) + ": imports nest more than " +
                                     std::to_string(ImportCache::kMaxDepth) + " schemas files deep (the chain from " +
                                     ctx_.imports->chainStart() + "); flatten the chain");
            continue;
        }
        std::vector<std::string> cycle;
        const ImportedFile* imported = ctx_.imports->get(file, cycle);
        if (!imported) {
            ctx_.error(item.pos, "import cycle: " + joined(cycle, ctx_.baseDir));
            continue;
        }
        if (imported->readError) {
            ctx_.error(item.pos, "imported file " + inQuotes(*name) + ": " + *imported->readError);
            continue;
        }
        ctx_.errors.insert(ctx_.errors.end(), imported->errors.begin(), imported->errors.end());
        brokenImport_ = brokenImport_ || !imported->errors.empty();
        failedSchemas_.insert(imported->failed.begin(), imported->failed.end());
        for (const auto& [alias, ref] : imported->schemas) {
            SourcePos at = imported->definedAt.at(alias);
            if (auto it = definedAt_.find(alias); it != definedAt_.end()) {
                if (samePlace(it->second, at)) continue;  // the same definition, imported through two files
                ctx_.error(item.pos, "schema " + inQuotes(alias) + " is imported from " + file.string() + " (defined at " +
                                         at.file + ":" + posText(at) + ") and from " + importedFrom_[alias] +
                                         " (defined at " + it->second.file + ":" + posText(it->second) + ")");
                continue;
            }
            definedAt_.emplace(alias, at);
            importedFrom_.emplace(alias, file.string());
            s_.schemas.emplace(alias, ref);
        }
    }
}

}  // namespace cnx::sim::load
