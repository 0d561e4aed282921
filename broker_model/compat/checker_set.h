#pragma once
// The registry's map type -> checker (reference §6.1): built from the broker's
// `schemaRegistryCompatibilityCheckers` (AVRO, JSON, PROTOBUF_NATIVE by
// default), KEY_VALUE always added, DEFAULT for every other type.

#include <map>
#include <memory>

#include "broker_model/compat/compatibility_check.h"
#include "broker_model/core/schema_type.h"

namespace cnx::compat {

class CheckerSet {
public:
    /// The default configuration of a broker: AVRO, JSON, PROTOBUF_NATIVE and
    /// KEY_VALUE (which checks its components through this set).
    CheckerSet();
    CheckerSet(const CheckerSet&) = delete;
    /// That configuration, built once and shared by every registry: the
    /// checkers keep no state, and a broker built per scenario need not
    /// allocate its own.
    static const CheckerSet& standard();
    CheckerSet& operator=(const CheckerSet&) = delete;

    /// Registers `check` for `type`, replacing any earlier one.
    void add(SchemaType type, std::unique_ptr<SchemaCompatibilityCheck> check);

    /// The checker for a new schema of `type`: the registered one, else DEFAULT.
    const SchemaCompatibilityCheck& forType(SchemaType type) const;

private:
    std::map<SchemaType, std::unique_ptr<SchemaCompatibilityCheck>> checks_;
    std::unique_ptr<SchemaCompatibilityCheck> default_;
};

}  // namespace cnx::compat
