#include "sim/cli/serve_args.h"

#include <charconv>
#include <chrono>
#include <string_view>
#include <variant>

#include "sim/cli/cli_args.h"
#include "sim/serve/fault.h"
#include "sim/cli/serve_command.h"

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

template <typename Number>
bool numberFrom(const std::string& text, Number& n) {
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    return ec == std::errc() && p == text.data() + text.size();
}

}  // namespace

std::string_view serveUsage() { return kServeUsage; }

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

}  // namespace cnx::serve
