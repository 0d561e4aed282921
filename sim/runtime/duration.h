#pragma once
// A duration as people write it on the command line: a non-negative decimal
// number followed by `ms` or `s` ("200ms", "1.5s", "0s"). Used by `serve
// --fault ...:delay=` and `run --max-explore-time`.

#include <chrono>
#include <optional>
#include <string_view>

namespace cnx::sim {

/// The duration `text` names, rounded to the millisecond, if it is one and at
/// most `max`; nullopt for anything else: no unit, a sign, inf, nan, a value
/// past `max` in any unit (checked on the number as written, before it is
/// converted, so that no value overflows into one under the bound).
std::optional<std::chrono::milliseconds> parseDuration(std::string_view text, std::chrono::milliseconds max);

}  // namespace cnx::sim
