// The cnxsim executable: everything lives in the library (runCli, sim/cli/cli.h) so tests can drive it.
#include <iostream>

#include "sim/cli/cli.h"

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    return cnx::sim::runCli(args, std::cout, std::cerr);
}
