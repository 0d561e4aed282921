#include "sim/serve/serve_command.h"

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
#include "sim/serve/http/http_server.h"
#include "sim/serve/lifecycle.h"
#include "sim/serve/output_queue.h"
#include "sim/serve/server.h"
#include "sim/serve/setup.h"
#include "sim/serve/tls_context.h"
#include "sim/serve/tls_settings.h"
#include "sim/serve/trace_log.h"

namespace cnx::serve {
namespace {

constexpr std::string_view kServeUsage =
    "usage: cnxsim serve [--broker-version V] [--config broker.conf] [--set key=value ...]\n"
    "                    [--setup FILE.yaml] [--fault COMMAND:ACTION ...] [--bind ADDRESS]\n"
    "                    [--port N|none] [--admin-port N|none] [--tls-port N]\n"
    "                    [--admin-tls-port N] [--trace FILE|-]\n"
    "                    [--keepalive-seconds S]\n"
    "                    [--max-queued-bytes N] [--max-incomplete-bytes N]\n"
    "                    [--max-log-bytes N] [--record FILE.yaml] [-v]\n"
    "\n"
    "Serves the model on Pulsar's binary protocol, for real clients: point a\n"
    "client's serviceUrl at the address printed. Once listening it prints one line,\n"
    "  ready: pulsar://127.0.0.1:6650 (Pulsar 4.2.2 behaviour), admin http://127.0.0.1:8080\n"
    "(with TLS listeners, then pulsar+ssl://H:P and admin https://H:P; a listener\n"
    "turned off is left out: read the URLs by scheme, not by position)\n"
    "and serves until SIGINT or SIGTERM (exit 0).\n"
    "\n"
    "  --broker-version V    the release whose behaviour is served (default: the setup\n"
    "                        file's broker.version, else the newest modelled;\n"
    "                        `cnxsim profiles` lists them)\n"
    "  --config FILE         a broker.conf: the settings the model reads are applied,\n"
    "                        the others ignored (-v lists them; a near-miss of a known\n"
    "                        key is warned about)\n"
    "  --set key=value       a broker.conf setting (repeatable; applied after --config\n"
    "                        and the setup file)\n"
    "  --setup FILE.yaml     preload the broker: a file in the scenario format whose\n"
    "                        broker, namespaces, topics and schemas sections, and\n"
    "                        upload-schema / set-policy / set-broker-config steps, are\n"
    "                        applied before the first client connects; its faults list\n"
    "                        takes what --fault takes\n"
    "  --fault COMMAND:ACTION inject a fault for client authors (repeatable), e.g.\n"
    "                        PRODUCER:delay=200ms, SUBSCRIBE:error=ServiceNotReady,\n"
    "                        LOOKUP:drop, SEND:error=PersistenceError,times=3; actions\n"
    "                        delay=DURATION (ms or s, at most 1 hour), drop (never\n"
    "                        answered), error=ServerError [message=TEXT, last],\n"
    "                        times=N (only the first N such commands)\n"
    "  --bind ADDRESS        the address to listen on, an IP address or a host name\n"
    "                        (default 127.0.0.1: a test double is not opened to the\n"
    "                        network unless asked); LOOKUP answers it unless\n"
    "                        broker.conf's advertisedAddress or advertisedListeners\n"
    "                        say otherwise\n"
    "  --port N|none         the port (default 6650; 0 picks a free one, printed in the\n"
    "                        ready line, for parallel test jobs); none: no plain\n"
    "                        listener (then a --tls-port is needed)\n"
    "  --admin-port N        the admin REST API's port (default 8080, or a free one\n"
    "                        when --port is 0; printed in the ready line): Pulsar's\n"
    "                        /admin/v2 paths of the served release, and cnxsim's own\n"
    "                        under /cnxsim/: GET status, GET trace?last=N (the last N\n"
    "                        decisions as JSON), POST upgrade?version=V, POST restart,\n"
    "                        POST reset (back to the start-up state); none: no plain\n"
    "                        admin listener\n"
    "  --tls-port N          also serve the binary protocol over TLS (pulsar+ssl://) on\n"
    "                        port N (0: a free one); broker.conf's brokerServicePortTls\n"
    "  --admin-tls-port N    also serve the admin API over HTTPS on port N (0: a free\n"
    "                        one); broker.conf's webServicePortTls. Both take the\n"
    "                        certificate from the broker.conf keys (--config, --set,\n"
    "                        --setup): tlsCertificateFilePath and tlsKeyFilePath\n"
    "                        (PEM; the key PKCS#8 or traditional, unencrypted),\n"
    "                        tlsTrustCertsFilePath (the CAs a client certificate\n"
    "                        must chain to), tlsRequireTrustedClientCertOnConnect\n"
    "                        (a client without a trusted certificate is refused in\n"
    "                        the handshake) and tlsAllowInsecureConnection (any\n"
    "                        client certificate is accepted); a TLS handshake must\n"
    "                        finish within 10 s (or --keepalive-seconds if shorter)\n"
    "  --trace FILE|-        write one line per command (connection, request id,\n"
    "                        outcome) and the decision trace `cnxsim explain` prints,\n"
    "                        to FILE or, with -, to standard output after the ready line\n"

    "  --keepalive-seconds S PING a peer silent for S seconds, close it after 2*S;\n"
    "                        close one whose queued frames see no write for 2*S\n"
    "                        (default 30)\n"
    "  --max-queued-bytes N  close a peer that does not read once N bytes wait to be\n"
    "                        sent to it (default 16777216, at least 1024); dispatch\n"
    "                        to a consumer pauses at N/4 (at most 1 MiB) and\n"
    "                        resumes below half of that\n"
    "  --max-incomplete-bytes N  bytes held for frames not yet complete, all\n"
    "                        connections together; the peer whose read passes it\n"
    "                        is closed, the others are served (default 67108864,\n"
    "                        at least 1048576)\n"
    "  --max-log-bytes N     bytes of messages the broker keeps in memory, all\n"
    "                        topics together (entries every subscription has\n"
    "                        acknowledged are dropped); over it a SEND gets\n"
    "                        SEND_ERROR PersistenceError, as when the broker cannot\n"
    "                        store (default 268435456, at least 1024)\n"
    "  --record FILE.yaml    record the session as a scenario: each client and admin\n"
    "                        step with the broker's answer as its expect, the --setup\n"
    "                        file and the settings as its header; written as the\n"
    "                        session goes, so a killed serve keeps what happened\n"
    "                        (`cnxsim run FILE.yaml` replays it). A symbolic link\n"
    "                        or a read-only folder is refused before listening\n"
    "  -v                    log connections and why each closed, on stderr\n"
    "\n"
    "The trace and the log never hold up serving: each is written from a bounded\n"
    "queue (4 MiB); a line the reader does not take in time is dropped, and the\n"
    "number dropped is said on stderr when serve stops. A closed output (a reader\n"
    "gone: `serve --trace - | head -1`) is written no more; serve goes on.\n"
    "\n"
    "Served: CONNECT, PING/PONG, LOOKUP, PARTITIONED_METADATA, GET_TOPICS_OF_NAMESPACE,\n"
    "PRODUCER, SEND, SUBSCRIBE, FLOW/MESSAGE, ACK, REDELIVER_UNACKNOWLEDGED_MESSAGES,\n"
    "UNSUBSCRIBE, SEEK, GET_LAST_MESSAGE_ID, CLOSE_PRODUCER/CLOSE_CONSUMER, GET_SCHEMA,\n"
    "GET_OR_CREATE_SCHEMA, CONSUMER_STATS, AUTH_RESPONSE. Not modelled: topic\n"
    "watchers, transactions; such a command closes its connection with the reason\n"
    "(logged at -v).\n"
    "\n"
    "Authentication, as broker.conf's keys say (--config, --set, --setup):\n"
    "authenticationEnabled=true, authenticationProviders (Pulsar's class names of\n"
    "AuthenticationProviderToken, ...Basic, ...Tls), tokenSecretKey or\n"
    "tokenPublicKey (file:///path, data:;base64,..., a path or base64),\n"
    "basicAuthConf (an htpasswd file: apr1 or crypt), anonymousUserRole. A client\n"
    "without valid credentials gets ERROR AuthenticationError \"Failed to\n"
    "authenticate\"; an admin request 401 (doc/serve/tls-and-auth.md). A key or\n"
    "file that cannot be used exits 2 naming the setting.\n"
    "\n"
    "exit status: 0 stopped by a signal, 1 the --record file could not be written,\n"
    "2 invalid arguments, a bad --config or --setup file, a TLS certificate or key\n"
    "that cannot be used (the message names the setting), or an address that\n"
    "cannot be bound\n";

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

template <typename Number>
bool numberFrom(const std::string& text, Number& n) {
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    return ec == std::errc() && p == text.data() + text.size();
}

/// The words after `serve`, parsed by the CLI's option table (sim/cli/cli_args),
/// then each value checked and turned into ServeArgs.
std::optional<std::string> parseServeArgs(const std::vector<std::string>& in, ServeArgs& out) {
    sim::Args args;
    if (auto e = sim::parseArgs("serve", in, args)) return e;
    if (!args.positional.empty()) return "unknown argument '" + args.positional.front() + "' for 'cnxsim serve'";
    out.help = args.has("--help");
    out.verbosity = args.verbosity;
    for (auto [name, field] : {std::pair{"--broker-version", &out.version}, {"--config", &out.configFile},
                               {"--setup", &out.setupFile}, {"--record", &out.recordFile}, {"--trace", &out.traceFile},
                               {"--bind", &out.bind}})
        if (const auto* v = args.value(name)) *field = *v;
    for (const auto& value : args.all("--fault")) {
        auto parsed = parseFault(value);
        if (auto* e = std::get_if<std::string>(&parsed)) return "--fault " + value + ": " + *e;
        out.faults.push_back(value);
    }
    for (const auto& value : args.all("--set")) {
        auto e = value.find('=');
        if (e == std::string::npos || e == 0) return "--set takes key=value (got '" + value + "')";
        out.settings.emplace_back(value.substr(0, e), value.substr(e + 1));
    }
    for (const char* name : {"--port", "--admin-port", "--tls-port", "--admin-tls-port"}) {
        const auto* value = args.value(name);
        if (!value) continue;
        std::string_view n(name);
        bool plain = n == "--port" || n == "--admin-port";
        if (plain && *value == "none") {
            (n == "--port" ? out.noPort : out.noAdminPort) = true;
            continue;
        }
        unsigned port = 0;
        if (!numberFrom(*value, port) || port > 65535)
            return std::string(name) + " takes a number from 0 to 65535" + (plain ? " or none" : "") + " (got '" +
                   *value + "')";
        auto p = static_cast<std::uint16_t>(port);
        if (n == "--port") out.port = p;
        else if (n == "--admin-port") out.adminPort = p;
        else if (n == "--tls-port") out.tlsPort = p;
        else out.adminTlsPort = p;
    }
    if (const auto* value = args.value("--max-queued-bytes")) {
        unsigned long long bytes = 0;
        if (!numberFrom(*value, bytes) || bytes < 1024 || bytes > (1ull << 40))
            return "--max-queued-bytes takes a number of bytes from 1024 to 2^40 (got '" + *value + "')";
        out.options.maxQueuedBytes = static_cast<std::size_t>(bytes);
    }
    if (const auto* value = args.value("--max-incomplete-bytes")) {
        unsigned long long bytes = 0;
        if (!numberFrom(*value, bytes) || bytes < (1ull << 20) || bytes > (1ull << 40))
            return "--max-incomplete-bytes takes a number of bytes from 1048576 to 2^40 (got '" + *value + "')";
        out.options.maxIncompleteBytes = static_cast<std::size_t>(bytes);
    }
    if (const auto* value = args.value("--max-log-bytes")) {
        unsigned long long bytes = 0;
        if (!numberFrom(*value, bytes) || bytes < 1024 || bytes > (1ull << 40))
            return "--max-log-bytes takes a number of bytes from 1024 to 2^40 (got '" + *value + "')";
        out.maxLogBytes = bytes;
    }
    if (const auto* value = args.value("--keepalive-seconds")) {
        double seconds = 0;
        if (!numberFrom(*value, seconds) || !(seconds > 0) || seconds > 86400)
            return "--keepalive-seconds takes a number of seconds above 0, at most 86400 (got '" + *value + "')";
        out.options.keepAlive = std::chrono::milliseconds(static_cast<long long>(seconds * 1000 + 0.5));
        if (out.options.keepAlive.count() == 0) out.options.keepAlive = std::chrono::milliseconds(1);
    }
    return std::nullopt;
}

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

}  // namespace

std::string_view serveUsage() { return kServeUsage; }

int runServe(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err, FastPaths fastPaths) {
    ServeArgs args;
    if (auto e = parseServeArgs(argv, args)) {
        err << "cnxsim serve: " << *e << "\n" << kServeUsage;
        return sim::kExitInvalid;
    }
    if (args.help) {
        out << kServeUsage;
        return sim::kExitPassed;
    }
    // A reader gone from stdout or stderr (`serve --trace - | head -1`) is a
    // closed output (EPIPE, counted as drops), never the end of the server.
    std::signal(SIGPIPE, SIG_IGN);
    auto errors = std::make_shared<OutputQueue>(STDERR_FILENO, false);
    ServeLogging logging(args.verbosity, errors);

    ServeSetup setup;
    if (!args.setupFile.empty()) {
        auto loaded = loadServeSetup(args.setupFile);
        if (auto* errors = std::get_if<std::vector<std::string>>(&loaded)) {
            for (const auto& e : *errors) err << e << "\n";
            err << "cnxsim serve: --setup " << args.setupFile << ": " << errors->size() << " problem(s)\n";
            return sim::kExitInvalid;
        }
        setup = std::get<ServeSetup>(std::move(loaded));
        if (!setup.scenario.clients.empty())
            err << "cnxsim serve: warning: " << args.setupFile << ": 'clients' is ignored (real clients connect)\n";
    }
    std::string version = args.version;
    if (version.empty() && !setup.scenario.brokerVersions.empty()) version = setup.scenario.brokerVersions.front();
    std::string error;
    const BehaviourProfile* profile = version.empty() ? newestProfile() : profileFor(version, &error);
    if (!profile) {
        err << "cnxsim serve: " << (args.version.empty() ? args.setupFile + ": broker.version" : "--broker-version")
            << ": " << error << "\n";
        return sim::kExitInvalid;
    }

    boost::asio::io_context io;
    AsioScheduler scheduler(io);
    Broker broker(*profile, scheduler, fastPaths);
    broker.setMaxLogBytes(args.maxLogBytes);
    // A served schema carries the time it was stored, as a broker's does (GetSchemaResponse.timestamp).
    broker.registry().setClock([] {
        return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    });
    AdminApi admin(broker);
    // The start-up state, also what POST /cnxsim/reset returns to: a standalone
    // broker's tenants and namespaces (not the scenario rule), then broker.conf,
    // the setup file and --set, so the last word is the command line's.
    Lifecycle::Prepare prepare = [&](Lifecycle::Done done) {
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
    std::optional<std::string> startError = "the start-up state was not applied";
    prepare([&](std::optional<std::string> e) { startError = std::move(e); });
    io.run();  // the setup's uploads, answered by the registry; nothing else runs yet
    io.restart();
    if (startError) {
        err << "cnxsim serve: " << *startError << "\n";
        return sim::kExitInvalid;
    }

    TlsSettings tls;
    if (auto e = tlsSettingsOf(args, setup, tls)) {
        err << "cnxsim serve: " << *e << "\n";
        return sim::kExitInvalid;
    }
    std::shared_ptr<boost::asio::ssl::context> tlsContext;
    if (tls.anyListener()) {
        auto made = makeServerTlsContext(tls);
        if (auto* e = std::get_if<std::string>(&made)) {
            err << "cnxsim serve: " << *e << "\n";
            return sim::kExitInvalid;
        }
        tlsContext = std::get<0>(std::move(made));
    }
    if (args.noPort && !tls.brokerServicePortTls) {
        err << "cnxsim serve: --port none: no binary listener is left; give --tls-port (brokerServicePortTls)\n";
        return sim::kExitInvalid;
    }
    args.options.handshakeTimeout = std::min<std::chrono::milliseconds>(std::chrono::seconds(10), args.options.keepAlive);

    // The trace goes through a bounded queue to its own writer (output_queue.h).
    std::unique_ptr<OutputQueue> traceOutput;
    std::unique_ptr<TraceLog> trace;
    if (args.traceFile == "-") {
        traceOutput = std::make_unique<OutputQueue>(STDOUT_FILENO, false);
    } else if (!args.traceFile.empty()) {
        int fd = ::open(args.traceFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) {
            err << "cnxsim serve: --trace " << args.traceFile << ": cannot open for writing\n";
            return sim::kExitInvalid;
        }
        traceOutput = std::make_unique<OutputQueue>(fd, true);
    }
    if (traceOutput) trace = std::make_unique<TraceLog>([q = traceOutput.get()](std::string text) { q->push(std::move(text)); });

    FaultPlan faults;
    for (auto& f : setup.faults) faults.add(std::move(f));
    for (const auto& text : args.faults) faults.add(std::get<Fault>(parseFault(text)));

    Server server(io, broker, args.options);
    server.setFaults(std::move(faults));
    if (trace) server.addTap(trace.get());
    std::unique_ptr<record::SessionRecorder> recorder;
    std::unique_ptr<record::RecordingFile> recording;
    if (!args.recordFile.empty()) {
        if (auto e = record::checkRecordTarget(args.recordFile)) {  // before listening (issue 40, item 11)
            err << "cnxsim serve: --record " << *e << "\n";
            return sim::kExitInvalid;
        }
        recorder = std::make_unique<record::SessionRecorder>(record::RecorderOptions{
            profile->release.toString(), record::recordedHow("cnxsim serve --record"), ""});
        recorder->setSetup(setup.scenario);
        recorder->setBrokerConfig(startSettings(args, setup.scenario));
        server.addTap(recorder.get());
    }
    auto bindIp = resolveBind(io, args.bind);
    if (bindIp.index() == 0) {
        err << "cnxsim serve: --bind: " << std::get<0>(bindIp) << "\n";
        return sim::kExitInvalid;
    }
    const auto ip = std::get<1>(bindIp);
    if (!args.noPort) {
        if (auto e = server.listen(ip, args.port)) {
            err << "cnxsim serve: " << *e << "\n";
            return sim::kExitInvalid;
        }
    }
    if (tls.brokerServicePortTls) {
        if (auto e = server.listenTls(ip, *tls.brokerServicePortTls, tlsContext)) {
            err << "cnxsim serve: brokerServicePortTls: " << *e << "\n";
            return sim::kExitInvalid;
        }
    }
    std::string host = args.bind.find(':') != std::string::npos ? "[" + args.bind + "]" : args.bind;

    DecisionRing ring;
    server.addTap(&ring);
    Lifecycle lifecycle(broker, server, *profile, prepare);
    http::AdminRoutes routes(broker, admin, &lifecycle, &server, &ring);
    http::HttpServer adminServer(io, [&routes, &server, &broker](const http::Request& request,
                                                                 const http::RequestContext& context,
                                                                 std::function<void(http::Response)> reply) {
        // Authentication first, as Pulsar's AuthenticationFilter (auth_filter.h), with the
        // client certificate the TLS handshake verified; then the check the path's Pulsar
        // resource makes (admin_access.h).
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
    });
    // A free admin port when the binary one is (--port 0, or --port none with --tls-port 0).
    bool freePorts = args.noPort ? tls.brokerServicePortTls == 0 : args.port == 0;
    std::uint16_t adminPort = args.adminPort.value_or(freePorts ? 0 : 8080);
    if (!args.noAdminPort) {
        if (auto e = adminServer.listen(ip, adminPort)) {
            err << "cnxsim serve: --admin-port: " << *e << "\n";
            return sim::kExitInvalid;
        }
    }
    if (tls.webServicePortTls) {
        if (auto e = adminServer.listenTls(ip, *tls.webServicePortTls, tlsContext)) {
            err << "cnxsim serve: webServicePortTls: " << *e << "\n";
            return sim::kExitInvalid;
        }
    }
    broker.setListenAddress({args.bind, server.port(), adminServer.port(), server.tlsPort()});
    // The ready line: every URL served, each scheme once, plain ones first
    // (parsers that read the first pulsar:// and http:// URLs keep working).
    std::string urls;
    auto name = [&](const std::string& text) { urls += (urls.empty() ? "" : ", ") + text; };
    std::string behaviour = " (Pulsar " + profile->release.toString() + " behaviour)";
    std::string tlsUrl = "pulsar+ssl://" + host + ":" + std::to_string(server.tlsPort());
    if (server.port()) name("pulsar://" + host + ":" + std::to_string(server.port()) + behaviour);
    else name(tlsUrl + behaviour);  // --port none: the TLS URL leads
    if (adminServer.port()) name("admin http://" + host + ":" + std::to_string(adminServer.port()));
    if (server.port() && server.tlsPort()) name(tlsUrl);
    if (adminServer.tlsPort()) name("admin https://" + host + ":" + std::to_string(adminServer.tlsPort()));
    if (recorder) {  // created once everything listens, before any client can connect (no ready line yet)
        auto created = record::RecordingFile::create(args.recordFile, *recorder);
        if (auto* e = std::get_if<std::string>(&created)) {
            err << "cnxsim serve: --record " << *e << "\n";
            return sim::kExitInvalid;
        }
        recording = std::move(std::get<std::unique_ptr<record::RecordingFile>>(created));
    }
    boost::asio::signal_set signals(io, SIGINT, SIGTERM);
    signals.async_wait([&](const boost::system::error_code& ec, int signal) {
        if (ec) return;
        spdlog::info("signal {}: stopping", signal);
        adminServer.stop();
        server.stop();
    });
    out << "ready: " << urls << std::endl;
    io.run();
    if (traceOutput) traceOutput->drain(std::chrono::seconds(1));
    reportDrops(*errors, traceOutput.get());
    if (recorder) {
        if (auto e = recording->finish(*recorder)) {
            err << "cnxsim serve: --record " << *e << "\n";
            return sim::kExitFailed;
        }
    }
    return sim::kExitPassed;
}

}  // namespace cnx::serve
