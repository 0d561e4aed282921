#pragma once
// The "equal schema" function of de-duplication (reference §4.5,
// `getSchemaVersionBySchemaData`), per the profile's DedupRule.

#include <optional>
#include <string>

#include "broker_model/profile.h"
#include "broker_model/schema_data.h"

namespace cnx {

struct EqualityAnswer {
    bool equal = false;
    std::optional<std::string> error;  // the definition did not parse: the broker's equality threw (§4.5, derived)
};

/// Whether `stored` counts as the same schema as `candidate` for de-duplication.
EqualityAnswer schemasEqualForDedup(const BehaviourProfile& profile, const SchemaData& stored,
                                    const SchemaData& candidate);

}  // namespace cnx
