#pragma once
// The names a recording gives the schemas it saw (doc/recording.md): a
// primitive type with an empty definition and no properties is its type name
// (`STRING`); every other schema gets an alias made of the topic's local name,
// the type and a counter (`orders-avro-1`), and equal schemas (type,
// definition and properties) share one alias, whatever topic they came from.

#include <map>
#include <string>
#include <tuple>

#include "sim/scenario/scenario.h"

namespace cnx::record {

class SchemaAliases {
public:
    /// Names already taken (a --setup file's `schemas`): an equal schema reuses them.
    void seed(const std::map<std::string, sim::SchemaRef>& schemas);
    /// The SchemaRef a step writes for `schema` seen on `topic` (a full or short topic name).
    sim::SchemaRef refFor(const SchemaData& schema, const std::string& topic);
    /// Every alias given or seeded, for the `schemas:` section.
    const std::map<std::string, sim::SchemaRef>& table() const { return table_; }

private:
    using Definition = std::tuple<SchemaType, std::string, SchemaProperties>;
    static Definition definitionOf(const SchemaData& schema) { return {schema.type, schema.data, schema.properties}; }
    std::string freshName(const SchemaData& schema, const std::string& topic);

    std::map<std::string, sim::SchemaRef> table_;
    // Indexes, so that each schema seen costs a lookup, not a pass over every alias (issue 40, item 15).
    std::map<Definition, std::string> aliasOf_;  // the first alias (in name order) of each definition
    std::map<std::string, int> nextNumber_;      // per name stem, the next counter to try
};

}  // namespace cnx::record
