// `cnxsim compat` arguments (compat_internal.h).

#include <algorithm>
#include <cctype>

#include "sim/cli/compat_internal.h"
#include "sim/scenario/did_you_mean.h"

namespace cnx::sim::compat_cli {
namespace {

bool looksLikeOption(const std::string& a) { return a.size() > 1 && a[0] == '-'; }

std::optional<std::string>* singleValueSlot(CompatArgs& a, std::string_view name) {
    if (name == "--strategy") return &a.strategy;
    if (name == "--new") return &a.newFile;
    if (name == "--avro") return &a.avro;
    if (name == "--root-message") return &a.rootMessage;
    if (name == "--root-file") return &a.rootFile;
    return nullptr;
}

std::optional<Failure> unknownOption(const std::string& a) {
    static const std::vector<std::string> known{"--strategy", "--existing",  "--new",  "--avro",   "--root-message",
                                                "--root-file", "--verbose", "--help"};
    auto hint = closestMatch(a.substr(0, a.find('=')), known);
    return Failure{"unknown option '" + a + "'" + (hint ? " (did you mean '" + *hint + "'?)" : "")};
}

// --existing takes every following word up to the next option.
std::optional<Failure> takeExisting(const std::vector<std::string>& in, std::size_t& i, std::optional<std::string> inline_,
                                    CompatArgs& out) {
    std::size_t before = out.existing.size();
    if (inline_) out.existing.push_back(*inline_);
    while (i + 1 < in.size() && !looksLikeOption(in[i + 1])) out.existing.push_back(in[++i]);
    if (out.existing.size() == before) return Failure{"option --existing needs at least one FILE"};
    return std::nullopt;
}

std::optional<Failure> takeValue(const std::vector<std::string>& in, std::size_t& i, const std::string& name,
                                 std::optional<std::string> inline_, std::optional<std::string>& slot) {
    if (slot) return Failure{"option " + name + " given twice"};
    if (inline_) {
        slot = *inline_;
    } else if (i + 1 < in.size() && !looksLikeOption(in[i + 1])) {
        slot = in[++i];
    } else {
        return Failure{"option " + name + " needs a value"};
    }
    return std::nullopt;
}

}  // namespace

std::optional<Failure> parseArgs(const std::vector<std::string>& in, CompatArgs& out) {
    for (std::size_t i = 0; i < in.size(); ++i) {
        const std::string& a = in[i];
        if (a == "-h" || a == "--help") {
            out.help = true;
            continue;
        }
        if (a == "-v" || a == "--verbose") {
            out.verbose = true;
            continue;
        }
        if (!a.starts_with("--")) {
            return Failure{"unexpected argument '" + a + "' (files go after --existing or --new)"};
        }
        auto eq = a.find('=');
        std::string name = a.substr(0, eq);
        std::optional<std::string> inline_;
        if (eq != std::string::npos) inline_ = a.substr(eq + 1);
        std::optional<Failure> f;
        if (name == "--existing") {
            f = takeExisting(in, i, inline_, out);
        } else if (auto* slot = singleValueSlot(out, name)) {
            f = takeValue(in, i, name, inline_, *slot);
        } else {
            f = unknownOption(a);
        }
        if (f) return f;
    }
    return std::nullopt;
}

// The strategies a producer's registration can run with (§5.1); UNDEFINED is
// resolved to a real strategy before the registry is asked (§5.3).
std::variant<CompatibilityStrategy, Failure> strategyFrom(const std::string& text) {
    std::string upper = text;
    std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
    auto s = compatibilityStrategyFromName(upper);
    if (s && *s != CompatibilityStrategy::UNDEFINED) return *s;
    std::vector<std::string> names;
    for (auto n : compatibilityStrategyNames()) {
        if (n != "UNDEFINED") names.emplace_back(n);
    }
    auto hint = closestMatch(text, names);
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    return Failure{"unknown strategy '" + text + "'" + (hint ? " (did you mean '" + *hint + "'?)" : "") +
                   "; one of " + list};
}

namespace {

struct AvroName {
    std::string_view name;
    compat::AvroVersion version;
};

// The Avro releases whose validator behaviour the model knows (§6.3), and
// their major.minor shorthands (1.11 = 1.11.4, the grammar §6.3 models).
constexpr AvroName kAvroNames[] = {
    {"1.8", compat::AvroVersion::v1_8_2},    {"1.8.2", compat::AvroVersion::v1_8_2},
    {"1.9", compat::AvroVersion::v1_9_1},    {"1.9.1", compat::AvroVersion::v1_9_1},
    {"1.10", compat::AvroVersion::v1_10_2},  {"1.10.2", compat::AvroVersion::v1_10_2},
    {"1.11", compat::AvroVersion::v1_11_4},  {"1.11.3", compat::AvroVersion::v1_11_3},
    {"1.11.4", compat::AvroVersion::v1_11_4}, {"1.12", compat::AvroVersion::v1_12_0},
    {"1.12.0", compat::AvroVersion::v1_12_0},
};

}  // namespace

std::variant<compat::AvroVersion, Failure> avroVersionFrom(const std::string& text) {
    std::vector<std::string> names;
    for (const auto& a : kAvroNames) {
        if (a.name == text) return a.version;
        names.emplace_back(a.name);
    }
    auto hint = closestMatch(text, names);
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    return Failure{"unknown Avro version '" + text + "'" + (hint ? " (did you mean '" + *hint + "'?)" : "") +
                   "; one of " + list};
}

}  // namespace cnx::sim::compat_cli
