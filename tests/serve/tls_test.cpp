// `cnxsim serve`'s TLS listeners (issue 44 part A) through the real binary:
// the binary protocol over pulsar+ssl:// and the admin API over https://, with
// a client of the test's own over Boost.Asio's ssl::stream (OpenSSL). The
// certificates come from tests/tls/make_test_pki.sh, run at test time into the
// build folder (nothing secret is committed).

#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "http_client.h"
#include "serve_client.h"
#include "serve_files.h"

namespace {

using namespace serve_test;
namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;
namespace fs = std::filesystem;

/// The test PKI, made once per build folder (flock: the ctest cases run in parallel),
/// with the extras these tests need: the broker key in traditional PEM and a
/// self-signed client certificate no CA vouches for.
const fs::path& pki() {
    static const fs::path dir = [] {
        fs::path d = CNXSIM_TEST_PKI_DIR;
        std::string script = std::string("set -e; d='") + d.string() + "'; mkdir -p \"$d\"; exec 9>\"$d.lock\"; flock 9; " +
                             "bash '" + CNXSIM_MAKE_TEST_PKI + "' \"$d\"; cd \"$d\"; [ -f extras-ready ] && exit 0; " +
                             "openssl pkey -in broker.key.pem -traditional -out broker.traditional.key.pem 2>/dev/null || " +
                             "openssl rsa -in broker.key.pem -traditional -out broker.traditional.key.pem; " +
                             "openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj /CN=stranger " +
                             "-keyout stranger.key.pem -out stranger.cert.pem >/dev/null 2>&1; " +
                             "printf 'not a certificate\\n' > garbage.pem; touch extras-ready";
        std::string command = "bash -c \"" + [&] {
            std::string escaped;
            for (char c : script) {
                if (c == '"' || c == '\\' || c == '$' || c == '`') escaped += '\\';
                escaped += c;
            }
            return escaped;
        }() + "\"";
        if (std::system(command.c_str()) != 0) throw std::runtime_error("tests/tls/make_test_pki.sh failed");
        return d;
    }();
    return dir;
}

std::string at(const char* file) { return (pki() / file).string(); }

/// The settings of a TLS listener with the test broker certificate.
std::vector<std::string> tlsArgs(std::vector<std::string> more = {}) {
    std::vector<std::string> args{"--set", "tlsCertificateFilePath=" + at("broker.cert.pem"), "--set",
                                  "tlsKeyFilePath=" + at("broker.key.pem")};
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

/// A client's TLS context: trusts the test CA, checks the server's name, and
/// presents `cert`/`key` when given.
std::shared_ptr<ssl::context> clientContext(const std::string& cert = {}, const std::string& key = {}) {
    auto ctx = std::make_shared<ssl::context>(ssl::context::tls_client);
    ctx->load_verify_file(at("ca.cert.pem"));
    ctx->set_verify_mode(ssl::verify_peer);
    if (!cert.empty()) {
        ctx->use_certificate_chain_file(cert);
        ctx->use_private_key_file(key, ssl::context::pem);
    }
    return ctx;
}

/// The binary protocol over TLS, synchronous, every wait bounded.
class TlsClient {
public:
    TlsClient(std::uint16_t port, std::shared_ptr<ssl::context> ctx) : ctx_(std::move(ctx)), stream_(io_, *ctx_) {
        stream_.set_verify_callback(ssl::host_name_verification("127.0.0.1"));
        boost::system::error_code ec;
        stream_.next_layer().connect({asio::ip::make_address("127.0.0.1"), port}, ec);
        if (ec) return;
        bool done = false;
        stream_.async_handshake(ssl::stream_base::client, [&](boost::system::error_code e) {
            handshakeError_ = e;
            done = true;
        });
        handshaken_ = await(done, 5s) && !handshakeError_;
    }
    bool handshaken() const { return handshaken_; }
    std::string handshakeError() const { return handshakeError_.message(); }

    bool send(const BaseCommand& cmd) {
        std::string body = cmd.SerializeAsString();
        std::string frame = be32(static_cast<std::uint32_t>(4 + body.size())) + be32(static_cast<std::uint32_t>(body.size())) + body;
        bool done = false;
        boost::system::error_code ec;
        asio::async_write(stream_, asio::buffer(frame), [&](boost::system::error_code e, std::size_t) {
            ec = e;
            done = true;
        });
        return await(done, 5s) && !ec;
    }
    /// The next frame's command; nullopt on timeout or a closed (or refused) connection.
    std::optional<BaseCommand> read(std::chrono::milliseconds timeout = 5s) {
        std::string sizes;
        if (!readExact(8, sizes, timeout)) return std::nullopt;
        std::uint32_t total = readBe32(sizes), cmdSize = readBe32(sizes, 4);
        if (total < 4 || cmdSize > total - 4 || total > 6 * 1024 * 1024) return std::nullopt;
        std::string rest;
        if (!readExact(total - 4, rest, timeout)) return std::nullopt;
        BaseCommand cmd;
        if (!cmd.ParseFromString(rest.substr(0, cmdSize))) return std::nullopt;
        return cmd;
    }
    std::optional<BaseCommand> call(const BaseCommand& cmd) {
        if (!send(cmd)) return std::nullopt;
        return read();
    }
    std::optional<BaseCommand> connect() {
        BaseCommand c;
        c.set_type(BaseCommand::CONNECT);
        c.mutable_connect()->set_client_version("serve-tls-test-client");
        c.mutable_connect()->set_protocol_version(21);
        return call(c);
    }
    /// The read error once the server has closed or refused the connection.
    std::string lastError() const { return lastError_.message(); }

private:
    bool await(const bool& done, std::chrono::milliseconds timeout) {
        io_.restart();
        io_.run_for(timeout);
        if (done) return true;
        boost::system::error_code ignored;
        stream_.next_layer().cancel(ignored);
        io_.restart();
        io_.run();
        return false;
    }
    bool readExact(std::size_t n, std::string& out, std::chrono::milliseconds timeout) {
        out.assign(n, '\0');
        bool done = false;
        boost::system::error_code ec;
        asio::async_read(stream_, asio::buffer(out), [&](boost::system::error_code e, std::size_t) {
            ec = e;
            done = true;
        });
        bool finished = await(done, timeout);
        if (ec) lastError_ = ec;
        return finished && !ec;
    }

    asio::io_context io_;
    std::shared_ptr<ssl::context> ctx_;
    ssl::stream<asio::ip::tcp::socket> stream_;
    boost::system::error_code handshakeError_;
    boost::system::error_code lastError_;
    bool handshaken_ = false;
};

BaseCommand producerCommand(const std::string& topic) {
    BaseCommand p;
    p.set_type(BaseCommand::PRODUCER);
    p.mutable_producer()->set_topic(topic);
    p.mutable_producer()->set_producer_id(1);
    p.mutable_producer()->set_request_id(1);
    return p;
}

struct HttpsAnswer {
    int status = 0;
    std::string body;
    std::string error;  // the handshake's or the exchange's, when it failed
};

/// One GET over https, the server's certificate checked against the test CA.
HttpsAnswer httpsGet(std::uint16_t port, const std::string& target, std::shared_ptr<ssl::context> ctx) {
    namespace beast = boost::beast;
    namespace http = beast::http;
    HttpsAnswer out;
    asio::io_context io;
    beast::ssl_stream<beast::tcp_stream> stream(io, *ctx);
    stream.set_verify_callback(ssl::host_name_verification("127.0.0.1"));
    beast::get_lowest_layer(stream).expires_after(10s);
    beast::error_code ec;
    beast::get_lowest_layer(stream).connect({asio::ip::make_address("127.0.0.1"), port}, ec);
    if (!ec) stream.handshake(ssl::stream_base::client, ec);
    http::request<http::string_body> req{http::verb::get, target, 11};
    req.set(http::field::host, "127.0.0.1");
    if (!ec) http::write(stream, req, ec);
    beast::flat_buffer buffer;
    http::response<http::string_body> res;
    if (!ec) http::read(stream, buffer, res, ec);
    if (ec) {
        out.error = ec.message();
        return out;
    }
    out.status = res.result_int();
    out.body = res.body();
    return out;
}

/// serve's exit status and standard error when it refuses to start.
struct Refusal {
    int status = -1;
    std::string stderrText;
    std::string readyLine;
};

Refusal refusedStart(std::vector<std::string> extra) {
    auto errFile = fs::temp_directory_path() / ("cnxsim-tls-test-" + std::to_string(getpid()) + ".err");
    Refusal r;
    {
        ServeProcess serve(std::move(extra), ServeStderr{ServeStderr::To::file, errFile.string()});
        r.readyLine = serve.readyLine();
        r.status = serve.stop();
    }
    std::ifstream in(errFile);
    std::stringstream text;
    text << in.rdbuf();
    r.stderrText = text.str();
    fs::remove(errFile);
    return r;
}

}  // namespace

TEST_CASE("serve over TLS: CONNECT and PRODUCER round trip on pulsar+ssl with the ready line naming both listeners", "[serve][tls]") {
    ServeProcess serve(tlsArgs({"--tls-port", "0"}));
    REQUIRE(serve.port() != 0);
    REQUIRE(serve.tlsPort() != 0);
    // Plain URLs first (old parsers keep working), then the TLS one.
    CHECK(serve.readyLine().find("ready: pulsar://127.0.0.1:") == 0);
    CHECK(serve.readyLine().find(", pulsar+ssl://127.0.0.1:" + std::to_string(serve.tlsPort())) != std::string::npos);
    CHECK(serve.readyLine().find("https://") == std::string::npos);

    TlsClient client(serve.tlsPort(), clientContext());
    REQUIRE(client.handshaken());
    auto connected = client.connect();
    REQUIRE(connected);
    CHECK(connected->type() == BaseCommand::CONNECTED);
    auto producer = client.call(producerCommand("persistent://public/default/tls-topic"));
    REQUIRE(producer);
    CHECK(producer->type() == BaseCommand::PRODUCER_SUCCESS);
    CHECK(producer->producer_success().producer_name() != "");

    // A lookup over TLS names the TLS URL (brokerServiceUrlTls), as a broker with brokerServicePortTls does.
    BaseCommand lookup;
    lookup.set_type(BaseCommand::LOOKUP);
    lookup.mutable_lookuptopic()->set_topic("persistent://public/default/tls-topic");
    lookup.mutable_lookuptopic()->set_request_id(2);
    auto answer = client.call(lookup);
    REQUIRE(answer);
    REQUIRE(answer->type() == BaseCommand::LOOKUP_RESPONSE);
    CHECK(answer->lookuptopicresponse().brokerserviceurltls() ==
          "pulsar+ssl://127.0.0.1:" + std::to_string(serve.tlsPort()));

    // The plain listener still serves beside it.
    Client plain(serve.port());
    CHECK(plain.handshake().type() == BaseCommand::CONNECTED);
    CHECK(serve.stop() == 0);
}

TEST_CASE("serve over TLS: a traditional PEM key is taken as a PKCS8 one is", "[serve][tls]") {
    ServeProcess serve({"--tls-port", "0", "--set", "tlsCertificateFilePath=" + at("broker.cert.pem"), "--set",
                        "tlsKeyFilePath=" + at("broker.traditional.key.pem")});
    REQUIRE(serve.tlsPort() != 0);
    TlsClient client(serve.tlsPort(), clientContext());
    REQUIRE(client.handshaken());
    auto connected = client.connect();
    REQUIRE(connected);
    CHECK(connected->type() == BaseCommand::CONNECTED);
}

TEST_CASE("serve over TLS: the admin API over https beside http", "[serve][tls]") {
    ServeProcess serve(tlsArgs({"--admin-tls-port", "0"}));
    REQUIRE(serve.adminPort() != 0);
    REQUIRE(serve.adminTlsPort() != 0);
    CHECK(serve.tlsPort() == 0);
    CHECK(serve.readyLine().find(", admin https://127.0.0.1:" + std::to_string(serve.adminTlsPort())) != std::string::npos);
    auto answer = httpsGet(serve.adminTlsPort(), "/admin/v2/clusters", clientContext());
    INFO(answer.error);
    CHECK(answer.status == 200);
    CHECK(answer.body == R"(["standalone"])");
    CHECK(serve.stop() == 0);
}

TEST_CASE("serve over TLS: with tlsRequireTrustedClientCertOnConnect a client certificate the CA signed is required", "[serve][tls]") {
    ServeProcess serve(tlsArgs({"--tls-port", "0", "--admin-tls-port", "0", "--set",
                                "tlsTrustCertsFilePath=" + at("ca.cert.pem"), "--set",
                                "tlsRequireTrustedClientCertOnConnect=true"}));
    REQUIRE(serve.tlsPort() != 0);

    SECTION("a client with the CA's client certificate is served") {
        TlsClient client(serve.tlsPort(), clientContext(at("client.cert.pem"), at("client.key.pem")));
        REQUIRE(client.handshaken());
        auto connected = client.connect();
        REQUIRE(connected);
        CHECK(connected->type() == BaseCommand::CONNECTED);
        auto answer = httpsGet(serve.adminTlsPort(), "/admin/v2/clusters",
                               clientContext(at("client.cert.pem"), at("client.key.pem")));
        CHECK(answer.status == 200);
    }
    SECTION("a client without a certificate is refused in the handshake") {
        TlsClient client(serve.tlsPort(), clientContext());
        // TLS 1.3: the client's side of the handshake may finish before the server's alert arrives.
        bool served = client.handshaken() && client.connect().has_value();
        CHECK_FALSE(served);
        auto answer = httpsGet(serve.adminTlsPort(), "/admin/v2/clusters", clientContext());
        CHECK(answer.status == 0);
        CHECK(answer.error != "");
    }
    SECTION("a client whose certificate no trusted CA signed is refused") {
        TlsClient client(serve.tlsPort(), clientContext(at("stranger.cert.pem"), at("stranger.key.pem")));
        bool served = client.handshaken() && client.connect().has_value();
        CHECK_FALSE(served);
    }
    CHECK(serve.stop() == 0);
}

TEST_CASE("serve over TLS: without the requirement a client without a certificate is served and a presented one is still verified", "[serve][tls]") {
    ServeProcess serve(tlsArgs({"--tls-port", "0", "--set", "tlsTrustCertsFilePath=" + at("ca.cert.pem")}));
    TlsClient anonymous(serve.tlsPort(), clientContext());
    REQUIRE(anonymous.handshaken());
    auto connected = anonymous.connect();
    REQUIRE(connected);
    CHECK(connected->type() == BaseCommand::CONNECTED);
    TlsClient stranger(serve.tlsPort(), clientContext(at("stranger.cert.pem"), at("stranger.key.pem")));
    CHECK_FALSE((stranger.handshaken() && stranger.connect().has_value()));

    SECTION("tlsAllowInsecureConnection accepts any client certificate") {
        ServeProcess insecure(tlsArgs({"--tls-port", "0", "--set", "tlsTrustCertsFilePath=" + at("ca.cert.pem"), "--set",
                                       "tlsAllowInsecureConnection=true", "--set",
                                       "tlsRequireTrustedClientCertOnConnect=true"}));
        TlsClient any(insecure.tlsPort(), clientContext(at("stranger.cert.pem"), at("stranger.key.pem")));
        REQUIRE(any.handshaken());
        auto ok = any.connect();
        REQUIRE(ok);
        CHECK(ok->type() == BaseCommand::CONNECTED);
    }
}

TEST_CASE("serve over TLS: plain bytes sent to the TLS port close that connection only", "[serve][tls]") {
    ServeProcess serve(tlsArgs({"--tls-port", "0"}));
    TlsClient good(serve.tlsPort(), clientContext());
    REQUIRE(good.handshaken());

    Client plain(serve.tlsPort());
    REQUIRE(plain.connected());
    BaseCommand connect;
    connect.set_type(BaseCommand::CONNECT);
    connect.mutable_connect()->set_client_version("plain-on-tls");
    connect.mutable_connect()->set_protocol_version(21);
    plain.send(connect);
    CHECK(plain.closedByServer(5s));

    auto connected = good.connect();
    REQUIRE(connected);
    CHECK(connected->type() == BaseCommand::CONNECTED);
    CHECK(serve.stop() == 0);
}

namespace {

std::size_t occurrences(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

}  // namespace

TEST_CASE("serve over TLS: a handshake that never finishes is closed at the handshake bound", "[serve][tls]") {
    // --keepalive-seconds 1: the handshake bound is min(10 s, the keep-alive interval).
    TempDir dir;
    auto errFile = dir.path / "stderr.txt";
    ServeProcess serve(tlsArgs({"--tls-port", "0", "--admin-tls-port", "0", "--keepalive-seconds", "1", "-v"}),
                       {ServeStderr::To::file, errFile.string()});
    REQUIRE(serve.tlsPort() != 0);
    Client silent(serve.tlsPort());
    Client trickling(serve.tlsPort());
    REQUIRE(silent.connected());
    REQUIRE(trickling.connected());
    trickling.raw(std::string("\x16\x03\x01\x02\x00", 5));  // a ClientHello's record header, and nothing more
    // The server closes both itself. 20 s only guards against a hang: it is
    // past the default 10 s bound, so a wrong bound shows below as its reason.
    {
        INFO("hang guard: the server did not close the unfinished handshake within 20 s");
        CHECK(silent.closedByServer(20s));
        CHECK(trickling.closedByServer(20s));
    }

    // Served meanwhile and after.
    TlsClient good(serve.tlsPort(), clientContext());
    REQUIRE(good.handshaken());
    auto connected = good.connect();
    REQUIRE(connected);
    CHECK(connected->type() == BaseCommand::CONNECTED);
    // The admin port: plain bytes there are closed too, and https still answers.
    Client plainOnHttps(serve.adminTlsPort());
    plainOnHttps.raw("GET /admin/v2/clusters HTTP/1.1\r\nHost: x\r\n\r\n");
    CHECK(plainOnHttps.closedByServer(5s));
    CHECK(httpsGet(serve.adminTlsPort(), "/admin/v2/clusters", clientContext()).status == 200);
    CHECK(serve.stop() == 0);
    // Why the server closed them: its handshake bound, at the keep-alive's
    // 1 s, for both; not the keep-alive's "silent" rule (2 s) nor the peer.
    std::string log = slurp(errFile);
    INFO(log);
    CHECK(occurrences(log, "closed: the TLS handshake did not finish within 1000 ms") == 2);
}

TEST_CASE("serve over TLS: --port none and --admin-port none leave only the TLS listeners", "[serve][tls]") {
    ServeProcess serve(tlsArgs({"--port", "none", "--admin-port", "none", "--tls-port", "0", "--admin-tls-port", "0"}), {},
                       false);
    INFO(serve.readyLine());
    REQUIRE(serve.readyLine().find("ready: pulsar+ssl://127.0.0.1:") == 0);
    CHECK(serve.readyLine().find("pulsar://") == std::string::npos);
    CHECK(serve.readyLine().find("http://") == std::string::npos);
    CHECK(serve.readyLine().find("behaviour), admin https://127.0.0.1:") != std::string::npos);
    TlsClient client(serve.tlsPort(), clientContext());
    REQUIRE(client.handshaken());
    auto connected = client.connect();
    REQUIRE(connected);
    CHECK(connected->type() == BaseCommand::CONNECTED);
    CHECK(httpsGet(serve.adminTlsPort(), "/admin/v2/clusters", clientContext()).status == 200);
    CHECK(serve.stop() == 0);
}

TEST_CASE("serve over TLS: brokerServicePortTls and webServicePortTls through --config", "[serve][tls]") {
    auto conf = fs::temp_directory_path() / ("cnxsim-tls-test-" + std::to_string(getpid()) + ".conf");
    {
        std::ofstream out(conf);
        out << "brokerServicePortTls=0\nwebServicePortTls=0\ntlsCertificateFilePath=" << at("broker.cert.pem")
            << "\ntlsKeyFilePath=" << at("broker.key.pem") << "\ntlsAllowInsecureConnection=false\n";
    }
    ServeProcess serve({"--config", conf.string()});
    fs::remove(conf);
    REQUIRE(serve.tlsPort() != 0);
    REQUIRE(serve.adminTlsPort() != 0);
    TlsClient client(serve.tlsPort(), clientContext());
    REQUIRE(client.handshaken());
    CHECK(client.connect().has_value());
    // The TLS keys are the transport's: the broker's own configuration does not list them.
    CHECK(serve.stop() == 0);
}

TEST_CASE("serve over TLS: certificate and key problems exit 2 naming the setting", "[serve][tls]") {
    struct Case {
        std::vector<std::string> args;
        std::string expected;
    };
    auto cert = "tlsCertificateFilePath=" + at("broker.cert.pem");
    auto key = "tlsKeyFilePath=" + at("broker.key.pem");
    std::vector<Case> cases{
        {{"--tls-port", "0"}, "cnxsim serve: tlsCertificateFilePath: a TLS port is asked for"},
        {{"--admin-tls-port", "0", "--set", "tlsCertificateFilePath=/nonexistent/broker.cert.pem", "--set", key},
         "cnxsim serve: tlsCertificateFilePath: /nonexistent/broker.cert.pem:"},
        {{"--tls-port", "0", "--set", "tlsCertificateFilePath=" + at("garbage.pem"), "--set", key},
         "cnxsim serve: tlsCertificateFilePath: " + at("garbage.pem") + ": not a PEM certificate"},
        {{"--tls-port", "0", "--set", cert}, "cnxsim serve: tlsKeyFilePath: a TLS port is asked for but no private key"},
        {{"--tls-port", "0", "--set", cert, "--set", "tlsKeyFilePath=" + at("broker.cert.pem")},
         "cnxsim serve: tlsKeyFilePath: " + at("broker.cert.pem") + ": not a PEM private key"},
        {{"--tls-port", "0", "--set", cert, "--set", "tlsKeyFilePath=" + at("client.key.pem")},
         "cnxsim serve: tlsKeyFilePath: " + at("client.key.pem") + ": the key does not match the certificate"},
        {{"--tls-port", "0", "--set", cert, "--set", key, "--set", "tlsTrustCertsFilePath=" + at("garbage.pem")},
         "cnxsim serve: tlsTrustCertsFilePath: " + at("garbage.pem") + ": not a PEM certificate"},
        {{"--set", "brokerServicePortTls=https"}, "cnxsim serve: --set brokerServicePortTls=https: brokerServicePortTls: expected a port"},
        {{"--set", "tlsRequireTrustedClientCertOnConnect=yes"},
         "cnxsim serve: --set tlsRequireTrustedClientCertOnConnect=yes: tlsRequireTrustedClientCertOnConnect: expected true or false"},
    };
    for (const auto& c : cases) {
        auto r = refusedStart(c.args);
        INFO(r.stderrText);
        CHECK(r.status == 2);
        CHECK(r.readyLine == "");
        CHECK(r.stderrText.find(c.expected) != std::string::npos);
    }
    // --port none without a TLS port: nothing would serve the binary protocol.
    ServeProcess none({"--port", "none"}, ServeStderr{}, false);
    CHECK(none.readyLine() == "");
    CHECK(none.stop() == 2);
}

TEST_CASE("serve over TLS: the TLS keys in a setup file and a reset that keeps the listener", "[serve][tls]") {
    auto setup = fs::temp_directory_path() / ("cnxsim-tls-test-" + std::to_string(getpid()) + ".yaml");
    {
        std::ofstream out(setup);
        out << "broker:\n  config:\n    brokerServicePortTls: 0\n    tlsCertificateFilePath: " << at("broker.cert.pem")
            << "\n    tlsKeyFilePath: " << at("broker.key.pem") << "\n    allowAutoTopicCreation: true\n";
    }
    ServeProcess serve({"--setup", setup.string()});
    fs::remove(setup);
    REQUIRE(serve.tlsPort() != 0);
    {
        TlsClient client(serve.tlsPort(), clientContext());
        REQUIRE(client.handshaken());
        auto connected = client.connect();
        REQUIRE(connected);
        CHECK(connected->type() == BaseCommand::CONNECTED);
    }
    // POST /cnxsim/reset applies the settings again: the TLS ones are the listener's, read once.
    CHECK(serve_test::call(serve.adminPort(), boost::beast::http::verb::post, "/cnxsim/reset").status == 200);
    TlsClient again(serve.tlsPort(), clientContext());
    REQUIRE(again.handshaken());
    auto connected = again.connect();
    REQUIRE(connected);
    CHECK(connected->type() == BaseCommand::CONNECTED);
    CHECK(serve.stop() == 0);
}
