#pragma once
// `cnxsim serve`'s arguments: the words after `serve`, checked and typed
// (serve_command.cc runs the server they describe).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "broker_model/broker/broker.h"
#include "sim/serve/server.h"

namespace cnx::serve {

/// `cnxsim serve`'s arguments, each checked (parseServeArgs).
struct ServeArgs {
    std::string version;
    std::string configFile;
    std::string setupFile;
    std::string recordFile;
    std::string traceFile;
    std::vector<std::pair<std::string, std::string>> settings;
    std::vector<std::string> faults;
    std::string bind = "127.0.0.1";
    std::uint16_t port = 6650;
    std::optional<std::uint16_t> adminPort;
    bool noPort = false;       // --port none
    bool noAdminPort = false;  // --admin-port none
    std::optional<std::uint16_t> tlsPort;       // --tls-port
    std::optional<std::uint16_t> adminTlsPort;  // --admin-tls-port
    ServerOptions options;
    std::uint64_t maxLogBytes = Broker::kDefaultMaxLogBytes;
    int verbosity = 0;
    bool help = false;
};

/// The words after `serve`, parsed by the CLI's option table (sim/cli/cli_args),
/// then each value checked and turned into ServeArgs.
std::optional<std::string> parseServeArgs(const std::vector<std::string>& in, ServeArgs& out);

}  // namespace cnx::serve
