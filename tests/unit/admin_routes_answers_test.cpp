// The admin port's answers and the recorder's steps, held to a transcript
// (issue 45 item 2). Before the route table, three hand parsers read admin
// paths; the table must leave every answer (status, reason phrase, Allow,
// body) and every recorded step as it was. This sends a fixed set of requests
// (every route, every method, good and bad bodies, paths Pulsar lacks, hostile
// paths) to serve's admin routes on a fresh broker each, records what the
// recorder makes of the exchange, and compares the whole transcript with
// tests/unit/data/admin_routes_answers.txt. CNXSIM_WRITE_ADMIN_TRANSCRIPT=1
// writes the transcript there instead (then review the diff: each changed
// line is a changed answer).

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "admin_test_support.h"
#include "sim/record/admin_steps.h"
#include "sim/record/scenario_writer.h"
#include "sim/serve/http/admin_routes.h"

namespace {

using namespace cnx;
namespace http = cnx::serve::http;

constexpr const char* kAvro = R"({"type":"record","name":"Order","fields":[{"name":"id","type":"long"}]})";
constexpr const char* kMetadataType = "application/vnd.partitioned-topic-metadata+json";

struct Probe {
    std::string method;
    std::string target;
    std::string body;
    std::string contentType;
};

std::string schemaPayload() {
    nlohmann::json j{{"type", "AVRO"}, {"schema", kAvro}, {"properties", nlohmann::json::object()}};
    return j.dump();
}

// The body a client sends to the path's last known segment.
std::string goodBody(const std::string& method, const std::string& target) {
    if (method != "PUT" && method != "POST") return "";
    std::string path = target.substr(0, target.find('?'));
    auto leaf = path.substr(path.rfind('/') + 1);
    auto has = [&](const char* part) { return path.find(part) != std::string::npos; };
    if (leaf == "schema" || leaf == "compatibility" || leaf == "version") return has("/schemas/") ? schemaPayload() : "";
    if (has("/tenants/")) return R"({"allowedClusters":["standalone"],"adminRoles":["boss"]})";
    if (has("/clusters/")) return "{}";
    if (has("/permissions/")) return R"(["produce","consume"])";
    if (leaf == "schemaCompatibilityStrategy") return R"("BACKWARD")";
    if (leaf == "schemaAutoUpdateCompatibilityStrategy") return R"("Backward")";
    if (leaf == "isAllowAutoUpdateSchema" || leaf == "schemaValidationEnforced") return "true";
    if (leaf == "maxProducersPerTopic" || leaf == "partitions") return "3";
    if (has("/namespaces/")) return R"({"schema_validation_enforced":true})";
    return "";
}

std::vector<std::string> topicTargets(const std::string& d) {
    const std::string base = "/admin/v2/" + d + "/public/default";
    std::vector<std::string> out = {base, base + "/partitioned", base + "/t", base + "/fresh", base + "/p",
                                    base + "/t?force=true&deleteSchema=true", base + "/p/partitions?force=true",
                                    base + "/t/permissions", base + "/t/permissions/role1", base + "/t/permissions/role1/x",
                                    base + "/t/stats", base + "/t/stats/x", base + "/t/terminate", base + "/t/unload",
                                    base + "/p/unload", base + "/p/partitions", base + "/t/partitions", base + "/fresh/partitions",
                                    base + "/t/schemaCompatibilityStrategy", base + "/t/schemaCompatibilityStrategy?applied=true",
                                    base + "/t/schemaValidationEnforced", base + "/t/isAllowAutoUpdateSchema",
                                    base + "/t/schemaAutoUpdateCompatibilityStrategy", base + "/t/maxProducersPerTopic",
                                    base + "/t/ledger/1/entry/2", base + "/t/subscription/s/skip_all", base + "/t/lastMessageId",
                                    base + "/t/unknown", base + "/t/a/b/c", base + "/bad%20name", base + "/bad%20name/stats",
                                    base + "/bad%20name/nothing", "/admin/v2/" + d + "/public", "/admin/v2/" + d + "/public/missing",
                                    "/admin/v2/" + d + "/public/missing/partitioned", "/admin/v2/" + d};
    return out;
}

std::vector<std::string> namespaceTargets() {
    const std::string ns = "/admin/v2/namespaces/public/default";
    std::vector<std::string> out = {"/admin/v2/namespaces", "/admin/v2/namespaces/public", "/admin/v2/namespaces/nobody",
                                    ns, "/admin/v2/namespaces/public/fresh", ns + "?force=true", ns + "/topics",
                                    ns + "/topics?mode=ALL", ns + "/topics?mode=NON_PERSISTENT", ns + "/topics?mode=bad",
                                    "/admin/v2/namespaces/public/missing/topics", ns + "/permissions",
                                    ns + "/permissions/role1", ns + "/permissions/role1/x", ns + "/deduplication",
                                    ns + "/backlogQuota", ns + "/unknown", ns + "/a/b/c", ns + "/topics/x"};
    for (const char* p : {"schemaCompatibilityStrategy", "schemaAutoUpdateCompatibilityStrategy", "isAllowAutoUpdateSchema",
                          "schemaValidationEnforced", "maxProducersPerTopic"}) {
        out.push_back(ns + "/" + p);
        out.push_back(ns + "/" + p + "?applied=true");
        out.push_back("/admin/v2/namespaces/public/missing/" + std::string(p));
    }
    return out;
}

std::vector<std::string> otherTargets() {
    const std::string sch = "/admin/v2/schemas/public/default/t";
    return {"/", "/metrics", "/metrics/x", "/foo", "/admin", "/admin/v2", "/admin/v1/tenants", "/cnxsim/status",
            "/cnxsim/upgrade?version=3.0", "/cnxsim/restart", "/cnxsim/reset", "/cnxsim/trace?last=2", "/cnxsim",
            "/lookup/v2/topic/persistent/public/default/t", "/lookup/v2/topic/non-persistent/public/default/t",
            "/lookup/v2/topic/persistent/public/default/t?listenerName=internal", "/lookup/v2/topic/bogus/public/default/t",
            "/lookup/v2/topic/persistent/public/default", "/lookup/v2/topic/persistent/public/default/bad%20name",
            "/lookup/v2", "/admin/v2/brokers", "/admin/v2/brokers/version", "/admin/v2/brokers/health",
            "/admin/v2/brokers/health/x", "/admin/v2/brokers/configuration", "/admin/v2/brokers/configuration/runtime",
            "/admin/v2/brokers/configuration/values", "/admin/v2/brokers/configuration/isAllowAutoUpdateSchema",
            "/admin/v2/brokers/configuration/isAllowAutoUpdateSchema/false", "/admin/v2/brokers/configuration/nope/1",
            "/admin/v2/brokers/configuration/a/b/c", "/admin/v2/brokers/x", "/admin/v2/clusters",
            "/admin/v2/clusters/standalone", "/admin/v2/clusters/other", "/admin/v2/clusters/bad%20name",
            "/admin/v2/clusters/standalone/x", "/admin/v2/tenants", "/admin/v2/tenants/public", "/admin/v2/tenants/fresh",
            "/admin/v2/tenants/public/x", "/admin/v2/schemas", "/admin/v2/schemas/public/default", sch, sch + "/schema",
            sch + "/schema?force=true", sch + "/schema/0", sch + "/schema/7", sch + "/schema/abc", sch + "/schema/-1",
            sch + "/schema/0/x", sch + "/schemas", sch + "/compatibility", sch + "/version", sch + "/other",
            "/admin/v2/schemas/public/default/bad%20name/schema", "/admin/v2/schemas/public/default/bad%20name/other",
            // hostile: encoded slashes, empty segments, dot segments, bad escapes, control bytes
            "/admin/v2/tenants/a%2Fb", "/admin/v2/schemas/public/default/a%2Fb/schema", "//admin//v2//tenants//",
            "/admin/v2/tenants/..", "/admin/v2/namespaces/public/../default", "/admin/v2/../v2/tenants",
            "/admin/v2/%zz", "/admin/v2/tenants?%zz=1", "/admin/v2/tenants/%00", "/admin/v2/persistent/public/default/%2e%2e",
            "/admin/v2/brokers/configuration/a%2Fb/c", "/admin/v2/tenants/" + std::string(5000, 'a'),
            "/admin/v2/" + std::string(3000, '/') + "tenants"};
}

std::vector<Probe> probes() {
    std::vector<std::string> targets = otherTargets();
    for (const auto& t : namespaceTargets()) targets.push_back(t);
    for (const char* d : {"persistent", "non-persistent", "bogus"})
        for (const auto& t : topicTargets(d)) targets.push_back(t);
    std::vector<Probe> out;
    for (const auto& t : targets) {
        for (const char* m : {"GET", "PUT", "POST", "DELETE", "PATCH"}) {
            out.push_back({m, t, goodBody(m, t), ""});
            if (std::string(m) == "PUT" || std::string(m) == "POST") out.push_back({m, t, "{\"x", ""});
        }
        if (t.size() > 11 && t.compare(t.size() - 11, 11, "/partitions") == 0) {
            out.push_back({"PUT", t, R"({"partitions":2})", kMetadataType});
            out.push_back({"PUT", t, R"({"partitions":2,"properties":{"a":"b"}})", kMetadataType});
        }
    }
    out.push_back({"POST", "/admin/v2/schemas/public/default/t/schema", R"({"type":"AVRO","schema":"{"})", ""});
    out.push_back({"PUT", "/admin/v2/namespaces/public/default/schemaCompatibilityStrategy", "true", ""});
    out.push_back({"PUT", "/admin/v2/namespaces/public/default/schemaCompatibilityStrategy", "", ""});
    out.push_back({"PUT", "/admin/v2/persistent/public/default/t/partitions", "\"3\"", ""});
    out.push_back({"PUT", "/admin/v2/tenants/fresh", R"({"allowedClusters":["elsewhere"]})", ""});
    out.push_back({"PUT", "/admin/v2/namespaces/public/fresh", R"({"auth_policies":{"namespace_auth":{"r":["produce"]}}})", ""});
    return out;
}

std::string clip(const std::string& text) {
    std::string out = text.size() > 240 ? text.substr(0, 240) + "…(" + std::to_string(text.size()) + ")" : text;
    for (auto& c : out)
        if (c == '\n') c = '|';
    return out;
}

// One probe on a fresh broker with a tenant, a topic `t` with a schema and a partitioned topic `p`.
std::string answer(const Probe& probe) {
    testing::AdminFixture a;
    auto t = *TopicName::parse("persistent://public/default/t");
    SchemaData schema;
    schema.type = SchemaType::AVRO;
    schema.data = kAvro;
    a.api.createTopic(t);
    a.wait([&](AdminApi::Callback cb) { a.api.postSchema(t, schema, std::move(cb)); });
    a.api.createPartitionedTopic(*TopicName::parse("persistent://public/default/p"), 2);
    http::AdminRoutes routes(a.f.broker, a.api, nullptr, nullptr, nullptr);
    http::Request req{boost::beast::http::string_to_verb(probe.method), probe.target, 11};
    req.body() = probe.body;
    if (!probe.contentType.empty()) req.set(boost::beast::http::field::content_type, probe.contentType);
    req.prepare_payload();
    std::optional<http::Response> res;
    routes.handle(req, [&res](http::Response r, TracePtr) { res = std::move(r); });
    a.f.scheduler.runUntilIdle();
    std::ostringstream o;
    o << probe.method << " " << clip(probe.target) << " [" << probe.contentType << "] " << clip(probe.body)
      << "\n  => ";
    if (!res) return o.str() + "no answer\n";
    o << res->result_int() << " '" << std::string(res->reason()) << "' allow=" << std::string((*res)[boost::beast::http::field::allow])
      << " type=" << std::string((*res)[boost::beast::http::field::content_type]) << " " << clip(res->body()) << "\n";
    record::SchemaAliases aliases;
    auto effect = record::adminEffect(http::exchangeOf(req, *res, nullptr), aliases);
    if (effect.step) o << "  step: " << clip(record::writeStep(*effect.step, sim::Scenario{})) << "\n";
    if (effect.createdNamespace) o << "  namespace: " << *effect.createdNamespace << "\n";
    if (effect.createdTopic) o << "  topic: " << *effect.createdTopic << " partitions " << effect.partitions << "\n";
    return o.str();
}

}  // namespace

TEST_CASE("admin routes: every answer and recorded step is the transcript's (issue 45 item 2)", "[serve][admin][record]") {
    std::string transcript;
    for (const auto& p : probes()) transcript += answer(p);
    const std::string path = std::string(CNXSIM_SOURCE_DIR) + "/tests/unit/data/admin_routes_answers.txt";
    if (std::getenv("CNXSIM_WRITE_ADMIN_TRANSCRIPT")) {
        std::ofstream(path, std::ios::binary) << transcript;
        return;
    }
    std::ifstream in(path, std::ios::binary);
    REQUIRE(in);
    std::stringstream want;
    want << in.rdbuf();
    // Line by line, so that a failure names the first answer that changed.
    std::istringstream got(transcript), expected(want.str());
    std::string g, e;
    int line = 0;
    while (true) {
        bool hg = static_cast<bool>(std::getline(got, g)), he = static_cast<bool>(std::getline(expected, e));
        ++line;
        if (!hg && !he) break;
        INFO("transcript line " << line);
        REQUIRE(g == e);
    }
}
