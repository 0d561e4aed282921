#pragma once
// The `cnxsim` command line: run, explain, lint. Exit status: 0 all passed,
// 1 some failed, 2 the input (files or arguments) was invalid.

#include <iosfwd>
#include <string>
#include <vector>

namespace cnx::sim {

inline constexpr int kExitPassed = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitInvalid = 2;

/// Runs the CLI with `args` (without the program name), printing results to
/// `out` and diagnostics/errors to `err`. Returns the exit status.
int runCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace cnx::sim
