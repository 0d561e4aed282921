#pragma once
// Summaries of a parsed Schema's node graph, filled in by parse() so the
// resolver can skip whole passes (avro_schema.h Schema::recursive, hasAliases, compact).

#include "broker_model/compat/avro/avro_schema.h"

namespace cnx::compat::avro {

/// Fills in s.recursive (a cycle is reachable from the root), s.hasAliases
/// (some named type or record field declares aliases) and s.compact, with one
/// walk of the graph for the cycle test and both longest paths.
void summarize(Schema& s);

}  // namespace cnx::compat::avro
