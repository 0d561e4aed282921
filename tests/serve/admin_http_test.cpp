// `cnxsim serve --admin-port` (issue 11): Pulsar's admin REST paths through
// the real binary, with an HTTP client of the test's own (Boost.Beast, sync):
// statuses, reason phrases and the exact JSON bodies per release.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

#include "serve_client.h"

using namespace serve_test;
using Json = nlohmann::json;
namespace http = boost::beast::http;

namespace {

struct Answer {
    int status = 0;
    std::string reason;
    std::string body;
    std::string contentType;
    std::string allow;
    Json json() const { return Json::parse(body, nullptr, false); }
};

/// One request on a fresh connection; every wait bounded by the socket's timeouts.
Answer call(std::uint16_t port, http::verb method, const std::string& target, const std::string& body = "",
            const std::string& contentType = "application/json") {
    boost::asio::io_context io;
    boost::beast::tcp_stream stream(io);
    stream.expires_after(std::chrono::seconds(10));
    stream.connect(boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
    http::request<http::string_body> req{method, target, 11};
    req.set(http::field::host, "127.0.0.1");
    if (!body.empty()) req.set(http::field::content_type, contentType);
    req.body() = body;
    req.prepare_payload();
    boost::beast::error_code written;
    http::write(stream, req, written);  // a refused body may be cut short: the answer is still read
    boost::beast::flat_buffer buffer;
    http::response<http::string_body> res;
    http::read(stream, buffer, res);
    Answer a;
    a.status = static_cast<int>(res.result_int());
    a.reason = std::string(res.reason());
    a.body = res.body();
    a.contentType = std::string(res[http::field::content_type]);
    a.allow = std::string(res[http::field::allow]);
    return a;
}

std::string payload(const std::string& type, const std::string& schema, Json properties = Json::object()) {
    return Json{{"type", type}, {"schema", schema}, {"properties", properties}}.dump();
}

const std::string kV1 = R"({"type":"record","name":"User","fields":[{"name":"id","type":"long"}]})";
const std::string kV2Optional =
    R"({"type":"record","name":"User","fields":[{"name":"id","type":"long"},{"name":"n","type":["null","string"],"default":null}]})";
const std::string kIncompatible = R"({"type":"record","name":"User","fields":[{"name":"x","type":"string"}]})";
const std::string kBase = "/admin/v2/schemas/public/default/users";

}  // namespace

TEST_CASE("the ready line names the admin URL, clusters, health and metrics answer", "[serve][admin]") {
    ServeProcess server;
    REQUIRE(server.adminPort() != 0);
    auto clusters = call(server.adminPort(), http::verb::get, "/admin/v2/clusters");
    CHECK(clusters.status == 200);
    CHECK(clusters.body == R"(["standalone"])");
    auto health = call(server.adminPort(), http::verb::get, "/admin/v2/brokers/health");
    CHECK(health.status == 200);
    CHECK(health.body == "ok");
    auto metrics = call(server.adminPort(), http::verb::get, "/metrics");
    CHECK(metrics.status == 200);
    CHECK_THAT(metrics.body, Catch::Contains("pulsar_topics_count{cluster=\"standalone\"} 0"));
    CHECK(server.stop() == 0);
}

TEST_CASE("schema endpoints on 3.0: POST 200, GET bodies, versions, compatibility, delete", "[serve][admin]") {
    ServeProcess server({"--broker-version", "3.0"});
    auto port = server.adminPort();
    REQUIRE(port != 0);
    auto posted = call(port, http::verb::post, kBase + "/schema", payload("AVRO", kV1, {{"owner", "billing"}}));
    CHECK(posted.status == 200);
    CHECK(posted.json() == Json::parse(R"({"version":{"version":0}})"));
    auto got = call(port, http::verb::get, kBase + "/schema");
    REQUIRE(got.status == 200);
    auto g = got.json();
    CHECK(g["version"] == 0);
    CHECK(g["type"] == "AVRO");
    CHECK(g["data"] == kV1);
    CHECK(g["properties"] == Json{{"owner", "billing"}});
    REQUIRE(g["timestamp"].is_number_integer());
    auto now = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    CHECK(g["timestamp"].get<std::int64_t>() > now - 600'000);  // stored in the last ten minutes, by the wall clock
    CHECK(g["timestamp"].get<std::int64_t>() <= now);

    CHECK(call(port, http::verb::post, kBase + "/schema", payload("AVRO", kV2Optional)).json() ==
          Json::parse(R"({"version":{"version":1}})"));
    auto all = call(port, http::verb::get, kBase + "/schemas").json();
    REQUIRE(all["getSchemaResponses"].size() == 2);
    CHECK(all["getSchemaResponses"][0]["version"] == 0);
    CHECK(call(port, http::verb::get, kBase + "/schema/1").json()["data"] == kV2Optional);
    auto version = call(port, http::verb::post, kBase + "/version", payload("AVRO", kV1));
    CHECK(version.status == 200);
    CHECK(version.json() == Json{{"version", 0}});
    CHECK(call(port, http::verb::post, kBase + "/version", payload("AVRO", kIncompatible)).json() == Json{{"version", -1}});

    auto compatible = call(port, http::verb::post, kBase + "/compatibility", payload("AVRO", kV2Optional));
    CHECK(compatible.status == 202);
    CHECK(compatible.json() == Json::parse(R"({"compatibility":true,"schemaCompatibilityStrategy":"FULL"})"));
    auto incompatible = call(port, http::verb::post, kBase + "/compatibility", payload("AVRO", kIncompatible));
    CHECK(incompatible.status == 500);
    CHECK_THAT(incompatible.json()["reason"].get<std::string>(), Catch::Contains("Unable to read schema"));
    auto refused = call(port, http::verb::post, kBase + "/schema", payload("AVRO", kIncompatible));
    CHECK(refused.status == 409);
    CHECK(refused.body.empty());  // a bare status and reason phrase (§7.2)
    CHECK_THAT(refused.reason, Catch::Contains("Error during schema compatibility check"));

    auto deleted = call(port, http::verb::delete_, kBase + "/schema");
    CHECK(deleted.status == 200);
    CHECK(deleted.json() == Json{{"version", 2}});
    auto missing = call(port, http::verb::get, kBase + "/schema");
    CHECK(missing.status == 404);
    CHECK(missing.json() == Json{{"reason", "Schema not found"}});
    CHECK(call(port, http::verb::delete_, kBase + "/schema?force=true").json() == Json{{"version", -1}});
    CHECK(server.stop() == 0);
}

TEST_CASE("POST schema answers 202 before 2.11", "[serve][admin]") {
    ServeProcess server({"--broker-version", "2.10"});
    auto posted = call(server.adminPort(), http::verb::post, kBase + "/schema", payload("AVRO", kV1));
    CHECK(posted.status == 202);
    CHECK(server.stop() == 0);
}

TEST_CASE("KEY_VALUE payloads are converted and rendered back", "[serve][admin]") {
    ServeProcess server;
    auto port = server.adminPort();
    const std::string kv = R"({"key":"","value":{"type":"record","name":"V","fields":[{"name":"a","type":"int"}]}})";
    auto posted = call(port, http::verb::post, kBase + "-kv/schema",
                       payload("KEY_VALUE", kv,
                               {{"key.schema.type", "STRING"}, {"value.schema.type", "AVRO"}, {"kv.encoding.type", "SEPARATED"}}));
    REQUIRE(posted.status == 200);
    auto got = call(port, http::verb::get, kBase + "-kv/schema").json();
    CHECK(got["type"] == "KEY_VALUE");
    CHECK(Json::parse(got["data"].get<std::string>()) == Json::parse(kv));
    CHECK(server.stop() == 0);
}

TEST_CASE("bad requests get Pulsar's answers: 404, 405, 413, 400, 500", "[serve][admin]") {
    ServeProcess server;
    auto port = server.adminPort();
    auto unknown = call(port, http::verb::get, "/admin/v2/nothing-here");
    CHECK(unknown.status == 404);
    CHECK(unknown.json().contains("reason"));
    auto wrongMethod = call(port, http::verb::put, kBase + "/schema");
    CHECK(wrongMethod.status == 405);
    CHECK(wrongMethod.allow == "GET, POST, DELETE");
    auto huge = call(port, http::verb::post, kBase + "/schema", std::string(9u << 20, 'x'));
    CHECK(huge.status == 413);
    CHECK(huge.json().contains("reason"));
    auto notJson = call(port, http::verb::post, kBase + "/schema", "{not json");
    CHECK(notJson.status == 400);
    auto badType = call(port, http::verb::post, kBase + "/schema", payload("AVROO", kV1));
    CHECK(badType.status == 500);
    auto badVersion = call(port, http::verb::get, kBase + "/schema/abc");
    CHECK(badVersion.status == 500);
    auto badEscape = call(port, http::verb::get, "/admin/v2/schemas/public/default/a%zz/schema");
    CHECK(badEscape.status == 400);
    // The server still answers afterwards.
    CHECK(call(port, http::verb::get, "/admin/v2/clusters").status == 200);
    CHECK(server.stop() == 0);
}

TEST_CASE("dynamic configuration and cnxsim's own control under /cnxsim/", "[serve][admin]") {
    ServeProcess server({"--broker-version", "3.0"});
    auto port = server.adminPort();
    auto set = call(port, http::verb::post, "/admin/v2/brokers/configuration/isAllowAutoUpdateSchemaEnabled/false");
    CHECK(set.status == 204);
    CHECK(call(port, http::verb::get, "/admin/v2/brokers/configuration/values").json() ==
          Json{{"isAllowAutoUpdateSchemaEnabled", "false"}});
    CHECK(call(port, http::verb::post, "/admin/v2/brokers/configuration/isSchemaValidationEnforced/true").status == 412);
    auto names = call(port, http::verb::get, "/admin/v2/brokers/configuration").json();
    CHECK(std::find(names.begin(), names.end(), "isAllowAutoUpdateSchemaEnabled") != names.end());

    auto status = call(port, http::verb::get, "/cnxsim/status").json();
    CHECK_THAT(status["release"].get<std::string>(), Catch::StartsWith("3.0."));
    auto upgraded = call(port, http::verb::post, "/cnxsim/upgrade?version=4.0");
    CHECK(upgraded.status == 200);
    CHECK_THAT(call(port, http::verb::get, "/cnxsim/status").json()["release"].get<std::string>(), Catch::StartsWith("4.0."));
    CHECK(call(port, http::verb::post, "/cnxsim/upgrade?version=9.9").status == 400);
    CHECK(call(port, http::verb::post, "/cnxsim/upgrade").status == 400);
    CHECK(server.stop() == 0);
}
