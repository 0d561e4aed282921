#pragma once
// `cnxsim ctl`: sends one lifecycle command (lifecycle.h) to a running
// `cnxsim serve --control PATH` and prints its answer.

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace cnx::serve {

std::string_view ctlUsage();
/// argv after "ctl". Exit 0 when the server answered ok, 1 when it answered an
/// error, 2 for invalid arguments or a server that cannot be reached or does not answer.
int runCtl(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace cnx::serve
