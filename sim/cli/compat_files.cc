// `cnxsim compat` schema files (compat_internal.h).

#include <algorithm>
#include <filesystem>

#include <google/protobuf/descriptor.pb.h>
#include <nlohmann/json.hpp>

#include "broker_model/compat/avro/avro_check.h"
#include "broker_model/compat/json/json_nesting.h"
#include "broker_model/compat/protobuf_native/protobuf_native_check.h"
#include "broker_model/registry/definition_validator.h"
#include "sim/cli/compat_internal.h"
#include "sim/io/file_read.h"
#include "sim/scenario/did_you_mean.h"

namespace cnx::sim::compat_cli {
namespace {

using Json = nlohmann::ordered_json;  // keeps key order: definitions are stored verbatim

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

}  // namespace

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

std::optional<Failure> unstorableDefinition(const BehaviourProfile& profile, const SchemaData& s) {
    auto invalid = invalidDefinition(profile, s);
    if (!invalid) return std::nullopt;
    for (const auto& release : allProfiles()) {
        if (!validateSchemaDefinition(release, s, false)) return std::nullopt;  // that release stored it
    }
    invalid->text += " (no modelled release's validator accepts it, so no broker stored it)";
    return invalid;
}

}  // namespace cnx::sim::compat_cli
