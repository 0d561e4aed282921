#include "sim/serve/serve_command.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <algorithm>
#include <charconv>
#include <csignal>
#include <optional>
#include <ostream>
#include <utility>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "broker_model/profile/profile.h"
#include "broker_model/runtime/asio_scheduler.h"
#include "sim/cli/cli.h"
#include "sim/scenario/did_you_mean.h"
#include "sim/serve/server.h"

namespace cnx::serve {
namespace {

constexpr std::string_view kServeUsage =
    "usage: cnxsim serve [--broker-version V] [--set key=value ...] [--bind ADDRESS]\n"
    "                    [--port N] [--keepalive-seconds S] [--max-queued-bytes N] [-v]\n"
    "\n"
    "Serves the model on Pulsar's binary protocol, for real clients: point a\n"
    "client's serviceUrl at the address printed. Once listening it prints one line,\n"
    "  ready: pulsar://127.0.0.1:6650 (Pulsar 4.2.2 behaviour)\n"
    "and serves until SIGINT or SIGTERM (exit 0).\n"
    "\n"
    "  --broker-version V    the release whose behaviour is served (default: the newest\n"
    "                        modelled; `cnxsim profiles` lists them)\n"
    "  --set key=value       a broker.conf setting (repeatable)\n"
    "  --bind ADDRESS        the address to listen on (default 127.0.0.1: a test double\n"
    "                        is not opened to the network unless asked)\n"
    "  --port N              the port (default 6650; 0 picks a free one, printed in the\n"
    "                        ready line, for parallel test jobs)\n"
    "  --keepalive-seconds S PING a peer silent for S seconds, close it after 2*S\n"
    "                        (default 30)\n"
    "  --max-queued-bytes N  close a peer that does not read once N bytes wait to be\n"
    "                        sent to it (default 16777216, at least 1024)\n"
    "  -v                    log connections and why each closed, on stderr\n"
    "\n"
    "Served: CONNECT, PING/PONG, LOOKUP, PARTITIONED_METADATA, GET_TOPICS_OF_NAMESPACE,\n"
    "PRODUCER, SEND, SUBSCRIBE, FLOW/MESSAGE, ACK, REDELIVER_UNACKNOWLEDGED_MESSAGES,\n"
    "UNSUBSCRIBE, GET_LAST_MESSAGE_ID, CLOSE_PRODUCER/CLOSE_CONSUMER, GET_SCHEMA,\n"
    "GET_OR_CREATE_SCHEMA. Not yet: SEEK; a command not served closes its\n"
    "connection with the reason (logged at -v).\n"
    "\n"
    "exit status: 0 stopped by a signal, 2 invalid arguments or the address cannot be bound\n";

struct ServeArgs {
    std::string version;
    std::vector<std::pair<std::string, std::string>> settings;
    std::string bind = "127.0.0.1";
    std::uint16_t port = 6650;
    ServerOptions options;
    int verbosity = 0;
    bool help = false;
};

std::optional<std::string> parseServeArgs(const std::vector<std::string>& in, ServeArgs& out) {
    static const std::vector<std::string> known{"--broker-version", "--set",  "--bind",
                                                "--port",           "--help", "--keepalive-seconds", "--max-queued-bytes"};
    for (std::size_t i = 0; i < in.size(); ++i) {
        const std::string& a = in[i];
        if (a == "-h" || a == "--help") {
            out.help = true;
            continue;
        }
        if (a == "-v" || a == "-vv" || a == "--verbose") {
            out.verbosity += a == "-vv" ? 2 : 1;
            continue;
        }
        auto eq = a.find('=');
        std::string name = a.starts_with("--") && eq != std::string::npos ? a.substr(0, eq) : a;
        if (name == "--help" || std::find(known.begin(), known.end(), name) == known.end()) {
            auto hint = a.starts_with("--") ? sim::closestMatch(name, known) : std::nullopt;
            return "unknown " + std::string(a.starts_with("-") ? "option" : "argument") + " '" + a +
                   "' for 'cnxsim serve'" + (hint ? " (did you mean '" + *hint + "'?)" : "");
        }
        std::string value;
        if (eq != std::string::npos && a.starts_with("--")) {
            value = a.substr(eq + 1);
        } else if (i + 1 < in.size()) {
            value = in[++i];
        } else {
            return "option " + name + " needs a value";
        }
        if (name == "--broker-version") {
            out.version = value;
        } else if (name == "--set") {
            auto e = value.find('=');
            if (e == std::string::npos || e == 0) return "--set takes key=value (got '" + value + "')";
            out.settings.emplace_back(value.substr(0, e), value.substr(e + 1));
        } else if (name == "--bind") {
            out.bind = value;
        } else if (name == "--port") {
            unsigned port = 0;
            auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), port);
            if (ec != std::errc() || p != value.data() + value.size() || port > 65535)
                return "--port takes a number from 0 to 65535 (got '" + value + "')";
            out.port = static_cast<std::uint16_t>(port);
        } else if (name == "--max-queued-bytes") {
            unsigned long long bytes = 0;
            auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), bytes);
            if (ec != std::errc() || p != value.data() + value.size() || bytes < 1024 || bytes > (1ull << 40))
                return "--max-queued-bytes takes a number of bytes from 1024 to 2^40 (got '" + value + "')";
            out.options.maxQueuedBytes = static_cast<std::size_t>(bytes);
        } else {  // --keepalive-seconds
            double seconds = 0;
            auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
            if (ec != std::errc() || p != value.data() + value.size() || !(seconds > 0) || seconds > 86400)
                return "--keepalive-seconds takes a number of seconds above 0, at most 86400 (got '" + value + "')";
            out.options.keepAlive = std::chrono::milliseconds(static_cast<long long>(seconds * 1000 + 0.5));
            if (out.options.keepAlive.count() == 0) out.options.keepAlive = std::chrono::milliseconds(1);
        }
    }
    return std::nullopt;
}

const BehaviourProfile* newestProfile() {
    const BehaviourProfile* newest = nullptr;
    for (const auto& p : allProfiles())
        if (!newest || newest->release < p.release) newest = &p;
    return newest;
}

void setUpLogging(int verbosity) {
    if (!spdlog::get("cnxsim")) spdlog::set_default_logger(spdlog::stderr_color_mt("cnxsim"));
    spdlog::set_level(verbosity >= 2 ? spdlog::level::debug : verbosity == 1 ? spdlog::level::info : spdlog::level::warn);
}

}  // namespace

std::string_view serveUsage() { return kServeUsage; }

int runServe(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    ServeArgs args;
    if (auto e = parseServeArgs(argv, args)) {
        err << "cnxsim serve: " << *e << "\n" << kServeUsage;
        return sim::kExitInvalid;
    }
    if (args.help) {
        out << kServeUsage;
        return sim::kExitPassed;
    }
    setUpLogging(args.verbosity);
    std::string error;
    const BehaviourProfile* profile = args.version.empty() ? newestProfile() : profileFor(args.version, &error);
    if (!profile) {
        err << "cnxsim serve: --broker-version: " << error << "\n";
        return sim::kExitInvalid;
    }

    boost::asio::io_context io;
    AsioScheduler scheduler(io);
    Broker broker(*profile, scheduler);
    for (const auto& [key, value] : args.settings) {
        if (auto e = broker.setConfig(key, value)) {
            err << "cnxsim serve: --set " << key << "=" << value << ": " << *e << "\n";
            return sim::kExitInvalid;
        }
    }
    Server server(io, broker, args.options);
    if (auto e = server.listen(args.bind, args.port)) {
        err << "cnxsim serve: " << *e << "\n";
        return sim::kExitInvalid;
    }
    std::string host = args.bind.find(':') != std::string::npos ? "[" + args.bind + "]" : args.bind;
    std::string url = "pulsar://" + host + ":" + std::to_string(server.port());
    broker.setServiceUrl(url);

    boost::asio::signal_set signals(io, SIGINT, SIGTERM);
    signals.async_wait([&](const boost::system::error_code& ec, int signal) {
        if (ec) return;
        spdlog::info("signal {}: stopping", signal);
        server.stop();
    });
    out << "ready: " << url << " (Pulsar " << profile->release.toString() << " behaviour)" << std::endl;
    io.run();
    return sim::kExitPassed;
}

}  // namespace cnx::serve
