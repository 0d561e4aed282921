#include "sim/cli/compat_command.h"

#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <variant>

#include "broker_model/profile/profile.h"
#include "broker_model/registry/schema_registry.h"
#include "sim/runtime/sim_scheduler.h"
#include "sim/cli/cli.h"
#include "sim/cli/compat_internal.h"

namespace cnx::sim {
namespace {

using namespace compat_cli;

constexpr std::string_view kUsage =
    "usage: cnxsim compat --strategy S [--existing FILE...] --new FILE [options]\n"
    "\n"
    "Would a broker (the newest, or --broker-version V) accept a producer\n"
    "registering the --new schema on a topic whose live schema history is the\n"
    "--existing files, oldest first? The model's registry decides with that\n"
    "release's behaviour profile (reference §4.3, §4.6, §6): validation of the new\n"
    "definition, de-duplication, transitive strategies against every live version\n"
    "and the others against the latest, the type check, the identical-schema\n"
    "shortcut and the checker of the new schema's type. The existing files are the\n"
    "stored history: the broker does not validate them again (one any modelled\n"
    "release stored is accepted, e.g. a top-level AVRO union stored before #24103).\n"
    "No --existing: empty history, compatible.\n"
    "\n"
    "files:\n"
    "  *.desc             a protobuf FileDescriptorSet (protoc --descriptor_set_out\n"
    "                     --include_imports): a PROTOBUF_NATIVE schema\n"
    "  {\"type\",\"schema\",\"properties\"}\n"
    "                     a pulsar-admin schema definition (any type; KEY_VALUE\n"
    "                     takes {\"key\": ..., \"value\": ...} as its schema)\n"
    "  anything else      an Avro schema (.avsc): an AVRO schema\n"
    "\n"
    "options:\n"
    "  --strategy S       BACKWARD, FORWARD, FULL, BACKWARD_TRANSITIVE,\n"
    "                     FORWARD_TRANSITIVE, FULL_TRANSITIVE, ALWAYS_COMPATIBLE,\n"
    "                     ALWAYS_INCOMPATIBLE (case-insensitive)\n"
    "  --existing FILE... the live history, oldest first (may be repeated)\n"
    "  --new FILE         the schema the producer registers\n"
    "  --broker-version V the Pulsar release whose behaviour decides, as run\n"
    "                     --version and serve --broker-version take it (\"3.0\" =\n"
    "                     the line's newest modelled release, \"3.0.11\" exact;\n"
    "                     cnxsim profiles lists them). Default: the newest\n"
    "  --avro V           Avro release whose validator decides: 1.8 (1.8.2), 1.9\n"
    "                     (1.9.1), 1.10 (1.10.2), 1.11 (1.11.4), 1.11.3, 1.12\n"
    "                     (1.12.0). Default: the one of the broker's release\n"
    "  --root-message M   .desc files: the root message (full name; a name without\n"
    "                     the file's package is qualified with it). Default: the\n"
    "                     first message of the root file\n"
    "  --root-file F      .desc files: the root file descriptor name. Default: the\n"
    "                     file defining --root-message, else the last file of the set\n"
    "  -v, --verbose      print the registry's decision trace on stderr\n"
    "\n"
    "output: `compatible`, or `incompatible` (`error`) with the broker's exception,\n"
    "the existing file it failed against and each problem as `  PATH: detail (kind)`;\n"
    "then `  broker: Pulsar R (profile P), Avro A`, the release that decided\n"
    "\n"
    "exit status: 0 compatible, 1 incompatible, 2 invalid input (arguments, an\n"
    "unreadable or malformed file, a definition the broker's validator rejects),\n"
    "3 the broker's checker would have thrown instead of answering (e.g. a field\n"
    "default that does not fit its type, non-terminating recursion)\n";

constexpr std::string_view kSchemaId = "public/default/cnxsim-compat";

/// A broker reduced to its registry, run to completion on its own scheduler.
struct Registry {
    explicit Registry(BehaviourProfile p) : profile(std::move(p)) {}
    Registry(const Registry&) = delete;
    Registry& operator=(const Registry&) = delete;

    /// The history as the broker stored it: not validated again, de-duplicated (§4.3).
    SchemaVersion store(const SchemaData& schema) { return registry.storeAsHistory(std::string(kSchemaId), schema); }

    Result<SchemaVersion> put(const SchemaData& schema, CompatibilityStrategy strategy, TracePtr trace) {
        std::optional<Result<SchemaVersion>> got;
        registry.putSchemaIfAbsent(std::string(kSchemaId), schema, strategy, std::move(trace),
                                   [&got](Result<SchemaVersion> r) { got.emplace(std::move(r)); });
        scheduler.runUntilIdle();
        return *got;
    }

    BehaviourProfile profile;
    sim::SimScheduler scheduler;
    SchemaRegistry registry{profile, scheduler};
};

struct Input {
    std::string path;
    SchemaData schema;
};

struct Decision {
    int status = kExitPassed;
    std::optional<BrokerError> refusal;  // with the checker's problems and the live version it failed on
    std::vector<std::string> notes;
    TracePtr trace = std::make_shared<Trace>();
};

std::string describe(const std::map<SchemaVersion, std::string>& files, SchemaVersion v) {
    auto it = files.find(v);
    return (it == files.end() ? "?" : it->second) + " (live version " + std::to_string(v) + ")";
}

Decision decide(Registry& reg, const std::vector<Input>& existing, const Input& candidate, CompatibilityStrategy strategy) {
    Decision d;
    std::map<SchemaVersion, std::string> files;
    for (const auto& e : existing) {
        // The history as the broker stored it: each file in turn, de-duplicated, never re-validated.
        SchemaVersion v = reg.store(e.schema);
        if (files.count(v)) {
            d.notes.push_back(e.path + " equals " + describe(files, v) +
                              ": the broker de-duplicates it (§4.3), so the history holds it once");
        } else {
            files[v] = e.path;
        }
    }
    auto r = reg.put(candidate.schema, strategy, d.trace);
    if (r.ok()) {
        if (files.count(r.value())) {
            d.notes.push_back(candidate.path + " equals " + describe(files, r.value()) +
                              ": reused without a compatibility check (§4.3)");
        }
        return d;
    }
    // The verdict, the problems and the version it failed on come from the registry's own
    // decision: the checker runs once.
    d.refusal = r.error();
    bool thrown = d.refusal->kind == RefusalKind::checkerError || d.refusal->kind == RefusalKind::checkerErrorWrapped;
    d.status = thrown ? kExitCheckError : kExitFailed;
    if (d.refusal->failedAgainst) d.notes.push_back("failed against " + describe(files, *d.refusal->failedAgainst));
    return d;
}

// ---- output -------------------------------------------------------------------

void printIndented(std::ostream& out, const std::string& text) {
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) out << "  " << line << "\n";
}

// The release whose behaviour decided, and its Avro validator.
std::string brokerLine(const BehaviourProfile& p) {
    return "  broker: Pulsar " + p.release.toString() + " (profile " + p.name + "), Avro " +
           std::string(compat::to_string_view(p.checkOptions.avro)) + "\n";
}

void printDecision(std::ostream& out, std::ostream& err, const Decision& d, const BehaviourProfile& profile,
                   bool verbose) {
    if (verbose) err << "decision trace:\n" << d.trace->format("  ");
    if (!d.refusal) {
        out << "compatible\n" << brokerLine(profile);
        for (const auto& n : d.notes) err << "note: " << n << "\n";
        return;
    }
    out << (d.status == kExitCheckError ? "error\n" : "incompatible\n");
    const auto& e = *d.refusal;
    // Throwable.toString(): the class alone when the message is empty.
    printIndented(out, e.message.empty() ? e.exceptionClass() : e.text());
    for (const auto& n : d.notes) out << "  " << n << "\n";
    for (const auto& p : e.problems) {
        out << "  " << p.summary() << " (" << p.kind << ")\n";
        if (verbose && !p.reader.empty()) out << "      reader: " << p.reader << "\n";
        if (verbose && !p.writer.empty()) out << "      writer: " << p.writer << "\n";
    }
    out << brokerLine(profile);
}

// ---- the command ----------------------------------------------------------------

struct Setup {
    CompatibilityStrategy strategy;
    BehaviourProfile profile;
};

std::variant<Setup, Failure> setupFrom(const CompatArgs& a) {
    if (!a.strategy) return Failure{"--strategy is required"};
    if (!a.newFile) return Failure{"--new is required"};
    auto strategy = strategyFrom(*a.strategy);
    if (auto* f = std::get_if<Failure>(&strategy)) return *f;
    BehaviourProfile profile = newestProfile();
    if (a.brokerVersion) {
        std::string error;
        const BehaviourProfile* chosen = profileFor(*a.brokerVersion, &error);  // run --version's parser
        if (!chosen) return Failure{"--broker-version: " + error};
        profile = *chosen;
    }
    if (a.avro) {
        auto v = avroVersionFrom(*a.avro);
        if (auto* f = std::get_if<Failure>(&v)) return *f;
        profile.checkOptions.avro = std::get<compat::AvroVersion>(v);
    }
    return Setup{std::get<CompatibilityStrategy>(strategy), std::move(profile)};
}

enum class Role { stored, registered };

// The new schema goes through the release's validator (§4.10); a stored one does not (§6.7).
std::variant<Input, Failure> loadInput(const std::string& path, const DescOptions& o, const BehaviourProfile& profile,
                                       Role role) {
    auto loaded = loadSchemaFile(path, o);
    if (auto* f = std::get_if<Failure>(&loaded)) return Failure{path + ": " + f->text};
    auto& schema = std::get<SchemaData>(loaded);
    auto invalid = role == Role::registered ? invalidDefinition(profile, schema) : unstorableDefinition(profile, schema);
    if (invalid) return Failure{path + ": " + invalid->text};
    return Input{path, std::move(schema)};
}

int invalid(std::ostream& err, const Failure& f) {
    err << "cnxsim compat: " << f.text << "\n";
    return kExitInvalid;
}

}  // namespace

std::string_view compatUsage() { return kUsage; }

int runCompat(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    CompatArgs a;
    if (auto f = parseArgs(args, a)) {
        err << "cnxsim compat: " << f->text << "\n" << kUsage;
        return kExitInvalid;
    }
    if (a.help) {
        out << kUsage;
        return kExitPassed;
    }
    auto setup = setupFrom(a);
    if (auto* f = std::get_if<Failure>(&setup)) return invalid(err, *f);
    auto& s = std::get<Setup>(setup);
    DescOptions desc{a.rootMessage, a.rootFile};
    std::vector<Input> existing;
    for (const auto& path : a.existing) {
        auto in = loadInput(path, desc, s.profile, Role::stored);
        if (auto* f = std::get_if<Failure>(&in)) return invalid(err, *f);
        existing.push_back(std::move(std::get<Input>(in)));
    }
    auto candidate = loadInput(*a.newFile, desc, s.profile, Role::registered);
    if (auto* f = std::get_if<Failure>(&candidate)) return invalid(err, *f);
    Registry reg(s.profile);
    Decision d = decide(reg, existing, std::get<Input>(candidate), s.strategy);
    printDecision(out, err, d, s.profile, a.verbose);
    return d.status;
}

}  // namespace cnx::sim
