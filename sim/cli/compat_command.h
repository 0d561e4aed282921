#pragma once
// `cnxsim compat`: would the newest broker (or --broker-version's release) register
// schema N on a topic whose live history is the given files (oldest first)? Decided
// by the model's own registry with that release's profile (reference §4.3, §4.6,
// §6.7): validation of the new definition (stored ones are not validated again), the
// producer-side routing (transitive strategies against all live versions,
// the others against the latest), the type check, the identical-schema
// shortcut and the checker of §6.1. The answer is printed with the checker's
// problems and their paths in the schema.
//
// Exit status: 0 compatible, 1 incompatible, 2 invalid input (arguments,
// unreadable or malformed file, a definition the broker's validator rejects),
// 3 the broker's validator would have failed with an error instead of
// answering (compat::Verdict::error, e.g. a default that does not fit its
// type, non-terminating recursion).

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace cnx::sim {

inline constexpr int kExitCheckError = 3;

/// The usage text of `cnxsim compat` (for `cnxsim help compat`).
std::string_view compatUsage();

/// Runs `cnxsim compat` with `args` (the words after "compat"), printing the
/// verdict to `out` and diagnostics to `err`. Returns the exit status above.
/// Reads only the named files; keeps no state between calls.
int runCompat(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace cnx::sim
