#include "tests/differential/schema_generator.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "tests/differential/schema_json.h"

namespace cnx::differential {
namespace {

using namespace schema_json;

const std::vector<std::string> kMutationKinds{
    "field_add_default", "field_add_no_default", "field_remove_with_default", "field_remove_no_default",
    "field_rename", "field_rename_alias", "field_default_add", "field_default_drop",
    "type_promote", "type_demote", "type_change_unrelated",
    "record_rename", "record_rename_alias", "record_namespace_change",
    "enum_rename", "enum_rename_alias", "enum_fixed_namespace_change",
    "enum_symbol_add", "enum_symbol_remove", "enum_symbol_reorder", "enum_default_add",
    "union_branch_add", "union_branch_remove", "union_branch_reorder", "union_wrap", "union_unwrap",
    "fixed_resize", "fixed_rename",
    "nest_in_array", "nest_in_map", "nest_in_record", "unnest",
    "recursion_via_union", "recursion_via_array", "recursion_via_map", "recursion_direct",
    "default_wrong_type",
};

class Generator {
public:
    explicit Generator(std::uint64_t seed) : rng_(seed) {}

    Case makeCase(int id) {
        counter_ = 0;
        Case c;
        c.id = id;
        c.strategy = static_cast<Strategy>(pick(3));
        int versions = chance(0.4) ? 2 : 3 + pick(3);
        std::vector<Json> history{base()};
        while (static_cast<int>(history.size()) < versions) {
            Json next = history.back();
            int edits = chance(0.3) ? 2 : 1;
            for (int e = 0; e < edits; ++e) c.mutations.push_back(mutate(next));
            history.push_back(std::move(next));
        }
        for (std::size_t i = 0; i + 1 < history.size(); ++i) c.existing.push_back(history[i].dump());
        c.candidate = history.back().dump();
        c.all = c.existing.size() > 1 ? chance(0.5) : chance(0.5);
        return c;
    }

private:
    // ---- randomness ----
    int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
    bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
    template <typename T>
    const T& oneOf(const std::vector<T>& v) { return v[static_cast<std::size_t>(pick(static_cast<int>(v.size())))]; }
    std::string fresh(const char* prefix) { return prefix + std::to_string(++counter_); }

    // ---- base schemas ----
    Json named(const char* type, const char* prefix) {
        Json j = Json::object();
        j["type"] = type;
        j["name"] = fresh(prefix);
        if (!ns_.empty()) j["namespace"] = oneOf(kNamespaces);
        return j;
    }

    Json enumType() {
        Json j = named("enum", "E");
        Json syms = Json::array();
        int n = 2 + pick(3);
        for (int i = 0; i < n; ++i) syms.push_back(std::string(1, static_cast<char>('A' + i)));
        j["symbols"] = syms;
        return j;
    }

    Json fixedType() {
        Json j = named("fixed", "X");
        j["size"] = 2 + pick(6);
        return j;
    }

    Json recordType(int depth, int minFields, int maxFields) {
        Json j = named("record", "R");
        std::string self = j.contains("namespace") ? j["namespace"].get<std::string>() + "." + j["name"].get<std::string>()
                                                   : j["name"].get<std::string>();
        selves_.push_back(self);
        Json fields = Json::array();
        int n = minFields + pick(maxFields - minFields + 1);
        for (int i = 0; i < n; ++i) fields.push_back(field(depth));
        j["fields"] = fields;
        selves_.pop_back();
        return j;
    }

    Json field(int depth) {
        Json f = Json::object();
        f["name"] = fresh("f");
        f["type"] = anyType(depth + 1);
        return f;
    }

    Json recursiveRef() {
        const std::string& self = oneOf(selves_);
        switch (pick(3)) {
            case 0: return Json::array({"null", self});
            case 1: return Json{{"type", "array"}, {"items", self}};
            default: return Json{{"type", "map"}, {"values", self}};
        }
    }

    Json anyType(int depth) {
        int roll = pick(100);
        if (depth > 3) roll = roll % 50;
        if (roll < 42) return oneOf(kPrimitives);
        if (roll < 50) return enumType();
        if (roll < 56) return Json{{"type", "array"}, {"items", anyType(depth + 1)}};
        if (roll < 61) return Json{{"type", "map"}, {"values", anyType(depth + 1)}};
        if (roll < 80) return unionType(depth);
        if (roll < 85) return fixedType();
        if (roll < 96) return recordType(depth + 1, 1, 3);
        if (!selves_.empty()) return recursiveRef();
        return oneOf(kPrimitives);
    }

    Json nonUnion(int depth) {
        Json t = anyType(depth);
        while (t.is_array() || t == "null") t = oneOf(kPrimitives);
        return t;
    }

    Json unionType(int depth) {
        if (chance(0.55)) return Json::array({"null", nonUnion(depth + 1)});
        Json u = Json::array();
        std::set<std::string> keys;
        int n = 2 + pick(2);
        for (int tries = 0; static_cast<int>(u.size()) < n && tries < 10; ++tries) {
            Json b = chance(0.15) ? Json("null") : nonUnion(depth + 1);
            std::string k = b.is_string() ? b.get<std::string>() : b.value("type", "") + b.value("name", "");
            if (keys.insert(k).second) u.push_back(b);
        }
        return u;
    }

    Json base() {
        ns_ = chance(0.75) ? oneOf(kNamespaces) : "";
        Json root = recordType(0, 2, 5);
        for (int tries = 0; tries < 5 && !unionsValid(root); ++tries) root = recordType(0, 2, 5);
        if (!unionsValid(root)) root = Json{{"type", "record"}, {"name", fresh("R")}, {"fields", Json::array({field(3)})}};
        repairDefaults(root, true);
        return root;
    }

    // ---- defaults ----
    void repairDefaults(Json& schema, bool addSome) {
        Sites s = sitesOf(schema);
        for (const Ptr& r : s.records) {
            for (Json& f : schema[r]["fields"]) {
                bool ok = f.contains("default") && defaultValid(f["type"], f["default"], schema, s, 0);
                if (ok) continue;
                bool want = f.contains("default") || (addSome && chance(0.4));
                f.erase("default");
                if (!want) continue;
                if (auto d = defaultFor(f["type"], schema, s, 0)) f["default"] = *d;
            }
        }
    }

    // ---- mutations ----
    std::string mutate(Json& schema) {
        for (int tries = 0; tries < 60; ++tries) {
            const std::string& kind = oneOf(kMutationKinds);
            Json copy = schema;
            if (!apply(kind, copy) || !unionsValid(copy)) continue;
            if (kind != "default_wrong_type") repairDefaults(copy, false);
            schema = std::move(copy);
            return kind;
        }
        return "none";
    }

    bool apply(const std::string& k, Json& s) {
        Sites st = sitesOf(s);
        ns_ = st.explicitNamespaces ? "x" : "";
        if (k == "field_add_default" || k == "field_add_no_default") return addField(s, st, k == "field_add_default");
        if (k == "field_remove_with_default" || k == "field_remove_no_default") return removeField(s, st, k == "field_remove_with_default");
        if (k == "field_rename" || k == "field_rename_alias") return renameField(s, st, k == "field_rename_alias");
        if (k == "field_default_add" || k == "field_default_drop") return toggleDefault(s, st, k == "field_default_add");
        if (k == "type_promote") return retype(s, st, kPromotions);
        if (k == "type_demote") return retype(s, st, kDemotions);
        if (k == "type_change_unrelated") return retypeUnrelated(s, st);
        if (k == "record_rename" || k == "record_rename_alias") return renameNamed(s, st.records, k == "record_rename_alias", "R");
        if (k == "enum_rename" || k == "enum_rename_alias") return renameNamed(s, st.enums, k == "enum_rename_alias", "E");
        if (k == "fixed_rename") return renameNamed(s, st.fixeds, false, "X");
        if (k == "record_namespace_change") return st.explicitNamespaces && changeNamespace(s, st.records);
        if (k == "enum_fixed_namespace_change") {
            std::vector<Ptr> both = st.enums;
            both.insert(both.end(), st.fixeds.begin(), st.fixeds.end());
            return changeNamespace(s, both);
        }
        if (k.rfind("enum_", 0) == 0) return editEnum(s, st, k);
        if (k.rfind("union_", 0) == 0) return editUnion(s, st, k);
        if (k == "fixed_resize") return resizeFixed(s, st);
        if (k == "nest_in_array" || k == "nest_in_map" || k == "nest_in_record") return nest(s, st, k);
        if (k == "unnest") return unnest(s, st);
        if (k.rfind("recursion_", 0) == 0) return addRecursion(s, st, k);
        if (k == "default_wrong_type") return wrongDefault(s, st);
        return false;
    }

    std::vector<Ptr> fieldsWhere(const Json& s, const Sites& st, const std::function<bool(const Json&)>& pred) {
        std::vector<Ptr> out;
        for (const Ptr& r : st.records) {
            for (std::size_t i = 0; i < s[r]["fields"].size(); ++i) {
                if (pred(s[r]["fields"][i])) out.push_back(r / "fields" / i);
            }
        }
        return out;
    }

    bool addField(Json& s, const Sites& st, bool withDefault) {
        const Ptr& r = oneOf(st.records);
        selves_.clear();
        Json f = field(2);
        if (withDefault) {
            Sites now = sitesOf(s);
            auto d = defaultFor(f["type"], s, now, 0);
            if (!d) return false;
            f["default"] = *d;
        }
        s[r]["fields"].push_back(f);
        return unionsValid(s);
    }

    bool removeField(Json& s, const Sites& st, bool withDefault) {
        auto fields = fieldsWhere(s, st, [&](const Json& f) { return f.contains("default") == withDefault; });
        if (fields.empty()) return false;
        Ptr f = oneOf(fields);
        Ptr rec = f.parent_pointer().parent_pointer();
        if (s[rec]["fields"].size() < 2) return false;
        s[rec]["fields"].erase(static_cast<std::size_t>(std::stoul(f.back())));
        return true;
    }

    bool renameField(Json& s, const Sites& st, bool alias) {
        auto fields = fieldsWhere(s, st, [](const Json&) { return true; });
        Json& f = s[oneOf(fields)];
        std::string old = f["name"];
        f["name"] = fresh("g");
        if (alias) f["aliases"] = Json::array({old});
        return true;
    }

    bool toggleDefault(Json& s, const Sites& st, bool add) {
        auto fields = fieldsWhere(s, st, [&](const Json& f) { return f.contains("default") != add; });
        if (fields.empty()) return false;
        Json& f = s[oneOf(fields)];
        if (!add) {
            f.erase("default");
            return true;
        }
        auto d = defaultFor(f["type"], s, st, 0);
        if (!d) return false;
        f["default"] = *d;
        return true;
    }

    std::vector<Ptr> primitiveSlots(const Json& s, const Sites& st) {
        std::vector<Ptr> out;
        for (const Ptr& p : st.slots) {
            if (s[p].is_string() && isPrimitiveName(s[p]) && s[p] != "null") out.push_back(p);
        }
        return out;
    }

    bool retype(Json& s, const Sites& st, const std::map<std::string, std::vector<std::string>>& moves) {
        std::vector<Ptr> slots;
        for (const Ptr& p : primitiveSlots(s, st)) {
            if (moves.count(s[p].get<std::string>())) slots.push_back(p);
        }
        if (slots.empty()) return false;
        Ptr p = oneOf(slots);
        s[p] = oneOf(moves.at(s[p].get<std::string>()));
        return true;
    }

    bool retypeUnrelated(Json& s, const Sites& st) {
        auto slots = primitiveSlots(s, st);
        if (slots.empty()) return false;
        Ptr p = oneOf(slots);
        std::string from = s[p];
        std::string to = oneOf(kPrimitives);
        auto related = [&](const std::map<std::string, std::vector<std::string>>& m, const std::string& a, const std::string& b) {
            auto it = m.find(a);
            return it != m.end() && std::find(it->second.begin(), it->second.end(), b) != it->second.end();
        };
        if (to == from || related(kPromotions, from, to) || related(kPromotions, to, from)) return false;
        s[p] = to;
        return true;
    }

    static std::string currentFull(const Json& s, const Ptr& p) {
        // Named definitions carry an explicit namespace or the schema has none.
        return fullName(s[p], "");
    }

    bool renameNamed(Json& s, const std::vector<Ptr>& defs, bool alias, const char* prefix) {
        if (defs.empty()) return false;
        Ptr p = oneOf(defs);
        std::string old = currentFull(s, p);
        s[p]["name"] = fresh(prefix);
        if (alias) s[p]["aliases"] = Json::array({old});
        renameReferences(s, old, currentFull(s, p));
        return true;
    }

    bool changeNamespace(Json& s, const std::vector<Ptr>& defs) {
        if (defs.empty()) return false;
        Ptr p = oneOf(defs);
        std::string old = currentFull(s, p);
        std::string ns = s[p].value("namespace", "");
        std::string next = oneOf(kNamespaces);
        if (next == ns) return false;
        if (s[p].value("type", "") == "record") {
            s[p].erase("namespace");  // keep key order stable: re-add after "name"
        }
        s[p]["namespace"] = next;
        renameReferences(s, old, currentFull(s, p));
        return true;
    }

    bool editEnum(Json& s, const Sites& st, const std::string& k) {
        if (st.enums.empty()) return false;
        Json& e = s[oneOf(st.enums)];
        Json& syms = e["symbols"];
        if (k == "enum_symbol_add") {
            syms.push_back(std::string(1, static_cast<char>('A' + syms.size())) + std::to_string(pick(9)));
            return true;
        }
        if (k == "enum_symbol_remove") {
            if (syms.size() < 2) return false;
            syms.erase(static_cast<std::size_t>(pick(static_cast<int>(syms.size()))));
            if (e.contains("default") && std::find(syms.begin(), syms.end(), e["default"]) == syms.end()) e.erase("default");
            return true;
        }
        if (k == "enum_symbol_reorder") {
            if (syms.size() < 2) return false;
            std::reverse(syms.begin(), syms.end());
            return true;
        }
        if (e.contains("default")) return false;
        e["default"] = syms[0];
        return true;
    }

    bool editUnion(Json& s, const Sites& st, const std::string& k) {
        if (k == "union_wrap") {
            std::vector<Ptr> slots;
            for (const Ptr& p : st.slots) {
                if (!s[p].is_array() && !(p.empty()) && !(s[p.parent_pointer()].is_array())) slots.push_back(p);
            }
            if (slots.empty()) return false;
            Ptr p = oneOf(slots);
            Json inner = s[p];
            s[p] = chance(0.7) ? Json::array({"null", inner}) : Json::array({inner, "null"});
            return true;
        }
        if (st.unions.empty()) return false;
        Ptr u = oneOf(st.unions);
        Json& arr = s[u];
        if (k == "union_unwrap") {
            if (arr.size() != 2 || u.empty()) return false;
            Json keep = arr[0] == "null" ? arr[1] : arr[0];
            s[u] = keep;
            return true;
        }
        if (k == "union_branch_add") {
            selves_.clear();
            Json b = chance(0.5) ? Json(oneOf(kPrimitives)) : nonUnion(3);
            if (chance(0.5)) arr.push_back(b);
            else arr.insert(arr.begin(), b);
            return true;
        }
        if (k == "union_branch_remove") {
            if (arr.size() < 2) return false;
            arr.erase(static_cast<std::size_t>(pick(static_cast<int>(arr.size()))));
            if (arr.size() == 1 && !u.empty()) s[u] = Json(arr[0]);
            return true;
        }
        if (arr.size() < 2) return false;  // union_branch_reorder
        std::reverse(arr.begin(), arr.end());
        return true;
    }

    bool resizeFixed(Json& s, const Sites& st) {
        if (st.fixeds.empty()) return false;
        Json& f = s[oneOf(st.fixeds)];
        f["size"] = f["size"].get<int>() + 1 + pick(3);
        return true;
    }

    std::vector<Ptr> fieldTypeSlots(const Sites& st) {
        std::vector<Ptr> out;
        for (const Ptr& p : st.slots) {
            if (!p.empty() && p.back() == "type") out.push_back(p);
        }
        return out;
    }

    bool nest(Json& s, const Sites& st, const std::string& k) {
        auto slots = fieldTypeSlots(st);
        if (slots.empty()) return false;
        Ptr p = oneOf(slots);
        Json inner = s[p];
        if (k == "nest_in_array") s[p] = Json{{"type", "array"}, {"items", inner}};
        else if (k == "nest_in_map") s[p] = Json{{"type", "map"}, {"values", inner}};
        else {
            Json r = named("record", "R");
            r["fields"] = Json::array({Json{{"name", "value"}, {"type", inner}}});
            s[p] = r;
        }
        return true;
    }

    bool unnest(Json& s, const Sites& st) {
        std::vector<Ptr> slots;
        for (const Ptr& p : fieldTypeSlots(st)) {
            std::string t = s[p].is_object() ? s[p].value("type", "") : "";
            if (t == "array" || t == "map") slots.push_back(p);
        }
        if (slots.empty()) return false;
        Ptr p = oneOf(slots);
        Json inner = s[p].contains("items") ? s[p]["items"] : s[p]["values"];
        s[p] = inner;
        return true;
    }

    bool addRecursion(Json& s, const Sites& st, const std::string& k) {
        if (chance(0.5)) return false;  // recursion through unions overflows 1.8.2: keep it a minority
        const Ptr& r = oneOf(st.records);
        std::string self = currentFull(s, r);
        Json f = Json::object();
        f["name"] = fresh("next");
        if (k == "recursion_via_union") {
            f["type"] = Json::array({"null", self});
            if (chance(0.6)) f["default"] = nullptr;
        } else if (k == "recursion_via_array") {
            f["type"] = Json{{"type", "array"}, {"items", self}};
            if (chance(0.6)) f["default"] = Json::array();
        } else if (k == "recursion_via_map") {
            f["type"] = Json{{"type", "map"}, {"values", self}};
            if (chance(0.6)) f["default"] = Json::object();
        } else {
            if (!chance(0.3)) return false;  // keep the validator's stack overflows rare
            f["type"] = self;
        }
        s[r]["fields"].push_back(f);
        return true;
    }

    bool wrongDefault(Json& s, const Sites& st) {
        auto fields = fieldsWhere(s, st, [](const Json&) { return true; });
        Json& f = s[oneOf(fields)];
        static const std::vector<Json> kWrong{Json("text"), Json(12), Json(true), Json::object(), Json::array(), Json(nullptr), Json(3.25)};
        Json v = oneOf(kWrong);
        if (defaultValid(f["type"], v, s, st, 0)) return false;
        f["default"] = v;
        return true;
    }

    std::mt19937_64 rng_;
    int counter_ = 0;
    std::string ns_;
    std::vector<std::string> selves_;
};

}  // namespace

std::string_view to_string_view(Strategy s) {
    switch (s) {
        case Strategy::BACKWARD: return "BACKWARD";
        case Strategy::FORWARD: return "FORWARD";
        case Strategy::FULL: return "FULL";
    }
    return "BACKWARD";
}

std::vector<Case> generateCases(std::uint64_t seed, int count) {
    Generator g(seed);
    std::vector<Case> out;
    out.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) out.push_back(g.makeCase(i));
    return out;
}

const std::vector<std::string>& mutationKinds() { return kMutationKinds; }

std::map<std::string, int> countMutations(const std::vector<Case>& cases) {
    std::map<std::string, int> n;
    for (const Case& c : cases) {
        for (const auto& m : c.mutations) ++n[m];
    }
    return n;
}

}  // namespace cnx::differential
