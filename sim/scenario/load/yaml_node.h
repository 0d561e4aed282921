#pragma once
// Reading YAML nodes with their positions: the context of one document (its
// file, its errors, its node budget), a node with where it is, the entries of a
// mapping, and the typed readers every key's value goes through. Each reader
// reports its own problem at the node and answers nullopt.

#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario/load/vocabulary.h"
#include "sim/scenario/load/yaml_tree.h"
#include "sim/scenario/loader.h"

namespace cnx::sim::load {

/// The file being read and the errors found.
struct Ctx {
    std::string file;
    std::filesystem::path baseDir;
    std::vector<LoadError> errors;
    bool setupFile = false;  // a `cnxsim serve --setup` file: name and steps optional, `faults` known
    bool schemasFile = false;  // a schemas file: only `imports` and `schemas`
    ImportCache* imports = nullptr;  // where `imports:` are read; none: they are reported unreadable
    std::size_t budget = kNodeBudget;
    bool exhausted = false;

    SourcePos pos(const YamlRef& n) const;
    void error(const SourcePos& at, std::string message) { errors.push_back({at, std::move(message)}); }

    // One unit of work; false once the document's budget is spent (aliases
    // can make a small file expand to billions of nodes).
    bool spend(const SourcePos& at);
};

/// A node with where it is and how to name it in messages.
struct Value {
    YamlRef node;
    SourcePos pos;
    std::string what;  // the key it is the value of, e.g. "topic"
};

struct Entry {
    std::string key;
    SourcePos keyPos;
    Value value;
    YamlRef keyNode;  // the key itself (a scalar)
};

using Entries = std::vector<Entry>;

std::string_view kindOf(const YamlRef& n);
void wrongType(Ctx& ctx, const Value& v, std::string_view expected);
std::string posText(const SourcePos& p);

// The entries of a mapping, in file order; duplicate keys and non-scalar keys
// are reported (yaml-cpp keeps duplicates silently) and dropped.
std::optional<Entries> entriesOf(Ctx& ctx, const Value& v);
const Entry* findEntry(const Entries& entries, std::string_view key);

// Reports every key not in `allowed`; true when there was none.
bool rejectUnknown(Ctx& ctx, const Entries& entries, Names allowed, std::string_view where);
bool require(Ctx& ctx, const Entries& entries, std::string_view key, const SourcePos& at, std::string_view where);

std::optional<std::string> scalarOf(Ctx& ctx, const Value& v);
std::optional<std::string> nonEmptyScalarOf(Ctx& ctx, const Value& v);
std::optional<std::int64_t> parseInteger(std::string_view text);
std::optional<std::int64_t> integerOf(Ctx& ctx, const Value& v, std::int64_t min,
                                      std::int64_t max = std::numeric_limits<int>::max());
std::optional<bool> boolOf(Ctx& ctx, const Value& v);
// A scalar that must be one of `names` (exact spelling).
std::optional<std::string> enumOf(Ctx& ctx, const Value& v, Names names, std::string_view noun);
// A sequence of scalars; a single scalar counts as a list of one.
std::optional<std::vector<std::string>> scalarListOf(Ctx& ctx, const Value& v);
std::optional<std::vector<Value>> sequenceOf(Ctx& ctx, const Value& v);

}  // namespace cnx::sim::load
