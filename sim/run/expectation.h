#pragma once
// Expectations against observed outcomes: choosing the expectation that
// applies to a profile, matching it, and writing an outcome back as scenario
// YAML (for failure blocks and `--accept`).

#include <optional>
#include <string>

#include "broker_model/core/release_version.h"
#include "sim/scenario/observed.h"
#include "sim/scenario/scenario.h"

namespace cnx::sim {

/// Whether a per-profile key covers release `version`.
bool rangeCovers(const VersionRange& range, const ReleaseVersion& version);

/// The expectation of `spec` for `version`; nullopt when the step has none or
/// no key covers the version (`covered` then tells which).
std::optional<Expect> expectationFor(const ExpectSpec& spec, const ReleaseVersion& version, bool* covered);

/// Empty when `observed` satisfies `expect`; otherwise why not.
std::string mismatch(const Expect& expect, const Observed& observed);

/// The expectation as YAML flow text, e.g. `{ error: IncompatibleSchema, message: "..." }`.
std::string renderExpect(const Expect& expect);

/// An expectation that `observed` satisfies, as YAML flow text, for `--accept`
/// and for "observed:" lines: `ok`, `{ schema_version: 0 }`, `{ error: X, message: "..." }`.
/// The step's kind decides what the text holds (a get-schema's schema; a failed check is `ok`).
std::string renderObserved(const Observed& observed, const Step& step);

/// Schema properties as a YAML flow mapping.
std::string renderProperties(const SchemaProperties& props);

/// YAML double-quoted scalar, on one line: quotes, backslashes and control
/// characters are escaped (`\n`, `\t`, `\r`, `\xNN`).
std::string yamlQuote(const std::string& text);

}  // namespace cnx::sim
