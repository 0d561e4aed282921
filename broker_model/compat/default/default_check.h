#pragma once
// DEFAULT checker (reference §6.2): passes for every strategy except
// ALWAYS_INCOMPATIBLE; never looks at the data.

#include <memory>

#include "broker_model/compat/compatibility_check.h"

namespace cnx::compat {

std::unique_ptr<SchemaCompatibilityCheck> makeDefaultCheck();

}  // namespace cnx::compat
