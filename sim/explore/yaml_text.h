#pragma once
// How the differential search writes YAML (internal to sim/explore): the one
// quoting rule shared by the session generator and the shrinker's renderer, so
// that a generated session read back and rendered again is the same text.

#include <string>
#include <string_view>

namespace cnx::sim::explore::detail {

/// `text` as a flow-context YAML scalar: plain when it is a word that reads
/// back as the same string (letters, digits, `_ . - /`, no leading digit or
/// sign unless all digits), else single-quoted when it has a double quote, no
/// single quote and only characters YAML prints on one line (a JSON definition),
/// else double-quoted as yamlQuote (sim/run/expectation.h) writes it.
std::string scalar(std::string_view text);

/// `text` always quoted (single or double, as above): a value the loader must
/// read as a string even when it looks like a number ("2.10").
std::string quoted(std::string_view text);

}  // namespace cnx::sim::explore::detail
