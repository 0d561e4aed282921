#pragma once
// Summaries of a parsed Schema's node graph, filled in by parse() so the
// resolver can skip whole passes (avro_schema.h Schema::recursive, hasAliases, compact).

#include "broker_model/compat/avro/avro_schema.h"

namespace cnx::compat::avro {

/// What the parser learns about the node graph while building it.
struct GraphSummary {
    bool cycle = false;              // a cycle is reachable from the root
    std::uint32_t maxDepth = 0;      // edges on the longest path from any node (acyclic only)
    std::uint32_t maxUnionDepth = 0; // most union-to-branch edges on one path (acyclic only)
};

/// Fills in s.recursive (from g), s.hasAliases (some named type or record
/// field declares aliases) and s.compact.
void summarize(Schema& s, const GraphSummary& g);

}  // namespace cnx::compat::avro
