#pragma once
// `cnxsim record`: a transparent proxy in front of a real broker that records
// the session as a scenario (doc/recording.md), with the broker's answers as
// the expectations.

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace cnx::record {

std::string_view recordUsage();

/// Runs `cnxsim record ARGS`; the exit status (0 stopped by a signal and written,
/// 1 the file could not be written, 2 invalid arguments or an address that cannot be bound).
int runRecord(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace cnx::record
