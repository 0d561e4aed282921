// Authentication and authorization on `cnxsim serve` (issue 44): with
// authentication on, no admin call and no client command passes without valid
// credentials; with authorization on, each role gets what Pulsar's
// PulsarAuthorizationProvider gives it, refused with the real broker's codes
// and texts (doc/broker-behaviour.md §11, seen on a real 4.2.4 broker).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <tuple>
#include <unistd.h>

#include "http_client.h"
#include "serve_client.h"
#include "serve_commands.h"

using namespace serve_test;
using namespace serve_test::cmd;

namespace {

/// tests/tls/make_test_pki.sh's keys and tokens, made once per test binary run.
const std::string& pki() {
    static const std::string dir = [] {
        std::string d = "/tmp/cnxsim-authz-test-" + std::to_string(getpid());
        std::string command = std::string(CNXSIM_SOURCE_DIR) + "/tests/tls/make_test_pki.sh " + d;
        if (std::system(command.c_str()) != 0) throw std::runtime_error("make_test_pki.sh failed");
        return d;
    }();
    return dir;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    auto text = s.str();
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
    return text;
}
std::string token(const std::string& name) { return slurp(pki() + "/token-" + name + ".jwt"); }

std::vector<std::string> authSettings(bool authorization, std::vector<std::string> more = {}) {
    std::vector<std::string> args{
        "--admin-port", "0",
        "--set", "authenticationEnabled=true",
        "--set", "authenticationProviders=org.apache.pulsar.broker.authentication.AuthenticationProviderToken,"
                 "org.apache.pulsar.broker.authentication.AuthenticationProviderBasic",
        "--set", "tokenSecretKey=file://" + pki() + "/secret.key",
        "--set", "basicAuthConf=" + pki() + "/htpasswd",
        "--set", std::string("authorizationEnabled=") + (authorization ? "true" : "false"),
        "--set", "superUserRoles=admin"};
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

std::string bearer(const std::string& name) { return "Bearer " + token(name); }

/// CONNECT with credentials; the answer.
BaseCommand connectWith(Client& c, const std::string& method, const std::string& data) {
    BaseCommand connect;
    connect.set_type(BaseCommand::CONNECT);
    connect.mutable_connect()->set_client_version("authz-test");
    connect.mutable_connect()->set_protocol_version(21);
    if (!method.empty()) connect.mutable_connect()->set_auth_method_name(method);
    if (!data.empty()) connect.mutable_connect()->set_auth_data(data);
    return c.call(connect);
}

/// Every admin path serve has (doc/serve/admin-api.md), one call each.
const std::vector<std::pair<http::verb, std::string>>& everyAdminPath() {
    using V = http::verb;
    static const std::vector<std::pair<http::verb, std::string>> paths{
        {V::get, "/admin/v2/tenants"}, {V::put, "/admin/v2/tenants/t1"}, {V::post, "/admin/v2/tenants/public"},
        {V::get, "/admin/v2/tenants/public"}, {V::delete_, "/admin/v2/tenants/public"},
        {V::get, "/admin/v2/namespaces/public"}, {V::put, "/admin/v2/namespaces/public/n1"},
        {V::get, "/admin/v2/namespaces/public/default"}, {V::delete_, "/admin/v2/namespaces/public/default"},
        {V::get, "/admin/v2/namespaces/public/default/topics"},
        {V::get, "/admin/v2/namespaces/public/default/maxProducersPerTopic"},
        {V::post, "/admin/v2/namespaces/public/default/maxProducersPerTopic"},
        {V::delete_, "/admin/v2/namespaces/public/default/maxProducersPerTopic"},
        {V::get, "/admin/v2/namespaces/public/default/permissions"},
        {V::post, "/admin/v2/namespaces/public/default/permissions/alice"},
        {V::delete_, "/admin/v2/namespaces/public/default/permissions/alice"},
        {V::post, "/admin/v2/namespaces/public/default/deduplication"},
        {V::post, "/admin/v2/namespaces/public/default/backlogQuota"},
        {V::get, "/admin/v2/namespaces/public/default/schemaCompatibilityStrategy"},
        {V::put, "/admin/v2/namespaces/public/default/schemaCompatibilityStrategy"},
        {V::get, "/admin/v2/namespaces/public/default/schemaAutoUpdateCompatibilityStrategy"},
        {V::put, "/admin/v2/namespaces/public/default/schemaAutoUpdateCompatibilityStrategy"},
        {V::get, "/admin/v2/namespaces/public/default/isAllowAutoUpdateSchema"},
        {V::post, "/admin/v2/namespaces/public/default/isAllowAutoUpdateSchema"},
        {V::get, "/admin/v2/namespaces/public/default/schemaValidationEnforced"},
        {V::post, "/admin/v2/namespaces/public/default/schemaValidationEnforced"},
        {V::get, "/admin/v2/persistent/public/default"}, {V::get, "/admin/v2/non-persistent/public/default"},
        {V::get, "/admin/v2/persistent/public/default/partitioned"},
        {V::put, "/admin/v2/persistent/public/default/t"}, {V::delete_, "/admin/v2/persistent/public/default/t"},
        {V::put, "/admin/v2/persistent/public/default/t/unload"},
        {V::put, "/admin/v2/persistent/public/default/p/partitions"},
        {V::post, "/admin/v2/persistent/public/default/p/partitions"},
        {V::get, "/admin/v2/persistent/public/default/p/partitions"},
        {V::delete_, "/admin/v2/persistent/public/default/p/partitions"},
        {V::get, "/admin/v2/persistent/public/default/t/stats"},
        {V::post, "/admin/v2/persistent/public/default/t/terminate"},
        {V::get, "/admin/v2/persistent/public/default/t/permissions"},
        {V::post, "/admin/v2/persistent/public/default/t/permissions/bob"},
        {V::delete_, "/admin/v2/persistent/public/default/t/permissions/bob"},
        {V::get, "/admin/v2/persistent/public/default/t/schemaCompatibilityStrategy"},
        {V::put, "/admin/v2/persistent/public/default/t/schemaCompatibilityStrategy"},
        {V::delete_, "/admin/v2/persistent/public/default/t/schemaCompatibilityStrategy"},
        {V::get, "/admin/v2/persistent/public/default/t/schemaValidationEnforced"},
        {V::post, "/admin/v2/persistent/public/default/t/schemaValidationEnforced"},
        {V::get, "/admin/v2/persistent/public/default/t/internalStats"},
        {V::get, "/lookup/v2/topic/persistent/public/default/t"},
        {V::get, "/admin/v2/schemas/public/default/t/schema"}, {V::post, "/admin/v2/schemas/public/default/t/schema"},
        {V::delete_, "/admin/v2/schemas/public/default/t/schema"},
        {V::get, "/admin/v2/schemas/public/default/t/schema/0"}, {V::get, "/admin/v2/schemas/public/default/t/schemas"},
        {V::post, "/admin/v2/schemas/public/default/t/compatibility"},
        {V::post, "/admin/v2/schemas/public/default/t/version"},
        {V::get, "/admin/v2/clusters"}, {V::get, "/admin/v2/clusters/standalone"}, {V::put, "/admin/v2/clusters/c2"},
        {V::get, "/admin/v2/brokers/health"}, {V::get, "/admin/v2/brokers/version"},
        {V::get, "/admin/v2/brokers/configuration"}, {V::get, "/admin/v2/brokers/configuration/values"},
        {V::get, "/admin/v2/brokers/configuration/runtime"},
        {V::post, "/admin/v2/brokers/configuration/isSchemaValidationEnforced/true"},
        {V::delete_, "/admin/v2/brokers/configuration/isSchemaValidationEnforced"},
        {V::get, "/cnxsim/status"}, {V::post, "/cnxsim/upgrade?version=4.0"}, {V::post, "/cnxsim/restart"},
        {V::post, "/cnxsim/reset"}, {V::get, "/cnxsim/trace?last=5"},
        {V::get, "/admin/v2/no-such-path"}};
    return paths;
}

}  // namespace

TEST_CASE("with authentication on, every admin path answers 401 without valid credentials", "[serve][auth]") {
    ServeProcess server(authSettings(false));
    REQUIRE(server.adminPort() != 0);
    for (const auto& credentials : {std::string(), std::string("Bearer garbage"), bearer("expired"),
                                    bearer("bad-signature"), std::string("Basic YmFzaWMtdXNlcjp3cm9uZw==")}) {
        for (const auto& [verb, path] : everyAdminPath()) {
            INFO(std::string(http::to_string(verb)) << " " << path << " with '" << credentials << "'");
            auto a = callAs(server.adminPort(), verb, path, credentials, verb == http::verb::get ? "" : "[]");
            CHECK(a.status == 401);
            // Jetty's error page, as a real 4.2.4 broker's AuthenticationFilter answers.
            CHECK_THAT(a.body, Catch::Contains("HTTP ERROR 401 Authentication required"));
        }
    }
    // The broker's metrics are open unless authenticateMetricsEndpoint (a real 4.2.4 broker: 200).
    CHECK(callAs(server.adminPort(), http::verb::get, "/metrics", "").status == 200);
    // The same paths with valid credentials get past authentication (authorization is off).
    CHECK(callAs(server.adminPort(), http::verb::get, "/admin/v2/tenants", bearer("alice")).status == 200);
    CHECK(callAs(server.adminPort(), http::verb::get, "/admin/v2/clusters", "Basic YmFzaWMtdXNlcjpiYXNpYy1wYXNz").status ==
          200);
    CHECK(server.stop() == 0);
}

TEST_CASE("with authenticateMetricsEndpoint the metrics need credentials too", "[serve][auth]") {
    ServeProcess server(authSettings(false, {"--set", "authenticateMetricsEndpoint=true"}));
    REQUIRE(server.adminPort() != 0);
    CHECK(callAs(server.adminPort(), http::verb::get, "/metrics", "").status == 401);
    CHECK(callAs(server.adminPort(), http::verb::get, "/metrics", bearer("alice")).status == 200);
    CHECK(server.stop() == 0);
}

TEST_CASE("with authentication on, no client command passes without a successful CONNECT", "[serve][auth]") {
    ServeProcess server(authSettings(true));
    REQUIRE(server.port() != 0);
    // A failed CONNECT: ERROR AuthenticationError "Failed to authenticate", request id -1, then closed.
    for (const auto& [method, data] : std::vector<std::pair<std::string, std::string>>{
             {"", ""}, {"token", ""}, {"token", "garbage"}, {"token", token("expired")}, {"token", token("bad-signature")},
             {"kerberos", "x"}, {"basic", "basic-user:nope"}, {"token", std::string(64 * 1024, 'a')}}) {
        INFO("auth_method_name '" << method << "', " << data.size() << " bytes of auth_data");
        Client c(server.port());
        auto answer = connectWith(c, method, data);
        REQUIRE(answer.type() == BaseCommand::ERROR);
        CHECK(answer.error().error() == pulsar::proto::AuthenticationError);
        CHECK(answer.error().message() == "Failed to authenticate");
        CHECK(answer.error().request_id() == std::numeric_limits<std::uint64_t>::max());
        CHECK(c.closedByServer());
    }
    // Every command type sent instead of CONNECT: the connection's end.
    const auto* types = pulsar::proto::BaseCommand::Type_descriptor();
    for (int i = 0; i < types->value_count(); ++i) {
        auto type = static_cast<BaseCommand::Type>(types->value(i)->number());
        if (type == BaseCommand::CONNECT) continue;
        INFO(BaseCommand::Type_Name(type));
        Client c(server.port());
        c.send(command(type));
        CHECK(c.closedByServer(3s));
    }
    // A valid token, and the basic user, connect.
    Client ok(server.port());
    CHECK(connectWith(ok, "token", token("alice")).type() == BaseCommand::CONNECTED);
    Client basic(server.port());
    CHECK(connectWith(basic, "basic", "basic-user:basic-pass").type() == BaseCommand::CONNECTED);
    CHECK(server.stop() == 0);
}

TEST_CASE("with authorization on, a role without grants is refused each command as Pulsar refuses it", "[serve][authz]") {
    ServeProcess server(authSettings(true));
    REQUIRE(server.port() != 0);
    const std::string topic = "persistent://public/default/authz";
    Client alice(server.port());
    REQUIRE(connectWith(alice, "token", token("alice")).type() == BaseCommand::CONNECTED);
    auto lookedUp = alice.call(lookup(topic, 1));
    CHECK(lookedUp.lookuptopicresponse().response() == pulsar::proto::CommandLookupTopicResponse::Failed);
    CHECK(lookedUp.lookuptopicresponse().error() == pulsar::proto::AuthorizationError);
    CHECK(lookedUp.lookuptopicresponse().message() == "Client is not authorized to Lookup");
    auto meta = command(BaseCommand::PARTITIONED_METADATA);
    meta.mutable_partitionmetadata()->set_topic(topic);
    meta.mutable_partitionmetadata()->set_request_id(2);
    auto partitions = alice.call(meta);
    CHECK(partitions.partitionmetadataresponse().error() == pulsar::proto::AuthorizationError);
    CHECK(partitions.partitionmetadataresponse().message() == "Client is not authorized to Get Partition Metadata");
    auto produced = alice.call(producer(topic, 1, 3));
    CHECK(produced.type() == BaseCommand::ERROR);
    CHECK(produced.error().error() == pulsar::proto::AuthorizationError);
    CHECK(produced.error().message() == "Client is not authorized to Produce");
    auto subscribed = alice.call(subscribe(topic, "s", 1, 4));
    CHECK(subscribed.error().error() == pulsar::proto::AuthorizationError);
    CHECK(subscribed.error().message() == "Client is not authorized to subscribe");
    auto list = command(BaseCommand::GET_TOPICS_OF_NAMESPACE);
    list.mutable_gettopicsofnamespace()->set_namespace_("public/default");
    list.mutable_gettopicsofnamespace()->set_request_id(5);
    auto topics = alice.call(list);
    CHECK(topics.error().error() == pulsar::proto::AuthorizationError);
    CHECK(topics.error().message() == "Client is not authorized to GetTopicsOfNamespace");
    // A tenant that does not exist: the checks fail, each command with its own text.
    auto missingLookup = alice.call(lookup("persistent://nosuch/default/t", 6));
    CHECK(missingLookup.lookuptopicresponse().message() == "Exception occurred while trying to authorize lookup");
    auto missingProducer = alice.call(producer("persistent://nosuch/default/t", 2, 7));
    CHECK(missingProducer.error().message() == "org.apache.pulsar.common.util.RestException: HTTP 404 Not Found");
    meta.mutable_partitionmetadata()->set_topic("persistent://nosuch/default/t");
    meta.mutable_partitionmetadata()->set_request_id(8);
    auto missingMeta = alice.call(meta);
    CHECK(missingMeta.partitionmetadataresponse().error() == pulsar::proto::TopicNotFound);
    CHECK(missingMeta.partitionmetadataresponse().message() == "Tenant or namespace or topic does not exist: nosuch/default");

    // The super user grants produce on the namespace: alice produces and looks up, still may not consume.
    CHECK(callAs(server.adminPort(), http::verb::post, "/admin/v2/namespaces/public/default/permissions/alice",
                 bearer("admin"), R"(["produce"])")
              .status == 204);
    CHECK(alice.call(producer(topic, 3, 9)).type() == BaseCommand::PRODUCER_SUCCESS);
    CHECK(alice.call(lookup(topic, 10)).lookuptopicresponse().response() == pulsar::proto::CommandLookupTopicResponse::Connect);
    CHECK(alice.call(subscribe(topic, "s", 2, 11)).error().message() == "Client is not authorized to subscribe");
    // A topic grant of consume for bob; a tenant admin may do anything in the tenant.
    CHECK(callAs(server.adminPort(), http::verb::post, "/admin/v2/persistent/public/default/authz/permissions/bob",
                 bearer("admin"), R"(["consume"])")
              .status == 204);
    CHECK(callAs(server.adminPort(), http::verb::get, "/admin/v2/persistent/public/default/authz/permissions",
                 bearer("admin"))
              .json() == Json{{"alice", {"produce"}}, {"bob", {"consume"}}});
    Client bob(server.port());
    REQUIRE(connectWith(bob, "basic", "basic-user:basic-pass").type() == BaseCommand::CONNECTED);
    CHECK(bob.call(producer(topic, 1, 1)).error().message() == "Client is not authorized to Produce");
    CHECK(server.stop() == 0);
}

TEST_CASE("with authorization on, each admin path refuses a role without rights as a real broker does", "[serve][authz]") {
    ServeProcess server(authSettings(true));
    REQUIRE(server.adminPort() != 0);
    auto port = server.adminPort();
    const auto alice = bearer("alice");
    using V = http::verb;
    // (verb, path, status, reason): the answers of a real 4.2.4 broker to role alice.
    const std::vector<std::tuple<V, std::string, int, std::string>> refusals{
        {V::get, "/admin/v2/tenants", 401,
         "Unauthorized to validateBothTenantOperationAndSuperUser for originalPrincipal [null] and clientAppId [alice] about operation [LIST_TENANTS] "},
        {V::get, "/admin/v2/tenants/public", 401,
         "Unauthorized to validateBothTenantOperationAndSuperUser for originalPrincipal [null] and clientAppId [alice] about operation [GET_TENANT] "},
        {V::get, "/admin/v2/namespaces/public", 401,
         "Unauthorized to validateTenantOperation for originalPrincipal [null] and clientAppId [alice] about operation [LIST_NAMESPACES] on tenant [public]"},
        {V::get, "/admin/v2/namespaces/public/default", 403,
         "Unauthorized to validateNamespacePolicyOperation for operation [READ] on namespace [public/default] on policy [ALL]"},
        {V::get, "/admin/v2/namespaces/public/default/topics", 403,
         "Unauthorized to validateNamespaceOperation for operation [GET_TOPICS] on namespace [public/default]"},
        {V::get, "/admin/v2/namespaces/public/default/schemaCompatibilityStrategy", 403,
         "Unauthorized to validateNamespacePolicyOperation for operation [READ] on namespace [public/default] on policy [SCHEMA_COMPATIBILITY_STRATEGY]"},
        {V::get, "/admin/v2/namespaces/public/default/permissions", 403,
         "Unauthorized to validateNamespaceOperation for operation [GET_PERMISSION] on namespace [public/default]"},
        {V::get, "/admin/v2/persistent/public/default", 403,
         "Unauthorized to validateNamespaceOperation for operation [GET_TOPICS] on namespace [public/default]"},
        {V::get, "/admin/v2/persistent/public/default/t1/stats", 401,
         "Unauthorized to validateTopicOperation for operation [GET_STATS] on topic [persistent://public/default/t1]"},
        {V::get, "/admin/v2/persistent/public/default/t1/partitions", 401,
         "Unauthorized to validateTopicOperation for operation [LOOKUP] on topic [persistent://public/default/t1]"},
        {V::get, "/admin/v2/schemas/public/default/t1/schema", 401,
         "Unauthorized to validateTopicOperation for operation [GET_METADATA] on topic [persistent://public/default/t1]"},
        {V::get, "/lookup/v2/topic/persistent/public/default/t1", 401,
         "Unauthorized to validateTopicOperation for operation [LOOKUP] on topic [persistent://public/default/t1]"},
        {V::get, "/admin/v2/clusters/standalone", 401,
         "Unauthorized to validateBothSuperuserAndClusterOperation for originalPrincipal [null] and clientAppId [alice] about operation [GET_CLUSTER] on cluster [standalone]"},
        {V::get, "/admin/v2/persistent/public/default/t1/permissions", 401,
         "Don't have permission to administrate resources on this tenant"},
        {V::put, "/admin/v2/persistent/public/default/t1", 403,
         "Unauthorized to validateNamespaceOperation for operation [CREATE_TOPIC] on namespace [public/default]"},
        {V::put, "/admin/v2/persistent/public/default/t1/unload", 401,
         "Unauthorized to validateTopicOperation for operation [UNLOAD] on topic [persistent://public/default/t1]"},
        {V::get, "/admin/v2/persistent/nosuch/default/t1/stats", 404, "Tenant does not exist"},
        {V::get, "/admin/v2/namespaces/nosuch", 404, "Tenant does not exist"},
        {V::post, "/cnxsim/restart", 401, "This operation requires super-user access"},
    };
    for (const auto& [verb, path, status, reason] : refusals) {
        INFO(std::string(http::to_string(verb)) << " " << path);
        auto a = callAs(port, verb, path, alice);
        CHECK(a.status == status);
        CHECK(a.json()["reason"] == reason);
    }
    auto health = callAs(port, V::get, "/admin/v2/brokers/health", alice);
    CHECK(health.status == 401);
    CHECK_THAT(health.json()["reason"].get<std::string>(),
               Catch::StartsWith("Unauthorized to validateBothSuperuserAndBrokerOperation for originalPrincipal [null] and "
                                 "clientAppId [alice] about operation [HEALTH_CHECK] on broker [127.0.0.1:"));
    // What every authenticated role may call.
    CHECK(callAs(port, V::get, "/admin/v2/clusters", alice).status == 200);
    CHECK(callAs(port, V::get, "/admin/v2/brokers/version", alice).status == 200);
    // A super user passes every check; a tenant's admin role administers that tenant.
    CHECK(callAs(port, V::get, "/admin/v2/tenants", bearer("admin")).status == 200);
    CHECK(callAs(port, V::put, "/admin/v2/tenants/t-alice", bearer("admin"),
                 R"({"allowedClusters":["standalone"],"adminRoles":["alice"]})")
              .status == 204);
    CHECK(callAs(port, V::get, "/admin/v2/tenants/t-alice", alice).json() ==
          Json{{"adminRoles", {"alice"}}, {"allowedClusters", {"standalone"}}});
    CHECK(callAs(port, V::put, "/admin/v2/namespaces/t-alice/ns1", alice).status == 204);
    CHECK(callAs(port, V::get, "/admin/v2/namespaces/t-alice/ns1/permissions", alice).status == 200);
    CHECK(callAs(port, V::get, "/admin/v2/namespaces/public/default/permissions", alice).status == 403);
    // A namespace grant of produce lets alice read the namespace's topics and a topic's stats.
    CHECK(callAs(port, V::post, "/admin/v2/namespaces/public/default/permissions/alice", bearer("admin"), R"(["produce"])")
              .status == 204);
    CHECK(callAs(port, V::get, "/admin/v2/namespaces/public/default/topics", alice).status == 200);
    CHECK(callAs(port, V::put, "/admin/v2/persistent/public/default/t1", bearer("admin")).status == 204);
    CHECK(callAs(port, V::get, "/admin/v2/persistent/public/default/t1/stats", alice).status == 200);
    CHECK(server.stop() == 0);
}
