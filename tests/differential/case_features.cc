#include "tests/differential/case_features.h"

#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

namespace cnx::differential {
namespace {

using Json = nlohmann::ordered_json;

const std::set<std::string> kPrimitives{"null", "boolean", "int", "long", "float", "double", "string", "bytes"};

// §6.3 promotions (writer -> reader).
bool promotes(const std::string& w, const std::string& r) {
    static const std::set<std::pair<std::string, std::string>> kMoves{
        {"int", "long"}, {"int", "float"}, {"int", "double"}, {"long", "float"}, {"long", "double"},
        {"float", "double"}, {"string", "bytes"}, {"bytes", "string"}};
    return kMoves.count({w, r}) != 0;
}

struct Named {
    std::string type, shortName, space;
    std::set<std::string> symbols;
};

// Everything one schema contains that the classes look at.
struct Summary {
    std::vector<Named> named;
    std::vector<std::vector<std::string>> unions;  // branch type names (named: full name)
    std::set<std::string> primitives;
    bool aliases = false;
    bool recursion = false;
};

class Summarizer {
public:
    explicit Summarizer(Summary& out) : out_(out) {}

    std::string visit(const Json& j, const std::string& ns) {
        if (j.is_string()) return reference(j.get<std::string>(), ns);
        if (j.is_array()) {
            std::vector<std::string> branches;
            for (const Json& b : j) branches.push_back(visit(b, ns));
            out_.unions.push_back(branches);
            return "union";
        }
        if (!j.is_object()) return "";
        if (j.contains("aliases")) out_.aliases = true;
        std::string t = j.value("type", "");
        if (t == "array") return visit(j.value("items", Json()), ns), "array";
        if (t == "map") return visit(j.value("values", Json()), ns), "map";
        if (t != "record" && t != "enum" && t != "fixed") return reference(t, ns);
        return definition(j, t, ns);
    }

private:
    std::string reference(const std::string& name, const std::string& ns) {
        if (kPrimitives.count(name)) {
            out_.primitives.insert(name);
            return name;
        }
        std::string full = name.find('.') != std::string::npos || ns.empty() ? name : ns + "." + name;
        if (std::find(open_.begin(), open_.end(), full) != open_.end()) out_.recursion = true;
        return full;
    }

    std::string definition(const Json& j, const std::string& t, const std::string& ns) {
        std::string name = j.value("name", "");
        std::string space = j.contains("namespace") && j["namespace"].is_string() ? j["namespace"].get<std::string>() : ns;
        if (auto dot = name.rfind('.'); dot != std::string::npos) {
            space = name.substr(0, dot);
            name = name.substr(dot + 1);
        }
        std::string full = space.empty() ? name : space + "." + name;
        Named n{t, name, space, {}};
        if (t == "enum" && j.contains("symbols")) {
            for (const Json& s : j["symbols"]) n.symbols.insert(s.dump());
        }
        out_.named.push_back(n);
        if (t == "record" && j.contains("fields") && j["fields"].is_array()) {
            open_.push_back(full);
            for (const Json& f : j["fields"]) {
                if (f.contains("aliases")) out_.aliases = true;
                visit(f.value("type", Json()), space);
            }
            open_.pop_back();
        }
        return full;
    }

    Summary& out_;
    std::vector<std::string> open_;
};

bool unionPromotion(const std::vector<Summary>& all) {
    for (std::size_t a = 0; a < all.size(); ++a) {
        for (std::size_t b = 0; b < all.size(); ++b) {
            if (a == b) continue;
            for (const auto& u : all[b].unions) {
                for (const auto& t : all[a].primitives) {
                    if (std::find(u.begin(), u.end(), t) != u.end()) continue;
                    if (std::any_of(u.begin(), u.end(), [&](const std::string& br) { return promotes(t, br); })) return true;
                }
            }
        }
    }
    return false;
}

}  // namespace

Features featuresOf(const std::vector<std::string>& schemas) {
    std::vector<Summary> all;
    for (const auto& text : schemas) {
        Summary s;
        try {
            Summarizer(s).visit(Json::parse(text), "");
        } catch (const Json::exception&) {
            continue;
        }
        all.push_back(std::move(s));
    }
    Features f;
    std::map<std::string, std::set<std::string>> spacesByShort;  // enum/fixed short name -> namespaces seen
    std::map<std::string, std::set<std::set<std::string>>> symbolSets;
    std::map<std::string, std::set<std::string>> recordNamesBySchema;
    for (std::size_t i = 0; i < all.size(); ++i) {
        const Summary& s = all[i];
        f.aliases |= s.aliases;
        f.recursion |= s.recursion;
        f.anyUnion |= !s.unions.empty();
        for (const Named& n : s.named) {
            if (n.type != "record") spacesByShort[n.type + ":" + n.shortName].insert(n.space);
            if (n.type == "enum") symbolSets[n.space + "." + n.shortName].insert(n.symbols);
        }
    }
    for (const auto& [k, spaces] : spacesByShort) f.enumFixedNamespaceMoved |= spaces.size() > 1;
    for (const auto& [k, sets] : symbolSets) f.enumSymbolsDiffer |= sets.size() > 1;
    // A record rename: the root record names differ, or a nested record set differs.
    std::set<std::set<std::string>> recordSets;
    for (const Summary& s : all) {
        std::set<std::string> names;
        for (const Named& n : s.named) {
            if (n.type == "record") names.insert(n.space + "." + n.shortName);
        }
        recordSets.insert(names);
    }
    f.recordRenamed = recordSets.size() > 1;
    f.unionPromotion = unionPromotion(all);
    return f;
}

}  // namespace cnx::differential
