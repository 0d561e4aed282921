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
    for (const auto& [alias, ref] : schemas) table_.emplace(alias, ref);
}

std::string SchemaAliases::freshName(const SchemaData& schema, const std::string& topic) const {
    auto parsed = TopicName::parse(topic);
    std::string local = parsed ? std::string(parsed->partitionedBase().localName()) : topic;
    std::string stem = tidy(local) + "-" + tidy(to_string_view(schema.type));
    for (int n = 1;; ++n) {
        std::string name = stem + "-" + std::to_string(n);
        if (!table_.count(name) && !isReserved(name)) return name;
    }
}

sim::SchemaRef SchemaAliases::refFor(const SchemaData& schema, const std::string& topic) {
    sim::SchemaRef ref;
    ref.kind = sim::SchemaRef::Kind::definition;
    ref.data = schema;
    if (isPrimitive(schema.type) && schema.data.empty() && schema.properties.empty()) {
        ref.alias = std::string(to_string_view(schema.type));
        return ref;
    }
    for (const auto& [alias, known] : table_) {
        if (known.kind == sim::SchemaRef::Kind::definition && known.data == schema) {
            ref.alias = alias;
            return ref;
        }
    }
    ref.alias = freshName(schema, topic);
    table_.emplace(ref.alias, ref);
    return ref;
}

}  // namespace cnx::record
