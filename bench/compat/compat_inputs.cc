#include "bench/compat/compat_inputs.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace cnx::bench {
namespace {

constexpr const char* kNamespace = "org.cnxsim.bench";

// A realistic field mix: primitives and an optional (nullable) string.
std::string fieldJson(const std::string& name, std::size_t i) {
    switch (i % 6) {
        case 0: return R"({"name":")" + name + R"(","type":"int"})";
        case 1: return R"({"name":")" + name + R"(","type":"long"})";
        case 2: return R"({"name":")" + name + R"(","type":"string"})";
        case 3: return R"({"name":")" + name + R"(","type":"double"})";
        case 4: return R"({"name":")" + name + R"(","type":"boolean"})";
        default: return R"({"name":")" + name + R"(","type":["null","string"],"default":null})";
    }
}

// The field a new version adds: optional, so every strategy accepts it.
std::string optionalField(const std::string& name) {
    return R"({"name":")" + name + R"(","type":["null","long"],"default":null})";
}

std::string record(const std::string& name, const std::vector<std::string>& fields) {
    std::string out = R"({"type":"record","name":")" + name + R"(","namespace":")" + kNamespace + R"(","fields":[)";
    for (std::size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + fields[i];
    return out + "]}";
}

std::vector<std::string> plainFields(std::size_t n) {
    std::vector<std::string> fields;
    fields.reserve(n + 1);
    for (std::size_t i = 0; i < n; ++i) fields.push_back(fieldJson("f" + std::to_string(i), i));
    return fields;
}

// Record of n fields; the candidate adds one optional field.
void addFieldCases(std::vector<CompatCase>& out) {
    for (std::size_t n : {5, 20, 100, 1000, 10000}) {
        auto fields = plainFields(n);
        std::string existing = record("Wide", fields);
        fields.push_back(optionalField("added"));
        std::string candidate = record("Wide", fields);
        for (const char* s : {"BACKWARD", "FULL"}) {
            out.push_back({"record_fields_" + std::to_string(n) + "/" + s, s, {existing}, candidate, "fields", n});
        }
    }
}

// Level i holds two fields and Level i+1; the candidate adds an optional field at the deepest level.
std::string nested(std::size_t levels, bool withAddedLeafField) {
    std::string inner;
    for (std::size_t k = levels; k-- > 0;) {
        std::vector<std::string> fields{fieldJson("id", 0), fieldJson("label", 2)};
        if (!inner.empty()) fields.push_back(R"({"name":"child","type":)" + inner + "}");
        if (inner.empty() && withAddedLeafField) fields.push_back(optionalField("added"));
        inner = record("Level" + std::to_string(k), fields);
    }
    return inner;
}

void addNestingCases(std::vector<CompatCase>& out) {
    constexpr std::size_t kLevels = 50;
    std::string existing = nested(kLevels, false);
    std::string candidate = nested(kLevels, true);
    for (const char* s : {"BACKWARD", "FULL"}) {
        out.push_back({"nested_" + std::to_string(kLevels) + "/" + s, s, {existing}, candidate, "nesting", kLevels});
    }
}

// A history where version k = 10 base fields + k optional fields; the candidate adds one more.
void addHistoryCases(std::vector<CompatCase>& out) {
    for (std::size_t versions : {1, 10, 100, 1000}) {
        auto fields = plainFields(10);
        CompatCase c{"history_" + std::to_string(versions) + "/FULL_TRANSITIVE", "FULL_TRANSITIVE", {}, "", "versions", versions};
        for (std::size_t k = 0; k < versions; ++k) {
            c.existing.push_back(record("Evolving", fields));
            fields.push_back(optionalField("opt" + std::to_string(k)));
        }
        c.candidate = record("Evolving", fields);
        out.push_back(std::move(c));
    }
    // Growth in versions alone: every version has the same size (20 base fields
    // plus one optional field of its own), so the work is versions x 21 fields.
    for (std::size_t versions : {1, 10, 100, 1000}) {
        CompatCase c{"history_flat_" + std::to_string(versions) + "/FULL_TRANSITIVE", "FULL_TRANSITIVE", {}, "",
                     "versions", versions};
        for (std::size_t k = 0; k < versions; ++k) {
            auto fields = plainFields(20);
            fields.push_back(optionalField("opt" + std::to_string(k)));
            c.existing.push_back(record("Flat", fields));
        }
        auto fields = plainFields(20);
        fields.push_back(optionalField("optNew"));
        c.candidate = record("Flat", fields);
        out.push_back(std::move(c));
    }
}

std::string fileStem(const std::string& caseName) {
    std::string s = caseName;
    for (char& ch : s) {
        if (ch == '/') ch = '_';
    }
    return s;
}

bool writeText(const std::filesystem::path& p, const std::string& text) {
    std::ofstream f(p, std::ios::binary);
    f << text;
    return static_cast<bool>(f);
}

std::optional<std::string> readText(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    if (!f) return std::nullopt;
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

std::vector<std::string> splitTabs(const std::string& line) {
    std::vector<std::string> out{""};
    for (char c : line) {
        if (c == '\t') out.emplace_back();
        else out.back() += c;
    }
    return out;
}

}  // namespace

std::vector<CompatCase> generateCompatCases() {
    std::vector<CompatCase> out;
    addFieldCases(out);
    addNestingCases(out);
    addHistoryCases(out);
    return out;
}

std::optional<std::string> writeCompatCases(const std::vector<CompatCase>& cases, const std::string& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return "cannot create " + dir + ": " + ec.message();
    std::string manifest;
    for (const auto& c : cases) {
        std::string stem = fileStem(c.name);
        manifest += c.name + "\t" + c.strategy + "\t" + c.group + "\t" + std::to_string(c.size);
        for (std::size_t i = 0; i < c.existing.size(); ++i) {
            std::string file = stem + ".v" + std::to_string(i) + ".avsc";
            if (!writeText(fs::path(dir) / file, c.existing[i])) return "cannot write " + file;
            manifest += "\t" + file;
        }
        std::string file = stem + ".new.avsc";
        if (!writeText(fs::path(dir) / file, c.candidate)) return "cannot write " + file;
        manifest += "\t" + file + "\n";
    }
    if (!writeText(fs::path(dir) / "manifest.txt", manifest)) return "cannot write manifest.txt";
    return std::nullopt;
}

std::optional<std::vector<CompatCase>> readCompatCases(const std::string& dir, std::string* error) {
    namespace fs = std::filesystem;
    auto manifest = readText(fs::path(dir) / "manifest.txt");
    if (!manifest) {
        *error = "cannot read " + (fs::path(dir) / "manifest.txt").string();
        return std::nullopt;
    }
    std::vector<CompatCase> cases;
    std::istringstream lines(*manifest);
    std::string line;
    while (std::getline(lines, line)) {
        auto cols = splitTabs(line);
        if (cols.size() < 5) continue;
        CompatCase c{cols[0], cols[1], {}, "", cols[2], std::stoul(cols[3])};
        for (std::size_t i = 4; i < cols.size(); ++i) {
            auto text = readText(fs::path(dir) / cols[i]);
            if (!text) {
                *error = "cannot read " + cols[i];
                return std::nullopt;
            }
            if (i + 1 < cols.size()) {
                c.existing.push_back(std::move(*text));
            } else {
                c.candidate = std::move(*text);
            }
        }
        cases.push_back(std::move(c));
    }
    return cases;
}

}  // namespace cnx::bench
