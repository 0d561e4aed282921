#pragma once
// A recording as the scenario file a person would have written
// (doc/recording.md): comments on top, `name`, `broker`, `namespaces`,
// `topics`, `clients`, `schemas`, then one step per line in flow style with
// its `expect` on the next line, rendered as `cnxsim run --accept` renders
// observed outcomes (sim/accept/accept_outcomes.h). Short topic names where
// Pulsar's expansion gives the same topic; defaults left out.

#include <string>
#include <vector>

#include "sim/record/recording.h"

namespace cnx::record {

/// The YAML text of `recording`; `cnxsim run` reads it back to the same steps.
/// It is writeHead, then writeStep of each step, then writeTail.
std::string writeScenario(const Recording& recording);

/// The comments on top, the header and `steps:`.
std::string writeHead(const Recording& recording);
/// One step with its notes and expect ("" when it is `dropped`).
std::string writeStep(const RecordedStep& step, const sim::Scenario& header);
/// The comments after the last step (`[]` first when no step was written).
std::string writeTail(const Recording& recording, bool anyStep);

/// A definition longer than one YAML value may be (1 MiB, the loader's limit)
/// goes to a pulsar-admin schema-definition file (`{"type", "schema",
/// "properties"}`) in the recording's definitionFolder, and `schemas:` names it
/// with `file:`: its path relative to the recording's folder and its JSON text.
/// None when the recording names no folder (then every definition is inline).
struct DefinitionFile {
    std::string path;
    std::string json;
};
std::vector<DefinitionFile> definitionFiles(const Recording& recording);

/// A topic as a person writes it: `orders` for persistent://public/default/orders,
/// `tenant/ns/orders` for other persistent topics, the full name otherwise.
std::string shortTopic(const std::string& topic);

/// `text` as a YAML scalar: plain when that reads back as the same string, else double-quoted.
std::string yamlScalar(const std::string& text);

}  // namespace cnx::record
