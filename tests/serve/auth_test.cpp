// Authentication on `cnxsim serve` through the real binary and real TCP
// (issue 44): the keys and files of tests/tls/make_test_pki.sh (made at test
// time), a CONNECT with and without a token, the admin API's 401, and a start
// refused for an unusable key. Each case fails on a serve without
// authentication (CONNECTED and 200 for everyone).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "http_client.h"
#include "serve_client.h"

using namespace serve_test;

namespace {

const std::string kTokenClass = "org.apache.pulsar.broker.authentication.AuthenticationProviderToken";
const std::string kBasicClass = "org.apache.pulsar.broker.authentication.AuthenticationProviderBasic";

/// The test PKI, made once per run under the build folder.
const std::string& pki() {
    static const std::string dir = [] {
        std::string d = std::string(CNXSIM_TEST_TMPDIR) + "/serve-auth-pki";
        std::string cmd = "bash '" + std::string(CNXSIM_SOURCE_DIR) + "/tests/tls/make_test_pki.sh' '" + d + "'";
        if (std::system(cmd.c_str()) != 0) throw std::runtime_error("make_test_pki.sh failed");
        return d;
    }();
    return dir;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<std::string> authArgs() {
    return {"--set", "authenticationEnabled=true",
            "--set", "authenticationProviders=" + kTokenClass + "," + kBasicClass,
            "--set", "tokenSecretKey=file://" + pki() + "/secret.key",
            "--set", "basicAuthConf=" + pki() + "/htpasswd"};
}

Answer get(std::uint16_t port, const std::string& target, const std::string& authorization) {
    return callAs(port, http::verb::get, target, authorization);
}

BaseCommand connectWith(const std::string& method, const std::string& data) {
    BaseCommand c;
    c.set_type(BaseCommand::CONNECT);
    c.mutable_connect()->set_client_version("serve-test-client");
    c.mutable_connect()->set_protocol_version(21);
    if (!method.empty()) c.mutable_connect()->set_auth_method_name(method);
    if (!data.empty()) c.mutable_connect()->set_auth_data(data);
    return c;
}

void checkRefused(Client& client, const BaseCommand& connect) {
    auto answer = client.call(connect);
    REQUIRE(answer.type() == BaseCommand::ERROR);
    CHECK(answer.error().request_id() == static_cast<std::uint64_t>(-1));
    CHECK(answer.error().error() == pulsar::proto::AuthenticationError);
    CHECK(answer.error().message() == "Failed to authenticate");
    CHECK(client.closedByServer());
}

}  // namespace

TEST_CASE("serve with token and basic authentication refuses a CONNECT without valid credentials", "[serve][auth]") {
    ServeProcess server(authArgs());
    REQUIRE(server.port() != 0);
    for (const auto& [method, data] : std::vector<std::pair<std::string, std::string>>{
             {"", ""},
             {"token", slurp(pki() + "/token-expired.jwt")},
             {"token", slurp(pki() + "/token-bad-signature.jwt")},
             {"token", "not.a.jwt"},
             {"basic", "basic-user:wrong"},
             {"token", std::string(100'000, 'a')}}) {
        INFO(method);
        Client client(server.port());
        checkRefused(client, connectWith(method, data));
    }
    Client token(server.port());
    CHECK(token.call(connectWith("token", slurp(pki() + "/token-admin.jwt"))).type() == BaseCommand::CONNECTED);
    Client basic(server.port());
    CHECK(basic.call(connectWith("basic", "basic-user:basic-pass")).type() == BaseCommand::CONNECTED);
    Client crypt(server.port());
    CHECK(crypt.call(connectWith("basic", "crypt-user:crypt-pass")).type() == BaseCommand::CONNECTED);
    CHECK(server.stop() == 0);
}

TEST_CASE("serve with authentication answers the admin API 401 without credentials", "[serve][auth]") {
    ServeProcess server(authArgs());
    REQUIRE(server.adminPort() != 0);
    for (std::string target : {"/admin/v2/clusters", "/admin/v2/tenants", "/admin/v2/namespaces/public",
                               "/lookup/v2/topic/persistent/public/default/t", "/admin/v2/brokers/configuration/runtime",
                               "/cnxsim/status"}) {
        INFO(target);
        auto a = get(server.adminPort(), target, "");
        CHECK(a.status == 401);
        CHECK(a.reason == "Unauthorized");
        CHECK_THAT(a.body, Catch::Contains("HTTP ERROR 401 Authentication required"));
        CHECK(get(server.adminPort(), target, "Bearer " + slurp(pki() + "/token-expired.jwt")).status == 401);
    }
    CHECK(get(server.adminPort(), "/admin/v2/clusters", "Bearer " + slurp(pki() + "/token-admin.jwt")).status == 200);
    CHECK(get(server.adminPort(), "/admin/v2/clusters", "Basic YmFzaWMtdXNlcjpiYXNpYy1wYXNz").status == 200);
    CHECK(get(server.adminPort(), "/admin/v2/clusters", "Bearer " + std::string(15'000, 'a')).status == 401);
    CHECK(get(server.adminPort(), "/metrics", "").status == 200);  // authenticateMetricsEndpoint=false
    CHECK(server.stop() == 0);
}

TEST_CASE("serve exits 2 naming an authentication setting it cannot use", "[serve][auth]") {
    auto errFile = std::string(CNXSIM_TEST_TMPDIR) + "/serve-auth-" + std::to_string(getpid()) + ".err";
    std::vector<std::string> args{"--set", "authenticationEnabled=true", "--set",
                                  "authenticationProviders=" + kTokenClass, "--set",
                                  "tokenSecretKey=file:///no/such/secret.key"};
    ServeProcess server(args, ServeStderr{ServeStderr::To::file, errFile});
    CHECK(server.port() == 0);
    CHECK(server.stop() == 2);
    CHECK_THAT(slurp(errFile), Catch::Contains("cnxsim serve: tokenSecretKey: /no/such/secret.key: "));
    std::remove(errFile.c_str());
}
