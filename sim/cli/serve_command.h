#pragma once
// `cnxsim serve`: arguments, then the server (server.h) until SIGINT/SIGTERM.

#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "broker_model/core/fast_paths.h"

namespace cnx::serve {

/// Runs `cnxsim serve` with `args` (after the command name). The ready line
/// goes to `out`, diagnostics to `err`. 0 after a clean stop, 2 for bad arguments
/// or an address that cannot be bound. `fastPaths` is the served broker's
/// (CNXSIM_FAST_PATHS, broker_model/core/fast_paths.h).
int runServe(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
             FastPaths fastPaths = FastPaths::on);
std::string_view serveUsage();

}  // namespace cnx::serve
