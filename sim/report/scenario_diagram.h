#pragma once
// The sequence diagram of one scenario run: a lifeline per producer,
// consumer and admin/operator, the broker and the schema registry; per step
// the request, the registry reads and writes its trace shows (reference §4),
// and the answer. The failed steps' messages are highlighted.

#include "sim/report/sequence_diagram.h"
#include "sim/run/runner.h"

namespace cnx::sim {

SequenceDiagram diagramOf(const ScenarioResult& result);

}  // namespace cnx::sim
