#include "sim/cli/compat_command.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <variant>

#include <google/protobuf/descriptor.pb.h>
#include <nlohmann/json.hpp>

#include "broker_model/compat/avro/avro_check.h"
#include "broker_model/compat/checker_set.h"
#include "broker_model/compat/json/json_nesting.h"
#include "broker_model/compat/protobuf_native/protobuf_native_check.h"
#include "broker_model/runtime/executor.h"
#include "broker_model/profile/profile.h"
#include "broker_model/registry/definition_validator.h"
#include "broker_model/registry/schema_registry.h"
#include "sim/cli/cli.h"
#include "sim/scenario/did_you_mean.h"
#include "sim/io/file_read.h"

namespace cnx::sim {
namespace {

using Json = nlohmann::ordered_json;  // keeps key order: definitions are stored verbatim

constexpr std::string_view kUsage =
    "usage: cnxsim compat --strategy S [--existing FILE...] --new FILE [options]\n"
    "\n"
    "Would the newest broker accept a producer registering the --new schema on a\n"
    "topic whose live schema history is the --existing files, oldest first? The\n"
    "model's registry decides (reference §4.3, §4.6, §6): definition validation,\n"
    "de-duplication, transitive strategies against every live version and the\n"
    "others against the latest, the type check, the identical-schema shortcut and\n"
    "the checker of the new schema's type. No --existing: empty history, compatible.\n"
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
    "  --avro V           Avro release whose validator decides: 1.8 (1.8.2), 1.9\n"
    "                     (1.9.1), 1.10 (1.10.2), 1.11 (1.11.4), 1.11.3, 1.12\n"
    "                     (1.12.0, the default: the newest broker's)\n"
    "  --root-message M   .desc files: the root message (full name; a name without\n"
    "                     the file's package is qualified with it). Default: the\n"
    "                     first message of the root file\n"
    "  --root-file F      .desc files: the root file descriptor name. Default: the\n"
    "                     file defining --root-message, else the last file of the set\n"
    "  -v, --verbose      print the registry's decision trace on stderr\n"
    "\n"
    "output: `compatible`, or `incompatible` (`error`) with the broker's exception,\n"
    "the existing file it failed against and each problem as `  PATH: detail (kind)`\n"
    "\n"
    "exit status: 0 compatible, 1 incompatible, 2 invalid input (arguments, an\n"
    "unreadable or malformed file, a definition the broker's validator rejects),\n"
    "3 the broker's checker would have thrown instead of answering (e.g. a field\n"
    "default that does not fit its type, non-terminating recursion)\n";

constexpr std::string_view kSchemaId = "public/default/cnxsim-compat";

/// An input problem: printed as "cnxsim compat: <text>", exit 2.
struct Failure {
    std::string text;
};

// ---- arguments ----------------------------------------------------------------

struct CompatArgs {
    std::optional<std::string> strategy;
    std::vector<std::string> existing;
    std::optional<std::string> newFile;
    std::optional<std::string> avro;
    std::optional<std::string> rootMessage;
    std::optional<std::string> rootFile;
    bool help = false;
    bool verbose = false;
};

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

// ---- files --------------------------------------------------------------------

struct DescOptions {
    std::optional<std::string> rootMessage;
    std::optional<std::string> rootFile;
};

using Loaded = std::variant<SchemaData, Failure>;

// The schema file's bytes, or why not (sim/io/file_read.h: regular files up to 16 MiB).
std::variant<std::string, FileReadError> readWholeFile(const std::string& path) {
    return readFileBounded(path, kSchemaFile);
}

using google::protobuf::DescriptorProto;
using google::protobuf::FileDescriptorProto;
using google::protobuf::FileDescriptorSet;

bool definesMessage(const std::string& scope, const DescriptorProto& m, const std::string& full) {
    std::string name = scope.empty() ? m.name() : scope + "." + m.name();
    if (name == full) return true;
    for (const auto& nested : m.nested_type()) {
        if (definesMessage(name, nested, full)) return true;
    }
    return false;
}

bool fileDefines(const FileDescriptorProto& f, const std::string& full) {
    for (const auto& m : f.message_type()) {
        if (definesMessage(f.package(), m, full)) return true;
    }
    return false;
}

std::string qualified(const FileDescriptorProto& f, const std::string& message) {
    if (f.package().empty() || message.starts_with(f.package() + ".")) return message;
    return f.package() + "." + message;
}

std::string fileNames(const FileDescriptorSet& set) {
    std::string out;
    for (const auto& f : set.file()) out += (out.empty() ? "" : ", ") + f.name();
    return out;
}

// The root file: --root-file, else the last file defining --root-message, else the last file.
std::variant<const FileDescriptorProto*, Failure> rootFileOf(const FileDescriptorSet& set, const DescOptions& o) {
    if (o.rootFile) {
        for (const auto& f : set.file()) {
            if (f.name() == *o.rootFile) return &f;
        }
        return Failure{"no file '" + *o.rootFile + "' in the descriptor set (files: " + fileNames(set) + ")"};
    }
    if (o.rootMessage) {
        for (int i = set.file_size(); i-- > 0;) {
            if (fileDefines(set.file(i), qualified(set.file(i), *o.rootMessage))) return &set.file(i);
        }
    }
    return &set.file(set.file_size() - 1);
}

// What a Pulsar client sends for a PROTOBUF_NATIVE schema (§6.5): the set in
// base64 and the root message's full name and file name, in the Java bean's order.
Loaded descriptorDefinition(const std::string& bytes, const DescOptions& o) {
    FileDescriptorSet set;
    if (!set.ParseFromString(bytes) || set.file_size() == 0) {
        return Failure{"not a protobuf FileDescriptorSet (make one with protoc --descriptor_set_out --include_imports)"};
    }
    auto root = rootFileOf(set, o);
    if (auto* f = std::get_if<Failure>(&root)) return *f;
    const FileDescriptorProto& file = *std::get<const FileDescriptorProto*>(root);
    std::string message;
    if (o.rootMessage) {
        message = qualified(file, *o.rootMessage);
        if (!fileDefines(file, message)) {
            return Failure{"'" + file.name() + "' defines no message '" + message + "' (--root-message, --root-file)"};
        }
    } else if (file.message_type_size() > 0) {
        message = qualified(file, file.message_type(0).name());
    } else {
        return Failure{"'" + file.name() + "' defines no message; name the root with --root-message"};
    }
    return SchemaData{SchemaType::PROTOBUF_NATIVE, compat::protobufNativeDefinition(bytes, message, file.name()), {}};
}

Failure tooDeep() {
    return Failure{"not valid JSON: nesting deeper than " + std::to_string(compat::kMaxJsonNesting) +
                   " levels (Jackson's StreamReadConstraints limit)"};
}

// §7.2: Jackson reads Map<String,String> properties, coercing scalars.
std::variant<SchemaProperties, Failure> adminProperties(const Json& j) {
    SchemaProperties props;
    auto it = j.find("properties");
    if (it == j.end() || it->is_null()) return props;
    if (!it->is_object()) return Failure{"\"properties\" must be an object of strings"};
    for (const auto& [k, v] : it->items()) {
        if (v.is_structured()) return Failure{"property '" + k + "' must be a string"};
        props[k] = v.is_string() ? v.get<std::string>() : v.dump();  // a scalar: always valid UTF-8
    }
    return props;
}

// §7.2: a KEY_VALUE payload's schema is {"key": ..., "value": ...}, each
// component the element's compact JSON text, `""` meaning no bytes; laid out
// as [int32 BE len][key][int32 BE len][value] (§6.6).
std::variant<std::string, Failure> keyValueData(const std::string& text) {
    if (compat::jsonNestsDeeperThan(text)) return tooDeep();
    auto j = Json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("key") || !j.contains("value")) {
        return Failure{"a KEY_VALUE schema must be the JSON text {\"key\": ..., \"value\": ...}"};
    }
    auto component = [](const Json& c) {
        return c.is_string() && c.get<std::string>().empty() ? std::string() : c.dump(-1, ' ', false, Json::error_handler_t::replace);
    };
    auto append = [](std::string& out, const std::string& part) {
        auto n = static_cast<std::uint32_t>(part.size());
        for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((n >> shift) & 0xFF);
        out += part;
    };
    std::string data;
    append(data, component(j["key"]));
    append(data, component(j["value"]));
    return data;
}

// Avro type names: an Avro schema may carry a "schema" property, a
// pulsar-admin definition's type is a Pulsar type name.
bool isAvroTypeName(std::string_view t) {
    static constexpr std::string_view kNames[] = {"record", "error", "enum",  "array", "map",    "fixed",   "union",
                                                  "null",   "boolean", "int", "long",  "float",  "double",  "bytes",
                                                  "string"};
    return std::find(std::begin(kNames), std::end(kNames), t) != std::end(kNames);
}

bool isAdminDefinition(const Json& j) {
    if (!j.is_object() || !j.contains("schema")) return false;
    auto t = j.find("type");
    return t != j.end() && t->is_string() && !isAvroTypeName(t->get<std::string>());
}

std::variant<SchemaType, Failure> adminType(const std::string& name) {
    if (auto t = schemaTypeFromName(name)) return *t;
    std::size_t count = 0;
    const std::string_view* names = allSchemaTypeNames(count);
    auto hint = closestMatch(name, std::span<const std::string_view>(names, count));
    return Failure{"unknown schema type '" + name + "'" + (hint ? " (did you mean '" + *hint + "'?)" : "")};
}

// A pulsar-admin `PostSchemaPayload` file (§7.2).
Loaded adminDefinition(const Json& j) {
    auto type = adminType(j["type"].get<std::string>());
    if (auto* f = std::get_if<Failure>(&type)) return *f;
    const Json& schema = j["schema"];
    if (!schema.is_null() && !schema.is_string()) return Failure{"\"schema\" must be a string (the definition text)"};
    std::string data = schema.is_string() ? schema.get<std::string>() : "";
    auto props = adminProperties(j);
    if (auto* f = std::get_if<Failure>(&props)) return *f;
    SchemaType t = std::get<SchemaType>(type);
    if (t == SchemaType::KEY_VALUE) {
        auto kv = keyValueData(data);
        if (auto* f = std::get_if<Failure>(&kv)) return *f;
        data = std::get<std::string>(kv);
    }
    return SchemaData{t, std::move(data), std::get<SchemaProperties>(props)};
}

Loaded loadSchemaFile(const std::string& path, const DescOptions& o) {
    auto read = readWholeFile(path);
    if (auto* e = std::get_if<FileReadError>(&read)) return Failure{e->reason};
    const std::string* bytes = &std::get<std::string>(read);
    if (std::filesystem::path(path).extension() == ".desc") return descriptorDefinition(*bytes, o);
    // Before any tree is built or copied: those recurse per level (issue 7 item 6).
    if (compat::jsonNestsDeeperThan(*bytes)) return tooDeep();
    Json j;
    try {
        j = Json::parse(*bytes);
    } catch (const Json::parse_error& e) {
        return Failure{std::string("not valid JSON: ") + e.what()};
    }
    if (isAdminDefinition(j)) return adminDefinition(j);
    return SchemaData{SchemaType::AVRO, *bytes, {}};  // an Avro schema, stored verbatim
}

// §6.7, with the Avro parser's reason for Avro-based types.
std::optional<Failure> invalidDefinition(const BehaviourProfile& profile, const SchemaData& s) {
    auto invalid = validateSchemaDefinition(profile, s, false);
    if (!invalid) return std::nullopt;
    std::string why;
    if (isAvroBased(s.type)) {
        if (auto e = compat::avroParseError(s.data, profile.checkOptions)) why = " (" + *e + ")";
    }
    return Failure{"invalid " + std::string(to_string_view(s.type)) + " definition: " + *invalid + why};
}

// ---- the decision ---------------------------------------------------------------

/// A broker reduced to its registry, run to completion on its own executor.
struct Registry {
    explicit Registry(BehaviourProfile p) : profile(std::move(p)) {}
    Registry(const Registry&) = delete;
    Registry& operator=(const Registry&) = delete;

    Result<SchemaVersion> put(const SchemaData& schema, CompatibilityStrategy strategy, TracePtr trace) {
        std::optional<Result<SchemaVersion>> got;
        registry.putSchemaIfAbsent(std::string(kSchemaId), schema, strategy, std::move(trace),
                                   [&got](Result<SchemaVersion> r) { got.emplace(std::move(r)); });
        executor.runUntilIdle();
        return *got;
    }

    BehaviourProfile profile;
    Executor executor;
    SchemaRegistry registry{profile, executor};
};

struct Input {
    std::string path;
    SchemaData schema;
};

struct Decision {
    int status = kExitPassed;
    std::optional<BrokerError> refusal;
    std::optional<compat::CheckResult> detail;  // the checker's answer behind the refusal, if it was the checker's
    std::optional<SchemaVersion> against;       // the live version the checker failed on
    std::vector<std::string> notes;
    TracePtr trace = std::make_shared<Trace>();
};

// The BrokerError the registry makes of a checker result (§4.6 runChecker):
// used to confirm that a refusal is this result, not a type mismatch.
bool refusalIs(const BrokerError& e, const compat::CheckResult& r) {
    if (e.exceptionClass() == r.exceptionClass && e.message == r.message) return true;
    return e.message == r.exceptionClass + ": " + r.message;  // the "all" path wraps thrown errors
}

// Re-runs the checker the registry ran, to say why it refused: the problems,
// their paths and, on the transitive path, the newest live version that fails.
void explain(const Registry& reg, const SchemaData& schema, CompatibilityStrategy strategy, Decision& d) {
    compat::CheckerSet checkers;
    const auto& check = checkers.forType(schema.type);
    const auto& options = reg.profile.checkOptions;
    auto live = reg.registry.liveList(std::string(kSchemaId));
    if (live.empty()) return;
    compat::CheckResult r;
    std::optional<SchemaVersion> against;
    if (isTransitive(strategy)) {
        std::vector<SchemaData> all;
        for (const auto& e : live) all.push_back(e.schema);
        r = check.checkCompatible(std::span<const SchemaData>(all), schema, strategy, options);
        for (std::size_t i = all.size(); i-- > 0 && !r.ok();) {
            if (!check.checkCompatible(std::span<const SchemaData>(&all[i], 1), schema, strategy, options).ok()) {
                against = live[i].version;
                break;
            }
        }
    } else {
        r = check.checkCompatible(live.back().schema, schema, strategy, options);
        against = live.back().version;
    }
    if (r.ok() || !refusalIs(*d.refusal, r)) return;
    d.detail = std::move(r);
    d.against = against;
}

std::string describe(const std::map<SchemaVersion, std::string>& files, SchemaVersion v) {
    auto it = files.find(v);
    return (it == files.end() ? "?" : it->second) + " (live version " + std::to_string(v) + ")";
}

Decision decide(Registry& reg, const std::vector<Input>& existing, const Input& candidate, CompatibilityStrategy strategy) {
    Decision d;
    std::map<SchemaVersion, std::string> files;
    for (const auto& e : existing) {
        // The history as the broker would have stored it: each file registered in turn.
        auto r = reg.put(e.schema, CompatibilityStrategy::ALWAYS_COMPATIBLE, std::make_shared<Trace>());
        if (!r.ok()) continue;  // not reached: every file was validated
        if (files.count(r.value())) {
            d.notes.push_back(e.path + " equals " + describe(files, r.value()) +
                              ": the broker de-duplicates it (§4.3), so the history holds it once");
        } else {
            files[r.value()] = e.path;
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
    d.refusal = r.error();
    explain(reg, candidate.schema, strategy, d);
    bool thrown = d.refusal->code() != pulsar::proto::IncompatibleSchema ||
                  (d.detail && d.detail->verdict == compat::Verdict::error);
    d.status = thrown ? kExitCheckError : kExitFailed;
    if (d.against) d.notes.push_back("failed against " + describe(files, *d.against));
    return d;
}

// ---- output -------------------------------------------------------------------

void printIndented(std::ostream& out, const std::string& text) {
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) out << "  " << line << "\n";
}

void printDecision(std::ostream& out, std::ostream& err, const Decision& d, bool verbose) {
    if (verbose) err << "decision trace:\n" << d.trace->format("  ");
    if (!d.refusal) {
        out << "compatible\n";
        for (const auto& n : d.notes) err << "note: " << n << "\n";
        return;
    }
    out << (d.status == kExitCheckError ? "error\n" : "incompatible\n");
    const auto& e = *d.refusal;
    // Throwable.toString(): the class alone when the message is empty.
    printIndented(out, e.message.empty() ? e.exceptionClass() : e.text());
    for (const auto& n : d.notes) out << "  " << n << "\n";
    if (!d.detail) return;
    for (const auto& p : d.detail->problems) {
        out << "  " << (p.path.empty() ? "/" : p.path) << ": " << p.detail << " (" << p.kind << ")\n";
        if (verbose && !p.reader.empty()) out << "      reader: " << p.reader << "\n";
        if (verbose && !p.writer.empty()) out << "      writer: " << p.writer << "\n";
    }
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
    if (a.avro) {
        auto v = avroVersionFrom(*a.avro);
        if (auto* f = std::get_if<Failure>(&v)) return *f;
        profile.checkOptions.avro = std::get<compat::AvroVersion>(v);
    }
    return Setup{std::get<CompatibilityStrategy>(strategy), std::move(profile)};
}

std::variant<Input, Failure> loadInput(const std::string& path, const DescOptions& o, const BehaviourProfile& profile) {
    auto loaded = loadSchemaFile(path, o);
    if (auto* f = std::get_if<Failure>(&loaded)) return Failure{path + ": " + f->text};
    auto& schema = std::get<SchemaData>(loaded);
    if (auto f = invalidDefinition(profile, schema)) return Failure{path + ": " + f->text};
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
        auto in = loadInput(path, desc, s.profile);
        if (auto* f = std::get_if<Failure>(&in)) return invalid(err, *f);
        existing.push_back(std::move(std::get<Input>(in)));
    }
    auto candidate = loadInput(*a.newFile, desc, s.profile);
    if (auto* f = std::get_if<Failure>(&candidate)) return invalid(err, *f);
    Registry reg(s.profile);
    Decision d = decide(reg, existing, std::get<Input>(candidate), s.strategy);
    printDecision(out, err, d, a.verbose);
    return d.status;
}

}  // namespace cnx::sim
