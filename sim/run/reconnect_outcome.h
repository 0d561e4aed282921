#pragma once
// How a step that reconnects clients (upgrade-broker, restart-broker, unload)
// reports them: each client's outcome under its name, and the step fails with
// the last refusal, named. One rule for the model's runner and the live one.

#include <string>

#include "sim/scenario/observed.h"

namespace cnx::sim {

/// Adds the reconnect outcome `o` of the producer or consumer `name` to `step`.
inline void addReconnectOutcome(Observed& step, const std::string& name, Observed o) {
    if (!o.ok) {
        step.ok = false;
        step.error = o.error;
        step.message = name + ": " + o.message;
    }
    step.perClient[name] = std::move(o);
}

}  // namespace cnx::sim
