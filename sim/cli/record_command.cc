#include "sim/cli/record_command.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <algorithm>
#include <charconv>
#include <csignal>
#include <iostream>
#include <optional>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "broker_model/profile/profile.h"
#include "sim/cli/cli.h"
#include "sim/cli/cli_args.h"
#include "sim/record/admin_forwarder.h"
#include "sim/record/recording_file.h"
#include "sim/record/wire_proxy.h"

namespace cnx::record {
namespace {

constexpr std::string_view kRecordUsage =
    "usage: cnxsim record --upstream HOST:PORT -o FILE.yaml [--listen ADDRESS:PORT]\n"
    "                     [--admin-upstream http://HOST:PORT] [--admin-listen ADDRESS:PORT]\n"
    "                     [--broker-version V] [-v]\n"
    "\n"
    "A transparent proxy in front of a real broker that records the session as a\n"
    "scenario: every client and admin step, with the broker's answer as its\n"
    "expect. Point clients at the proxy; once listening it prints one line,\n"
    "  ready: pulsar://127.0.0.1:6651 -> HOST:6650, admin http://127.0.0.1:8081 -> URL\n"
    "and records until SIGINT or SIGTERM. FILE.yaml is written as the session\n"
    "goes (a killed proxy keeps what happened) and once more, atomically, at the end.\n"
    "`cnxsim run FILE.yaml` replays the session against the model of that release.\n"
    "\n"
    "  --upstream HOST:PORT  the broker's binary protocol address (required)\n"
    "  -o, --output FILE     the scenario file to write (required)\n"
    "  --listen ADDRESS:PORT where clients connect (default 127.0.0.1:6651; port 0\n"
    "                        picks a free one, printed in the ready line). Lookup\n"
    "                        answers are rewritten to this address, so clients stay\n"
    "                        on the proxy; everything else is forwarded byte for byte\n"
    "  --admin-upstream URL  the broker's admin REST API (http://HOST:PORT); admin\n"
    "                        calls made through --admin-listen are forwarded and\n"
    "                        recorded\n"
    "  --admin-listen ADDRESS:PORT  where admin calls are taken (default\n"
    "                        127.0.0.1:8081, or a free port with --listen port 0)\n"
    "  --broker-version V    the release the broker runs, for the scenario's\n"
    "                        broker.version (default: asked from the admin API,\n"
    "                        GET /admin/v2/brokers/version, else CONNECTED's\n"
    "                        server_version)\n"
    "  -v                    log connections and why each closed, on stderr\n"
    "\n"
    "One upstream broker (standalone, or a one-broker cluster): every connection\n"
    "goes to --upstream. TLS and authentication are not proxied.\n"
    "\n"
    "exit status: 0 stopped by a signal and written, 1 the file could not be\n"
    "written, 2 invalid arguments or an address that cannot be bound\n";

struct HostPort {
    std::string host;
    std::uint16_t port = 0;
};

std::optional<HostPort> hostPortOf(const std::string& text) {
    auto colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0) return std::nullopt;
    std::string host = text.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    unsigned port = 0;
    auto p = text.substr(colon + 1);
    auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), port);
    if (ec != std::errc() || end != p.data() + p.size() || port > 65535 || p.empty()) return std::nullopt;
    return HostPort{host, static_cast<std::uint16_t>(port)};
}

struct RecordArgs {
    std::optional<HostPort> upstream;
    HostPort listen{"127.0.0.1", 6651};
    std::string adminUpstream;
    std::optional<HostPort> adminListen;
    std::string output;
    std::string version;
    int verbosity = 0;
    bool help = false;
};

/// The words after `record`, parsed by the CLI's option table
/// (sim/cli/cli_args), then each value checked and turned into RecordArgs.
std::optional<std::string> parseRecordArgs(const std::vector<std::string>& in, RecordArgs& out) {
    sim::Args args;
    if (auto e = sim::parseArgs("record", in, args)) return e;
    if (!args.positional.empty()) return "unknown argument '" + args.positional.front() + "' for 'cnxsim record'";
    out.help = args.has("--help");
    out.verbosity = args.verbosity;
    if (out.help) return std::nullopt;
    for (const char* name : {"--upstream", "--listen", "--admin-listen"}) {
        const std::string* value = args.value(name);
        if (!value) continue;
        auto hp = hostPortOf(*value);
        if (!hp) return std::string(name) + " takes HOST:PORT (got '" + *value + "')";
        if (std::string_view(name) == "--upstream") out.upstream = hp;
        else if (std::string_view(name) == "--listen") out.listen = *hp;
        else out.adminListen = hp;
    }
    for (auto [name, field] : {std::pair{"--admin-upstream", &out.adminUpstream}, {"--broker-version", &out.version},
                               {"--output", &out.output}})
        if (const std::string* v = args.value(name)) *field = *v;
    if (!out.upstream) return "--upstream HOST:PORT is required";
    if (out.output.empty()) return "-o FILE.yaml is required";
    if (out.adminListen && out.adminUpstream.empty()) return "--admin-listen needs --admin-upstream";
    return std::nullopt;
}

/// The checks made before anything listens: --broker-version is modelled, -o
/// can be written, --admin-upstream is a URL (into `adminUpstream`).
std::optional<std::string> checkBeforeListening(const RecordArgs& args, std::optional<HttpUpstream>& adminUpstream) {
    std::string error;
    if (!args.version.empty() && !profileFor(args.version, &error)) return "--broker-version: " + error;
    if (auto e = checkRecordTarget(args.output))  // before listening (issue 40, item 11)
        return "-o " + *e;
    if (!args.adminUpstream.empty()) {
        auto parsed = parseHttpUpstream(args.adminUpstream);
        if (auto* e = std::get_if<std::string>(&parsed)) return *e;
        adminUpstream = std::get<HttpUpstream>(parsed);
    }
    return std::nullopt;
}

/// The broker's release, asked from its admin API (GET /admin/v2/brokers/version)
/// for the recording's broker.version; else CONNECTED's server_version says it.
void askBrokerVersion(AdminForwarder& forwarder, SessionRecorder& recorder) {
    serve::http::Request ask{boost::beast::http::verb::get, "/admin/v2/brokers/version", 11};
    forwarder.fetch(std::move(ask), [&recorder](serve::http::Response r) {
        std::string v = r.body();
        v.erase(std::remove(v.begin(), v.end(), '"'), v.end());
        while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
        auto release = r.result_int() == 200 ? modelledRelease(v) : std::string();
        if (!release.empty()) recorder.setBrokerVersion(release);
        else spdlog::warn("GET /admin/v2/brokers/version: {} '{}'; the version comes from CONNECTED",
                          r.result_int(), v);
    });
}

/// --admin-upstream: the forwarder and where it listens (--admin-listen); the
/// ready line's part for it into `adminText`.
std::optional<std::string> startAdminProxy(boost::asio::io_context& io, const RecordArgs& args,
                                           SessionRecorder& recorder, const HttpUpstream& upstream,
                                           std::optional<AdminForwarder>& forwarder,
                                           std::optional<serve::http::HttpServer>& adminServer, std::string& adminText) {
    forwarder.emplace(io, recorder, upstream);
    adminServer.emplace(io, [&forwarder](const serve::http::Request& r, const serve::http::RequestContext&,
                                         std::function<void(serve::http::Response)> reply) {
        forwarder->handle(r, std::move(reply));
    });
    HostPort at = args.adminListen.value_or(HostPort{args.listen.host, std::uint16_t(args.listen.port == 0 ? 0 : 8081)});
    if (auto e = adminServer->listen(at.host, at.port)) return "--admin-listen: " + *e;
    std::string host = at.host.find(':') != std::string::npos ? "[" + at.host + "]" : at.host;
    adminText = ", admin http://" + host + ":" + std::to_string(adminServer->port()) + " -> " + args.adminUpstream;
    if (args.version.empty()) askBrokerVersion(*forwarder, recorder);
    return std::nullopt;
}

}  // namespace

std::string_view recordUsage() { return kRecordUsage; }

int runRecord(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    auto invalid = [&](const std::string& why) {
        err << "cnxsim record: " << why << "\n";
        return sim::kExitInvalid;
    };
    RecordArgs args;
    if (auto e = parseRecordArgs(argv, args)) {
        err << "cnxsim record: " << *e << "\n" << kRecordUsage;
        return sim::kExitInvalid;
    }
    if (args.help) {
        out << kRecordUsage;
        return sim::kExitPassed;
    }
    if (!spdlog::get("cnxsim")) spdlog::set_default_logger(spdlog::stderr_color_mt("cnxsim"));
    spdlog::set_level(args.verbosity >= 2 ? spdlog::level::debug : args.verbosity == 1 ? spdlog::level::info : spdlog::level::warn);
    std::optional<HttpUpstream> adminUpstream;
    if (auto e = checkBeforeListening(args, adminUpstream)) return invalid(*e);
    boost::asio::io_context io;
    SessionRecorder recorder({args.version, recordedHow("cnxsim record (upstream " + args.upstream->host + ":" +
                                                        std::to_string(args.upstream->port) + ")"),
                              ""});

    WireProxy proxy(io, recorder, args.upstream->host, args.upstream->port);
    if (auto e = proxy.listen(args.listen.host, args.listen.port)) return invalid(*e);
    std::optional<AdminForwarder> forwarder;
    std::optional<serve::http::HttpServer> adminServer;
    std::string adminText;
    if (adminUpstream) {
        if (auto e = startAdminProxy(io, args, recorder, *adminUpstream, forwarder, adminServer, adminText))
            return invalid(*e);
    }

    auto created = RecordingFile::create(args.output, recorder);  // everything listens; no client yet
    if (auto* e = std::get_if<std::string>(&created)) return invalid("-o " + *e);
    auto recording = std::move(std::get<std::unique_ptr<RecordingFile>>(created));
    boost::asio::signal_set signals(io, SIGINT, SIGTERM);
    signals.async_wait([&](const boost::system::error_code& ec, int signal) {
        if (ec) return;
        spdlog::info("signal {}: stopping", signal);
        if (adminServer) adminServer->stop();
        proxy.stop();
        io.stop();
    });
    out << "ready: " << proxy.ownUrl() << " -> " << args.upstream->host << ":" << args.upstream->port << adminText
        << std::endl;
    io.run();
    if (auto e = recording->finish(recorder)) {
        err << "cnxsim record: -o " << *e << "\n";
        return sim::kExitFailed;
    }
    return sim::kExitPassed;
}

}  // namespace cnx::record
