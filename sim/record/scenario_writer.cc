#include "sim/record/scenario_writer.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

#include <nlohmann/json.hpp>

#include "broker_model/compat/key_value/key_value_check.h"
#include "broker_model/core/topic_name.h"
#include "broker_model/core/utf8.h"
#include "sim/run/expectation.h"
#include "sim/run/runner.h"
#include "sim/run/yaml_text.h"
#include "sim/accept/accept_outcomes.h"
#include "sim/scenario/yaml_precheck.h"

namespace cnx::record {
namespace {

using namespace cnx::sim;

bool looksLikeNumber(const std::string& s) {
    bool digit = false;
    for (char c : s) {
        if (std::isdigit(static_cast<unsigned char>(c))) digit = true;
        else if (c != '.' && c != '-' && c != '+' && c != 'e' && c != 'E' && c != '_') return false;
    }
    return digit;
}

// Fields of one flow mapping, in the order added.
class Flow {
public:
    Flow& add(const std::string& key, const std::string& rendered) {
        text_ += (text_.empty() ? "" : ", ") + key + ": " + rendered;
        return *this;
    }
    std::string str() const { return text_.empty() ? "{}" : "{ " + text_ + " }"; }

private:
    std::string text_;
};

std::string schemaName(const SchemaRef& ref) {
    switch (ref.kind) {
        case SchemaRef::Kind::none: return "none";
        case SchemaRef::Kind::autoConsume: return "AUTO_CONSUME";
        case SchemaRef::Kind::autoProduceBytes: return "AUTO_PRODUCE_BYTES";
        case SchemaRef::Kind::definition: return yamlScalar(ref.alias);
    }
    return "none";
}

// A setting's value as written: booleans and numbers plain (the loader reads them so), other text as a scalar.
std::string settingValue(const Setting& s) {
    if (!s.value) return "null";
    const std::string& v = *s.value;
    bool number = !v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (v == "true" || v == "false" || number) return v;
    return yamlScalar(v);
}

void addSettings(Flow& f, const std::vector<Setting>& settings) {
    for (const auto& s : settings) f.add(yamlScalar(s.key), settingValue(s));
}

std::string withClient(Flow f, const std::string& client) {
    if (!client.empty()) f.add("client", yamlScalar(client));
    return f.str();
}

std::string renderBody(const Step& step) {
    return std::visit(
        [](const auto& b) -> std::string {
            using T = std::decay_t<decltype(b)>;
            if constexpr (std::is_same_v<T, ProducerStep>) {
                Flow f;
                f.add("topic", yamlScalar(shortTopic(b.topic)));
                if (!b.name.empty()) f.add("name", yamlScalar(b.name));
                f.add("schema", schemaName(b.schema));
                if (b.accessMode != "Shared") f.add("access_mode", b.accessMode);
                return withClient(f, b.client);
            } else if constexpr (std::is_same_v<T, SubscribeStep>) {
                Flow f;
                f.add("topic", yamlScalar(shortTopic(b.topic))).add("subscription", yamlScalar(b.subscription));
                if (!b.consumer.empty()) f.add("consumer", yamlScalar(b.consumer));
                f.add("schema", schemaName(b.schema));
                if (b.subType != "Exclusive") f.add("type", b.subType);
                if (!b.durable) f.add("durable", "false");
                return withClient(f, b.client);
            } else if constexpr (std::is_same_v<T, CloseStep>) {
                return yamlScalar(b.name);
            } else if constexpr (std::is_same_v<T, PublishStep>) {
                Flow f;
                f.add("producer", yamlScalar(b.producer)).add("count", std::to_string(b.count));
                if (b.schema) f.add("schema", schemaName(*b.schema));
                return f.str();
            } else if constexpr (std::is_same_v<T, UploadSchemaStep> || std::is_same_v<T, GetSchemaVersionStep> ||
                                 std::is_same_v<T, TestCompatibilityStep>) {
                return Flow().add("topic", yamlScalar(shortTopic(b.topic))).add("schema", schemaName(b.schema)).str();
            } else if constexpr (std::is_same_v<T, GetSchemaStep>) {
                Flow f;
                f.add("topic", yamlScalar(shortTopic(b.topic)));
                if (b.version) f.add("version", std::to_string(*b.version));
                return f.str();
            } else if constexpr (std::is_same_v<T, DeleteSchemaStep>) {
                Flow f;
                f.add("topic", yamlScalar(shortTopic(b.topic)));
                if (b.force) f.add("force", "true");
                return f.str();
            } else if constexpr (std::is_same_v<T, DeleteTopicStep>) {
                Flow f;
                f.add("topic", yamlScalar(shortTopic(b.topic)));
                if (b.force) f.add("force", "true");
                if (b.deleteSchema) f.add("delete_schema", "true");
                return f.str();
            } else if constexpr (std::is_same_v<T, SetPolicyStep>) {
                Flow f;
                if (b.namespaceName) f.add("namespace", yamlScalar(*b.namespaceName));
                if (b.topic) f.add("topic", yamlScalar(shortTopic(*b.topic)));
                addSettings(f, b.settings);
                return f.str();
            } else if constexpr (std::is_same_v<T, SetBrokerConfigStep>) {
                Flow f;
                addSettings(f, b.settings);
                return f.str();
            } else if constexpr (std::is_same_v<T, UpgradeBrokerStep>) {
                return yamlQuote(b.version);
            } else if constexpr (std::is_same_v<T, RestartBrokerStep>) {
                return "{}";
            } else if constexpr (std::is_same_v<T, UnloadStep>) {
                return yamlScalar(shortTopic(b.topic));
            } else {
                return "{}";  // check and concurrently are never recorded
            }
        },
        step.body);
}

// A definition's text: single-quoted when it is one printable line (JSON reads
// best so), double-quoted with escapes otherwise.
std::string definitionText(const std::string& data) {
    if (!yamlPrintableLine(data) || data.empty() || data.front() == ' ' || data.back() == ' ') return yamlQuote(data);
    std::string out = "'";
    for (char c : data) out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
}

// A KEY_VALUE component inline, `{ type: AVRO, schema: '...' }`.
std::string componentText(const SchemaData& c) {
    std::string out = "{ type: " + std::string(to_string_view(c.type));
    if (!c.data.empty()) out += ", schema: " + definitionText(c.data);
    return out + " }";
}

// A KEY_VALUE definition whose bytes are no text (its length prefixes are), as
// its components, when the loader builds exactly these bytes and properties
// back from them (every property written over what the components make).
std::optional<std::string> keyValueComponents(const SchemaData& kv) {
    auto parts = compat::decodeKeyValue(kv, nullptr);
    if (!parts || !wellFormedUtf8(parts->key.data) || !wellFormedUtf8(parts->value.data)) return std::nullopt;
    auto rebuilt = compat::encodeKeyValue(parts->key, parts->value, parts->encoding);
    if (rebuilt.data != kv.data) return std::nullopt;
    for (const auto& [k, _] : rebuilt.properties)
        if (!kv.properties.count(k)) return std::nullopt;
    std::string out = "    key: " + componentText(parts->key) + "\n";
    out += "    value: " + componentText(parts->value) + "\n";
    out += "    encoding: " + parts->encoding + "\n";
    return out;
}

void writeComments(std::ostringstream& o, const std::vector<std::string>& lines, const std::string& indent) {
    for (const auto& line : lines) o << indent << "#" << (line.empty() ? "" : " ") << yamlCommentText(line) << "\n";
}

// The definition file of `alias` when its definition is too long for one YAML
// value: a file name made of the alias's letters and a hash of the whole alias (unique, stable).
std::optional<std::string> definitionFileOf(const std::string& alias, const SchemaRef& ref, const std::string& folder) {
    if (folder.empty() || ref.data.data.size() <= YamlLimits{}.maxScalarBytes / 2) return std::nullopt;
    std::string name;
    for (char c : alias) name += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
    std::uint64_t hash = 14695981039346656037ull;  // FNV-1a
    for (char c : alias) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
    return folder + "/" + name.substr(0, 64) + "-" + hex + ".json";
}

void writeHeader(std::ostringstream& o, const Scenario& h, const std::string& definitionFolder) {
    o << "name: " << yamlScalar(h.name) << "\n";
    if (!h.description.empty()) o << "description: " << yamlQuote(h.description) << "\n";
    if (!h.brokerVersions.empty() || !h.brokerConfig.empty()) {
        o << "broker:\n";
        if (!h.brokerVersions.empty()) o << "  version: " << yamlQuote(h.brokerVersions.front()) << "\n";
        if (!h.brokerConfig.empty()) {
            o << "  config:\n";
            for (const auto& s : h.brokerConfig) o << "    " << yamlScalar(s.key) << ": " << settingValue(s) << "\n";
        }
    }
    if (!h.namespaces.empty()) {
        o << "namespaces:\n";
        for (const auto& ns : h.namespaces) {
            Flow f;
            addSettings(f, ns.policies);
            o << "  " << yamlScalar(ns.name) << ": " << f.str() << "\n";
        }
    }
    if (!h.topics.empty()) {
        o << "topics:\n";
        for (const auto& t : h.topics) {
            Flow f;
            if (t.partitions > 0) f.add("partitions", std::to_string(t.partitions));
            if (!t.policies.empty()) {
                Flow p;
                addSettings(p, t.policies);
                f.add("policies", p.str());
            }
            o << "  " << yamlScalar(shortTopic(t.name)) << ": " << (t.partitions > 0 || !t.policies.empty() ? f.str() : "~")
              << "\n";
        }
    }
    if (!h.clients.empty()) {
        o << "clients:\n";
        for (const auto& [name, c] : h.clients) {
            Flow f;
            f.add("library", c.library);
            if (!c.version.empty()) f.add("version", yamlQuote(c.version));
            o << "  " << yamlScalar(name) << ": " << f.str() << "\n";
        }
    }
    if (!h.schemas.empty()) {
        o << "schemas:\n";
        for (const auto& [alias, ref] : h.schemas) {
            o << "  " << yamlScalar(alias) << ":\n";
            if (auto file = definitionFileOf(alias, ref, definitionFolder)) {
                o << "    file: " << yamlScalar(*file) << "\n";
                continue;
            }
            o << "    type: " << to_string_view(ref.data.type) << "\n";
            auto components = ref.data.type == SchemaType::KEY_VALUE && !wellFormedUtf8(ref.data.data)
                                  ? keyValueComponents(ref.data)
                                  : std::nullopt;
            if (components) o << *components;
            else if (!ref.data.data.empty()) o << "    schema: " << definitionText(ref.data.data) << "\n";
            if (!ref.data.properties.empty()) o << "    properties: " << renderProperties(ref.data.properties) << "\n";
        }
    }
}

}  // namespace

std::vector<DefinitionFile> definitionFiles(const Recording& r) {
    std::vector<DefinitionFile> out;
    for (const auto& [alias, ref] : r.header.schemas) {
        auto file = definitionFileOf(alias, ref, r.definitionFolder);
        if (!file) continue;
        nlohmann::json j{{"type", std::string(to_string_view(ref.data.type))}, {"schema", ref.data.data}};
        j["properties"] = nlohmann::json::object();
        for (const auto& [k, v] : ref.data.properties) j["properties"][k] = v;
        // Text that is no UTF-8 cannot be JSON: its bytes become U+FFFD (a definition that is text comes back the same).
        out.push_back({*file, j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)});
    }
    return out;
}

std::string shortTopic(const std::string& topic) {
    auto t = TopicName::parse(topic);
    if (!t || !t->persistent()) return topic;
    std::string shorter(t->namespaceName() == "public/default" ? t->localName() : t->withoutDomain());
    // Only a short form that expands back to the same topic (a local name with
    // a '/' in it would be read as another namespace's topic).
    auto back = TopicName::parse(shorter);
    return back && back->toString() == t->toString() ? shorter : topic;
}

std::string yamlScalar(const std::string& text) {
    static const std::string kSpecialStart = "-?:,[]{}#&*!|>'\"%@` ~";
    static const std::string kSpecialAnywhere = ",[]{}#:'\"\\";
    bool plain = !text.empty() && kSpecialStart.find(text.front()) == std::string::npos && text.back() != ' ' &&
                 !looksLikeNumber(text) && !text.starts_with("...");  // "...": a document end to yaml-cpp
    for (char c : text) {
        auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u >= 0x7f || kSpecialAnywhere.find(c) != std::string::npos) plain = false;
    }
    static const char* kKeywords[] = {"true", "false", "null", "yes", "no", "on", "off", "y", "n"};
    std::string lower;
    for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const char* k : kKeywords)
        if (lower == k) plain = false;
    return plain ? text : yamlQuote(text);
}

std::string writeHead(const Recording& r) {
    std::ostringstream o;
    writeComments(o, r.headerComments, "");
    writeHeader(o, r.header, r.definitionFolder);
    o << "steps:\n";
    return o.str();
}

std::string writeStep(const RecordedStep& s, const Scenario& header) {
    if (s.dropped) return {};
    std::ostringstream o;
    writeComments(o, s.notes, "  ");
    o << "  - " << s.step.action << ": " << renderBody(s.step) << "\n";
    if (s.expect && hasOutcome(s.step, s.observed)) o << "    expect: " << renderAccepted(s.observed, s.step, header) << "\n";
    return o.str();
}

std::string writeTail(const Recording& r, bool anyStep) {
    std::ostringstream o;
    if (!anyStep) o << "  []\n";  // still YAML (the loader asks for a step: a session without one is nothing to replay)
    writeComments(o, r.trailingNotes, "  ");
    return o.str();
}

std::string writeScenario(const Recording& r) {
    std::string text = writeHead(r);
    auto head = text.size();
    for (const auto& s : r.steps) text += writeStep(s, r.header);
    return text + writeTail(r, text.size() > head);
}

}  // namespace cnx::record
