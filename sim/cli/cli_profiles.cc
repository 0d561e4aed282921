#include "sim/cli/cli_commands.h"

#include <algorithm>
#include <ostream>

#include "broker_model/profile/profile.h"
#include "sim/cli/cli.h"

namespace cnx::sim::cli {
namespace {

constexpr std::string_view kProfilesUsage =
    "usage: cnxsim profiles [VERSION] [--diff A B]\n"
    "       cnxsim profiles --gaps [VERSION]\n"
    "\n"
    "Lists the broker behaviour profiles (one per release line); with VERSION,\n"
    "every switch of that release and the PR that set it; with --diff A B, the\n"
    "switches that differ between two releases and the PR behind each.\n"
    "\n"
    "--gaps lists the known changes of real Pulsar that the model does not\n"
    "implement (with VERSION: those affecting that release), the paths each\n"
    "touches and the releases it affects. A step whose decision meets one says\n"
    "`not modelled: #NNNN (...)` beside its outcome; `run --strict` fails it.\n";

/// "3.0.16, 4.0.9, 4.1.3, 4.2.0 and later" / "before 2.9.4 (2.9 line)".
std::string gapReleases(const GapInfo& g) {
    std::string list;
    for (const auto& r : g.releases) list += (list.empty() ? "" : ", ") + r.toString();
    std::string lines;
    for (const auto& l : g.onlyLines) lines += (lines.empty() ? "" : ", ") + l.toString();
    std::string text = g.affects == GapAffects::carrying ? "from " + list : "before " + list;
    if (!g.since.empty()) {
        std::string since;
        for (const auto& r : g.since) since += (since.empty() ? "" : ", ") + r.toString();
        text = "from " + since + ", " + text;
    }
    return lines.empty() ? text : text + " (" + lines + " line)";
}

int commandGaps(const Args& args, std::ostream& out, std::ostream& err) {
    const BehaviourProfile* only = nullptr;
    if (!args.positional.empty()) {
        std::string error;
        only = profileFor(args.positional[0], &error);
        if (!only) {
            err << "cnxsim profiles: " << error << "\n";
            return kExitInvalid;
        }
        out << "Known gaps affecting Pulsar " << only->release.toString() << ":\n";
    } else {
        out << "Known changes of real Pulsar the model does not implement:\n";
    }
    int listed = 0;
    for (const auto& g : knownGaps()) {
        if (only && !gapAffects(g, only->release)) continue;
        ++listed;
        out << "  " << g.pr << " " << g.section << ": " << g.change << "\n"
            << "      releases: " << gapReleases(g) << "\n"
            << "      " << (g.id == Gap::unreachable ? "never reached: " : "marked on: ") << g.paths << "\n";
    }
    out << listed << " gap(s)\n";
    return kExitPassed;
}

}  // namespace

std::string_view profilesUsage() { return kProfilesUsage; }

int commandProfiles(const Args& args, std::ostream& out, std::ostream& err) {
    if (args.options.count("--gaps")) {
        if (args.options.count("--diff") || args.positional.size() > 1) {
            err << "cnxsim profiles: --gaps takes at most one VERSION\n" << kProfilesUsage;
            return kExitInvalid;
        }
        return commandGaps(args, out, err);
    }
    if (auto it = args.options.find("--diff"); it != args.options.end()) {
        if (args.positional.size() != 1) {
            err << "cnxsim profiles: --diff takes two versions, e.g. --diff 2.10 3.0\n" << kProfilesUsage;
            return kExitInvalid;
        }
        std::string error;
        const auto* a = profileFor(it->second, &error);
        const auto* b = a ? profileFor(args.positional[0], &error) : nullptr;
        if (!a || !b) {
            err << "cnxsim profiles: " << error << "\n";
            return kExitInvalid;
        }
        out << "Pulsar " << a->release.toString() << " (" << a->name << ") vs " << b->release.toString() << " ("
            << b->name << "):\n";
        auto sa = switchesOf(*a), sb = switchesOf(*b);
        int differing = 0;
        for (std::size_t i = 0; i < sa.size(); ++i) {
            if (sa[i].value == sb[i].value) continue;
            ++differing;
            // The PR that set the value of the later release.
            const auto& later = a->release < b->release ? *b : *a;
            auto prov = later.provenance.find(sa[i].name);
            out << "  " << sa[i].name << ": " << sa[i].value << " -> " << sb[i].value << "  ("
                << (prov != later.provenance.end() ? prov->second : std::string("baseline")) << ")\n";
        }
        out << differing << " switch(es) differ\n";
        return kExitPassed;
    }
    if (!args.positional.empty()) {
        std::string error;
        const auto* p = profileFor(args.positional[0], &error);
        if (!p) {
            err << "cnxsim profiles: " << error << "\n";
            return kExitInvalid;
        }
        out << "Pulsar " << p->release.toString() << " (" << p->name << ", " << p->releases << "):\n";
        for (const auto& sw : switchesOf(*p)) {
            auto prov = p->provenance.find(sw.name);
            out << "  " << sw.name << " = " << sw.value << "  ("
                << (prov != p->provenance.end() ? prov->second : std::string("2.4.0 baseline")) << ")\n";
        }
        return kExitPassed;
    }
    out << "release line  modelled up to  profile  protocol  Avro    represents\n";
    for (const auto& p : allProfiles()) {
        std::string line = std::to_string(p.release.major) + "." + std::to_string(p.release.minor);
        out << "  " << line << std::string(12 - std::min<std::size_t>(line.size(), 11), ' ') << p.release.toString()
            << std::string(16 - std::min<std::size_t>(p.release.toString().size(), 15), ' ') << p.name
            << std::string(9 - std::min<std::size_t>(p.name.size(), 8), ' ') << "v" << p.maxProtocolVersion << "       "
            << compat::to_string_view(p.checkOptions.avro) << "  " << p.releases << "\n";
    }
    out << "\nA version names a line (\"2.10\": its newest modelled release) or an exact release (\"2.10.4\").\n"
           "`cnxsim profiles VERSION` lists every switch; `--diff A B` the ones that differ, with the PR.\n";
    return kExitPassed;
}

}  // namespace cnx::sim::cli
