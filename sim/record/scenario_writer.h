#pragma once
// A recording as the scenario file a person would have written
// (doc/recording.md): comments on top, `name`, `broker`, `namespaces`,
// `topics`, `clients`, `schemas`, then one step per line in flow style with
// its `expect` on the next line, rendered as `cnxsim run --accept` renders
// observed outcomes (sim/scenario/accept_outcomes.h). Short topic names where
// Pulsar's expansion gives the same topic; defaults left out.

#include <string>

#include "sim/record/recording.h"

namespace cnx::record {

/// The YAML text of `recording`; `cnxsim run` reads it back to the same steps.
std::string writeScenario(const Recording& recording);

/// A topic as a person writes it: `orders` for persistent://public/default/orders,
/// `tenant/ns/orders` for other persistent topics, the full name otherwise.
std::string shortTopic(const std::string& topic);

/// `text` as a YAML scalar: plain when that reads back as the same string, else double-quoted.
std::string yamlScalar(const std::string& text);

}  // namespace cnx::record
