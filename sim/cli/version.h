#pragma once
// What `cnxsim --version` prints, and where an installed cnxsim finds its
// bundled scenarios.

#include <optional>
#include <ostream>
#include <string>

namespace cnx {

/// "cnxsim X.Y.Z (commit abc1234[-dirty])" and the range of modelled Pulsar
/// releases, taken from the behaviour profile table.
void printVersion(std::ostream& out);

/// PREFIX/share/cnxsim/scenarios next to the running executable
/// (/proc/self/exe, so a relocated install works), when it exists.
std::optional<std::string> installedScenarios();

}  // namespace cnx
