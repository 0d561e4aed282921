#include "sim/scenario/loader.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <variant>
#include <set>
#include <utility>

#include "broker_model/compat/key_value/key_value_check.h"
#include "broker_model/policy/policies.h"
#include "broker_model/profile/profile.h"
#include "broker_model/core/release_version.h"
#include "broker_model/core/topic_name.h"
#include "sim/scenario/did_you_mean.h"
#include "sim/io/file_read.h"
#include "sim/scenario/yaml_precheck.h"

namespace cnx::sim {
namespace {

using Names = std::span<const std::string_view>;

// ---------------------------------------------------------------------------
// Limits. A scenario file is hand-written; these only stop hostile input.

constexpr std::size_t kNodeBudget = 5'000'000;       // nodes visited per document (aliases can multiply them)
constexpr int kMaxKeyValueDepth = 8;                 // KEY_VALUE inside KEY_VALUE ...
constexpr std::size_t kMaxReportedErrors = 100;      // per file

// ---------------------------------------------------------------------------
// Vocabulary (spec tables). Order matters only for "did you mean" ties.

constexpr std::array<std::string_view, 10> kTopKeys{"name",       "description", "tags",    "reproduces", "broker",
                                                    "namespaces", "topics",      "clients", "schemas",    "steps"};
constexpr std::array<std::string_view, 2> kBrokerKeys{"version", "config"};
constexpr std::array<std::string_view, 2> kTopicDeclKeys{"partitions", "policies"};
constexpr std::array<std::string_view, 2> kClientKeys{"library", "version"};
constexpr std::array<std::string_view, 2> kLibraries{"java", "cpp"};
constexpr std::array<std::string_view, 7> kDefinitionKeys{"type", "schema", "properties", "key",
                                                          "value", "encoding", "file"};
constexpr std::array<std::string_view, 2> kEncodings{"INLINE", "SEPARATED"};
constexpr std::array<std::string_view, 3> kFileKeys{"type", "schema", "properties"};

enum class ActionKind {
    producer,
    subscribe,
    close,
    publish,
    uploadSchema,
    getSchema,
    getSchemaVersion,
    deleteSchema,
    deleteTopic,
    testCompatibility,
    setPolicy,
    setBrokerConfig,
    upgradeBroker,
    restartBroker,
    unload,
    check,
    concurrently,
};

constexpr std::array<std::string_view, 17> kActions{
    "producer",           "subscribe",  "close",
    "publish",            "upload-schema",  "get-schema",
    "get-schema-version", "delete-schema",  "delete-topic",
    "test-compatibility", "set-policy",     "set-broker-config",
    "upgrade-broker",     "restart-broker", "unload",
    "check",              "concurrently",
};

constexpr std::array<std::string_view, 22> kStepKeys{
    "producer",       "subscribe",         "close",          "publish",        "upload-schema", "get-schema",
    "get-schema-version", "delete-schema", "delete-topic",   "test-compatibility", "set-policy",
    "set-broker-config", "upgrade-broker", "restart-broker", "unload",         "check",         "concurrently",
    "id",             "expect",            "explore",        "outcomes",       "invariant",
};

constexpr std::array<std::string_view, 5> kProducerKeys{"topic", "name", "schema", "access_mode", "client"};
constexpr std::array<std::string_view, 7> kSubscribeKeys{"topic", "subscription", "consumer", "schema",
                                                         "type",  "durable",      "client"};
constexpr std::array<std::string_view, 3> kPublishKeys{"producer", "count", "schema"};
constexpr std::array<std::string_view, 2> kTopicSchemaKeys{"topic", "schema"};
constexpr std::array<std::string_view, 2> kGetSchemaKeys{"topic", "version"};
constexpr std::array<std::string_view, 2> kDeleteSchemaKeys{"topic", "force"};
constexpr std::array<std::string_view, 3> kDeleteTopicKeys{"topic", "force", "delete_schema"};
constexpr std::array<std::string_view, 1> kVersionKeys{"version"};
constexpr std::array<std::string_view, 1> kTopicKeys{"topic"};
constexpr std::array<std::string_view, 7> kCheckKeys{"topic",     "schema_versions", "latest_schema", "producers",
                                                     "consumers", "idle",            "strategy"};
constexpr std::array<std::string_view, 2> kExploreKeys{"random", "seed"};
constexpr std::array<std::string_view, 1> kExhaustive{"exhaustive"};
constexpr std::array<std::string_view, 8> kExpectKeys{"error", "message",    "schema_version", "type",
                                                      "schema", "properties", "compatible",     "strategy"};
constexpr std::array<std::string_view, 1> kOk{"ok"};

constexpr std::array<std::string_view, 4> kAccessModes{"Shared", "Exclusive", "WaitForExclusive",
                                                       "ExclusiveWithFencing"};
constexpr std::array<std::string_view, 4> kSubTypes{"Exclusive", "Shared", "Failover", "Key_Shared"};

// proto/PulsarApi.proto enum ServerError, then the outcomes the modelled
// client itself reports (doc/scenario-format.md): NotConnected (close/publish of
// nothing open), NotSupported (a feature the negotiated protocol lacks),
// ConnectionClosed (the broker refused a frame), NoResponse.
constexpr std::array<std::string_view, 30> kServerErrors{
    "UnknownError",
    "MetadataError",
    "PersistenceError",
    "AuthenticationError",
    "AuthorizationError",
    "ConsumerBusy",
    "ServiceNotReady",
    "ProducerBlockedQuotaExceededError",
    "ProducerBlockedQuotaExceededException",
    "ChecksumError",
    "UnsupportedVersionError",
    "TopicNotFound",
    "SubscriptionNotFound",
    "ConsumerNotFound",
    "TooManyRequests",
    "TopicTerminatedError",
    "ProducerBusy",
    "InvalidTopicName",
    "IncompatibleSchema",
    "ConsumerAssignError",
    "TransactionCoordinatorNotFound",
    "InvalidTxnStatus",
    "NotAllowedError",
    "TransactionConflict",
    "TransactionNotFound",
    "ProducerFenced",
    "NotConnected",
    "NotSupported",
    "ConnectionClosed",
    "NoResponse",
};

constexpr std::string_view kNone = "none";
constexpr std::string_view kAutoConsume = "AUTO_CONSUME";
constexpr std::string_view kAutoProduceBytes = "AUTO_PRODUCE_BYTES";
constexpr std::array<std::string_view, 2> kBooleans{"true", "false"};

std::string inQuotes(std::string_view s) { return "'" + std::string(s) + "'"; }

std::string joined(Names names) {
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
        out += names[i];
    }
    return out;
}

bool contains(Names names, std::string_view s) { return std::find(names.begin(), names.end(), s) != names.end(); }

Names schemaTypeNames() {
    std::size_t count = 0;
    const std::string_view* names = allSchemaTypeNames(count);
    return {names, count};
}

// Primitive type names usable where a schema is named (`schema: STRING`).
const std::vector<std::string_view>& primitiveNames() {
    static const std::vector<std::string_view> names = [] {
        std::vector<std::string_view> out;
        for (std::string_view n : schemaTypeNames()) {
            auto t = schemaTypeFromName(n);
            if (t && isPrimitive(*t) && *t != SchemaType::NONE) out.push_back(n);
        }
        return out;
    }();
    return names;
}

// ---------------------------------------------------------------------------
// Context: the file being read and the errors found.

struct Ctx {
    std::string file;
    std::filesystem::path baseDir;
    std::vector<LoadError> errors;
    std::size_t budget = kNodeBudget;
    bool exhausted = false;

    SourcePos pos(const YAML::Node& n) const {
        const YAML::Mark m = n.Mark();
        if (m.line < 0 || m.column < 0) return {file, 1, 1};
        return {file, m.line + 1, m.column + 1};
    }
    void error(const SourcePos& at, std::string message) { errors.push_back({at, std::move(message)}); }

    // One unit of work; false once the document's budget is spent (aliases
    // can make a small file expand to billions of nodes).
    bool spend(const SourcePos& at) {
        if (exhausted) return false;
        if (budget > 0) {
            --budget;
            return true;
        }
        exhausted = true;
        error(at, "the document expands to more than " + std::to_string(kNodeBudget) +
                      " nodes (through YAML aliases?); giving up");
        return false;
    }
};

/// A node with where it is and how to name it in messages.
struct Value {
    YAML::Node node;
    SourcePos pos;
    std::string what;  // the key it is the value of, e.g. "topic"
};

struct Entry {
    std::string key;
    SourcePos keyPos;
    Value value;
};

using Entries = std::vector<Entry>;

std::string_view kindOf(const YAML::Node& n) {
    switch (n.Type()) {
        case YAML::NodeType::Map: return "a mapping";
        case YAML::NodeType::Sequence: return "a sequence";
        case YAML::NodeType::Scalar: return "a scalar";
        case YAML::NodeType::Null: return "null";
        case YAML::NodeType::Undefined: return "nothing";
    }
    return "nothing";
}

void wrongType(Ctx& ctx, const Value& v, std::string_view expected) {
    ctx.error(v.pos, v.what + ": expected " + std::string(expected) + ", got " + std::string(kindOf(v.node)));
}

Value itemValue(Ctx& ctx, const YAML::Node& item, const Value& parent) {
    SourcePos p = item.IsNull() ? parent.pos : ctx.pos(item);
    return {item, p, parent.what};
}

// The entries of a mapping, in file order; duplicate keys and non-scalar keys
// are reported (yaml-cpp keeps duplicates silently) and dropped.
std::optional<Entries> entriesOf(Ctx& ctx, const Value& v) {
    if (!v.node.IsMap()) {
        wrongType(ctx, v, "a mapping");
        return std::nullopt;
    }
    Entries out;
    std::map<std::string, SourcePos> seen;
    for (const auto& kv : v.node) {
        SourcePos keyPos = kv.first.IsNull() ? v.pos : ctx.pos(kv.first);
        if (!ctx.spend(keyPos)) return std::nullopt;
        if (!kv.first.IsScalar()) {
            ctx.error(keyPos, v.what + ": keys must be scalars, got " + std::string(kindOf(kv.first)));
            continue;
        }
        const std::string& key = kv.first.Scalar();
        auto [it, fresh] = seen.emplace(key, keyPos);
        if (!fresh) {
            ctx.error(keyPos, "duplicate key " + inQuotes(key) + " (first at " + std::to_string(it->second.line) + ":" +
                                  std::to_string(it->second.column) + ")");
            continue;
        }
        SourcePos valuePos = kv.second.IsNull() ? keyPos : ctx.pos(kv.second);
        out.push_back({key, keyPos, {kv.second, valuePos, key}});
    }
    return out;
}

const Entry* findEntry(const Entries& entries, std::string_view key) {
    for (const Entry& e : entries) {
        if (e.key == key) return &e;
    }
    return nullptr;
}

void reportUnknownKey(Ctx& ctx, const Entry& e, Names allowed, std::string_view where) {
    ctx.error(e.keyPos, "unknown key " + inQuotes(e.key) + " in " + std::string(where) + didYouMeanSuffix(e.key, allowed));
}

// Reports every key not in `allowed`; true when there was none.
bool rejectUnknown(Ctx& ctx, const Entries& entries, Names allowed, std::string_view where) {
    bool clean = true;
    for (const Entry& e : entries) {
        if (contains(allowed, e.key)) continue;
        reportUnknownKey(ctx, e, allowed, where);
        clean = false;
    }
    return clean;
}

bool require(Ctx& ctx, const Entries& entries, std::string_view key, const SourcePos& at, std::string_view where) {
    if (findEntry(entries, key)) return true;
    ctx.error(at, "missing required key " + inQuotes(key) + " in " + std::string(where));
    return false;
}

std::optional<std::string> scalarOf(Ctx& ctx, const Value& v) {
    if (!v.node.IsScalar()) {
        wrongType(ctx, v, "a scalar");
        return std::nullopt;
    }
    return v.node.Scalar();
}

std::optional<std::string> nonEmptyScalarOf(Ctx& ctx, const Value& v) {
    auto s = scalarOf(ctx, v);
    if (s && s->empty()) {
        ctx.error(v.pos, v.what + ": must not be empty");
        return std::nullopt;
    }
    return s;
}

std::optional<std::int64_t> parseInteger(std::string_view text) {
    std::int64_t n = 0;
    if (!text.empty() && text.front() == '+') text.remove_prefix(1);
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
    return n;
}

std::optional<std::int64_t> integerOf(Ctx& ctx, const Value& v, std::int64_t min,
                                      std::int64_t max = std::numeric_limits<int>::max()) {
    if (!v.node.IsScalar()) {
        wrongType(ctx, v, "an integer");
        return std::nullopt;
    }
    auto n = parseInteger(v.node.Scalar());
    if (!n) {
        ctx.error(v.pos, v.what + ": expected an integer, got " + inQuotes(v.node.Scalar()));
        return std::nullopt;
    }
    if (*n < min || *n > max) {
        ctx.error(v.pos, v.what + ": expected an integer from " + std::to_string(min) + " to " + std::to_string(max) +
                             ", got " + std::to_string(*n));
        return std::nullopt;
    }
    return n;
}

std::optional<bool> parseBool(std::string_view s) {
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
    return std::nullopt;
}

std::optional<bool> boolOf(Ctx& ctx, const Value& v) {
    if (!v.node.IsScalar()) {
        wrongType(ctx, v, "a boolean");
        return std::nullopt;
    }
    auto b = parseBool(v.node.Scalar());
    if (!b) ctx.error(v.pos, v.what + ": expected a boolean (true or false), got " + inQuotes(v.node.Scalar()));
    return b;
}

// A scalar that must be one of `names` (exact spelling).
std::optional<std::string> enumOf(Ctx& ctx, const Value& v, Names names, std::string_view noun) {
    auto s = scalarOf(ctx, v);
    if (!s) return std::nullopt;
    if (contains(names, *s)) return s;
    std::string suffix = didYouMeanSuffix(*s, names);
    if (suffix.empty() && names.size() <= 8) suffix = " (expected " + joined(names) + ")";
    ctx.error(v.pos, "unknown " + std::string(noun) + " " + inQuotes(*s) + suffix);
    return std::nullopt;
}

// A sequence of scalars; a single scalar counts as a list of one.
std::optional<std::vector<std::string>> scalarListOf(Ctx& ctx, const Value& v) {
    if (v.node.IsScalar()) return std::vector<std::string>{v.node.Scalar()};
    if (!v.node.IsSequence()) {
        wrongType(ctx, v, "a sequence");
        return std::nullopt;
    }
    std::vector<std::string> out;
    bool ok = true;
    for (const auto& item : v.node) {
        Value iv = itemValue(ctx, item, v);
        if (!ctx.spend(iv.pos)) return std::nullopt;
        auto s = scalarOf(ctx, iv);
        if (s) out.push_back(*s);
        ok = ok && s.has_value();
    }
    if (!ok) return std::nullopt;
    return out;
}

std::optional<std::vector<Value>> sequenceOf(Ctx& ctx, const Value& v) {
    if (!v.node.IsSequence()) {
        wrongType(ctx, v, "a sequence");
        return std::nullopt;
    }
    std::vector<Value> out;
    for (const auto& item : v.node) {
        out.push_back(itemValue(ctx, item, v));
        if (!ctx.spend(out.back().pos)) return std::nullopt;
    }
    return out;
}

std::string posText(const SourcePos& p) { return std::to_string(p.line) + ":" + std::to_string(p.column); }

// ---------------------------------------------------------------------------
// Names of releases, topics, namespaces, version ranges.

std::optional<std::string> releaseOf(Ctx& ctx, const Value& v, std::string_view noun) {
    auto s = scalarOf(ctx, v);
    if (!s) return std::nullopt;
    if (!ReleaseVersion::parse(*s)) {
        ctx.error(v.pos, std::string(noun) + " " + inQuotes(*s) + " is not a release such as \"3.0\" or \"2.10.4\"");
        return std::nullopt;
    }
    return s;
}

std::optional<std::string> brokerVersionOf(Ctx& ctx, const Value& v) {
    auto s = releaseOf(ctx, v, "broker version");
    if (!s) return std::nullopt;
    std::string why;
    if (profileFor(*s, &why)) return s;
    ctx.error(v.pos, "unsupported broker version " + inQuotes(*s) + (why.empty() ? "" : ": " + why));
    return std::nullopt;
}

std::optional<std::string> topicOf(Ctx& ctx, const Value& v) {
    auto s = scalarOf(ctx, v);
    if (!s) return std::nullopt;
    std::string why;
    auto name = TopicName::parse(*s, &why);
    if (!name) {
        ctx.error(v.pos, why);
        return std::nullopt;
    }
    return name->toString();
}

bool validNameSegment(std::string_view s) {
    if (s.empty()) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
               c == '.' || c == '=' || c == ':';
    });
}

bool validNamespaceName(std::string_view s) {
    auto slash = s.find('/');
    if (slash == std::string_view::npos) return false;
    return validNameSegment(s.substr(0, slash)) && validNameSegment(s.substr(slash + 1));
}

std::optional<std::string> namespaceOf(Ctx& ctx, const std::string& text, const SourcePos& at) {
    if (validNamespaceName(text)) return text;
    ctx.error(at, "invalid namespace name " + inQuotes(text) + " (expected tenant/namespace)");
    return std::nullopt;
}

std::optional<VersionRange> parseRange(std::string_view text) {
    VersionRange r;
    r.text = std::string(text);
    if (text == "default") return r;
    struct Prefix {
        std::string_view sign;
        VersionRange::Op op;
    };
    static constexpr std::array<Prefix, 6> kPrefixes{{{"<=", VersionRange::Op::le},
                                                      {">=", VersionRange::Op::ge},
                                                      {"==", VersionRange::Op::eq},
                                                      {"<", VersionRange::Op::lt},
                                                      {">", VersionRange::Op::gt},
                                                      {"=", VersionRange::Op::eq}}};
    r.op = VersionRange::Op::eq;
    for (const Prefix& p : kPrefixes) {
        if (!text.starts_with(p.sign)) continue;
        r.op = p.op;
        text.remove_prefix(p.sign.size());
        break;
    }
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    if (!ReleaseVersion::parse(text)) return std::nullopt;
    r.version = std::string(text);
    return r;
}

bool looksLikeRange(std::string_view key) {
    if (key == "default") return true;
    return !key.empty() && (key.front() == '<' || key.front() == '>' || key.front() == '=' ||
                            (key.front() >= '0' && key.front() <= '9'));
}

// ---------------------------------------------------------------------------
// Policies and configuration (validated through broker_model/policy/policies.h).

enum class SettingScope { broker, namespacePolicy, topicPolicy };

Names settingKeys(SettingScope scope) {
    switch (scope) {
        case SettingScope::broker: return BrokerConfig::keys();
        case SettingScope::namespacePolicy: return NamespacePolicies::fields();
        case SettingScope::topicPolicy: return TopicPolicies::fields();
    }
    return {};
}

std::string_view settingNoun(SettingScope scope) {
    switch (scope) {
        case SettingScope::broker: return "broker configuration key";
        case SettingScope::namespacePolicy: return "namespace policy";
        case SettingScope::topicPolicy: return "topic policy";
    }
    return "";
}

// Values a field accepts, for "did you mean".
Names valueCandidates(std::string_view field) {
    if (field == "schema_auto_update_compatibility_strategy") return autoUpdateStrategyNames();
    if (field.find("ompatibilityStrategy") != std::string_view::npos ||
        field.find("compatibility_strategy") != std::string_view::npos)
        return compatibilityStrategyNames();
    if (field == "replicatorPrefix") return {};
    return kBooleans;
}

std::optional<std::string> applySetting(SettingScope scope, std::string_view key, std::optional<std::string_view> v) {
    switch (scope) {
        case SettingScope::broker: {
            if (!v) return std::nullopt;  // null: back to the default
            BrokerConfig config;
            return config.set(key, *v);
        }
        case SettingScope::namespacePolicy: {
            NamespacePolicies policies;
            return policies.set(key, v);
        }
        case SettingScope::topicPolicy: {
            TopicPolicies policies;
            return policies.set(key, v);
        }
    }
    return std::nullopt;
}

std::optional<Setting> settingOf(Ctx& ctx, const Entry& e, SettingScope scope) {
    Names keys = settingKeys(scope);
    if (!contains(keys, e.key)) {
        ctx.error(e.keyPos, "unknown " + std::string(settingNoun(scope)) + " " + inQuotes(e.key) +
                                didYouMeanSuffix(e.key, keys));
        return std::nullopt;
    }
    Setting s{e.key, std::nullopt, e.keyPos};
    if (!e.value.node.IsNull()) {
        auto text = scalarOf(ctx, e.value);
        if (!text) return std::nullopt;
        s.value = *text;
        s.pos = e.value.pos;
    }
    if (auto why = applySetting(scope, e.key, s.value)) {
        std::string suffix = s.value ? didYouMeanSuffix(*s.value, valueCandidates(e.key)) : "";
        ctx.error(e.value.pos, *why + suffix);
        return std::nullopt;
    }
    return s;
}

std::vector<Setting> settingsOf(Ctx& ctx, const Entries& entries, SettingScope scope) {
    std::vector<Setting> out;
    for (const Entry& e : entries) {
        if (auto s = settingOf(ctx, e, scope)) out.push_back(std::move(*s));
    }
    return out;
}

std::optional<std::vector<Setting>> settingsMapOf(Ctx& ctx, const Value& v, SettingScope scope) {
    if (v.node.IsNull()) return std::vector<Setting>{};
    auto entries = entriesOf(ctx, v);
    if (!entries) return std::nullopt;
    return settingsOf(ctx, *entries, scope);
}

// ---------------------------------------------------------------------------
// Schema-definition files (pulsar-admin's `{"type","schema","properties"}`).

std::string jsonKind(const nlohmann::json& j) {
    if (j.is_array()) return "an array";
    if (j.is_string()) return "a string";
    if (j.is_number()) return "a number";
    if (j.is_boolean()) return "a boolean";
    if (j.is_null()) return "null";
    return "an object";
}

// nlohmann's what() starts with "[json.exception.parse_error.101] ".
std::string jsonMessage(const std::exception& e) {
    std::string_view what = e.what();
    if (what.starts_with("[json.exception.")) {
        auto close = what.find("] ");
        if (close != std::string_view::npos) what.remove_prefix(close + 2);
    }
    return std::string(what);
}

std::optional<nlohmann::json> parseJson(const std::string& text, std::string& error) {
    try {
        return nlohmann::json::parse(text);
    } catch (const std::exception& e) {  // nlohmann::json::parse_error: the library's boundary
        error = jsonMessage(e);
        return std::nullopt;
    }
}

class DefinitionFile {
public:
    DefinitionFile(Ctx& ctx, const Value& v, std::string name) : ctx_(ctx), v_(v), name_(std::move(name)) {}

    std::optional<SchemaData> load() {
        auto read = readFileBounded(ctx_.baseDir / name_, kSchemaFile);
        if (auto* e = std::get_if<FileReadError>(&read)) {
            ctx_.error(v_.pos, "schema file " + inQuotes(name_) + ": " + e->reason);
            return std::nullopt;
        }
        std::string why;
        auto json = parseJson(std::get<std::string>(read), why);
        if (!json) return fail("is not valid JSON: " + why);
        if (!json->is_object()) return fail("must hold a JSON object, got " + jsonKind(*json));
        return fromObject(*json);
    }

private:
    std::nullopt_t fail(const std::string& why) {
        ctx_.error(v_.pos, "schema file " + inQuotes(name_) + " " + why);
        return std::nullopt;
    }

    std::optional<SchemaData> fromObject(const nlohmann::json& json) {
        for (const auto& [key, value] : json.items()) {
            if (!contains(kFileKeys, key))
                return fail("has an unknown key " + inQuotes(key) + didYouMeanSuffix(key, kFileKeys));
        }
        SchemaData data;
        if (!json.contains("type")) return fail("has no \"type\"");
        const auto& type = json["type"];
        if (!type.is_string()) return fail("has a \"type\" that is " + jsonKind(type) + ", not a string");
        auto t = schemaTypeFromName(type.get<std::string>());
        if (!t)
            return fail("has an unknown schema type " + inQuotes(type.get<std::string>()) +
                        didYouMeanSuffix(type.get<std::string>(), schemaTypeNames()));
        data.type = *t;
        if (json.contains("schema") && !json["schema"].is_null()) {
            if (!json["schema"].is_string())
                return fail("has a \"schema\" that is " + jsonKind(json["schema"]) +
                            ", not a string (the definition as JSON text)");
            data.data = json["schema"].get<std::string>();
        }
        if (json.contains("properties") && !json["properties"].is_null()) {
            if (!propertiesFrom(json["properties"], data.properties))
                return fail("has \"properties\" that are not an object of strings");
        }
        return data;
    }

    static bool propertiesFrom(const nlohmann::json& j, SchemaProperties& out) {
        if (!j.is_object()) return false;
        for (const auto& [key, value] : j.items()) {
            if (!value.is_string()) return false;
            out[key] = value.get<std::string>();
        }
        return true;
    }

    Ctx& ctx_;
    const Value& v_;
    std::string name_;
};

// ---------------------------------------------------------------------------
// The loader of one document.

enum class SchemaUse {
    producer,   // alias, inline, primitive, none, AUTO_PRODUCE_BYTES
    subscribe,  // alias, inline, primitive, none, AUTO_CONSUME
    admin,      // alias, inline, primitive
    component,  // a KEY_VALUE key or value: alias, inline, primitive
};

bool isAdmin(ActionKind k) {
    switch (k) {
        case ActionKind::uploadSchema:
        case ActionKind::getSchema:
        case ActionKind::getSchemaVersion:
        case ActionKind::deleteSchema:
        case ActionKind::deleteTopic:
        case ActionKind::testCompatibility:
        case ActionKind::setPolicy:
        case ActionKind::setBrokerConfig:
            return true;
        case ActionKind::producer:
        case ActionKind::subscribe:
        case ActionKind::close:
        case ActionKind::publish:
        case ActionKind::upgradeBroker:
        case ActionKind::restartBroker:
        case ActionKind::unload:
        case ActionKind::check:
        case ActionKind::concurrently:
            return false;
    }
    return false;
}

bool isReconnect(ActionKind k) {
    return k == ActionKind::upgradeBroker || k == ActionKind::restartBroker || k == ActionKind::unload;
}

std::string_view actionName(ActionKind k) { return kActions[static_cast<std::size_t>(k)]; }

std::optional<ActionKind> actionKindOf(std::string_view key) {
    for (std::size_t i = 0; i < kActions.size(); ++i) {
        if (kActions[i] == key) return static_cast<ActionKind>(i);
    }
    return std::nullopt;
}

class DocumentLoader {
public:
    DocumentLoader(Ctx& ctx, Scenario& scenario) : ctx_(ctx), s_(scenario) {}

    void load(const Value& root);

private:
    // top level
    void loadTop(const Entries& top);
    void loadBroker(const Value& v);
    void loadNamespaces(const Value& v);
    void loadTopics(const Value& v);
    std::optional<TopicDecl> topicDecl(const Entry& e);
    void loadClients(const Value& v);
    void loadSchemas(const Value& v);

    // schemas
    std::optional<SchemaData> resolveAlias(const std::string& alias, const SourcePos& at);
    std::optional<SchemaData> definitionOf(const Value& v, int depth);
    std::optional<SchemaData> inlineDefinition(const Entries& entries, const Value& v, int depth);
    std::optional<SchemaData> keyValueDefinition(const Entries& entries, const Value& v, int depth);
    std::optional<SchemaData> componentOf(const Value& v, int depth);
    std::optional<SchemaRef> schemaRefOf(const Value& v, SchemaUse use);
    std::optional<SchemaRef> namedSchema(const std::string& name, const Value& v, SchemaUse use);
    std::optional<SchemaData> schemaByName(const Value& v, bool allowNone, bool& isNone);
    std::optional<SchemaProperties> propertiesOf(const Value& v);
    std::vector<std::string> schemaCandidates(SchemaUse use) const;

    // steps
    void loadSteps(const Value& v);
    std::optional<Step> loadStep(const Value& v, bool inBranch);
    std::optional<Action> actionOf(ActionKind kind, const Entry& e);
    std::optional<Action> producerOf(const Entry& e);
    std::optional<Action> subscribeOf(const Entry& e);
    std::optional<Action> closeOf(const Entry& e);
    std::optional<Action> publishOf(const Entry& e);
    std::optional<Action> topicSchemaOf(ActionKind kind, const Entry& e);
    std::optional<Action> getSchemaOf(const Entry& e);
    std::optional<Action> deleteSchemaOf(const Entry& e);
    std::optional<Action> deleteTopicOf(const Entry& e);
    std::optional<Action> setPolicyOf(const Entry& e);
    std::optional<Action> setBrokerConfigOf(const Entry& e);
    std::optional<Action> upgradeBrokerOf(const Entry& e);
    std::optional<Action> restartBrokerOf(const Entry& e);
    std::optional<Action> unloadOf(const Entry& e);
    std::optional<Action> checkOf(const Entry& e);
    bool checkSchemaVersions(const Value& v, CheckStep& step);
    std::optional<Action> concurrentlyOf(const Entry& e, const Entries& stepEntries, bool inBranch);
    void exploreOf(const Value& v, ConcurrentlyStep& step);
    void outcomesOf(const Value& v, ConcurrentlyStep& step, const std::vector<ActionKind>& kinds);
    std::optional<Entries> actionFields(const Entry& e, Names allowed);
    std::optional<std::string> clientOf(const Entries& entries);
    std::optional<std::string> knownName(const Value& v, const std::vector<std::string>& names, std::string_view noun);
    void registerStep(const Step& step);
    void registerId(Step& step, const Entry& e);

    // expectations
    ExpectSpec expectSpecOf(const Entry& e, ActionKind kind);
    std::optional<Expect> outcomeOf(const Value& v, ActionKind kind, bool allowPerClient);
    std::optional<Expect> outcomeMapOf(const Entries& entries, const Value& v, ActionKind kind);
    bool errorOf(const Value& v, ActionKind kind, Expect& out);
    std::optional<Expect> perClientOf(const Entries& entries, const Value& v, ActionKind kind);
    void restrictTo(const Entries& entries, Names keys, ActionKind allowed, ActionKind kind);

    Ctx& ctx_;
    Scenario& s_;
    std::map<std::string, Value> pendingSchemas_;
    std::set<std::string> resolving_;
    std::set<std::string> failedSchemas_;
    std::vector<std::string> producerNames_;
    std::vector<std::string> consumerNames_;
    std::map<std::string, SourcePos> stepIds_;
};

void DocumentLoader::load(const Value& root) {
    s_.pos = root.pos;
    if (root.node.IsNull()) {
        ctx_.error(root.pos, "empty document: a scenario needs at least 'name' and 'steps'");
        return;
    }
    auto top = entriesOf(ctx_, root);
    if (!top) return;
    rejectUnknown(ctx_, *top, kTopKeys, "the scenario");
    require(ctx_, *top, "name", root.pos, "the scenario");
    require(ctx_, *top, "steps", root.pos, "the scenario");
    loadTop(*top);
}

void DocumentLoader::loadTop(const Entries& top) {
    if (const Entry* e = findEntry(top, "name")) s_.name = nonEmptyScalarOf(ctx_, e->value).value_or("");
    if (const Entry* e = findEntry(top, "description"); e && !e->value.node.IsNull())
        s_.description = scalarOf(ctx_, e->value).value_or("");
    if (const Entry* e = findEntry(top, "tags"); e && !e->value.node.IsNull())
        s_.tags = scalarListOf(ctx_, e->value).value_or(std::vector<std::string>{});
    if (const Entry* e = findEntry(top, "reproduces"); e && !e->value.node.IsNull())
        s_.reproduces = scalarListOf(ctx_, e->value).value_or(std::vector<std::string>{});
    if (const Entry* e = findEntry(top, "broker")) loadBroker(e->value);
    if (const Entry* e = findEntry(top, "namespaces")) loadNamespaces(e->value);
    if (const Entry* e = findEntry(top, "topics")) loadTopics(e->value);
    if (const Entry* e = findEntry(top, "clients")) loadClients(e->value);
    if (const Entry* e = findEntry(top, "schemas")) loadSchemas(e->value);
    if (const Entry* e = findEntry(top, "steps")) loadSteps(e->value);
}

void DocumentLoader::loadBroker(const Value& v) {
    if (v.node.IsNull()) return;
    auto entries = entriesOf(ctx_, v);
    if (!entries) return;
    rejectUnknown(ctx_, *entries, kBrokerKeys, "broker");
    if (const Entry* e = findEntry(*entries, "version")) {
        std::vector<Value> versions{e->value};
        if (e->value.node.IsSequence()) versions = sequenceOf(ctx_, e->value).value_or(std::vector<Value>{});
        std::map<std::string, SourcePos> seen;
        for (const Value& item : versions) {
            auto version = brokerVersionOf(ctx_, item);
            if (!version) continue;
            if (auto [it, fresh] = seen.emplace(*version, item.pos); !fresh) {
                ctx_.error(item.pos, "broker version " + inQuotes(*version) + " is listed twice (first at " +
                                         posText(it->second) + ")");
                continue;
            }
            s_.brokerVersions.push_back(*version);
        }
    }
    if (const Entry* e = findEntry(*entries, "config"))
        s_.brokerConfig = settingsMapOf(ctx_, e->value, SettingScope::broker).value_or(std::vector<Setting>{});
}

void DocumentLoader::loadNamespaces(const Value& v) {
    if (v.node.IsNull()) return;
    auto entries = entriesOf(ctx_, v);
    if (!entries) return;
    for (const Entry& e : *entries) {
        auto name = namespaceOf(ctx_, e.key, e.keyPos);
        auto policies = settingsMapOf(ctx_, e.value, SettingScope::namespacePolicy);
        if (name && policies) s_.namespaces.push_back({*name, std::move(*policies), e.keyPos});
    }
}

void DocumentLoader::loadTopics(const Value& v) {
    if (v.node.IsNull()) return;
    auto entries = entriesOf(ctx_, v);
    if (!entries) return;
    std::map<std::string, SourcePos> seen;
    for (const Entry& e : *entries) {
        auto decl = topicDecl(e);
        if (!decl) continue;
        if (auto [it, fresh] = seen.emplace(decl->name, e.keyPos); !fresh) {
            ctx_.error(e.keyPos, "topic " + inQuotes(decl->name) + " is declared twice (first at " +
                                     posText(it->second) + ")");
            continue;
        }
        s_.topics.push_back(std::move(*decl));
    }
}

std::optional<TopicDecl> DocumentLoader::topicDecl(const Entry& e) {
    auto name = topicOf(ctx_, {YAML::Node(e.key), e.keyPos, "topic"});
    TopicDecl decl{name.value_or(""), 0, {}, e.keyPos};
    if (e.value.node.IsNull()) return name ? std::optional(decl) : std::nullopt;
    auto fields = entriesOf(ctx_, e.value);
    if (!fields || !name) return std::nullopt;
    rejectUnknown(ctx_, *fields, kTopicDeclKeys, "topic " + inQuotes(e.key));
    if (const Entry* p = findEntry(*fields, "partitions"))
        decl.partitions = static_cast<int>(integerOf(ctx_, p->value, 0, 100'000).value_or(0));
    if (const Entry* p = findEntry(*fields, "policies"))
        decl.policies = settingsMapOf(ctx_, p->value, SettingScope::topicPolicy).value_or(std::vector<Setting>{});
    return decl;
}

void DocumentLoader::loadClients(const Value& v) {
    if (v.node.IsNull()) return;
    auto entries = entriesOf(ctx_, v);
    if (!entries) return;
    for (const Entry& e : *entries) {
        ClientDecl client;
        client.pos = e.keyPos;
        if (!e.value.node.IsNull()) {
            auto fields = entriesOf(ctx_, e.value);
            if (!fields) continue;
            rejectUnknown(ctx_, *fields, kClientKeys, "client " + inQuotes(e.key));
            if (const Entry* f = findEntry(*fields, "library"))
                client.library = enumOf(ctx_, f->value, kLibraries, "client library").value_or(client.library);
            if (const Entry* f = findEntry(*fields, "version"))
                client.version = releaseOf(ctx_, f->value, "client version").value_or("");
        }
        s_.clients.emplace(e.key, std::move(client));
    }
}

// ---------------------------------------------------------------------------
// Schemas

bool isReservedSchemaName(std::string_view name) {
    return name == kNone || name == kAutoConsume || name == kAutoProduceBytes || schemaTypeFromName(name).has_value();
}

void DocumentLoader::loadSchemas(const Value& v) {
    if (v.node.IsNull()) return;
    auto entries = entriesOf(ctx_, v);
    if (!entries) return;
    for (const Entry& e : *entries) {
        if (isReservedSchemaName(e.key)) {
            ctx_.error(e.keyPos, "schema name " + inQuotes(e.key) + " is reserved (a schema type or pseudo schema)");
            continue;
        }
        pendingSchemas_.emplace(e.key, e.value);
    }
    for (const Entry& e : *entries) {
        if (!pendingSchemas_.contains(e.key)) continue;
        resolveAlias(e.key, e.keyPos);
    }
}

// Resolves an alias declared under `schemas`, on first use, so that a
// KEY_VALUE may name components declared after it. nullopt (reported once)
// when its definition is bad; nullopt without report when it is undeclared.
std::optional<SchemaData> DocumentLoader::resolveAlias(const std::string& alias, const SourcePos& at) {
    if (auto it = s_.schemas.find(alias); it != s_.schemas.end()) return it->second.data;
    if (failedSchemas_.contains(alias)) return std::nullopt;
    auto pending = pendingSchemas_.find(alias);
    if (pending == pendingSchemas_.end()) return std::nullopt;
    if (resolving_.contains(alias)) {
        ctx_.error(at, "schema " + inQuotes(alias) + " refers to itself");
        failedSchemas_.insert(alias);
        return std::nullopt;
    }
    resolving_.insert(alias);
    Value v = pending->second;
    v.what = alias;
    auto data = definitionOf(v, 0);
    resolving_.erase(alias);
    if (!data) {
        failedSchemas_.insert(alias);
        return std::nullopt;
    }
    SchemaRef ref{SchemaRef::Kind::definition, *data, alias, v.pos};
    s_.schemas.emplace(alias, ref);
    return data;
}

std::optional<SchemaData> DocumentLoader::definitionOf(const Value& v, int depth) {
    if (!ctx_.spend(v.pos)) return std::nullopt;
    auto entries = entriesOf(ctx_, v);
    if (!entries) return std::nullopt;
    if (!rejectUnknown(ctx_, *entries, kDefinitionKeys, "a schema definition")) return std::nullopt;
    if (const Entry* file = findEntry(*entries, "file")) {
        bool alone = true;
        for (const Entry& e : *entries) {
            if (e.key == "file") continue;
            ctx_.error(e.keyPos, inQuotes(e.key) + " cannot be combined with 'file'");
            alone = false;
        }
        auto name = nonEmptyScalarOf(ctx_, file->value);
        if (!name || !alone) return std::nullopt;
        return DefinitionFile(ctx_, file->value, *name).load();
    }
    return inlineDefinition(*entries, v, depth);
}

std::optional<SchemaData> DocumentLoader::inlineDefinition(const Entries& entries, const Value& v, int depth) {
    if (!require(ctx_, entries, "type", v.pos, "a schema definition")) return std::nullopt;
    auto typeName = enumOf(ctx_, findEntry(entries, "type")->value, schemaTypeNames(), "schema type");
    if (!typeName) return std::nullopt;
    SchemaType type = *schemaTypeFromName(*typeName);
    if (type == SchemaType::KEY_VALUE) return keyValueDefinition(entries, v, depth);
    bool ok = true;
    for (std::string_view key : {"key", "value", "encoding"}) {
        if (const Entry* e = findEntry(entries, key)) {
            ctx_.error(e->keyPos, inQuotes(key) + " is only for KEY_VALUE schemas");
            ok = false;
        }
    }
    SchemaData data;
    data.type = type;
    if (const Entry* e = findEntry(entries, "schema"); e && !e->value.node.IsNull()) {
        auto text = scalarOf(ctx_, e->value);  // verbatim: validating it is the broker's job
        ok = ok && text.has_value();
        data.data = text.value_or("");
    }
    if (const Entry* e = findEntry(entries, "properties")) {
        auto props = propertiesOf(e->value);
        ok = ok && props.has_value();
        data.properties = props.value_or(SchemaProperties{});
    }
    if (!ok) return std::nullopt;
    return data;
}

std::optional<SchemaData> DocumentLoader::keyValueDefinition(const Entries& entries, const Value& v, int depth) {
    if (depth >= kMaxKeyValueDepth) {
        ctx_.error(v.pos, "KEY_VALUE schemas nested more than " + std::to_string(kMaxKeyValueDepth) + " levels deep");
        return std::nullopt;
    }
    const Entry* raw = findEntry(entries, "schema");
    const Entry* key = findEntry(entries, "key");
    const Entry* value = findEntry(entries, "value");
    std::optional<SchemaProperties> props = SchemaProperties{};
    if (const Entry* e = findEntry(entries, "properties")) props = propertiesOf(e->value);
    if (raw && (key || value)) {
        ctx_.error(raw->keyPos, "a KEY_VALUE schema takes 'key' and 'value' or a raw 'schema', not both");
        return std::nullopt;
    }
    if (raw) {  // raw KEY_VALUE bytes, passed verbatim
        auto text = scalarOf(ctx_, raw->value);
        if (!text || !props) return std::nullopt;
        return SchemaData{SchemaType::KEY_VALUE, *text, *props};
    }
    bool ok = require(ctx_, entries, "key", v.pos, "a KEY_VALUE schema");
    ok = require(ctx_, entries, "value", v.pos, "a KEY_VALUE schema") && ok;
    std::string encoding = "INLINE";
    if (const Entry* e = findEntry(entries, "encoding")) {
        auto enc = enumOf(ctx_, e->value, kEncodings, "KEY_VALUE encoding");
        ok = ok && enc.has_value();
        encoding = enc.value_or(encoding);
    }
    auto keyData = key ? componentOf(key->value, depth + 1) : std::nullopt;
    auto valueData = value ? componentOf(value->value, depth + 1) : std::nullopt;
    if (!ok || !keyData || !valueData || !props) return std::nullopt;
    SchemaData data = compat::encodeKeyValue(*keyData, *valueData, encoding);
    for (auto& [k, val] : *props) data.properties[k] = val;
    return data;
}

std::optional<SchemaData> DocumentLoader::componentOf(const Value& v, int depth) {
    if (v.node.IsMap()) return definitionOf(v, depth);
    auto ref = schemaRefOf(v, SchemaUse::component);
    if (!ref) return std::nullopt;
    return ref->data;
}

std::optional<SchemaProperties> DocumentLoader::propertiesOf(const Value& v) {
    if (v.node.IsNull()) return SchemaProperties{};
    auto entries = entriesOf(ctx_, v);
    if (!entries) return std::nullopt;
    SchemaProperties props;
    bool ok = true;
    for (const Entry& e : *entries) {
        auto text = e.value.node.IsNull() ? std::optional<std::string>("") : scalarOf(ctx_, e.value);
        ok = ok && text.has_value();
        if (text) props[e.key] = *text;
    }
    if (!ok) return std::nullopt;
    return props;
}

std::vector<std::string> DocumentLoader::schemaCandidates(SchemaUse use) const {
    std::vector<std::string> out;
    for (const auto& [alias, node] : pendingSchemas_) out.push_back(alias);
    for (std::string_view p : primitiveNames()) out.emplace_back(p);
    switch (use) {
        case SchemaUse::producer:
            out.emplace_back(kNone);
            out.emplace_back(kAutoProduceBytes);
            break;
        case SchemaUse::subscribe:
            out.emplace_back(kNone);
            out.emplace_back(kAutoConsume);
            break;
        case SchemaUse::admin:
        case SchemaUse::component:
            break;
    }
    return out;
}

// A schema reference in a step: alias, inline mapping, primitive type name or pseudo schema.
std::optional<SchemaRef> DocumentLoader::schemaRefOf(const Value& v, SchemaUse use) {
    if (v.node.IsMap()) {
        auto data = definitionOf(v, 0);
        if (!data) return std::nullopt;
        return SchemaRef{SchemaRef::Kind::definition, *data, "", v.pos};
    }
    auto name = scalarOf(ctx_, v);
    if (!name) return std::nullopt;
    return namedSchema(*name, v, use);
}

std::optional<SchemaRef> DocumentLoader::namedSchema(const std::string& name, const Value& v, SchemaUse use) {
    SchemaRef ref{SchemaRef::Kind::definition, {}, name, v.pos};
    bool producer = use == SchemaUse::producer, subscribe = use == SchemaUse::subscribe;
    if (name == kNone && (producer || subscribe)) return SchemaRef{SchemaRef::Kind::none, {}, name, v.pos};
    if (name == kAutoConsume && subscribe) return SchemaRef{SchemaRef::Kind::autoConsume, {}, name, v.pos};
    if (name == kAutoProduceBytes && producer) return SchemaRef{SchemaRef::Kind::autoProduceBytes, {}, name, v.pos};
    if (name == kAutoConsume || name == kAutoProduceBytes || name == kNone) {
        std::string where = name == kAutoConsume ? "subscribe" : name == kAutoProduceBytes ? "producer" : "producer and subscribe";
        ctx_.error(v.pos, inQuotes(name) + " is only valid for " + where + " steps");
        return std::nullopt;
    }
    if (auto type = schemaTypeFromName(name)) {
        if (!isPrimitive(*type) || *type == SchemaType::NONE) {
            ctx_.error(v.pos, name + " needs a definition: declare it under 'schemas' or write { type: " + name +
                                  ", schema: ... }");
            return std::nullopt;
        }
        ref.data.type = *type;
        return ref;
    }
    if (auto data = resolveAlias(name, v.pos)) {
        ref.data = *data;
        return ref;
    }
    if (!failedSchemas_.contains(name))
        ctx_.error(v.pos, "unknown schema " + inQuotes(name) + [&] {
            auto match = closestMatch(name, schemaCandidates(use));
            return match ? "; did you mean '" + *match + "'?" : std::string();
        }());
    return std::nullopt;
}

// An alias or primitive name whose definition an assertion compares against
// (`expect.schema`, `check.latest_schema`, `check.schema_versions`).
std::optional<SchemaData> DocumentLoader::schemaByName(const Value& v, bool allowNone, bool& isNone) {
    isNone = false;
    auto name = scalarOf(ctx_, v);
    if (!name) return std::nullopt;
    if (allowNone && *name == kNone) {
        isNone = true;
        return std::nullopt;
    }
    auto ref = namedSchema(*name, v, SchemaUse::admin);
    if (!ref) return std::nullopt;
    return ref->data;
}

// ---------------------------------------------------------------------------
// Steps

void DocumentLoader::loadSteps(const Value& v) {
    auto items = sequenceOf(ctx_, v);
    if (!items) return;
    if (items->empty()) {
        ctx_.error(v.pos, "steps: a scenario needs at least one step");
        return;
    }
    for (const Value& item : *items) {
        if (ctx_.exhausted) return;
        Value step = item;
        step.what = "step";
        if (auto s = loadStep(step, false)) s_.steps.push_back(std::move(*s));
    }
}

std::optional<Step> DocumentLoader::loadStep(const Value& v, bool inBranch) {
    auto entries = entriesOf(ctx_, v);
    if (!entries) return std::nullopt;
    Step step;
    step.pos = entries->empty() ? v.pos : entries->front().keyPos;
    const Entry* action = nullptr;
    bool clean = true;
    for (const Entry& e : *entries) {
        if (!contains(kStepKeys, e.key)) {
            ctx_.error(e.keyPos, "unknown step action " + inQuotes(e.key) + didYouMeanSuffix(e.key, kStepKeys));
            clean = false;
        } else if (actionKindOf(e.key) && action) {
            ctx_.error(e.keyPos, "a step has one action, but this one has " + inQuotes(action->key) + " and " +
                                     inQuotes(e.key) + "; split it into two steps");
            clean = false;
        } else if (actionKindOf(e.key)) {
            action = &e;
        }
    }
    if (!action) {
        if (clean) ctx_.error(step.pos, "step has no action (one of " + joined(kActions) + ")");
        return std::nullopt;
    }
    ActionKind kind = *actionKindOf(action->key);
    step.action = action->key;
    if (const Entry* id = findEntry(*entries, "id")) registerId(step, *id);
    for (std::string_view key : {"explore", "outcomes", "invariant"}) {
        const Entry* e = findEntry(*entries, key);
        if (e && kind != ActionKind::concurrently)
            ctx_.error(e->keyPos, inQuotes(key) + " belongs to a concurrently step");
    }
    std::optional<Action> body = kind == ActionKind::concurrently ? concurrentlyOf(*action, *entries, inBranch)
                                                                  : actionOf(kind, *action);
    if (const Entry* e = findEntry(*entries, "expect")) {
        if (kind == ActionKind::concurrently)
            ctx_.error(e->keyPos, "a concurrently step lists its results under 'outcomes', not 'expect'");
        else if (inBranch)
            ctx_.error(e->keyPos, "a step inside concurrently cannot have 'expect'; list results under 'outcomes'");
        else
            step.expect = expectSpecOf(*e, kind);
    }
    if (!body) return std::nullopt;
    step.body = std::move(*body);
    registerStep(step);
    return step;
}

void DocumentLoader::registerId(Step& step, const Entry& e) {
    auto id = nonEmptyScalarOf(ctx_, e.value);
    if (!id) return;
    if (auto [it, fresh] = stepIds_.emplace(*id, e.value.pos); !fresh) {
        ctx_.error(e.value.pos, "duplicate step id " + inQuotes(*id) + " (first at " + posText(it->second) + ")");
        return;
    }
    step.id = *id;
}

// Remembers producer and consumer names so later steps can refer to them.
void DocumentLoader::registerStep(const Step& step) {
    if (auto* p = std::get_if<ProducerStep>(&step.body); p && !p->name.empty()) producerNames_.push_back(p->name);
    if (auto* c = std::get_if<SubscribeStep>(&step.body); c && !c->consumer.empty())
        consumerNames_.push_back(c->consumer);
}

std::optional<Action> DocumentLoader::actionOf(ActionKind kind, const Entry& e) {
    switch (kind) {
        case ActionKind::producer: return producerOf(e);
        case ActionKind::subscribe: return subscribeOf(e);
        case ActionKind::close: return closeOf(e);
        case ActionKind::publish: return publishOf(e);
        case ActionKind::uploadSchema:
        case ActionKind::getSchemaVersion:
        case ActionKind::testCompatibility: return topicSchemaOf(kind, e);
        case ActionKind::getSchema: return getSchemaOf(e);
        case ActionKind::deleteSchema: return deleteSchemaOf(e);
        case ActionKind::deleteTopic: return deleteTopicOf(e);
        case ActionKind::setPolicy: return setPolicyOf(e);
        case ActionKind::setBrokerConfig: return setBrokerConfigOf(e);
        case ActionKind::upgradeBroker: return upgradeBrokerOf(e);
        case ActionKind::restartBroker: return restartBrokerOf(e);
        case ActionKind::unload: return unloadOf(e);
        case ActionKind::check: return checkOf(e);
        case ActionKind::concurrently: return std::nullopt;  // handled by loadStep
    }
    return std::nullopt;
}

// The fields mapping of an action, with unknown keys reported.
std::optional<Entries> DocumentLoader::actionFields(const Entry& e, Names allowed) {
    auto fields = entriesOf(ctx_, e.value);
    if (!fields) return std::nullopt;
    if (!rejectUnknown(ctx_, *fields, allowed, e.key)) return std::nullopt;
    return fields;
}

std::optional<std::string> DocumentLoader::clientOf(const Entries& entries) {
    const Entry* e = findEntry(entries, "client");
    if (!e) return std::string();
    auto name = scalarOf(ctx_, e->value);
    if (!name) return std::nullopt;
    if (s_.clients.contains(*name)) return name;
    if (*name == "java" || *name == "cpp") {
        // `client: cpp` / `client: java` without a declaration: that library,
        // same version as the broker (doc/scenario-format.md).
        ClientDecl implicit;
        implicit.library = *name;
        implicit.pos = e->value.pos;
        s_.clients.emplace(*name, implicit);
        return name;
    }
    std::vector<std::string> declared;
    for (const auto& [n, c] : s_.clients) declared.push_back(n);
    auto match = closestMatch(*name, declared);
    ctx_.error(e->value.pos, "unknown client " + inQuotes(*name) +
                                 (match ? "; did you mean '" + *match + "'?" : " (declare it under 'clients')"));
    return std::nullopt;
}

// A producer or consumer name opened by an earlier step.
std::optional<std::string> DocumentLoader::knownName(const Value& v, const std::vector<std::string>& names,
                                                     std::string_view noun) {
    auto name = nonEmptyScalarOf(ctx_, v);
    if (!name) return std::nullopt;
    if (std::find(names.begin(), names.end(), *name) != names.end()) return name;
    auto match = closestMatch(*name, names);
    ctx_.error(v.pos, "no earlier step opens a " + std::string(noun) + " named " + inQuotes(*name) +
                          (match ? "; did you mean '" + *match + "'?" : ""));
    return std::nullopt;
}

std::optional<Action> DocumentLoader::producerOf(const Entry& e) {
    auto f = actionFields(e, kProducerKeys);
    if (!f || !require(ctx_, *f, "topic", e.keyPos, "producer")) return std::nullopt;
    ProducerStep p;
    bool ok = true;
    auto topic = topicOf(ctx_, findEntry(*f, "topic")->value);
    ok = topic.has_value();
    p.topic = topic.value_or("");
    if (const Entry* x = findEntry(*f, "name")) {
        auto name = nonEmptyScalarOf(ctx_, x->value);
        ok = ok && name.has_value();
        p.name = name.value_or("");
    }
    if (const Entry* x = findEntry(*f, "schema")) {
        auto ref = schemaRefOf(x->value, SchemaUse::producer);
        ok = ok && ref.has_value();
        if (ref) p.schema = *ref;
    }
    if (const Entry* x = findEntry(*f, "access_mode")) {
        auto mode = enumOf(ctx_, x->value, kAccessModes, "access mode");
        ok = ok && mode.has_value();
        p.accessMode = mode.value_or(p.accessMode);
    }
    auto client = clientOf(*f);
    if (!ok || !client) return std::nullopt;
    p.client = *client;
    return p;
}

std::optional<Action> DocumentLoader::subscribeOf(const Entry& e) {
    auto f = actionFields(e, kSubscribeKeys);
    if (!f) return std::nullopt;
    bool ok = require(ctx_, *f, "topic", e.keyPos, "subscribe");
    ok = require(ctx_, *f, "subscription", e.keyPos, "subscribe") && ok;
    if (!ok) return std::nullopt;
    SubscribeStep s;
    auto topic = topicOf(ctx_, findEntry(*f, "topic")->value);
    auto sub = nonEmptyScalarOf(ctx_, findEntry(*f, "subscription")->value);
    ok = topic && sub;
    s.topic = topic.value_or("");
    s.subscription = sub.value_or("");
    if (const Entry* x = findEntry(*f, "consumer")) {
        auto name = nonEmptyScalarOf(ctx_, x->value);
        ok = ok && name.has_value();
        s.consumer = name.value_or("");
    }
    if (const Entry* x = findEntry(*f, "schema")) {
        auto ref = schemaRefOf(x->value, SchemaUse::subscribe);
        ok = ok && ref.has_value();
        if (ref) s.schema = *ref;
    }
    if (const Entry* x = findEntry(*f, "type")) {
        auto type = enumOf(ctx_, x->value, kSubTypes, "subscription type");
        ok = ok && type.has_value();
        s.subType = type.value_or(s.subType);
    }
    if (const Entry* x = findEntry(*f, "durable")) {
        auto durable = boolOf(ctx_, x->value);
        ok = ok && durable.has_value();
        s.durable = durable.value_or(true);
    }
    auto client = clientOf(*f);
    if (!ok || !client) return std::nullopt;
    s.client = *client;
    return s;
}

std::optional<Action> DocumentLoader::closeOf(const Entry& e) {
    std::vector<std::string> names = producerNames_;
    names.insert(names.end(), consumerNames_.begin(), consumerNames_.end());
    auto name = knownName(e.value, names, "producer or consumer");
    if (!name) return std::nullopt;
    return CloseStep{*name};
}

std::optional<Action> DocumentLoader::publishOf(const Entry& e) {
    auto f = actionFields(e, kPublishKeys);
    if (!f || !require(ctx_, *f, "producer", e.keyPos, "publish")) return std::nullopt;
    PublishStep p;
    auto producer = knownName(findEntry(*f, "producer")->value, producerNames_, "producer");
    bool ok = producer.has_value();
    p.producer = producer.value_or("");
    if (const Entry* x = findEntry(*f, "count")) {
        auto count = integerOf(ctx_, x->value, 1, 1'000'000);
        ok = ok && count.has_value();
        p.count = static_cast<int>(count.value_or(1));
    }
    if (const Entry* x = findEntry(*f, "schema")) {
        p.schema = schemaRefOf(x->value, SchemaUse::admin);
        ok = ok && p.schema.has_value();
    }
    if (!ok) return std::nullopt;
    return p;
}

// upload-schema, get-schema-version and test-compatibility: `topic` and `schema`.
std::optional<Action> DocumentLoader::topicSchemaOf(ActionKind kind, const Entry& e) {
    auto f = actionFields(e, kTopicSchemaKeys);
    if (!f) return std::nullopt;
    bool ok = require(ctx_, *f, "topic", e.keyPos, e.key);
    ok = require(ctx_, *f, "schema", e.keyPos, e.key) && ok;
    if (!ok) return std::nullopt;
    auto topic = topicOf(ctx_, findEntry(*f, "topic")->value);
    auto schema = schemaRefOf(findEntry(*f, "schema")->value, SchemaUse::admin);
    if (!topic || !schema) return std::nullopt;
    switch (kind) {
        case ActionKind::uploadSchema: return UploadSchemaStep{*topic, *schema};
        case ActionKind::getSchemaVersion: return GetSchemaVersionStep{*topic, *schema};
        case ActionKind::testCompatibility: return TestCompatibilityStep{*topic, *schema};
        case ActionKind::producer:
        case ActionKind::subscribe:
        case ActionKind::close:
        case ActionKind::publish:
        case ActionKind::getSchema:
        case ActionKind::deleteSchema:
        case ActionKind::deleteTopic:
        case ActionKind::setPolicy:
        case ActionKind::setBrokerConfig:
        case ActionKind::upgradeBroker:
        case ActionKind::restartBroker:
        case ActionKind::unload:
        case ActionKind::check:
        case ActionKind::concurrently:
            return std::nullopt;
    }
    return std::nullopt;
}

std::optional<Action> DocumentLoader::getSchemaOf(const Entry& e) {
    auto f = actionFields(e, kGetSchemaKeys);
    if (!f || !require(ctx_, *f, "topic", e.keyPos, e.key)) return std::nullopt;
    GetSchemaStep g;
    auto topic = topicOf(ctx_, findEntry(*f, "topic")->value);
    bool ok = topic.has_value();
    g.topic = topic.value_or("");
    if (const Entry* x = findEntry(*f, "version")) {
        g.version = integerOf(ctx_, x->value, 0, std::numeric_limits<std::int64_t>::max());
        ok = ok && g.version.has_value();
    }
    if (!ok) return std::nullopt;
    return g;
}

std::optional<Action> DocumentLoader::deleteSchemaOf(const Entry& e) {
    auto f = actionFields(e, kDeleteSchemaKeys);
    if (!f || !require(ctx_, *f, "topic", e.keyPos, e.key)) return std::nullopt;
    DeleteSchemaStep d;
    auto topic = topicOf(ctx_, findEntry(*f, "topic")->value);
    bool ok = topic.has_value();
    d.topic = topic.value_or("");
    if (const Entry* x = findEntry(*f, "force")) {
        auto force = boolOf(ctx_, x->value);
        ok = ok && force.has_value();
        d.force = force.value_or(false);
    }
    if (!ok) return std::nullopt;
    return d;
}

std::optional<Action> DocumentLoader::deleteTopicOf(const Entry& e) {
    auto f = actionFields(e, kDeleteTopicKeys);
    if (!f || !require(ctx_, *f, "topic", e.keyPos, e.key)) return std::nullopt;
    DeleteTopicStep d;
    auto topic = topicOf(ctx_, findEntry(*f, "topic")->value);
    bool ok = topic.has_value();
    d.topic = topic.value_or("");
    for (auto [key, out] : {std::pair{"force", &d.force}, std::pair{"delete_schema", &d.deleteSchema}}) {
        const Entry* x = findEntry(*f, key);
        if (!x) continue;
        auto b = boolOf(ctx_, x->value);
        ok = ok && b.has_value();
        *out = b.value_or(false);
    }
    if (!ok) return std::nullopt;
    return d;
}

std::optional<Action> DocumentLoader::setPolicyOf(const Entry& e) {
    auto f = entriesOf(ctx_, e.value);
    if (!f) return std::nullopt;
    const Entry* ns = findEntry(*f, "namespace");
    const Entry* topic = findEntry(*f, "topic");
    if (ns && topic) {
        ctx_.error(topic->keyPos, "set-policy takes 'namespace' or 'topic', not both");
        return std::nullopt;
    }
    if (!ns && !topic) {
        ctx_.error(e.keyPos, "missing required key 'namespace' or 'topic' in set-policy");
        return std::nullopt;
    }
    SetPolicyStep step;
    bool ok = true;
    if (ns) {
        auto text = scalarOf(ctx_, ns->value);
        step.namespaceName = text ? namespaceOf(ctx_, *text, ns->value.pos) : std::nullopt;
        ok = step.namespaceName.has_value();
    } else {
        step.topic = topicOf(ctx_, topic->value);
        ok = step.topic.has_value();
    }
    Entries settings;
    for (const Entry& x : *f) {
        if (x.key != "namespace" && x.key != "topic") settings.push_back(x);
    }
    if (settings.empty()) {
        ctx_.error(e.keyPos, "set-policy sets no policy field");
        return std::nullopt;
    }
    std::size_t before = ctx_.errors.size();
    step.settings = settingsOf(ctx_, settings, ns ? SettingScope::namespacePolicy : SettingScope::topicPolicy);
    if (!ok || ctx_.errors.size() != before) return std::nullopt;
    return step;
}

std::optional<Action> DocumentLoader::setBrokerConfigOf(const Entry& e) {
    auto f = entriesOf(ctx_, e.value);
    if (!f) return std::nullopt;
    if (f->empty()) {
        ctx_.error(e.keyPos, "set-broker-config sets no key");
        return std::nullopt;
    }
    std::size_t before = ctx_.errors.size();
    SetBrokerConfigStep step{settingsOf(ctx_, *f, SettingScope::broker)};
    if (ctx_.errors.size() != before) return std::nullopt;
    return step;
}

// `upgrade-broker: { version: "3.0" }`, or the shorthand `upgrade-broker: "3.0"`.
std::optional<Action> DocumentLoader::upgradeBrokerOf(const Entry& e) {
    if (e.value.node.IsScalar()) {
        auto version = brokerVersionOf(ctx_, e.value);
        if (!version) return std::nullopt;
        return UpgradeBrokerStep{*version};
    }
    auto f = actionFields(e, kVersionKeys);
    if (!f || !require(ctx_, *f, "version", e.keyPos, e.key)) return std::nullopt;
    auto version = brokerVersionOf(ctx_, findEntry(*f, "version")->value);
    if (!version) return std::nullopt;
    return UpgradeBrokerStep{*version};
}

// `restart-broker:` takes nothing (null or `{}`).
std::optional<Action> DocumentLoader::restartBrokerOf(const Entry& e) {
    if (e.value.node.IsNull()) return RestartBrokerStep{};
    auto f = actionFields(e, {});
    if (!f) return std::nullopt;
    return RestartBrokerStep{};
}

// `unload: { topic: t }`, or the shorthand `unload: t`.
std::optional<Action> DocumentLoader::unloadOf(const Entry& e) {
    if (e.value.node.IsScalar()) {
        auto topic = topicOf(ctx_, {e.value.node, e.value.pos, "topic"});
        if (!topic) return std::nullopt;
        return UnloadStep{*topic};
    }
    auto f = actionFields(e, kTopicKeys);
    if (!f || !require(ctx_, *f, "topic", e.keyPos, e.key)) return std::nullopt;
    auto topic = topicOf(ctx_, findEntry(*f, "topic")->value);
    if (!topic) return std::nullopt;
    return UnloadStep{*topic};
}

std::optional<Action> DocumentLoader::checkOf(const Entry& e) {
    auto f = actionFields(e, kCheckKeys);
    if (!f || !require(ctx_, *f, "topic", e.keyPos, e.key)) return std::nullopt;
    if (f->size() == 1) {
        ctx_.error(e.keyPos, "check asserts nothing (add one of " + joined(Names(kCheckKeys).subspan(1)) + ")");
        return std::nullopt;
    }
    CheckStep c;
    auto topic = topicOf(ctx_, findEntry(*f, "topic")->value);
    bool ok = topic.has_value();
    c.topic = topic.value_or("");
    if (const Entry* x = findEntry(*f, "schema_versions")) ok = checkSchemaVersions(x->value, c) && ok;
    if (const Entry* x = findEntry(*f, "latest_schema")) {
        bool isNone = false;
        c.latestSchemaData = schemaByName(x->value, true, isNone);
        ok = ok && (isNone || c.latestSchemaData);
        if (x->value.node.IsScalar()) c.latestSchema = x->value.node.Scalar();
    }
    for (auto [key, out] : {std::pair{"producers", &c.producers}, std::pair{"consumers", &c.consumers}}) {
        const Entry* x = findEntry(*f, key);
        if (!x) continue;
        auto n = integerOf(ctx_, x->value, 0);
        ok = ok && n.has_value();
        if (n) *out = static_cast<int>(*n);
    }
    if (const Entry* x = findEntry(*f, "idle")) {
        c.idle = boolOf(ctx_, x->value);
        ok = ok && c.idle.has_value();
    }
    if (const Entry* x = findEntry(*f, "strategy")) {
        auto s = enumOf(ctx_, x->value, compatibilityStrategyNames(), "compatibility strategy");
        ok = ok && s.has_value();
        if (s) c.strategy = compatibilityStrategyFromName(*s);
    }
    if (!ok) return std::nullopt;
    return c;
}

// `schema_versions: 3` or `schema_versions: [user-v1, user-v2]`.
bool DocumentLoader::checkSchemaVersions(const Value& v, CheckStep& step) {
    if (v.node.IsScalar()) {
        auto n = integerOf(ctx_, v, 0);
        if (n) step.schemaVersionCount = static_cast<int>(*n);
        return n.has_value();
    }
    auto items = sequenceOf(ctx_, v);
    if (!items) return false;
    bool ok = true;
    step.schemaVersionAliases.emplace();
    for (const Value& item : *items) {
        bool isNone = false;
        auto data = schemaByName(item, false, isNone);
        ok = ok && data.has_value();
        if (!data) continue;
        step.schemaVersionAliases->push_back(item.node.Scalar());
        step.schemaVersionData.push_back(*data);
    }
    return ok;
}

std::optional<Action> DocumentLoader::concurrentlyOf(const Entry& e, const Entries& stepEntries, bool inBranch) {
    if (inBranch) {
        ctx_.error(e.keyPos, "concurrently steps cannot be nested");
        return std::nullopt;
    }
    auto items = sequenceOf(ctx_, e.value);
    if (!items) return std::nullopt;
    if (items->size() < 2) {
        ctx_.error(e.value.pos, "concurrently needs at least two steps to race");
        return std::nullopt;
    }
    ConcurrentlyStep c;
    std::vector<ActionKind> kinds;
    std::size_t before = ctx_.errors.size();
    for (const Value& item : *items) {
        if (ctx_.exhausted) return std::nullopt;
        auto branch = loadStep({item.node, item.pos, "step"}, true);
        if (!branch) continue;
        kinds.push_back(*actionKindOf(branch->action));
        c.branches.push_back(std::move(*branch));
    }
    if (const Entry* x = findEntry(stepEntries, "explore")) exploreOf(x->value, c);
    if (const Entry* x = findEntry(stepEntries, "invariant"))
        c.invariants = scalarListOf(ctx_, x->value).value_or(std::vector<std::string>{});
    if (ctx_.errors.size() != before) return std::nullopt;
    if (const Entry* x = findEntry(stepEntries, "outcomes")) outcomesOf(x->value, c, kinds);
    if (ctx_.errors.size() != before) return std::nullopt;
    return c;
}

// `explore: exhaustive` or `explore: { random: 200, seed: 7 }`.
void DocumentLoader::exploreOf(const Value& v, ConcurrentlyStep& step) {
    if (v.node.IsScalar()) {
        enumOf(ctx_, v, kExhaustive, "exploration");
        return;
    }
    auto f = entriesOf(ctx_, v);
    if (!f) return;
    if (!rejectUnknown(ctx_, *f, kExploreKeys, "explore")) return;
    if (!require(ctx_, *f, "random", v.pos, "explore")) return;
    auto runs = integerOf(ctx_, findEntry(*f, "random")->value, 1, 1'000'000);
    if (runs) step.randomRuns = static_cast<int>(*runs);
    if (const Entry* x = findEntry(*f, "seed")) {
        auto seed = integerOf(ctx_, x->value, 0, std::numeric_limits<std::int64_t>::max());
        if (seed) step.randomSeed = static_cast<std::uint64_t>(*seed);
    }
}

void DocumentLoader::outcomesOf(const Value& v, ConcurrentlyStep& step, const std::vector<ActionKind>& kinds) {
    auto sets = sequenceOf(ctx_, v);
    if (!sets) return;
    for (const Value& set : *sets) {
        auto results = sequenceOf(ctx_, set);
        if (!results) continue;
        if (results->size() != kinds.size()) {
            ctx_.error(set.pos, "outcomes: this set has " + std::to_string(results->size()) + " result(s), but " +
                                    std::to_string(kinds.size()) + " steps race");
            continue;
        }
        std::vector<Expect> outcome;
        for (std::size_t i = 0; i < results->size(); ++i) {
            if (auto x = outcomeOf((*results)[i], kinds[i], false)) outcome.push_back(std::move(*x));
        }
        if (outcome.size() == kinds.size()) step.outcomes.push_back(std::move(outcome));
    }
}

// ---------------------------------------------------------------------------
// Expectations

ExpectSpec DocumentLoader::expectSpecOf(const Entry& e, ActionKind kind) {
    ExpectSpec spec;
    spec.present = true;
    spec.pos = e.keyPos;
    const Value& v = e.value;
    if (!v.node.IsMap()) {
        spec.single = outcomeOf(v, kind, true);
        return spec;
    }
    auto entries = entriesOf(ctx_, v);
    if (!entries || entries->empty() || contains(kExpectKeys, entries->front().key) ||
        !looksLikeRange(entries->front().key)) {
        spec.single = outcomeOf(v, kind, true);
        return spec;
    }
    for (const Entry& x : *entries) {
        auto range = parseRange(x.key);
        if (!range) {
            ctx_.error(x.keyPos, "invalid version range " + inQuotes(x.key) +
                                     " (expected default, a release such as \"2.10\", or <, <=, >, >= and a release)");
            continue;
        }
        if (auto outcome = outcomeOf(x.value, kind, true)) spec.perProfile.emplace_back(*range, std::move(*outcome));
    }
    return spec;
}

std::optional<Expect> DocumentLoader::outcomeOf(const Value& v, ActionKind kind, bool allowPerClient) {
    Value named{v.node, v.pos, "expect"};
    if (v.node.IsScalar()) {
        const std::string& s = v.node.Scalar();
        if (s == "ok") {
            Expect ok;
            ok.ok = true;
            ok.pos = v.pos;
            return ok;
        }
        if (contains(kServerErrors, s))
            ctx_.error(v.pos, "expect: write { error: " + s + " } for an error outcome");
        else
            ctx_.error(v.pos, "expect: unknown outcome " + inQuotes(s) +
                                  (closestMatch(s, Names(kOk)) ? "; did you mean 'ok'?" : " (expected ok or a mapping)"));
        return std::nullopt;
    }
    if (!v.node.IsMap()) {
        wrongType(ctx_, named, "ok or a mapping");
        return std::nullopt;
    }
    auto entries = entriesOf(ctx_, named);
    if (!entries) return std::nullopt;
    if (allowPerClient && isReconnect(kind) && !entries->empty() && !contains(kExpectKeys, entries->front().key))
        return perClientOf(*entries, v, kind);
    return outcomeMapOf(*entries, v, kind);
}

void DocumentLoader::restrictTo(const Entries& entries, Names keys, ActionKind allowed, ActionKind kind) {
    if (kind == allowed) return;
    for (std::string_view key : keys) {
        if (const Entry* e = findEntry(entries, key))
            ctx_.error(e->keyPos, inQuotes(key) + " is only for " + std::string(actionName(allowed)) + " steps");
    }
}

std::optional<Expect> DocumentLoader::outcomeMapOf(const Entries& entries, const Value& v, ActionKind kind) {
    std::size_t before = ctx_.errors.size();
    rejectUnknown(ctx_, entries, kExpectKeys, "expect");
    restrictTo(entries, std::array<std::string_view, 3>{"type", "schema", "properties"}, ActionKind::getSchema, kind);
    restrictTo(entries, std::array<std::string_view, 2>{"compatible", "strategy"}, ActionKind::testCompatibility,
               kind);
    Expect x;
    x.pos = v.pos;
    const Entry* error = findEntry(entries, "error");
    if (error) errorOf(error->value, kind, x);
    if (const Entry* m = findEntry(entries, "message")) {
        x.message = scalarOf(ctx_, m->value);
        if (!error) ctx_.error(m->keyPos, "'message' needs 'error' (it is a substring of the error's message)");
    }
    for (const Entry& e : entries) {
        if (error && e.key != "error" && e.key != "message" && contains(kExpectKeys, e.key))
            ctx_.error(e.keyPos, inQuotes(e.key) + " describes a success and cannot be combined with 'error'");
    }
    if (const Entry* e = findEntry(entries, "schema_version"))
        // -1 is the admin answer for "none" (§7.2 POST version, §4.9 force delete).
        x.schemaVersion = integerOf(ctx_, e->value, -1, std::numeric_limits<std::int64_t>::max());
    if (const Entry* e = findEntry(entries, "type")) {
        auto t = enumOf(ctx_, e->value, schemaTypeNames(), "schema type");
        if (t) x.type = schemaTypeFromName(*t);
    }
    if (const Entry* e = findEntry(entries, "schema")) {
        bool isNone = false;
        x.schemaData = schemaByName(e->value, false, isNone);
        if (x.schemaData) x.schemaAlias = e->value.node.Scalar();
    }
    if (const Entry* e = findEntry(entries, "properties")) x.properties = propertiesOf(e->value);
    if (const Entry* e = findEntry(entries, "compatible")) x.compatible = boolOf(ctx_, e->value);
    if (const Entry* e = findEntry(entries, "strategy")) {
        auto s = enumOf(ctx_, e->value, compatibilityStrategyNames(), "compatibility strategy");
        if (s) x.strategy = compatibilityStrategyFromName(*s);
    }
    if (ctx_.errors.size() != before) return std::nullopt;
    x.ok = !error;
    return x;
}

// `error: IncompatibleSchema` (a ServerError name) or `error: 409` (admin steps).
bool DocumentLoader::errorOf(const Value& v, ActionKind kind, Expect& out) {
    auto text = scalarOf(ctx_, v);
    if (!text) return false;
    if (auto status = parseInteger(*text)) {
        if (!isAdmin(kind)) {
            ctx_.error(v.pos, "an HTTP status is only for admin steps; " + std::string(actionName(kind)) +
                                  " fails with a ServerError name");
            return false;
        }
        if (*status < 100 || *status > 599) {
            ctx_.error(v.pos, "HTTP status " + *text + " is not between 100 and 599");
            return false;
        }
        out.httpStatus = static_cast<int>(*status);
        return true;
    }
    auto name = enumOf(ctx_, v, kServerErrors, "ServerError name");
    out.error = name;
    return name.has_value();
}

// Reconnect steps: `{ p1: ok, c1: { error: IncompatibleSchema } }`, keyed by
// producer or consumer name, or by a client declared under `clients`.
std::optional<Expect> DocumentLoader::perClientOf(const Entries& entries, const Value& v, ActionKind kind) {
    std::vector<std::string> names = producerNames_;
    names.insert(names.end(), consumerNames_.begin(), consumerNames_.end());
    for (const auto& [n, c] : s_.clients) names.push_back(n);
    Expect x;
    x.pos = v.pos;
    bool ok = true;
    for (const Entry& e : entries) {
        if (std::find(names.begin(), names.end(), e.key) == names.end()) {
            std::vector<std::string> candidates = names;
            candidates.insert(candidates.end(), kExpectKeys.begin(), kExpectKeys.end());
            auto match = closestMatch(e.key, candidates);
            ctx_.error(e.keyPos, "expect: " + inQuotes(e.key) +
                                     " is neither an expect key nor a producer, consumer or client of an earlier step" +
                                     (match ? "; did you mean '" + *match + "'?" : ""));
            ok = false;
            continue;
        }
        auto outcome = outcomeOf(e.value, kind, false);
        ok = ok && outcome.has_value();
        if (outcome) x.perClient.emplace(e.key, std::move(*outcome));
    }
    if (!ok) return std::nullopt;
    x.ok = true;
    return x;
}

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

std::optional<std::vector<YAML::Node>> parseDocuments(std::string_view text, const std::string& file,
                                                      std::vector<LoadError>& errors) {
    auto at = [&](const YAML::Mark& m) {
        return SourcePos{file, m.line < 0 ? 1 : m.line + 1, m.column < 0 ? 1 : m.column + 1};
    };
    // yaml-cpp 0.7.0 only sees text libyaml accepted within the limits (sim/scenario/yaml_precheck.h).
    std::size_t documents = 0;
    auto problem = precheckYaml(text, {}, &documents);
    if (!problem) problem = yamlCppAgreesOnDocuments(text, documents);
    if (problem) {
        errors.push_back(errorAt(file, problem->line, problem->column, std::move(problem->message)));
        return std::nullopt;
    }
    try {
        return YAML::LoadAll(std::string(text));
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

}  // namespace

std::string LoadError::format() const {
    return pos.file + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column) + ": " + message;
}

LoadResult loadScenarioText(std::string_view text, const std::string& displayName,
                            const std::filesystem::path& baseDir) {
    LoadResult result;
    if (text.size() > kScenarioFile.limitBytes) {  // as readFileBounded refuses a file
        result.errors.push_back(errorAt(displayName, 1, 1, overLimitReason(text.size(), kScenarioFile)));
        return result;
    }
    auto docs = parseDocuments(text, displayName, result.errors);
    if (!docs) return result;
    if (docs->empty()) {
        result.errors.push_back(errorAt(displayName, 1, 1, "the file holds no scenario (it is empty or only comments)"));
        return result;
    }
    for (std::size_t i = 0; i < docs->size(); ++i) {
        Ctx ctx{displayName, baseDir, {}};
        Scenario scenario;
        scenario.documentIndex = static_cast<int>(i);
        DocumentLoader(ctx, scenario).load({(*docs)[i], ctx.pos((*docs)[i]), "scenario"});
        if (ctx.errors.empty()) result.scenarios.push_back(std::move(scenario));
        result.errors.insert(result.errors.end(), ctx.errors.begin(), ctx.errors.end());
    }
    checkScenarioNames(result.scenarios, result.errors);
    sortAndCap(result.errors);
    return result;
}

LoadResult loadScenarioFile(const std::filesystem::path& file) {
    auto read = readFileBounded(file, kScenarioFile);
    if (auto* e = std::get_if<FileReadError>(&read)) {
        LoadResult result;
        result.errors.push_back(errorAt(file.string(), 1, 1, e->reason));
        return result;
    }
    std::filesystem::path base = file.parent_path();
    if (base.empty()) base = ".";
    return loadScenarioText(std::get<std::string>(read), file.string(), base);
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
