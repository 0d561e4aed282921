#include "sim/scenario/load/definition_file.h"

#include <nlohmann/json.hpp>
#include <variant>

#include "sim/io/file_read.h"
#include "sim/scenario/did_you_mean.h"

namespace cnx::sim::load {
namespace {

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
    DefinitionFile(Ctx& ctx, const Value& v, const std::string& name) : ctx_(ctx), v_(v), name_(name) {}

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
    const std::string& name_;
};

}  // namespace

std::optional<SchemaData> loadDefinitionFile(Ctx& ctx, const Value& v, const std::string& name) {
    return DefinitionFile(ctx, v, name).load();
}

}  // namespace cnx::sim::load
