#pragma once
// The names a recording gives the schemas it saw (doc/recording.md): a
// primitive type with an empty definition and no properties is its type name
// (`STRING`); every other schema gets an alias made of the topic's local name,
// the type and a counter (`orders-avro-1`), and equal schemas (type,
// definition and properties) share one alias, whatever topic they came from.

#include <map>
#include <string>

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
    std::string freshName(const SchemaData& schema, const std::string& topic) const;

    std::map<std::string, sim::SchemaRef> table_;
};

}  // namespace cnx::record
