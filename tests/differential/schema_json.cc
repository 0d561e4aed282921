#include "tests/differential/schema_json.h"

#include <algorithm>
#include <set>

namespace cnx::differential::schema_json {

const std::vector<std::string> kPrimitives{"int", "long", "float", "double", "string", "bytes", "boolean"};
const std::vector<std::string> kNamespaces{"com.acme", "org.example.v1", "io.demo.events"};

bool isPrimitiveName(const std::string& s) {
    return s == "null" || std::find(kPrimitives.begin(), kPrimitives.end(), s) != kPrimitives.end();
}

// §6.3 promotion lattice (writer -> reader).
const std::map<std::string, std::vector<std::string>> kPromotions{
    {"int", {"long", "float", "double"}}, {"long", {"float", "double"}}, {"float", {"double"}},
    {"string", {"bytes"}}, {"bytes", {"string"}}};
const std::map<std::string, std::vector<std::string>> kDemotions{
    {"long", {"int"}}, {"float", {"int", "long"}}, {"double", {"int", "long", "float"}}};

std::string fullName(const Json& def, const std::string& inheritedNs) {
    std::string ns = def.contains("namespace") ? def["namespace"].get<std::string>() : inheritedNs;
    return ns.empty() ? def["name"].get<std::string>() : ns + "." + def["name"].get<std::string>();
}

std::string childNs(const Json& def, const std::string& inheritedNs) {
    return def.contains("namespace") ? def["namespace"].get<std::string>() : inheritedNs;
}

namespace {

void walk(const Json& j, const Ptr& p, const std::string& ns, Sites& s) {
    s.slots.push_back(p);
    if (j.is_array()) {
        s.unions.push_back(p);
        for (std::size_t i = 0; i < j.size(); ++i) walk(j[i], p / i, ns, s);
        return;
    }
    if (!j.is_object()) return;
    const std::string type = j.value("type", "");
    if (type == "record" || type == "enum" || type == "fixed") {
        if (!j.contains("namespace")) s.explicitNamespaces = false;
        s.named[fullName(j, ns)] = p;
        (type == "record" ? s.records : type == "enum" ? s.enums : s.fixeds).push_back(p);
    }
    if (type == "record") {
        const std::string inner = childNs(j, ns);
        for (std::size_t i = 0; i < j["fields"].size(); ++i) walk(j["fields"][i]["type"], p / "fields" / i / "type", inner, s);
    } else if (type == "array") {
        walk(j["items"], p / "items", ns, s);
    } else if (type == "map") {
        walk(j["values"], p / "values", ns, s);
    }
}

}  // namespace

Sites sitesOf(const Json& schema) {
    Sites s;
    walk(schema, Ptr{}, "", s);
    return s;
}

// The kind of a union branch for Avro's "no two branches of one kind" rule.
std::string branchKey(const Json& b, const std::string& ns) {
    if (b.is_string()) {
        std::string n = b.get<std::string>();
        if (isPrimitiveName(n)) return n;
        return "named:" + n;
    }
    if (b.is_array()) return "union";
    std::string t = b.value("type", "");
    if (t == "record" || t == "enum" || t == "fixed") return "named:" + fullName(b, ns);
    return t;
}

// Namespaces are only needed for branch keys of inline named definitions; the
// generator gives named definitions explicit namespaces or none at all.
bool unionsValid(const Json& schema) {
    Sites s = sitesOf(schema);
    for (const Ptr& u : s.unions) {
        const Json& arr = schema[u];
        if (arr.empty()) return false;
        std::set<std::string> keys;
        for (const Json& b : arr) {
            std::string k = branchKey(b, "");
            if (k == "union" || !keys.insert(k).second) return false;
        }
    }
    return true;
}

// Default that Avro's encoder accepts for `type` (nullopt: none can be built).
std::optional<Json> defaultFor(const Json& type, const Json& root, const Sites& s, int depth) {
    if (depth > 6) return std::nullopt;
    if (type.is_string()) {
        const std::string t = type.get<std::string>();
        if (t == "null") return Json(nullptr);
        if (t == "boolean") return Json(true);
        if (t == "int") return Json(7);
        if (t == "long") return Json(8);
        if (t == "float") return Json(1.5);
        if (t == "double") return Json(2.5);
        if (t == "string") return Json("s");
        if (t == "bytes") return Json("b");
        auto it = s.named.find(t);
        if (it == s.named.end()) return std::nullopt;
        return defaultFor(root[it->second], root, s, depth + 1);
    }
    if (type.is_array()) return type.empty() ? std::nullopt : defaultFor(type[0], root, s, depth + 1);
    const std::string t = type.value("type", "");
    if (t == "enum") return type["symbols"][0];
    if (t == "fixed") return Json(std::string(type["size"].get<std::size_t>(), 'a'));
    if (t == "array") return Json::array();
    if (t == "map") return Json::object();
    if (t == "record") {
        Json obj = Json::object();
        for (const Json& f : type["fields"]) {
            auto d = defaultFor(f["type"], root, s, depth + 1);
            if (!d) return std::nullopt;
            obj[f["name"].get<std::string>()] = *d;
        }
        return obj;
    }
    return std::nullopt;
}

// Roughly Avro's Schema.isValidDefault; used to keep defaults valid after edits.
bool defaultValid(const Json& type, const Json& v, const Json& root, const Sites& s, int depth) {
    if (depth > 8) return true;
    if (type.is_string()) {
        const std::string t = type.get<std::string>();
        if (t == "null") return v.is_null();
        if (t == "boolean") return v.is_boolean();
        if (t == "int" || t == "long") return v.is_number_integer();
        if (t == "float" || t == "double") return v.is_number();
        if (t == "string" || t == "bytes") return v.is_string();
        auto it = s.named.find(t);
        return it == s.named.end() || defaultValid(root[it->second], v, root, s, depth + 1);
    }
    if (type.is_array()) return !type.empty() && defaultValid(type[0], v, root, s, depth + 1);
    const std::string t = type.value("type", "");
    if (t == "enum") {
        return v.is_string() && std::find(type["symbols"].begin(), type["symbols"].end(), v) != type["symbols"].end();
    }
    if (t == "fixed") return v.is_string() && v.get<std::string>().size() == type["size"].get<std::size_t>();
    if (t == "array") {
        if (!v.is_array()) return false;
        return std::all_of(v.begin(), v.end(), [&](const Json& e) { return defaultValid(type["items"], e, root, s, depth + 1); });
    }
    if (t == "map") {
        if (!v.is_object()) return false;
        return std::all_of(v.begin(), v.end(), [&](const Json& e) { return defaultValid(type["values"], e, root, s, depth + 1); });
    }
    if (t == "record") {
        if (!v.is_object()) return false;
        for (const Json& f : type["fields"]) {
            auto it = v.find(f["name"].get<std::string>());
            if (it == v.end() ? !f.contains("default") : !defaultValid(f["type"], *it, root, s, depth + 1)) return false;
        }
        return true;
    }
    return true;
}

// Replaces every reference `from` (a type-position string) by `to`.
void renameReferences(Json& schema, const std::string& from, const std::string& to) {
    Sites s = sitesOf(schema);
    for (const Ptr& p : s.slots) {
        Json& j = schema[p];
        if (j.is_string() && j.get<std::string>() == from) j = to;
    }
}

}  // namespace cnx::differential::schema_json
