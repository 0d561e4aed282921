// Authentication as Pulsar's broker does it (issue 44): the providers of
// broker_model/auth, ServerCnx's CONNECT / AUTH_CHALLENGE / AUTH_RESPONSE,
// and the admin HTTP filter. Tokens are made here with OpenSSL (jwt_maker.h).

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "broker_model/auth/authentication.h"
#include "broker_model/policy/policies.h"
#include "sim/serve/broker_conf.h"
#include "sim/serve/http/auth_filter.h"
#include "tests/auth/jwt_maker.h"
#include "tests/unit/model_test_support.h"

namespace {

using cnx::AuthSettings;
using cnx::auth::AuthenticationService;
using cnx::auth::AuthResult;
using cnx::auth::HttpCredentials;
using cnx::auth::PeerCertificate;
using cnx::testing::b64;
using cnx::testing::makeJwt;

constexpr const char* kToken = "org.apache.pulsar.broker.authentication.AuthenticationProviderToken";
constexpr const char* kBasic = "org.apache.pulsar.broker.authentication.AuthenticationProviderBasic";
constexpr const char* kTls = "org.apache.pulsar.broker.authentication.AuthenticationProviderTls";

const std::string kSecret(32, 's');  // 256 bits, as Keys.hmacShaKeyFor needs at least

std::filesystem::path tmpDir() {
    auto dir = std::filesystem::path(CNXSIM_TEST_TMPDIR) / "auth-test-files";
    std::filesystem::create_directories(dir);
    return dir;
}

std::string writeFile(const std::string& name, const std::string& bytes) {
    auto path = tmpDir() / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path.string();
}

AuthSettings settings(std::initializer_list<std::pair<const char*, std::string>> kv) {
    AuthSettings s;
    s.authenticationEnabled = true;
    for (const auto& [k, v] : kv) REQUIRE_FALSE(s.set(k, v));
    return s;
}

std::shared_ptr<const AuthenticationService> service(const AuthSettings& s) {
    auto made = AuthenticationService::create(s);
    if (auto* e = std::get_if<std::string>(&made)) FAIL(*e);
    return std::get<std::shared_ptr<const AuthenticationService>>(made);
}

std::string createError(const AuthSettings& s) {
    auto made = AuthenticationService::create(s);
    if (auto* e = std::get_if<std::string>(&made)) return *e;
    return "";
}

std::shared_ptr<const AuthenticationService> hmacService() {
    return service(settings({{"authenticationProviders", kToken}, {"tokenSecretKey", "data:;base64," + b64(kSecret, false)}}));
}

AuthResult token(const AuthenticationService& s, const std::string& jwt, std::int64_t nowMs = 0) {
    return s.authenticate("token", jwt, {}, nowMs);
}

}  // namespace

TEST_CASE("AuthSettings: Pulsar 4.2 defaults, parsing and BrokerConfig keys", "[auth][settings]") {
    AuthSettings s;
    CHECK_FALSE(s.authenticationEnabled);
    CHECK(s.authenticationProviders.empty());
    CHECK(s.anonymousUserRole.empty());
    CHECK(s.authenticationRefreshCheckSeconds == 60);
    CHECK_FALSE(s.authenticateMetricsEndpoint);
    CHECK(s.tokenAuthClaim == "sub");
    CHECK(s.tokenPublicAlg == "RS256");
    CHECK(s.tokenAllowedClockSkewSeconds == 0);

    CHECK(s.set("authenticationEnabled", "yes") == std::optional<std::string>("authenticationEnabled expects true or false, got 'yes'"));
    CHECK(s.set("authenticationRefreshCheckSeconds", "0").has_value());
    CHECK(s.set("tokenAllowedClockSkewSeconds", "-1").has_value());
    CHECK(s.set("tokenPublicAlg", "HS256").has_value());
    CHECK_FALSE(s.set("authenticationProviders", kToken + std::string(" , ") + kBasic + "," + kToken));
    CHECK(s.authenticationProviders == std::vector<std::string>{kToken, kBasic});
    CHECK_FALSE(s.set("superUserRoles", "admin,ops"));
    CHECK(s.superUserRoles == std::vector<std::string>{"admin", "ops"});

    cnx::BrokerConfig config;
    CHECK_FALSE(config.set("authenticationEnabled", "true"));
    CHECK(config.auth.authenticationEnabled);
    CHECK_FALSE(config.set("tokenSecretKey", "file:///nowhere"));  // a file is read by the service, not here
    auto keys = cnx::BrokerConfig::keys();
    for (auto key : AuthSettings::keys()) CHECK(std::find(keys.begin(), keys.end(), key) != keys.end());
    // The runtime configuration lists ServiceConfiguration fields only: the token
    // properties (the secret key among them) are never shown.
    CHECK(cnx::serve::configValueText(config, "authenticationEnabled") == std::optional<std::string>("true"));
    CHECK(cnx::serve::configValueText(config, "superUserRoles") == std::optional<std::string>("[]"));
    CHECK_FALSE(cnx::serve::configValueText(config, "tokenSecretKey"));
}

TEST_CASE("AuthenticationProviderToken: HS256 tokens, good and refused", "[auth][token]") {
    auto s = hmacService();
    CHECK(token(*s, makeJwt("HS256", R"({"sub":"alice"})", kSecret)).role == "alice");
    auto expired = token(*s, makeJwt("HS256", R"({"sub":"alice","exp":10})", kSecret), 10'001);
    CHECK_FALSE(expired.ok);
    CHECK(expired.error == "Failed to authentication token: JWT expired");
    auto valid = token(*s, makeJwt("HS256", R"({"sub":"alice","exp":10})", kSecret), 10'000);
    CHECK(valid.ok);
    CHECK(valid.expiresAtMs == std::optional<std::int64_t>(10'000));
    CHECK_FALSE(token(*s, makeJwt("HS256", R"({"sub":"alice","nbf":100})", kSecret), 99'000).ok);
    CHECK(token(*s, makeJwt("HS256", R"({"sub":"alice","nbf":100})", kSecret), 100'000).ok);

    auto wrongKey = token(*s, makeJwt("HS256", R"({"sub":"admin"})", std::string(32, 'x')));
    CHECK(wrongKey.error == "Failed to authentication token: JWT signature does not match locally computed signature.");
    auto unsigned_ = token(*s, makeJwt("none", R"({"sub":"admin"})", ""));
    CHECK(unsigned_.error == "Failed to authentication token: Unsigned Claims JWTs are not supported.");
    // alg none with a signature of the right key still refused.
    CHECK_FALSE(token(*s, makeJwt("HS256", R"({"sub":"admin"})", kSecret, nullptr, R"({"alg":"none"})")).ok);
    auto pair = cnx::testing::rsaKey();
    CHECK_FALSE(token(*s, makeJwt("RS256", R"({"sub":"admin"})", "", &pair)).ok);
    // HS512 needs a 512-bit key (jjwt): a 256-bit secret refuses it.
    CHECK_FALSE(token(*s, makeJwt("HS512", R"({"sub":"admin"})", kSecret)).ok);

    for (const std::string& garbage : std::vector<std::string>{"", "abc", "a.b", "a.b.c.d", "!!!.???.###", "e30.e30.", "e30.e30.AAAA",
                                b64("[1]", true) + "." + b64("{}", true) + ".AAAA"})
        CHECK_FALSE(token(*s, garbage).ok);
    CHECK_FALSE(token(*s, makeJwt("HS256", R"({"exp":1e400,"sub":"a"})", kSecret)).ok);
    CHECK_FALSE(token(*s, makeJwt("HS256", R"({"exp":"soon","sub":"a"})", kSecret)).ok);
    CHECK_FALSE(token(*s, makeJwt("HS256", R"({"sub":42})", kSecret)).ok);
    CHECK_FALSE(token(*s, makeJwt("HS256", std::string(40, '[') + std::string(40, ']'), kSecret)).ok);
    auto big = token(*s, makeJwt("HS256", R"({"sub":")" + std::string(20'000, 'a') + "\"}", kSecret));
    CHECK(big.error == "auth data longer than 16 KiB");
    CHECK(s->authenticateHttp({"Bearer " + std::string(16 * 1024 + 1, 'a'), std::nullopt}, {}, 0).error ==
          "Authorization header longer than 16 KiB");
    CHECK_FALSE(s->authenticate("token", std::string(1 << 20, 'a'), {}, 0).ok);
}

TEST_CASE("AuthenticationProviderToken: claims, skew and audience settings", "[auth][token]") {
    auto secret = "data:;base64," + b64(kSecret, false);
    auto s = service(settings({{"authenticationProviders", kToken}, {"tokenSecretKey", secret},
                               {"tokenAuthClaim", "role"}, {"tokenAllowedClockSkewSeconds", "5"},
                               {"tokenAudienceClaim", "aud"}, {"tokenAudience", "broker-1"}}));
    CHECK(token(*s, makeJwt("HS256", R"({"role":"ops","aud":"broker-1"})", kSecret)).role == "ops");
    CHECK(token(*s, makeJwt("HS256", R"({"role":["ops","x"],"aud":["a","broker-1"]})", kSecret)).role == "ops");
    CHECK_FALSE(token(*s, makeJwt("HS256", R"({"sub":"ops","aud":"broker-1"})", kSecret)).ok);
    CHECK(token(*s, makeJwt("HS256", R"({"role":"ops","aud":"other"})", kSecret)).error ==
          "Audiences in token: [\"other\"] not contains this broker: broker-1");
    CHECK(token(*s, makeJwt("HS256", R"({"role":"ops"})", kSecret)).error ==
          "Found null Audience in token, for claimed field: aud");
    CHECK(token(*s, makeJwt("HS256", R"({"role":"ops","aud":"broker-1","exp":10})", kSecret), 14'000).ok);
    CHECK_FALSE(token(*s, makeJwt("HS256", R"({"role":"ops","aud":"broker-1","exp":10})", kSecret), 15'001).ok);

    CHECK(createError(settings({{"authenticationProviders", kToken}, {"tokenSecretKey", secret}, {"tokenAudienceClaim", "aud"}})) ==
          "tokenAudienceClaim: Token Audience Claim [aud] configured, but Audience stands for this broker not.");
}

TEST_CASE("AuthenticationProviderToken: RS, PS and ES tokens with tokenPublicKey", "[auth][token]") {
    auto rsa = cnx::testing::rsaKey();
    auto rs = service(settings({{"authenticationProviders", kToken},
                                {"tokenPublicKey", "data:;base64," + b64(rsa.publicDer(), false)}}));
    for (std::string alg : {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512"}) {
        INFO(alg);
        CHECK(token(*rs, makeJwt(alg, R"({"sub":"alice"})", "", &rsa)).role == "alice");
    }
    auto other = cnx::testing::rsaKey();
    CHECK_FALSE(token(*rs, makeJwt("RS256", R"({"sub":"alice"})", "", &other)).ok);
    // An HS256 token signed with the public key's bytes (the classic confusion) is refused.
    CHECK_FALSE(token(*rs, makeJwt("HS256", R"({"sub":"alice"})", rsa.publicDer())).ok);

    auto ec = cnx::testing::ecKey("P-256");
    auto es = service(settings({{"authenticationProviders", kToken}, {"tokenPublicAlg", "ES256"},
                                {"tokenPublicKey", writeFile("ec.der", ec.publicDer())}}));
    CHECK(token(*es, makeJwt("ES256", R"({"sub":"bob"})", "", &ec)).role == "bob");
    CHECK_FALSE(token(*es, makeJwt("RS256", R"({"sub":"bob"})", "", &rsa)).ok);
    auto ec384 = cnx::testing::ecKey("P-384");
    auto es384 = service(settings({{"authenticationProviders", kToken}, {"tokenPublicAlg", "ES384"},
                                   {"tokenPublicKey", b64(ec384.publicDer(), false)}}));
    CHECK(token(*es384, makeJwt("ES384", R"({"sub":"bob"})", "", &ec384)).role == "bob");

    // tokenPublicAlg must fit the key.
    CHECK(createError(settings({{"authenticationProviders", kToken}, {"tokenPublicAlg", "ES256"},
                                {"tokenPublicKey", b64(rsa.publicDer(), false)}})).rfind("tokenPublicKey: Failed to decode public key", 0) == 0);
}

TEST_CASE("AuthenticationProviderToken: key settings as AuthTokenUtils.readKeyFromUrl reads them", "[auth][token]") {
    auto path = writeFile("secret.key", kSecret);
    auto jwt = makeJwt("HS256", R"({"sub":"alice"})", kSecret);
    for (std::string key : {"file://" + path, path, "data:;base64," + b64(kSecret, false),
                            "data:application/octet-stream;base64," + b64(kSecret, false), b64(kSecret, false)}) {
        INFO(key);
        CHECK(token(*service(settings({{"authenticationProviders", kToken}, {"tokenSecretKey", key}})), jwt).ok);
    }
    CHECK(createError(settings({{"authenticationProviders", kToken}, {"tokenSecretKey", "file:///no/such/key"}}))
              .rfind("tokenSecretKey: /no/such/key: ", 0) == 0);
    CHECK(createError(settings({{"authenticationProviders", kToken}, {"tokenSecretKey", "data:;base64," + b64("short", false)}}))
              .rfind("tokenSecretKey: The specified key byte array is 40 bits", 0) == 0);
    CHECK(createError(settings({{"authenticationProviders", kToken}})) ==
          "tokenSecretKey: AuthenticationProviderToken needs tokenSecretKey or tokenPublicKey");
    CHECK(createError(settings({{"authenticationProviders", "com.example.Mine"}})).rfind("authenticationProviders: com.example.Mine", 0) == 0);
    // Authentication off: nothing is read.
    AuthSettings off;
    REQUIRE_FALSE(off.set("authenticationProviders", kToken));
    CHECK(createError(off).empty());
}

TEST_CASE("AuthenticationProviderBasic: apr1 and crypt htpasswd lines, as commons-codec checks them", "[auth][basic]") {
    CHECK(cnx::auth::apr1Crypt("basic-pass", "abcdefgh") == "$apr1$abcdefgh$rTH9gJIumtpsFMaBGaMVH1");
    CHECK(cnx::auth::apr1Crypt("p", "xy") == "$apr1$xy$q/TPHhf1FfQqXeFUwZC/b/");
    CHECK(cnx::auth::apr1Crypt("a-password-longer-than-sixteen-bytes", "abcdefgh") == "$apr1$abcdefgh$9SObRHaeribBrOg13EMzO.");
    std::string htpasswd = "basic-user:$apr1$abcdefgh$rTH9gJIumtpsFMaBGaMVH1\ncrypt-user:abH.XDBuuojgY\n";
    for (std::string conf : {writeFile("htpasswd", htpasswd), b64(htpasswd, false)}) {
        auto s = service(settings({{"authenticationProviders", kBasic}, {"basicAuthConf", conf}}));
        CHECK(s->authenticate("basic", "basic-user:basic-pass", {}, 0).role == "basic-user");
        CHECK(s->authenticate("basic", "crypt-user:crypt-pass", {}, 0).role == "crypt-user");
        CHECK(s->authenticate("basic", "basic-user:wrong", {}, 0).error == "Unknown user or invalid password");
        CHECK(s->authenticate("basic", "crypt-user:wrong", {}, 0).error == "Unknown user or invalid password");
        CHECK(s->authenticate("basic", "nobody:basic-pass", {}, 0).error == "Unknown user or invalid password");
        CHECK(s->authenticate("basic", "basic-user", {}, 0).error == "Base64 decoded params are invalid");
        CHECK(s->authenticate("basic", "a:b:c", {}, 0).error == "Base64 decoded params are invalid");
        HttpCredentials http{"Basic " + b64("basic-user:basic-pass", false), std::nullopt};
        CHECK(s->authenticateHttp(http, {}, 0).role == "basic-user");
        CHECK(s->authenticateHttp({"basic " + b64("crypt-user:crypt-pass", false), std::nullopt}, {}, 0).role == "crypt-user");
        CHECK_FALSE(s->authenticateHttp({"Basic !!!", std::nullopt}, {}, 0).ok);
        CHECK_FALSE(s->authenticateHttp({"Bearer x", std::nullopt}, {}, 0).ok);
    }
    CHECK(createError(settings({{"authenticationProviders", kBasic}, {"basicAuthConf", b64("a:b\n\nc:d\n", false)}})) ==
          "basicAuthConf: line 2: The format of the password auth conf file is invalid");
    CHECK(createError(settings({{"authenticationProviders", kBasic}})) ==
          "basicAuthConf: No basic authentication config provided");
}

TEST_CASE("AuthenticationProviderTls and the choice of provider", "[auth][tls]") {
    auto s = service(settings({{"authenticationProviders", std::string(kTls) + "," + kToken},
                               {"tokenSecretKey", b64(kSecret, false)}}));
    CHECK(s->authenticate("tls", "", PeerCertificate{true, "client-tls"}, 0).role == "client-tls");
    CHECK_FALSE(s->authenticate("tls", "", PeerCertificate{}, 0).ok);
    // No provider of the method and no anonymous role: refused (ServerCnx.handleConnect).
    CHECK(s->authenticate("none", "", {}, 0).error == "No anonymous role, and no authentication provider configured");
    CHECK(cnx::auth::legacyAuthMethodName("AuthMethodYcaV1") == "ycav1");
    CHECK(cnx::auth::legacyAuthMethodName("AuthMethodNone") == "none");

    // HTTP: each provider in turn, else the anonymous role.
    auto jwt = makeJwt("HS256", R"({"sub":"alice"})", kSecret);
    CHECK(s->authenticateHttp({"Bearer " + jwt, std::nullopt}, {}, 0).role == "alice");
    CHECK(s->authenticateHttp({std::nullopt, std::nullopt}, PeerCertificate{true, "client-tls"}, 0).role == "client-tls");
    CHECK_FALSE(s->authenticateHttp({std::nullopt, std::nullopt}, {}, 0).ok);
    CHECK(s->authenticateHttp({"Bearer " + jwt, "basic"}, {}, 0).error == "Unsupported authentication method: [basic].");
    CHECK_FALSE(s->authenticateHttp({"Bearer " + jwt, "tls"}, {}, 0).ok);
    CHECK_FALSE(s->authenticateHttp({"Bearer " + std::string(20'000, 'a'), std::nullopt}, {}, 0).ok);

    auto anon = service(settings({{"authenticationProviders", kToken}, {"tokenSecretKey", b64(kSecret, false)},
                                  {"anonymousUserRole", "anon"}}));
    CHECK(anon->authenticate("none", "", {}, 0).role == "anon");
    CHECK_FALSE(anon->authenticate("token", "garbage", {}, 0).ok);  // a bad token is refused, not anonymous
    CHECK(anon->authenticateHttp({std::nullopt, std::nullopt}, {}, 0).role == "anon");
    CHECK(anon->authenticateHttp({"Bearer garbage", std::nullopt}, {}, 0).role == "anon");  // HTTP falls back

    // Enabled without providers: HTTP requires nothing ("No authentication required"),
    // CONNECT is refused without an anonymous role.
    auto none = service(settings({}));
    CHECK(none->authenticateHttp({std::nullopt, std::nullopt}, {}, 0).ok);
    CHECK_FALSE(none->authenticate("none", "", {}, 0).ok);
    // What a broker with unusable settings keeps: every client and request refused.
    auto closed = AuthenticationService::refusingAll();
    CHECK_FALSE(closed->authenticateHttp({std::nullopt, std::nullopt}, {}, 0).ok);
    CHECK_FALSE(closed->authenticate("none", "", {}, 0).ok);
}

// --- ServerCnx ----------------------------------------------------------------------

namespace {

using cnx::testing::BaseCommand;

struct AuthBroker : cnx::testing::BrokerFixture {
    explicit AuthBroker(std::initializer_list<std::pair<const char*, std::string>> extra = {}) {
        REQUIRE_FALSE(broker.setConfig("authenticationEnabled", "true"));
        REQUIRE_FALSE(broker.setConfig("authenticationProviders", kToken));
        REQUIRE_FALSE(broker.setConfig("tokenSecretKey", "data:;base64," + b64(kSecret, false)));
        for (const auto& [k, v] : extra) REQUIRE_FALSE(broker.setConfig(k, v));
        REQUIRE_FALSE(broker.authenticationProblem());
    }
};

BaseCommand connectCmd(const std::string& method, const std::string& data, bool refresh = false) {
    BaseCommand c;
    c.set_type(BaseCommand::CONNECT);
    auto* connect = c.mutable_connect();
    connect->set_client_version("Pulsar-Java-v4.2.0");
    connect->set_protocol_version(21);
    if (!method.empty()) connect->set_auth_method_name(method);
    if (!data.empty()) connect->set_auth_data(data);
    if (refresh) connect->mutable_feature_flags()->set_supports_auth_refresh(true);
    return c;
}

void checkRefused(const std::vector<BaseCommand>& frames, cnx::ServerCnx& cnx) {
    REQUIRE(frames.size() == 1);
    CHECK(frames[0].type() == BaseCommand::ERROR);
    CHECK(frames[0].error().request_id() == static_cast<std::uint64_t>(-1));
    CHECK(frames[0].error().error() == pulsar::proto::AuthenticationError);
    CHECK(frames[0].error().message() == "Failed to authenticate");
    CHECK(cnx.closed());
}

}  // namespace

TEST_CASE("ServerCnx CONNECT with authentication: refused without or with bad credentials", "[auth][server_cnx]") {
    AuthBroker f;
    for (auto [method, data] : std::vector<std::pair<std::string, std::string>>{
             {"", ""}, {"token", ""}, {"token", "garbage"}, {"token", makeJwt("HS256", R"({"sub":"a"})", std::string(32, 'x'))},
             {"basic", "a:b"}, {"token", makeJwt("none", R"({"sub":"admin"})", "")}}) {
        INFO(method << " " << data);
        cnx::testing::TestClient client(f);
        checkRefused(client.send(connectCmd(method, data)), client.cnx());
        CHECK(client.cnx().authRole().empty());
        // Nothing passes afterwards.
        std::optional<std::string> refusal;
        CHECK(client.send(cnx::testing::TestClient::producerCmd("persistent://public/default/t", 1, 1), &refusal).empty());
        CHECK(refusal.has_value());
    }
    // The legacy enum: AuthMethodNone is "none": no provider, no anonymous role.
    cnx::testing::TestClient legacy(f);
    auto c = connectCmd("", "");
    c.mutable_connect()->set_auth_method(pulsar::proto::AuthMethodNone);
    checkRefused(legacy.send(c), legacy.cnx());
}

TEST_CASE("ServerCnx CONNECT with authentication: a good token, and the anonymous role", "[auth][server_cnx]") {
    AuthBroker f;
    cnx::testing::TestClient client(f);
    // Commands before CONNECT are refused as ever.
    std::optional<std::string> refusal;
    client.send(cnx::testing::TestClient::producerCmd("persistent://public/default/t", 1, 1), &refusal);
    CHECK(refusal == std::optional<std::string>("received PRODUCER before CONNECT"));
    cnx::testing::TestClient good(f);
    auto frames = good.send(connectCmd("token", makeJwt("HS256", R"({"sub":"alice"})", kSecret)));
    REQUIRE(frames.size() == 1);
    CHECK(frames[0].type() == BaseCommand::CONNECTED);
    CHECK(good.cnx().authRole() == "alice");
    CHECK(good.cnx().authMethod() == "token");
    CHECK(good.producer("persistent://public/default/t", 1).type() == BaseCommand::PRODUCER_SUCCESS);

    AuthBroker anon({{"anonymousUserRole", "anon"}});
    cnx::testing::TestClient a(anon);
    CHECK(a.send(connectCmd("", "")).at(0).type() == BaseCommand::CONNECTED);
    CHECK(a.cnx().authRole() == "anon");

    cnx::testing::BrokerFixture off;
    cnx::testing::TestClient plain(off);
    CHECK(plain.connect().type() == BaseCommand::CONNECTED);
    CHECK(plain.cnx().authRole().empty());
}

TEST_CASE("ServerCnx: an expired token is refreshed through AUTH_CHALLENGE, or the connection closes", "[auth][server_cnx]") {
    // The simulated clock starts at 0 and moves to the next timer when idle; the check runs every 60 s.
    SECTION("a client without supports_auth_refresh is disconnected at the first check past exp") {
        AuthBroker f;
        cnx::testing::TestClient client(f);
        client.send(connectCmd("token", makeJwt("HS256", R"({"sub":"alice","exp":90})", kSecret)));
        CHECK(client.cnx().closed());
        CHECK(f.scheduler.nowMs() == 120'000);
    }
    SECTION("a client that answers the challenge with a new token stays; a bad answer is refused") {
        AuthBroker f;
        std::vector<BaseCommand> got;
        auto conn = std::make_unique<cnx::ServerCnx>(f.broker, [&got](std::string frame) {
            auto decoded = cnx::wire::decodeFrame(frame, nullptr);
            if (decoded) got.push_back(decoded->command);
        });
        conn->receive(cnx::wire::encodeFrame(connectCmd("token", makeJwt("HS256", R"({"sub":"alice","exp":90})", kSecret), true)));
        auto runUntilChallenges = [&](std::size_t n) {
            auto challenges = [&] {
                return std::count_if(got.begin(), got.end(), [](const BaseCommand& c) { return c.type() == BaseCommand::AUTH_CHALLENGE; });
            };
            while (static_cast<std::size_t>(challenges()) < n && f.scheduler.runOne()) {}
        };
        runUntilChallenges(1);
        CHECK(f.scheduler.nowMs() == 120'000);  // the second 60 s check: the first past exp
        REQUIRE(got.size() == 2);
        CHECK(got[0].type() == BaseCommand::CONNECTED);
        CHECK(got[1].type() == BaseCommand::AUTH_CHALLENGE);
        CHECK(got[1].authchallenge().challenge().auth_method_name() == "token");
        CHECK(got[1].authchallenge().challenge().auth_data() == "PulsarAuthRefresh");
        BaseCommand response;
        response.set_type(BaseCommand::AUTH_RESPONSE);
        response.mutable_authresponse()->mutable_response()->set_auth_method_name("token");
        response.mutable_authresponse()->mutable_response()->set_auth_data(
            makeJwt("HS256", R"({"sub":"alice","exp":1000})", kSecret));
        CHECK_FALSE(conn->receive(cnx::wire::encodeFrame(response)));
        CHECK_FALSE(conn->closed());
        CHECK(conn->authRole() == "alice");
        // A refused answer: ERROR and closed.
        runUntilChallenges(2);  // the first check past 1000 s challenges again
        CHECK(f.scheduler.nowMs() == 1'020'000);
        REQUIRE(got.back().type() == BaseCommand::AUTH_CHALLENGE);
        response.mutable_authresponse()->mutable_response()->set_auth_data(makeJwt("HS256", R"({"sub":"mallory"})", std::string(32, 'x')));
        conn->receive(cnx::wire::encodeFrame(response));
        CHECK(conn->closed());
        CHECK(got.back().type() == BaseCommand::ERROR);
        CHECK(got.back().error().message() == "Failed to authenticate");
    }
}

// --- the admin HTTP filter ---------------------------------------------------------

namespace {

cnx::serve::http::Request request(const std::string& target, std::optional<std::string> authorization = {}) {
    cnx::serve::http::Request r{boost::beast::http::verb::get, target, 11};
    if (authorization) r.set(boost::beast::http::field::authorization, *authorization);
    return r;
}

}  // namespace

TEST_CASE("auth_filter: 401 as Pulsar's AuthenticationFilter, and the paths it leaves open", "[auth][http]") {
    using cnx::serve::http::authenticateRequest;
    AuthBroker f;
    auto refused = authenticateRequest(f.broker, request("/admin/v2/clusters?x=1"), {});
    REQUIRE(refused.index() == 1);
    const auto& res = std::get<1>(refused);
    CHECK(res.result_int() == 401);
    CHECK(res.reason() == "Unauthorized");
    CHECK(res[boost::beast::http::field::content_type] == "text/html;charset=iso-8859-1");
    CHECK(res.body().find("<title>Error 401 Authentication required</title>") != std::string::npos);
    CHECK(res.body().find("<tr><th>URI:</th><td>/admin/v2/clusters</td></tr>") != std::string::npos);

    auto jwt = makeJwt("HS256", R"({"sub":"alice"})", kSecret);
    CHECK(std::get<0>(authenticateRequest(f.broker, request("/admin/v2/tenants", "Bearer " + jwt), {})) == "alice");
    CHECK(authenticateRequest(f.broker, request("/lookup/v2/topic/persistent/public/default/t", "Bearer bad"), {}).index() == 1);
    CHECK(authenticateRequest(f.broker, request("/cnxsim/reset"), {}).index() == 1);
    CHECK(authenticateRequest(f.broker, request("/admin/v2/clusters", "Bearer " + std::string(20'000, 'a')), {}).index() == 1);
    // Open: /metrics (authenticateMetricsEndpoint=false), /status.html, paths no servlet serves.
    CHECK(std::get<0>(authenticateRequest(f.broker, request("/metrics"), {})).empty());
    CHECK(std::get<0>(authenticateRequest(f.broker, request("/status.html"), {})).empty());
    CHECK(std::get<0>(authenticateRequest(f.broker, request("/adminx"), {})).empty());
    REQUIRE_FALSE(f.broker.setConfig("authenticateMetricsEndpoint", "true"));
    CHECK(authenticateRequest(f.broker, request("/metrics/"), {}).index() == 1);

    cnx::testing::BrokerFixture off;
    CHECK(std::get<0>(authenticateRequest(off.broker, request("/admin/v2/clusters"), {})).empty());
}
