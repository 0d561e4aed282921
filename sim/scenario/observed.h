#pragma once
// What a step did: the outcome the model answered, in the terms scenario
// expectations use (ServerError names, HTTP statuses, versions), plus the
// decision trace that explains it.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "broker_model/core/compatibility_strategy.h"
#include "broker_model/core/problem.h"
#include "broker_model/core/schema_data.h"
#include "broker_model/core/trace.h"

namespace cnx::sim {

struct Observed {
    bool ok = true;
    std::string error;               // ServerError name (binary protocol) ...
    std::optional<int> httpStatus;   // ... or HTTP status (admin steps); set on success too
    std::string message;             // the broker's message text
    std::optional<std::int64_t> schemaVersion;
    std::optional<SchemaData> schema;  // get-schema
    std::optional<bool> compatible;    // test-compatibility
    std::optional<CompatibilityStrategy> strategy;
    std::map<std::string, Observed> perClient;  // reconnect steps
    std::string checkFailure;          // check steps: what did not hold
    std::vector<std::string> checkUncovered;  // check steps: per-version keys with no value for the version
    Trace trace;
    /// A refusal's checker problems, from the request's trace (the wire ERROR
    /// frame carries only text; the trace is the side channel).
    std::vector<Problem> problems;

    static Observed success() { return {}; }
    static Observed failure(std::string error, std::string message);
};

}  // namespace cnx::sim
