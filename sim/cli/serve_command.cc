#include "sim/cli/serve_command.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <algorithm>
#include <charconv>
#include <chrono>
#include <csignal>
#include <fstream>
#include <iostream>
#include <optional>
#include <ostream>
#include <utility>
#include <variant>

#include <fcntl.h>
#include <mutex>
#include <unistd.h>

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include "broker_model/admin/admin_api.h"
#include "broker_model/profile/profile.h"
#include "broker_model/runtime/asio_scheduler.h"
#include "sim/cli/cli.h"
#include "sim/cli/cli_args.h"
#include "sim/record/recording_file.h"
#include "sim/serve/broker_conf.h"
#include "sim/serve/decision_ring.h"
#include "sim/serve/http/admin_access.h"
#include "sim/serve/http/admin_routes.h"
#include "sim/serve/http/auth_filter.h"
#include "sim/net/http_server.h"
#include "sim/serve/lifecycle.h"
#include "sim/serve/output_queue.h"
#include "sim/cli/serve_args.h"
#include "sim/serve/server.h"
#include "sim/serve/setup.h"
#include "sim/net/tls_context.h"
#include "sim/scenario/tls_settings.h"
#include "sim/serve/trace_log.h"

namespace cnx::serve {
namespace {

const BehaviourProfile* newestProfile() {
    const BehaviourProfile* newest = nullptr;
    for (const auto& p : allProfiles())
        if (!newest || newest->release < p.release) newest = &p;
    return newest;
}

// spdlog's lines into an OutputQueue: `-v` on a stderr nobody reads drops
// lines (counted) instead of blocking the event loop (issue 40 item 7).
class QueueSink final : public spdlog::sinks::base_sink<std::mutex> {
public:
    explicit QueueSink(std::shared_ptr<OutputQueue> queue) : queue_(std::move(queue)) {}

protected:
    void sink_it_(const spdlog::details::log_msg& msg) override {
        spdlog::memory_buf_t text;
        formatter_->format(msg, text);
        queue_->push(fmt::to_string(text));
    }
    void flush_() override {}

private:
    std::shared_ptr<OutputQueue> queue_;
};

/// The serve logger, writing through `queue` (standard error's) while serve runs.
class ServeLogging {
public:
    ServeLogging(int verbosity, std::shared_ptr<OutputQueue> queue) : previous_(spdlog::default_logger()) {
        auto logger = std::make_shared<spdlog::logger>("cnxsim-serve", std::make_shared<QueueSink>(std::move(queue)));
        logger->set_level(verbosity >= 2 ? spdlog::level::debug
                          : verbosity == 1 ? spdlog::level::info
                                           : spdlog::level::warn);
        spdlog::set_default_logger(std::move(logger));
    }
    ~ServeLogging() { spdlog::set_default_logger(previous_); }
    ServeLogging(const ServeLogging&) = delete;
    ServeLogging& operator=(const ServeLogging&) = delete;

private:
    std::shared_ptr<spdlog::logger> previous_;
};

/// What was dropped on the way out, said on standard error (through its queue, so never blocking).
void reportDrops(OutputQueue& errors, const OutputQueue* trace) {
    if (trace && trace->dropped() > 0)
        errors.push("cnxsim serve: --trace: " + std::to_string(trace->dropped()) + " line(s) dropped (" +
                    (trace->closed() ? std::string("the output was closed") : std::string("the reader did not keep up")) +
                    ")\n");
    if (errors.dropped() > 0)
        errors.push("cnxsim serve: " + std::to_string(errors.dropped()) +
                    " log line(s) dropped (standard error did not keep up)\n");
    errors.drain(std::chrono::seconds(1));
}

/// --config: the known settings applied, the rest reported. The error text when one is refused.
std::optional<std::string> applyConfigFile(const std::string& file, Broker& broker, std::ostream& err) {
    auto read = readBrokerConf(file);
    if (auto* e = std::get_if<std::string>(&read)) return *e;
    const auto& conf = std::get<BrokerConf>(read);
    for (const auto& w : conf.warnings) err << "cnxsim serve: warning: " << w << "\n";
    for (const auto& entry : conf.known) {
        if (auto e = broker.setConfig(entry.key, entry.value)) return file + ":" + std::to_string(entry.line) + ": " + *e;
        spdlog::info("{}:{}: {}={}", file, entry.line, entry.key, entry.value);
    }
    for (const auto& entry : conf.ignored)
        spdlog::info("{}:{}: {} is not read by the model (ignored)", file, entry.line, entry.key);
    if (!conf.ignored.empty())
        spdlog::info("{}: {} setting(s) applied, {} the model does not read ignored", file, conf.known.size(),
                     conf.ignored.size());
    return std::nullopt;
}

/// The broker settings the server starts with, as a scenario's `broker.config`:
/// --config's known keys, then the setup file's, then --set, a later one replacing
/// an earlier one of the same key (the order `prepare` applies them in).
std::vector<sim::Setting> startSettings(const ServeArgs& args, const sim::Scenario& setup) {
    std::vector<sim::Setting> out;
    auto put = [&out](const std::string& key, std::optional<std::string> value) {
        auto it = std::find_if(out.begin(), out.end(), [&](const sim::Setting& s) { return s.key == key; });
        if (it == out.end()) out.push_back({key, std::move(value), {}});
        else it->value = std::move(value);
    };
    if (!args.configFile.empty()) {
        // Read once more: prepare() applied it without error a moment ago.
        auto read = readBrokerConf(args.configFile);
        if (auto* conf = std::get_if<BrokerConf>(&read))
            for (const auto& entry : conf->known) put(entry.key, entry.value);
    }
    for (const auto& s : setup.brokerConfig) put(s.key, s.value);
    // The TLS keys are serve's, not the model's: a replayed scenario has no listener.
    for (const auto& [key, value] : args.settings)
        if (!TlsSettings::isKey(key)) put(key, value);
    return out;
}

/// The TLS listeners' settings: --config's, the setup file's, --set's (in the
/// order the model's are applied), then --tls-port and --admin-tls-port.
std::optional<std::string> tlsSettingsOf(const ServeArgs& args, const ServeSetup& setup, TlsSettings& out) {
    if (!args.configFile.empty()) {
        auto read = readBrokerConf(args.configFile);
        if (auto* conf = std::get_if<BrokerConf>(&read))
            for (const auto& entry : conf->transport)
                if (auto e = out.set(entry.key, entry.value))
                    return "--config " + args.configFile + ":" + std::to_string(entry.line) + ": " + *e;
    }
    for (const auto& s : setup.transport)
        if (auto e = out.set(s.key, s.value.value_or("")))
            return "--setup " + args.setupFile + ": " + *e;  // checked when loaded
    for (const auto& [key, value] : args.settings)
        if (TlsSettings::isKey(key))
            if (auto e = out.set(key, value)) return "--set " + key + "=" + value + ": " + *e;
    if (args.tlsPort) out.brokerServicePortTls = args.tlsPort;
    if (args.adminTlsPort) out.webServicePortTls = args.adminTlsPort;
    return std::nullopt;
}

/// --bind: an IP address as it is, a host name resolved as the broker resolves
/// its bindAddress (the first address, IPv4 first); `variant<error, ip>`.
std::variant<std::string, std::string> resolveBind(boost::asio::io_context& io, const std::string& name) {
    boost::system::error_code ec;
    boost::asio::ip::make_address(name, ec);
    if (!ec) return std::variant<std::string, std::string>(std::in_place_index<1>, name);
    boost::asio::ip::tcp::resolver resolver(io);
    auto results = resolver.resolve(name, "", ec);
    if (ec || results.empty())
        return std::variant<std::string, std::string>(std::in_place_index<0>,
                                                      "'" + name + "' is neither an IP address nor a host name that resolves");
    std::string chosen;
    for (const auto& r : results) {
        auto a = r.endpoint().address();
        if (chosen.empty() || (a.is_v4() && chosen.find(':') != std::string::npos)) chosen = a.to_string();
    }
    return std::variant<std::string, std::string>(std::in_place_index<1>, chosen);
}

/// The settings that only make sense together, checked once all are in, as a
/// broker checks them when it starts (MultipleListenerValidator).
std::optional<std::string> startUpProblem(const Broker& broker) {
    const auto& config = broker.policies().broker;
    if (auto bad = advertisedListenersProblem(config.advertisedListeners, config.internalListenerName))
        return "advertisedListeners: " + *bad;
    // A broker whose authentication provider cannot start refuses to start (issue 44).
    if (const auto& bad = broker.authenticationProblem()) return *bad;
    return std::nullopt;
}

/// --setup: the setup file, loaded into `setup`; its problems printed on `err`
/// (then false).
bool loadSetup(const ServeArgs& args, ServeSetup& setup, std::ostream& err) {
    if (args.setupFile.empty()) return true;
    auto loaded = loadServeSetup(args.setupFile);
    if (auto* errors = std::get_if<std::vector<std::string>>(&loaded)) {
        for (const auto& e : *errors) err << e << "\n";
        err << "cnxsim serve: --setup " << args.setupFile << ": " << errors->size() << " problem(s)\n";
        return false;
    }
    setup = std::get<ServeSetup>(std::move(loaded));
    if (!setup.scenario.clients.empty())
        err << "cnxsim serve: warning: " << args.setupFile << ": 'clients' is ignored (real clients connect)\n";
    return true;
}

/// The release served: --broker-version, else the setup's broker.version, else
/// the newest; nullptr (said on `err`) for an unknown one.
const BehaviourProfile* servedProfile(const ServeArgs& args, const ServeSetup& setup, std::ostream& err) {
    std::string version = args.version;
    if (version.empty() && !setup.scenario.brokerVersions.empty()) version = setup.scenario.brokerVersions.front();
    std::string error;
    const BehaviourProfile* profile = version.empty() ? newestProfile() : profileFor(version, &error);
    if (!profile)
        err << "cnxsim serve: " << (args.version.empty() ? args.setupFile + ": broker.version" : "--broker-version")
            << ": " << error << "\n";
    return profile;
}

/// The start-up state, also what POST /cnxsim/reset returns to: a standalone
/// broker's tenants and namespaces (not the scenario rule), then broker.conf,
/// the setup file and --set, so the last word is the command line's.
Lifecycle::Prepare startUpState(const ServeArgs& args, const ServeSetup& setup, Broker& broker, AdminApi& admin,
                                std::ostream& err) {
    return [&args, &setup, &broker, &admin, &err](Lifecycle::Done done) {
        broker.metadata().makeStandalone();
        if (!args.configFile.empty()) {
            if (auto e = applyConfigFile(args.configFile, broker, err)) return done("--config " + *e);
        }
        applyServeSetup(setup.scenario, broker, admin, [&, done](std::optional<std::string> e) {
            if (e) return done("--setup " + args.setupFile + ": " + *e);
            for (const auto& [key, value] : args.settings) {
                if (TlsSettings::isKey(key)) continue;  // the listeners' (tlsSettingsOf), read once at start-up
                if (auto bad = broker.setConfig(key, value)) return done("--set " + key + "=" + value + ": " + *bad);
            }
            done(startUpProblem(broker));
        });
    };
}

/// Applies the start-up state before anything listens; the error when it fails.
std::optional<std::string> applyStartUpState(boost::asio::io_context& io, const Lifecycle::Prepare& prepare) {
    std::optional<std::string> startError = "the start-up state was not applied";
    prepare([&](std::optional<std::string> e) { startError = std::move(e); });
    io.run();  // the setup's uploads, answered by the registry; nothing else runs yet
    io.restart();
    return startError;
}

/// The TLS listeners' settings and, when any listens, their context.
std::optional<std::string> tlsOf(const ServeArgs& args, const ServeSetup& setup, TlsSettings& tls,
                                 std::shared_ptr<boost::asio::ssl::context>& tlsContext) {
    if (auto e = tlsSettingsOf(args, setup, tls)) return e;
    if (tls.anyListener()) {
        auto made = makeServerTlsContext(tls);
        if (auto* e = std::get_if<std::string>(&made)) return *e;
        tlsContext = std::get<0>(std::move(made));
    }
    if (args.noPort && !tls.brokerServicePortTls)
        return std::string("--port none: no binary listener is left; give --tls-port (brokerServicePortTls)");
    return std::nullopt;
}

/// --trace: the trace log, to stdout or the file through a bounded queue to
/// its own writer (output_queue.h); none without --trace.
std::optional<std::string> openTrace(const ServeArgs& args, std::unique_ptr<OutputQueue>& traceOutput,
                                     std::unique_ptr<TraceLog>& trace) {
    if (args.traceFile == "-") {
        traceOutput = std::make_unique<OutputQueue>(STDOUT_FILENO, false);
    } else if (!args.traceFile.empty()) {
        int fd = ::open(args.traceFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) return "--trace " + args.traceFile + ": cannot open for writing";
        traceOutput = std::make_unique<OutputQueue>(fd, true);
    }
    if (traceOutput) trace = std::make_unique<TraceLog>([q = traceOutput.get()](std::string text) { q->push(std::move(text)); });
    return std::nullopt;
}

/// The faults of the setup file, then --fault's.
FaultPlan faultsOf(const ServeArgs& args, ServeSetup& setup) {
    FaultPlan faults;
    for (auto& f : setup.faults) faults.add(std::move(f));
    for (const auto& text : args.faults) faults.add(std::get<Fault>(parseFault(text)));
    return faults;
}

/// --record: the recorder, tapping `server`, once its target is known writable.
std::optional<std::string> startRecorder(const ServeArgs& args, const ServeSetup& setup,
                                         const BehaviourProfile& profile, Server& server,
                                         std::unique_ptr<record::SessionRecorder>& recorder) {
    if (args.recordFile.empty()) return std::nullopt;
    if (auto e = record::checkRecordTarget(args.recordFile))  // before listening (issue 40, item 11)
        return "--record " + *e;
    recorder = std::make_unique<record::SessionRecorder>(record::RecorderOptions{
        profile.release.toString(), record::recordedHow("cnxsim serve --record"), ""});
    recorder->setSetup(setup.scenario);
    recorder->setBrokerConfig(startSettings(args, setup.scenario));
    server.addTap(recorder.get());
    return std::nullopt;
}

/// The binary listeners on --bind's address (into `ip`): --port (unless none),
/// then brokerServicePortTls.
std::optional<std::string> listenBinary(boost::asio::io_context& io, const ServeArgs& args, const TlsSettings& tls,
                                        const std::shared_ptr<boost::asio::ssl::context>& tlsContext, Server& server,
                                        std::string& ip) {
    auto bindIp = resolveBind(io, args.bind);
    if (bindIp.index() == 0) return "--bind: " + std::get<0>(bindIp);
    ip = std::get<1>(bindIp);
    if (!args.noPort) {
        if (auto e = server.listen(ip, args.port)) return e;
    }
    if (tls.brokerServicePortTls) {
        if (auto e = server.listenTls(ip, *tls.brokerServicePortTls, tlsContext)) return "brokerServicePortTls: " + *e;
    }
    return std::nullopt;
}

/// The admin API's handler: authentication first, as Pulsar's
/// AuthenticationFilter (auth_filter.h), with the client certificate the TLS
/// handshake verified; then the check the path's Pulsar resource makes
/// (admin_access.h); then the routes. Every exchange goes to the server's tap.
http::Handler adminHandler(http::AdminRoutes& routes, Server& server, Broker& broker) {
    return [&routes, &server, &broker](const http::Request& request, const http::RequestContext& context,
                                       std::function<void(http::Response)> reply) {
        auto verdict = http::authenticateRequest(broker, request, context.peer);
        if (auto* refusal = std::get_if<http::Response>(&verdict)) {
            if (auto* tap = server.tap()) tap->admin(http::exchangeOf(request, *refusal, nullptr));
            return reply(std::move(*refusal));
        }
        if (auto refusal = http::authorizeAdminRequest(broker, request, std::get<std::string>(verdict))) {
            if (auto* tap = server.tap()) tap->admin(http::exchangeOf(request, *refusal, nullptr));
            return reply(std::move(*refusal));
        }
        // `request` lives until `reply` is gone (the session holds it).
        routes.handle(request, [&server, &request, reply = std::move(reply)](http::Response response, TracePtr trace) {
            if (auto* tap = server.tap()) tap->admin(http::exchangeOf(request, response, trace.get()));
            reply(std::move(response));
        });
    };
}

/// The admin listeners on `ip`: --admin-port (unless none), then webServicePortTls.
std::optional<std::string> listenAdmin(const ServeArgs& args, const TlsSettings& tls, const std::string& ip,
                                       const std::shared_ptr<boost::asio::ssl::context>& tlsContext,
                                       http::HttpServer& adminServer) {
    // A free admin port when the binary one is (--port 0, or --port none with --tls-port 0).
    bool freePorts = args.noPort ? tls.brokerServicePortTls == 0 : args.port == 0;
    std::uint16_t adminPort = args.adminPort.value_or(freePorts ? 0 : 8080);
    if (!args.noAdminPort) {
        if (auto e = adminServer.listen(ip, adminPort)) return "--admin-port: " + *e;
    }
    if (tls.webServicePortTls) {
        if (auto e = adminServer.listenTls(ip, *tls.webServicePortTls, tlsContext)) return "webServicePortTls: " + *e;
    }
    return std::nullopt;
}

/// --record: the recording file, once everything listens.
std::optional<std::string> createRecording(const ServeArgs& args, record::SessionRecorder* recorder,
                                           std::unique_ptr<record::RecordingFile>& recording) {
    if (!recorder) return std::nullopt;
    auto created = record::RecordingFile::create(args.recordFile, *recorder);
    if (auto* e = std::get_if<std::string>(&created)) return "--record " + *e;
    recording = std::move(std::get<std::unique_ptr<record::RecordingFile>>(created));
    return std::nullopt;
}

/// SIGINT and SIGTERM stop both servers, which ends io.run().
void stopOnSignal(boost::asio::signal_set& signals, http::HttpServer& adminServer, Server& server) {
    signals.async_wait([&adminServer, &server](const boost::system::error_code& ec, int signal) {
        if (ec) return;
        spdlog::info("signal {}: stopping", signal);
        adminServer.stop();
        server.stop();
    });
}

/// After the stop: the trace drained, drops reported, the recording finished.
/// The exit status (kExitFailed when the recording cannot be finished).
int finishServe(OutputQueue* traceOutput, OutputQueue& errors, record::SessionRecorder* recorder,
                record::RecordingFile* recording, std::ostream& err) {
    if (traceOutput) traceOutput->drain(std::chrono::seconds(1));
    reportDrops(errors, traceOutput);
    if (recorder) {
        if (auto e = recording->finish(*recorder)) {
            err << "cnxsim serve: --record " << *e << "\n";
            return sim::kExitFailed;
        }
    }
    return sim::kExitPassed;
}

/// A served schema carries the time it was stored, as a broker's does (GetSchemaResponse.timestamp).
void useWallClock(Broker& broker) {
    broker.registry().setClock([] {
        return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    });
}

/// The ready line's URLs: every URL served, each scheme once, plain ones first
/// (parsers that read the first pulsar:// and http:// URLs keep working).
std::string readyUrls(const std::string& bind, const BehaviourProfile& profile, const Server& server,
                      const http::HttpServer& adminServer) {
    std::string host = bind.find(':') != std::string::npos ? "[" + bind + "]" : bind;
    std::string urls;
    auto name = [&](const std::string& text) { urls += (urls.empty() ? "" : ", ") + text; };
    std::string behaviour = " (Pulsar " + profile.release.toString() + " behaviour)";
    std::string tlsUrl = "pulsar+ssl://" + host + ":" + std::to_string(server.tlsPort());
    if (server.port()) name("pulsar://" + host + ":" + std::to_string(server.port()) + behaviour);
    else name(tlsUrl + behaviour);  // --port none: the TLS URL leads
    if (adminServer.port()) name("admin http://" + host + ":" + std::to_string(adminServer.port()));
    if (server.port() && server.tlsPort()) name(tlsUrl);
    if (adminServer.tlsPort()) name("admin https://" + host + ":" + std::to_string(adminServer.tlsPort()));
    return urls;
}

}  // namespace

int runServe(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err, FastPaths fastPaths) {
    auto invalid = [&](const std::string& why) {
        err << "cnxsim serve: " << why << "\n";
        return sim::kExitInvalid;
    };
    ServeArgs args;
    if (auto e = parseServeArgs(argv, args)) {
        err << "cnxsim serve: " << *e << "\n" << serveUsage();
        return sim::kExitInvalid;
    }
    if (args.help) {
        out << serveUsage();
        return sim::kExitPassed;
    }
    // A reader gone from stdout or stderr (`serve --trace - | head -1`) is a
    // closed output (EPIPE, counted as drops), never the end of the server.
    std::signal(SIGPIPE, SIG_IGN);
    auto errors = std::make_shared<OutputQueue>(STDERR_FILENO, false);
    ServeLogging logging(args.verbosity, errors);

    ServeSetup setup;
    if (!loadSetup(args, setup, err)) return sim::kExitInvalid;
    const BehaviourProfile* profile = servedProfile(args, setup, err);
    if (!profile) return sim::kExitInvalid;

    boost::asio::io_context io;
    AsioScheduler scheduler(io);
    Broker broker(*profile, scheduler, fastPaths);
    broker.setMaxLogBytes(args.maxLogBytes);
    useWallClock(broker);
    AdminApi admin(broker);
    Lifecycle::Prepare prepare = startUpState(args, setup, broker, admin, err);
    if (auto e = applyStartUpState(io, prepare)) return invalid(*e);

    TlsSettings tls;
    std::shared_ptr<boost::asio::ssl::context> tlsContext;
    if (auto e = tlsOf(args, setup, tls, tlsContext)) return invalid(*e);
    args.options.handshakeTimeout = std::min<std::chrono::milliseconds>(std::chrono::seconds(10), args.options.keepAlive);

    std::unique_ptr<OutputQueue> traceOutput;
    std::unique_ptr<TraceLog> trace;
    if (auto e = openTrace(args, traceOutput, trace)) return invalid(*e);

    Server server(io, broker, args.options);
    server.setFaults(faultsOf(args, setup));
    if (trace) server.addTap(trace.get());
    std::unique_ptr<record::SessionRecorder> recorder;
    std::unique_ptr<record::RecordingFile> recording;
    if (auto e = startRecorder(args, setup, *profile, server, recorder)) return invalid(*e);
    std::string ip;
    if (auto e = listenBinary(io, args, tls, tlsContext, server, ip)) return invalid(*e);

    DecisionRing ring;
    server.addTap(&ring);
    Lifecycle lifecycle(broker, server, *profile, prepare);
    http::AdminRoutes routes(broker, admin, &lifecycle, &server, &ring);
    http::HttpServer adminServer(io, adminHandler(routes, server, broker));
    if (auto e = listenAdmin(args, tls, ip, tlsContext, adminServer)) return invalid(*e);
    broker.setListenAddress({args.bind, server.port(), adminServer.port(), server.tlsPort()});
    std::string urls = readyUrls(args.bind, *profile, server, adminServer);
    // Created once everything listens, before any client can connect (no ready line yet).
    if (auto e = createRecording(args, recorder.get(), recording)) return invalid(*e);
    boost::asio::signal_set signals(io, SIGINT, SIGTERM);
    stopOnSignal(signals, adminServer, server);
    out << "ready: " << urls << std::endl;
    io.run();
    return finishServe(traceOutput.get(), *errors, recorder.get(), recording.get(), err);
}

}  // namespace cnx::serve
