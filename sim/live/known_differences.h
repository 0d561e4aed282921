#pragma once
// Differences between real brokers and the model that stay, each with its
// evidence (doc/against.md, "Known differences"). A step whose real and model
// answers differ in one of these ways is reported `not modelled: <id>` (the
// verdict `explained`), never as agreement; every other difference is a
// defect to fix. The table is data: one row per difference, with the releases
// it was seen on.

#include <span>
#include <string>
#include <string_view>

#include "sim/scenario/observed.h"
#include "sim/scenario/scenario.h"

namespace cnx::sim::live {

struct KnownDifference {
    std::string_view id;        // "idle-consumer-validation"
    std::string_view what;      // what the real broker does that the model does not
    std::string_view evidence;  // where it was seen (release, scenario, step)
};

std::span<const KnownDifference> knownDifferences();

/// The known difference that explains `real` against `model` on step `index` of
/// `scenario` (earlier steps may be what sets it up), or nullptr.
const KnownDifference* explain(const Scenario& scenario, std::size_t index, const Observed& real,
                               const Observed& model);

/// A message as the comparison reads it: a 500's RestException body
/// ("--- An unexpected error occurred in the server --- Message: X Stacktrace: …")
/// reduced to X, and a JSON parser's text cut after its exception class
/// (Jackson's wording is not modelled; the model's parser words it otherwise).
std::string comparableMessage(const std::string& message);

}  // namespace cnx::sim::live
