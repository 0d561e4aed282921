#pragma once
// Avro schemas as JSON, for the differential generator (schema_generator.cc):
// the type names it draws from, where things are in a schema (as JSON
// pointers), and the validity rules it keeps every generated schema within.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cnx::differential::schema_json {

using Json = nlohmann::ordered_json;
using Ptr = Json::json_pointer;

extern const std::vector<std::string> kPrimitives;
extern const std::vector<std::string> kNamespaces;
// §6.3 promotion lattice (writer -> reader), and its reverse.
extern const std::map<std::string, std::vector<std::string>> kPromotions;
extern const std::map<std::string, std::vector<std::string>> kDemotions;

bool isPrimitiveName(const std::string& s);
std::string fullName(const Json& def, const std::string& inheritedNs);
std::string childNs(const Json& def, const std::string& inheritedNs);

// Where things are in a schema, as JSON pointers.
struct Sites {
    std::vector<Ptr> slots;    // every position holding a type
    std::vector<Ptr> records;  // record definitions
    std::vector<Ptr> enums;
    std::vector<Ptr> fixeds;
    std::vector<Ptr> unions;
    std::map<std::string, Ptr> named;  // full name -> definition
    bool explicitNamespaces = true;    // every named definition carries "namespace"
};

Sites sitesOf(const Json& schema);
// The kind of a union branch for Avro's "no two branches of one kind" rule.
std::string branchKey(const Json& b, const std::string& ns);
bool unionsValid(const Json& schema);
// Default that Avro's encoder accepts for `type` (nullopt: none can be built).
std::optional<Json> defaultFor(const Json& type, const Json& root, const Sites& s, int depth);
// Roughly Avro's Schema.isValidDefault; used to keep defaults valid after edits.
bool defaultValid(const Json& type, const Json& v, const Json& root, const Sites& s, int depth);
// Replaces every reference `from` (a type-position string) by `to`.
void renameReferences(Json& schema, const std::string& from, const std::string& to);

}  // namespace cnx::differential::schema_json
