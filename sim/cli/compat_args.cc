// `cnxsim compat` arguments (compat_internal.h).

#include <algorithm>
#include <cctype>

#include "sim/cli/cli_args.h"
#include "sim/cli/compat_internal.h"
#include "sim/scenario/did_you_mean.h"

namespace cnx::sim::compat_cli {

std::optional<Failure> parseArgs(const std::vector<std::string>& in, CompatArgs& out) {
    Args args;
    if (auto e = sim::parseArgs("compat", in, args)) return Failure{*e};
    if (!args.positional.empty())
        return Failure{"unexpected argument '" + args.positional.front() + "' (files go after --existing or --new)"};
    out.help = args.has("--help");
    out.verbose = args.verbosity > 0;
    auto single = [&](const char* name, std::optional<std::string>& slot) {
        if (const std::string* v = args.value(name)) slot = *v;
    };
    single("--strategy", out.strategy);
    single("--new", out.newFile);
    single("--avro", out.avro);
    single("--broker-version", out.brokerVersion);
    single("--root-message", out.rootMessage);
    single("--root-file", out.rootFile);
    out.existing = args.all("--existing");
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

std::vector<std::string> avroVersionNames() {
    std::vector<std::string> names;
    for (const auto& a : kAvroNames) names.emplace_back(a.name);
    return names;
}

std::variant<compat::AvroVersion, Failure> avroVersionFrom(const std::string& text) {
    for (const auto& a : kAvroNames)
        if (a.name == text) return a.version;
    std::vector<std::string> names = avroVersionNames();
    auto hint = closestMatch(text, names);
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    return Failure{"unknown Avro version '" + text + "'" + (hint ? " (did you mean '" + *hint + "'?)" : "") +
                   "; one of " + list};
}

}  // namespace cnx::sim::compat_cli
