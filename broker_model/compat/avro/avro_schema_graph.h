#pragma once
// Summaries of a parsed Schema's node graph, filled in by parse() so the
// resolver can skip whole passes (avro_schema.h Schema::recursive, hasAliases, compact).

#include "broker_model/compat/avro/avro_schema.h"

namespace cnx::compat::avro {

/// True iff a cycle is reachable from the root.
bool hasCycle(const Schema& s);
/// True iff some named type or record field declares aliases.
bool declaresAliases(const Schema& s);
/// Fills in s.compact.
void buildCompact(Schema& s);

}  // namespace cnx::compat::avro
