#include "sim/serve/ctl_command.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <chrono>

#include "sim/cli/cli.h"
#include "sim/serve/control_socket.h"

namespace cnx::serve {
namespace {

constexpr std::string_view kCtlUsage =
    "usage: cnxsim ctl --socket PATH COMMAND [ARGUMENT]\n"
    "\n"
    "Tells a running `cnxsim serve --control PATH` what to do to its broker while\n"
    "clients are connected, and prints the answer:\n"
    "  status                  the release served, connections, loaded topics\n"
    "  upgrade-broker VERSION  restart on another release's behaviour: every producer\n"
    "                          and consumer is closed and every connection dropped, and\n"
    "                          the clients' reconnects are admitted under the new rules\n"
    "  restart-broker          the same on the same release\n"
    "  unload TOPIC            unload one topic: its producers and consumers are closed\n"
    "                          and reconnect on their connections\n"
    "\n"
    "  --socket PATH           the server's --control path\n"
    "  --timeout-seconds S     how long to wait for the answer (default 10)\n"
    "\n"
    "exit status: 0 ok, 1 the server refused the command, 2 invalid arguments or no\n"
    "answer from the server\n";

namespace asio = boost::asio;
using local = asio::local::stream_protocol;

}  // namespace

std::string_view ctlUsage() { return kCtlUsage; }

int runCtl(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    std::string socketPath;
    double timeout = 10;
    std::vector<std::string> words;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a == "-h" || a == "--help") {
            out << kCtlUsage;
            return sim::kExitPassed;
        }
        if ((a == "--socket" || a == "--timeout-seconds") && i + 1 >= argv.size()) {
            err << "cnxsim ctl: option " << a << " needs a value\n" << kCtlUsage;
            return sim::kExitInvalid;
        }
        if (a == "--socket") {
            socketPath = argv[++i];
        } else if (a == "--timeout-seconds") {
            try {
                std::size_t used = 0;
                timeout = std::stod(argv[++i], &used);
                if (used != argv[i].size() || !(timeout > 0) || timeout > 3600) throw std::invalid_argument("range");
            } catch (const std::exception&) {
                err << "cnxsim ctl: --timeout-seconds takes seconds above 0, at most 3600 (got '" << argv[i] << "')\n";
                return sim::kExitInvalid;
            }
        } else if (a.starts_with("--")) {
            err << "cnxsim ctl: unknown option '" << a << "'\n" << kCtlUsage;
            return sim::kExitInvalid;
        } else {
            words.push_back(a);
        }
    }
    if (socketPath.empty() || words.empty()) {
        err << "cnxsim ctl: " << (socketPath.empty() ? "--socket PATH is required" : "no command given") << "\n"
            << kCtlUsage;
        return sim::kExitInvalid;
    }
    std::string line;
    for (const auto& w : words) {
        if (w.find('\n') != std::string::npos) {
            err << "cnxsim ctl: an argument may not hold a newline\n";
            return sim::kExitInvalid;
        }
        line += (line.empty() ? "" : " ") + w;
    }
    if (line.size() >= ControlSocket::kMaxLine) {
        err << "cnxsim ctl: the command is over " << ControlSocket::kMaxLine << " bytes\n";
        return sim::kExitInvalid;
    }
    line += "\n";

    asio::io_context io;
    local::socket socket(io);
    boost::system::error_code ec;
    socket.connect(local::endpoint(socketPath), ec);
    if (ec) {
        err << "cnxsim ctl: cannot reach " << socketPath << ": " << ec.message() << "\n";
        return sim::kExitInvalid;
    }
    asio::streambuf in(ControlSocket::kMaxLine * 4);
    std::string answer;
    bool done = false;
    asio::async_write(socket, asio::buffer(line), [&](boost::system::error_code e, std::size_t) {
        if (e) {
            ec = e;
            done = true;
            return;
        }
        asio::async_read_until(socket, in, '\n', [&](boost::system::error_code r, std::size_t n) {
            ec = r;
            done = true;
            if (!r) answer.assign(asio::buffers_begin(in.data()), asio::buffers_begin(in.data()) + n - 1);
        });
    });
    io.run_for(std::chrono::milliseconds(static_cast<long long>(timeout * 1000)));
    if (!done || ec) {
        err << "cnxsim ctl: " << (done ? "no answer from " + socketPath + ": " + ec.message()
                                       : "no answer from " + socketPath + " within the timeout")
            << "\n";
        return sim::kExitInvalid;
    }
    out << answer << "\n";
    return answer.starts_with("ok:") ? sim::kExitPassed : 1;
}

}  // namespace cnx::serve
