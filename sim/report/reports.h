#pragma once
// What a run tells people: the console lines and failure blocks, JUnit XML
// for CI, and a Markdown or HTML report with the scenario x version matrix.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/run/runner.h"

namespace cnx::sim {

/// One console line per scenario run: "PASS  file: name [version]".
std::string consoleLine(const ScenarioResult& result);

/// The failure block of a failed run: each failed step with its position,
/// expected and observed outcome, and the model's decision trace; a refusal's
/// message as one root line and its problem paths unless `verbose` (-v).
std::string failureBlock(const ScenarioResult& result, bool verbose = false);

/// Every step with its observed outcome and trace (`cnxsim explain`); long
/// Avro messages short as in failureBlock unless `verbose`.
std::string explainBlock(const ScenarioResult& result, bool verbose = false);

/// The first reason a run failed, one line ("step 3 (producer): expected ok, got ..."); empty when it passed.
std::string shortReason(const ScenarioResult& result);

/// Writes JUnit XML (well-formed XML 1.0 whatever the names and messages
/// hold: bytes that are not UTF-8 and characters XML forbids become U+FFFD)
/// through writeFileAtomically (sim/io/file_write.h), creating the folder if
/// needed; an error text when the file cannot be written.
std::optional<std::string> writeJUnit(const std::string& path, const std::vector<ScenarioResult>& results,
                                      std::uint64_t seed);

/// Writes a Markdown (`.md`) or HTML (`.html`) report, its text cleaned as
/// the JUnit XML's, the same way; an error text otherwise.
std::optional<std::string> writeReport(const std::string& path, const std::vector<ScenarioResult>& results,
                                       std::uint64_t seed);

/// The Markdown report's text (`--report -` writes it to stdout): summary
/// line, failures first each with a mermaid sequence diagram, then the
/// scenario x release-line matrix.
std::string markdownReport(const std::vector<ScenarioResult>& results, std::uint64_t seed);

}  // namespace cnx::sim
