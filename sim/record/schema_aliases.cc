#include "sim/record/schema_aliases.h"

#include <cctype>

#include "broker_model/core/topic_name.h"

namespace cnx::record {
namespace {

bool isReserved(const std::string& name) {
    return name == "none" || name == "AUTO_CONSUME" || name == "AUTO_PRODUCE_BYTES" ||
           schemaTypeFromName(name).has_value();
}

// A name part of lower-case letters, digits and single '-' (KEY_VALUE -> key-value).
std::string tidy(std::string_view text) {
    std::string out;
    for (char c : text) {
        auto u = static_cast<unsigned char>(c);
        if (std::isalnum(u)) out += static_cast<char>(std::tolower(u));
        else if (!out.empty() && out.back() != '-') out += '-';
    }
    while (!out.empty() && out.back() == '-') out.pop_back();
    return out.empty() ? "schema" : out;
}

}  // namespace

void SchemaAliases::seed(const std::map<std::string, sim::SchemaRef>& schemas) {
    for (const auto& [alias, ref] : schemas) {
        table_.emplace(alias, ref);
        if (ref.kind == sim::SchemaRef::Kind::definition) aliasOf_.emplace(definitionOf(ref.data), alias);
    }
}

std::string SchemaAliases::freshName(const SchemaData& schema, const std::string& topic) {
    auto parsed = TopicName::parse(topic);
    std::string local = parsed ? std::string(parsed->partitionedBase().localName()) : topic;
    std::string stem = tidy(local) + "-" + tidy(to_string_view(schema.type));
    for (int& n = nextNumber_.try_emplace(stem, 1).first->second;; ++n) {
        std::string name = stem + "-" + std::to_string(n);
        if (!table_.count(name) && !isReserved(name)) return name;
    }
}

sim::SchemaRef SchemaAliases::refFor(const SchemaData& schema, const std::string& topic) {
    sim::SchemaRef ref;
    ref.kind = sim::SchemaRef::Kind::definition;
    ref.data = schema;
    if (isPrimitive(schema.type) && schema.data.empty() && schema.properties.empty()) {
        // A bare NONE is what a BYTES schema is on the wire (Pulsar's Commands.getSchemaType maps
        // BYTES, -1, to proto None); a scenario names it BYTES, the loader refusing `NONE` alone.
        ref.alias = std::string(to_string_view(schema.type == SchemaType::NONE ? SchemaType::BYTES : schema.type));
        return ref;
    }
    if (auto known = aliasOf_.find(definitionOf(schema)); known != aliasOf_.end()) {
        ref.alias = known->second;
        return ref;
    }
    ref.alias = freshName(schema, topic);
    table_.emplace(ref.alias, ref);
    aliasOf_.emplace(definitionOf(schema), ref.alias);
    return ref;
}

}  // namespace cnx::record
