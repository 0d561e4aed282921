// The session recorder (sim/record/session_recorder.h) fed with synthetic
// taps, as serve and the proxy feed it: every step kind, reconnects,
// partitioned producers, producers named by the broker, batches. Each case
// checks the exact YAML written, and replays it: a recording whose answers are
// the model's own must pass `cnxsim run` (loader + runner here).

#include <catch2/catch.hpp>

#include <set>

#include "broker_model/core/utf8.h"
#include "broker_model/wire/frame.h"
#include "issue7_test_support.h"
#include "sim/record/recording_file.h"
#include "sim/record/scenario_writer.h"
#include "sim/record/session_recorder.h"
#include "sim/run/runner.h"
#include "sim/scenario/loader.h"

namespace {

using pulsar::proto::BaseCommand;
using cnx::record::SessionRecorder;

constexpr const char* kAvro = R"({"type":"record","name":"Order","fields":[{"name":"id","type":"long"}]})";

BaseCommand connect(int protocol = 21, const std::string& client = "Pulsar-Java-v3.0.0") {
    BaseCommand c;
    c.set_type(BaseCommand::CONNECT);
    c.mutable_connect()->set_client_version(client);
    c.mutable_connect()->set_protocol_version(protocol);
    return c;
}

BaseCommand producer(const std::string& topic, std::uint64_t id, std::uint64_t request, const std::string& name,
                     const char* schemaType = nullptr, const std::string& schemaData = "") {
    BaseCommand c;
    c.set_type(BaseCommand::PRODUCER);
    auto* p = c.mutable_producer();
    p->set_topic(topic);
    p->set_producer_id(id);
    p->set_request_id(request);
    if (!name.empty()) p->set_producer_name(name);
    if (schemaType) {
        pulsar::proto::Schema::Type t{};
        pulsar::proto::Schema::Type_Parse(schemaType, &t);
        p->mutable_schema()->set_type(t);
        p->mutable_schema()->set_name(topic);
        p->mutable_schema()->set_schema_data(schemaData);
    }
    return c;
}

BaseCommand producerSuccess(std::uint64_t request, const std::string& name, std::optional<std::int64_t> version,
                            std::optional<bool> ready = std::nullopt) {
    BaseCommand c;
    c.set_type(BaseCommand::PRODUCER_SUCCESS);
    auto* s = c.mutable_producer_success();
    s->set_request_id(request);
    s->set_producer_name(name);
    if (version) s->set_schema_version(cnx::wire::encodeSchemaVersion(*version));
    if (ready) s->set_producer_ready(*ready);
    return c;
}

BaseCommand error(std::uint64_t request, pulsar::proto::ServerError e, const std::string& message) {
    BaseCommand c;
    c.set_type(BaseCommand::ERROR);
    c.mutable_error()->set_request_id(request);
    c.mutable_error()->set_error(e);
    c.mutable_error()->set_message(message);
    return c;
}

BaseCommand subscribe(const std::string& topic, const std::string& sub, std::uint64_t id, std::uint64_t request,
                      const std::string& name, pulsar::proto::CommandSubscribe::SubType type) {
    BaseCommand c;
    c.set_type(BaseCommand::SUBSCRIBE);
    auto* s = c.mutable_subscribe();
    s->set_topic(topic);
    s->set_subscription(sub);
    s->set_subtype(type);
    s->set_consumer_id(id);
    s->set_request_id(request);
    s->set_consumer_name(name);
    return c;
}

BaseCommand success(std::uint64_t request) {
    BaseCommand c;
    c.set_type(BaseCommand::SUCCESS);
    c.mutable_success()->set_request_id(request);
    return c;
}

BaseCommand send(std::uint64_t producerId, std::uint64_t sequence, int messages = 1) {
    BaseCommand c;
    c.set_type(BaseCommand::SEND);
    c.mutable_send()->set_producer_id(producerId);
    c.mutable_send()->set_sequence_id(sequence);
    if (messages != 1) c.mutable_send()->set_num_messages(messages);
    return c;
}

BaseCommand receipt(std::uint64_t producerId, std::uint64_t sequence) {
    BaseCommand c;
    c.set_type(BaseCommand::SEND_RECEIPT);
    c.mutable_send_receipt()->set_producer_id(producerId);
    c.mutable_send_receipt()->set_sequence_id(sequence);
    return c;
}

BaseCommand closeProducer(std::uint64_t producerId, std::uint64_t request) {
    BaseCommand c;
    c.set_type(BaseCommand::CLOSE_PRODUCER);
    c.mutable_close_producer()->set_producer_id(producerId);
    c.mutable_close_producer()->set_request_id(request);
    return c;
}

BaseCommand metadata(std::uint64_t request, const std::string& topic) {
    BaseCommand c;
    c.set_type(BaseCommand::PARTITIONED_METADATA);
    c.mutable_partitionmetadata()->set_request_id(request);
    c.mutable_partitionmetadata()->set_topic(topic);
    return c;
}

BaseCommand metadataResponse(std::uint64_t request, unsigned partitions) {
    BaseCommand c;
    c.set_type(BaseCommand::PARTITIONED_METADATA_RESPONSE);
    c.mutable_partitionmetadataresponse()->set_request_id(request);
    c.mutable_partitionmetadataresponse()->set_partitions(partitions);
    return c;
}

cnx::serve::AdminExchange exchange(const std::string& method, const std::string& target, const std::string& body,
                                   int status, const std::string& response = "", const std::string& reason = "") {
    return {method, target, body, status, response, nullptr, reason};
}

SessionRecorder recorder() { return SessionRecorder({"5.0.0", "recorded in a unit test", "unit session"}); }

// The recording loads (no replay: the answers may not be the model's).
void requireLoads(const std::string& yaml, const std::filesystem::path& folder = ".") {
    auto loaded = cnx::sim::loadScenarioText(yaml, (folder / "recorded.yaml").string(), folder.string());
    for (const auto& e : loaded.errors) INFO(e.format());
    INFO(yaml);
    REQUIRE(loaded.ok());
}

// Every recording these tests make is also written as the session goes (issue
// 40, item 10): after each tap call the file holds exactly what the whole
// recording writes and, once it has a step, loads; at the end `cnxsim lint`
// accepts the finished file (item 12). Declared right after the recorder.
class FileCheck {
public:
    explicit FileCheck(SessionRecorder& r) : recorder_(r) {
        auto created = cnx::record::RecordingFile::create(path(), r);
        REQUIRE(std::holds_alternative<std::unique_ptr<cnx::record::RecordingFile>>(created));
        file_ = std::move(std::get<std::unique_ptr<cnx::record::RecordingFile>>(created));
        r.setOnChange([this] { check(); });
    }
    ~FileCheck() { finish(); }
    void finish() {
        if (finished_) return;
        finished_ = true;
        auto e = file_->finish(recorder_);
        CHECK_FALSE(e);
        if (!recorder_.recording().steps.empty()) {
            auto lint = issue7::cli({"lint", path().string()});
            INFO(lint.out << lint.err);
            CHECK(lint.status == 0);
        }
    }
    FileCheck(const FileCheck&) = delete;
    FileCheck& operator=(const FileCheck&) = delete;

    std::filesystem::path path() const { return dir_ / "recorded.yaml"; }

private:
    void check() {
        auto e = file_->update(recorder_);
        REQUIRE_FALSE(e);
        auto whole = recorder_.recording();
        auto text = issue7::readText(path());
        REQUIRE(text == cnx::record::writeScenario(whole));
        if (!whole.steps.empty()) requireLoads(text, dir_.path());
    }

    SessionRecorder& recorder_;
    bool finished_ = false;
    issue7::TempDir dir_;
    std::unique_ptr<cnx::record::RecordingFile> file_;
};

std::string yamlOf(const SessionRecorder& r) {
    auto yaml = cnx::record::writeScenario(r.recording());
    requireLoads(yaml);
    return yaml;
}

// The recording loads and every step passes when the model replays it.
void requireReplayPasses(const std::string& yaml) {
    auto loaded = cnx::sim::loadScenarioText(yaml, "recorded.yaml", ".");
    for (const auto& e : loaded.errors) INFO(e.format());
    REQUIRE(loaded.ok());
    REQUIRE(loaded.scenarios.size() == 1);
    const auto& scenario = loaded.scenarios.front();
    auto result = cnx::sim::runScenario(scenario, "recorded.yaml", cnx::sim::versionsOf(scenario).front(), {});
    for (const auto& s : result.steps) {
        INFO(s.label() << ": " << s.why);
        CHECK(s.status != cnx::sim::StepStatus::failed);
    }
    REQUIRE(result.setupError.empty());
    REQUIRE(result.passed);
}

const std::string kHead =
    "# recorded in a unit test\n"
    "# Every expect is the answer the broker gave; `cnxsim run` on this file replays it.\n"
    "name: unit session\n"
    "broker:\n"
    "  version: \"5.0.0\"\n";

}  // namespace

TEST_CASE("recorder: producer, subscribe, merged publishes with a batch, close", "[record]") {
    auto r = recorder();
    FileCheck file(r);
    r.opened(1, "127.0.0.1:5000");
    r.received(1, connect());
    r.received(1, producer("persistent://public/default/orders", 1, 1, "p1", "String"));
    r.sent(1, producerSuccess(1, "p1", 0), nullptr);
    r.received(1, subscribe("orders", "s1", 2, 2, "c1", pulsar::proto::CommandSubscribe::Shared));
    r.sent(1, success(2), nullptr);
    r.received(1, send(1, 0));
    r.received(1, send(1, 1, 5));  // a batch of five
    r.sent(1, receipt(1, 0), nullptr);
    r.received(1, send(1, 6));
    r.sent(1, receipt(1, 1), nullptr);
    r.received(1, closeProducer(1, 3));
    r.sent(1, success(3), nullptr);
    auto yaml = yamlOf(r);
    CHECK(yaml == kHead +
                      "steps:\n"
                      "  - producer: { topic: orders, name: p1, schema: STRING }\n"
                      "    expect: { schema_version: 0 }\n"
                      "  - subscribe: { topic: orders, subscription: s1, consumer: c1, schema: none, type: Shared }\n"
                      "    expect: ok\n"
                      "  - publish: { producer: p1, count: 7 }\n"
                      "    expect: ok\n"
                      "  - close: p1\n"
                      "    expect: ok\n");
    requireReplayPasses(yaml);
}

TEST_CASE("recorder: a producer named by the broker is referred to by that name", "[record]") {
    auto r = recorder();
    FileCheck file(r);
    r.received(1, connect());
    r.received(1, producer("persistent://public/default/t", 7, 1, "", "Avro", kAvro));
    r.sent(1, producerSuccess(1, "standalone-0-3", 0), nullptr);
    r.received(1, send(7, 0));
    r.sent(1, receipt(7, 0), nullptr);
    // A second producer with the same definition on another topic shares the alias.
    r.received(1, producer("persistent://public/default/other", 8, 2, "", "Avro", kAvro));
    r.sent(1, error(2, pulsar::proto::IncompatibleSchema,
                    "org.apache.pulsar.broker.service.schema.exceptions.IncompatibleSchemaException: Incompatible "
                    "schema: exists schema type STRING, new schema type AVRO caused by x"),
           nullptr);
    auto yaml = yamlOf(r);
    CHECK(yaml == kHead +
                      "schemas:\n"
                      "  t-avro-1:\n"
                      "    type: AVRO\n"
                      "    schema: '" + std::string(kAvro) + "'\n"
                      "steps:\n"
                      "  - producer: { topic: t, name: standalone-0-3, schema: t-avro-1 }\n"
                      "    expect: { schema_version: 0 }\n"
                      "  - publish: { producer: standalone-0-3, count: 1 }\n"
                      "    expect: ok\n"
                      "  - producer: { topic: other, schema: t-avro-1 }\n"
                      "    expect: { error: IncompatibleSchema, message: \"Incompatible schema: exists schema type STRING, new schema type AVRO\" }\n");
}

TEST_CASE("recorder: the producers of a partitioned topic are one step on the base topic", "[record]") {
    auto r = recorder();
    FileCheck file(r);
    r.received(1, connect());
    r.received(1, metadata(1, "persistent://public/default/parts"));
    r.sent(1, metadataResponse(1, 3), nullptr);
    for (std::uint64_t i = 0; i < 3; ++i)
        r.received(1, producer("persistent://public/default/parts-partition-" + std::to_string(i), 10 + i, 2 + i, "pp",
                               "String"));
    for (std::uint64_t i = 3; i-- > 0;) r.sent(1, producerSuccess(2 + i, "pp", 0), nullptr);
    for (std::uint64_t i = 0; i < 4; ++i) r.received(1, send(10 + i % 3, i));
    auto yaml = yamlOf(r);
    CHECK(yaml == kHead +
                      "topics:\n"
                      "  parts: { partitions: 3 }\n"
                      "steps:\n"
                      "  - producer: { topic: parts, name: pp, schema: STRING }\n"
                      "    expect: { schema_version: 0 }\n"
                      "  - publish: { producer: pp, count: 4 }\n"
                      "    expect: ok\n");
    requireReplayPasses(yaml);
}

// The consumer's name (the C++ client's random one) starts with a digit: as a
// reconnect map's first key it would make the map a per-version one, so the
// step names it c-1c2cdd, and its reconnect is still matched by the wire name.
TEST_CASE("recorder: reconnects after a restart are the restart's outcome, a dropped connection's are a note",
          "[record]") {
    auto r = recorder();
    FileCheck file(r);
    r.opened(1, "a");
    r.received(1, connect());
    r.received(1, producer("persistent://public/default/t", 1, 1, "p1", "String"));
    r.sent(1, producerSuccess(1, "p1", 0), nullptr);
    r.received(1, subscribe("persistent://public/default/t", "s", 2, 2, "1c2cdd", pulsar::proto::CommandSubscribe::Exclusive));
    r.sent(1, success(2), nullptr);
    r.admin(exchange("POST", "/cnxsim/restart", "", 200, R"({"result":"restart"})"));
    BaseCommand close;
    close.set_type(BaseCommand::CLOSE_PRODUCER);
    close.mutable_close_producer()->set_producer_id(1);
    close.mutable_close_producer()->set_request_id(0);
    r.sent(1, close, nullptr);
    r.closed(1, "broker restart");
    r.opened(2, "a");
    r.received(2, connect());
    r.received(2, producer("persistent://public/default/t", 1, 1, "p1", "String"));
    r.sent(2, producerSuccess(1, "p1", 0), nullptr);
    r.received(2, subscribe("persistent://public/default/t", "s", 2, 2, "1c2cdd", pulsar::proto::CommandSubscribe::Exclusive));
    r.sent(2, success(2), nullptr);
    // Connection 2 drops without a lifecycle step: p1's reconnect is not a step.
    r.closed(2, "peer reset");
    r.opened(3, "a");
    r.received(3, producer("persistent://public/default/t", 1, 1, "p1", "String"));
    r.sent(3, producerSuccess(1, "p1", 0), nullptr);
    auto yaml = yamlOf(r);
    CHECK(yaml == kHead +
                      "steps:\n"
                      "  - producer: { topic: t, name: p1, schema: STRING }\n"
                      "    expect: { schema_version: 0 }\n"
                      "  - subscribe: { topic: t, subscription: s, consumer: c-1c2cdd, schema: none }\n"
                      "    expect: ok\n"
                      "  - restart-broker: {}\n"
                      "    expect: { c-1c2cdd: ok, p1: { schema_version: 0 } }\n"
                      "  # p1 reconnected after its connection dropped (no upgrade, restart or unload in front, so no "
                      "step): { schema_version: 0 }\n");
    requireReplayPasses(yaml);
}

TEST_CASE("recorder: a PRODUCER_SUCCESS with producer_ready=false waits for the second one", "[record]") {
    auto r = recorder();
    FileCheck file(r);
    r.received(1, connect());
    r.received(1, producer("persistent://public/default/t", 1, 1, "p1"));
    r.sent(1, producerSuccess(1, "p1", std::nullopt, false), nullptr);
    r.sent(1, producerSuccess(1, "p1", std::nullopt, true), nullptr);
    r.received(1, producer("persistent://public/default/t", 2, 2, "p2"));  // never answered
    auto yaml = yamlOf(r);
    CHECK(yaml == kHead +
                      "steps:\n"
                      "  - producer: { topic: t, name: p1, schema: none }\n"
                      "    expect: ok\n"
                      "  # no answer was seen before the recording ended\n"
                      "  - producer: { topic: t, name: p2, schema: none }\n");
}

TEST_CASE("recorder: admin exchanges become admin steps and the header", "[record]") {
    auto r = recorder();
    FileCheck file(r);
    std::string payload = std::string(R"({"type":"AVRO","schema":")") +
                          R"({\"type\":\"record\",\"name\":\"Order\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]})" +
                          R"(","properties":{"owner":"billing"}})";
    r.admin(exchange("PUT", "/admin/v2/tenants/acme", R"({"allowedClusters":["standalone"]})", 204));
    r.admin(exchange("PUT", "/admin/v2/namespaces/acme/shop", "", 204));
    r.admin(exchange("PUT", "/admin/v2/persistent/acme/shop/pt/partitions", "2", 204));
    r.admin(exchange("PUT", "/admin/v2/namespaces/acme/shop/schemaCompatibilityStrategy", "\"BACKWARD\"", 204));
    r.admin(exchange("POST", "/admin/v2/namespaces/acme/shop/schemaValidationEnforced", "true", 204));
    r.admin(exchange("POST", "/admin/v2/brokers/configuration/isAllowAutoUpdateSchemaEnabled/false", "", 204));
    r.admin(exchange("POST", "/admin/v2/schemas/acme/shop/orders/schema", payload, 200, R"({"version":{"version":0}})"));
    r.admin(exchange("GET", "/admin/v2/schemas/acme/shop/orders/schema/0", "", 200,
                     R"({"version":0,"type":"AVRO","timestamp":1,"data":")" +
                         std::string(R"({\"type\":\"record\",\"name\":\"Order\",\"fields\":[{\"name\":\"id\",\"type\":\"long\"}]})") +
                         R"(","properties":{"owner":"billing"}})"));
    r.admin(exchange("POST", "/admin/v2/schemas/acme/shop/orders/compatibility", payload, 200,
                     R"({"compatibility":true,"schemaCompatibilityStrategy":"BACKWARD"})"));
    r.admin(exchange("POST", "/admin/v2/schemas/acme/shop/orders/version", payload, 200, R"({"version":0})"));
    r.admin(exchange("GET", "/admin/v2/clusters", "", 200, R"(["standalone"])"));  // not a step
    r.admin(exchange("DELETE", "/admin/v2/schemas/acme/shop/orders/schema", "", 200, R"({"version":1})"));
    r.admin(exchange("DELETE", "/admin/v2/persistent/acme/shop/orders?force=true", "", 404, R"({"reason":"Topic not found"})"));
    r.admin(exchange("PUT", "/admin/v2/persistent/acme/shop/orders/unload", "", 204));
    r.admin(exchange("POST", "/cnxsim/upgrade?version=4.0", "", 200, R"({"result":"upgrade"})"));
    auto yaml = yamlOf(r);
    CHECK(yaml == kHead +
                      "namespaces:\n"
                      "  acme/shop: {}\n"
                      "topics:\n"
                      "  acme/shop/pt: { partitions: 2 }\n"
                      "schemas:\n"
                      "  orders-avro-1:\n"
                      "    type: AVRO\n"
                      "    schema: '" + std::string(kAvro) + "'\n"
                      "    properties: { \"owner\": \"billing\" }\n"
                      "steps:\n"
                      "  - set-policy: { namespace: acme/shop, schema_compatibility_strategy: BACKWARD }\n"
                      "    expect: ok\n"
                      "  - set-policy: { namespace: acme/shop, schema_validation_enforced: true }\n"
                      "    expect: ok\n"
                      "  - set-broker-config: { isAllowAutoUpdateSchemaEnabled: false }\n"
                      "    expect: ok\n"
                      "  - upload-schema: { topic: acme/shop/orders, schema: orders-avro-1 }\n"
                      "    expect: { schema_version: 0 }\n"
                      "  - get-schema: { topic: acme/shop/orders, version: 0 }\n"
                      "    expect: { schema_version: 0, type: AVRO, schema: orders-avro-1, properties: { \"owner\": \"billing\" } }\n"
                      "  - test-compatibility: { topic: acme/shop/orders, schema: orders-avro-1 }\n"
                      "    expect: { compatible: true, strategy: BACKWARD }\n"
                      "  - get-schema-version: { topic: acme/shop/orders, schema: orders-avro-1 }\n"
                      "    expect: { schema_version: 0 }\n"
                      "  - delete-schema: { topic: acme/shop/orders }\n"
                      "    expect: { schema_version: 1 }\n"
                      "  - delete-topic: { topic: acme/shop/orders, force: true }\n"
                      "    expect: { error: 404, message: \"Topic not found\" }\n"
                      "  - unload: acme/shop/orders\n"
                      "  - upgrade-broker: \"4.0\"\n");
}

TEST_CASE("recorder: scalars and topics are written so they read back the same", "[record]") {
    using cnx::record::shortTopic;
    using cnx::record::yamlScalar;
    CHECK(shortTopic("persistent://public/default/a") == "a");
    CHECK(shortTopic("persistent://t/n/a") == "t/n/a");
    CHECK(shortTopic("non-persistent://public/default/a") == "non-persistent://public/default/a");
    CHECK(yamlScalar("p1") == "p1");
    CHECK(yamlScalar("true") == "\"true\"");
    CHECK(yamlScalar("1.5") == "\"1.5\"");
    CHECK(yamlScalar("a: b") == "\"a: b\"");
    CHECK(yamlScalar("-x") == "\"-x\"");
    CHECK(yamlScalar("") == "\"\"");
    CHECK(yamlScalar("...") == "\"...\"");  // a document marker to yaml-cpp
}

TEST_CASE("recorder: a reported release is written as one cnxsim models", "[record]") {
    using cnx::record::modelledRelease;
    CHECK(modelledRelease("3.0.2") == "3.0.2");
    CHECK(modelledRelease("3.0.999") == "3.0");  // a patch newer than modelled: its line
    CHECK(modelledRelease("9.9.9").empty());
    CHECK(modelledRelease("").empty());
    SessionRecorder r({"", "", ""});
    BaseCommand connected;
    connected.set_type(BaseCommand::CONNECTED);
    connected.mutable_connected()->set_server_version("Pulsar Server3.0.999");
    r.sent(1, connected, nullptr);
    CHECK(r.recording().header.brokerVersions == std::vector<std::string>{"3.0"});
}

TEST_CASE("recorder: a refused partition fails the step, and the client closing the others is no step", "[record]") {
    auto r = recorder();
    FileCheck file(r);
    r.received(1, connect());
    r.received(1, metadata(1, "persistent://public/default/pt"));
    r.sent(1, metadataResponse(1, 2), nullptr);
    r.received(1, producer("persistent://public/default/pt-partition-0", 1, 2, "pp", "String"));
    r.received(1, producer("persistent://public/default/pt-partition-1", 2, 3, "pp", "String"));
    r.sent(1, producerSuccess(2, "pp", 0), nullptr);
    r.sent(1, error(3, pulsar::proto::ProducerBusy, "Producer with name 'pp' is already connected to topic"), nullptr);
    r.received(1, closeProducer(1, 4));
    r.sent(1, success(4), nullptr);
    auto yaml = yamlOf(r);
    CHECK(yaml == kHead +
                      "topics:\n"
                      "  pt: { partitions: 2 }\n"
                      "steps:\n"
                      "  - producer: { topic: pt, name: pp, schema: STRING }\n"
                      "    expect: { error: ProducerBusy, message: \"Producer with name 'pp' is already connected to topic\" }\n");
}

TEST_CASE("recorder: GET_OR_CREATE_SCHEMA gives the next publish its schema, UNSUBSCRIBE is a close", "[record]") {
    auto r = recorder();
    FileCheck file(r);
    r.received(1, connect());
    r.received(1, producer("persistent://public/default/multi", 1, 1, "mp", "String"));
    r.sent(1, producerSuccess(1, "mp", 0), nullptr);
    BaseCommand gocs;
    gocs.set_type(BaseCommand::GET_OR_CREATE_SCHEMA);
    gocs.mutable_getorcreateschema()->set_request_id(2);
    gocs.mutable_getorcreateschema()->set_topic("persistent://public/default/multi");
    gocs.mutable_getorcreateschema()->mutable_schema()->set_type(pulsar::proto::Schema::Json);
    gocs.mutable_getorcreateschema()->mutable_schema()->set_name("multi");
    gocs.mutable_getorcreateschema()->mutable_schema()->set_schema_data(kAvro);
    r.received(1, gocs);
    BaseCommand answer;
    answer.set_type(BaseCommand::GET_OR_CREATE_SCHEMA_RESPONSE);
    answer.mutable_getorcreateschemaresponse()->set_request_id(2);
    answer.mutable_getorcreateschemaresponse()->set_schema_version(cnx::wire::encodeSchemaVersion(1));
    r.sent(1, answer, nullptr);
    r.received(1, send(1, 0, 2));
    r.received(1, send(1, 2));  // no new schema: a publish of its own
    r.received(1, subscribe("multi", "s", 5, 3, "c1", pulsar::proto::CommandSubscribe::Failover));
    r.sent(1, success(3), nullptr);
    BaseCommand unsubscribe;
    unsubscribe.set_type(BaseCommand::UNSUBSCRIBE);
    unsubscribe.mutable_unsubscribe()->set_consumer_id(5);
    unsubscribe.mutable_unsubscribe()->set_request_id(4);
    r.received(1, unsubscribe);
    r.sent(1, success(4), nullptr);
    auto yaml = yamlOf(r);
    CHECK(yaml == kHead +
                      "schemas:\n"
                      "  multi-json-1:\n"
                      "    type: JSON\n"
                      "    schema: '" + std::string(kAvro) + "'\n"
                      "steps:\n"
                      "  - producer: { topic: multi, name: mp, schema: STRING }\n"
                      "    expect: { schema_version: 0 }\n"
                      "  - publish: { producer: mp, count: 2, schema: multi-json-1 }\n"
                      "    expect: { schema_version: 1 }\n"
                      "  - publish: { producer: mp, count: 1 }\n"
                      "    expect: ok\n"
                      "  - subscribe: { topic: multi, subscription: s, consumer: c1, schema: none, type: Failover }\n"
                      "    expect: ok\n"
                      "  # unsubscribed (the format has no unsubscribe: written as close)\n"
                      "  - close: c1\n"
                      "    expect: ok\n");
}

// A KEY_VALUE definition's length prefixes are bytes, not text: one of 130
// (0x82) would not read back from a quoted string, so the alias is written as
// its components, which the loader encodes to the same bytes and properties.
TEST_CASE("recorder: a KEY_VALUE schema whose layout is no text is written as its components", "[record]") {
    std::string key = R"({"type":"record","name":"Key","fields":[{"name":"id","type":"long"}],"doc":")";
    key += std::string(130 - key.size() - 2, 'x') + "\"}";
    REQUIRE(key.size() == 130);
    std::string data;
    for (std::uint32_t n : {static_cast<std::uint32_t>(key.size()), 0u}) {
        for (int shift = 24; shift >= 0; shift -= 8) data.push_back(static_cast<char>((n >> shift) & 0xFF));
        if (n) data += key;
    }
    auto r = recorder();
    FileCheck file(r);
    r.received(1, connect());
    auto p = producer("persistent://public/default/kv", 1, 1, "kvp", "KeyValue", data);
    auto add = [&](const char* k, const char* v) {
        auto* prop = p.mutable_producer()->mutable_schema()->add_properties();
        prop->set_key(k);
        prop->set_value(v);
    };
    add("key.schema.name", "Key");
    add("key.schema.type", "AVRO");
    add("key.schema.properties", "{}");
    add("value.schema.name", "String");
    add("value.schema.type", "STRING");
    add("value.schema.properties", "{}");
    add("kv.encoding.type", "SEPARATED");
    r.received(1, p);
    r.sent(1, producerSuccess(1, "kvp", 0), nullptr);
    auto yaml = yamlOf(r);
    CHECK(yaml == kHead +
                      "schemas:\n"
                      "  kv-key-value-1:\n"
                      "    type: KEY_VALUE\n"
                      "    key: { type: AVRO, schema: '" + key + "' }\n"
                      "    value: { type: STRING }\n"
                      "    encoding: SEPARATED\n"
                      "    properties: { \"key.schema.name\": \"Key\", \"key.schema.properties\": \"{}\", \"key.schema.type\": \"AVRO\", "
                      "\"kv.encoding.type\": \"SEPARATED\", \"value.schema.name\": \"String\", \"value.schema.properties\": \"{}\", "
                      "\"value.schema.type\": \"STRING\" }\n"
                      "steps:\n"
                      "  - producer: { topic: kv, name: kvp, schema: kv-key-value-1 }\n"
                      "    expect: { schema_version: 0 }\n");
    auto loaded = cnx::sim::loadScenarioText(yaml, "recorded.yaml", ".");
    REQUIRE(loaded.ok());
    const auto& alias = loaded.scenarios.front().schemas.at("kv-key-value-1");
    CHECK(alias.data.data == data);
    requireReplayPasses(yaml);
}

// After an unload the client resends what the broker did not acknowledge,
// with the same sequence ids: each message counts once. A send the broker
// refused because it had just closed the producer (the proxy saw the SEND
// before the CLOSE_PRODUCER) counts when it is resent, not as a failure.
TEST_CASE("recorder: messages resent after a reconnect count once", "[record]") {
    auto r = recorder();
    FileCheck file(r);
    r.received(1, connect());
    r.received(1, producer("persistent://public/default/u", 1, 1, "p1", "String"));
    r.sent(1, producerSuccess(1, "p1", 0), nullptr);
    r.received(1, send(1, 0));
    r.sent(1, receipt(1, 0), nullptr);
    r.received(1, send(1, 1));  // in flight when the broker closes the producer
    r.received(1, send(1, 2));
    BaseCommand close;
    close.set_type(BaseCommand::CLOSE_PRODUCER);
    close.mutable_close_producer()->set_producer_id(1);
    close.mutable_close_producer()->set_request_id(0);
    r.sent(1, close, nullptr);
    BaseCommand refused;
    refused.set_type(BaseCommand::SEND_ERROR);
    refused.mutable_send_error()->set_producer_id(1);
    refused.mutable_send_error()->set_sequence_id(2);
    refused.mutable_send_error()->set_error(pulsar::proto::NotAllowedError);
    refused.mutable_send_error()->set_message("Producer not found");
    r.sent(1, refused, nullptr);
    r.received(1, send(1, 3));  // while closed: the client resends it after reconnecting
    r.admin(exchange("PUT", "/admin/v2/persistent/public/default/u/unload", "", 204));
    r.received(1, producer("persistent://public/default/u", 1, 2, "p1", "String"));
    r.sent(1, producerSuccess(2, "p1", 0), nullptr);
    for (std::uint64_t seq = 1; seq <= 3; ++seq) r.received(1, send(1, seq));  // the resends
    r.received(1, send(1, 4));
    auto yaml = yamlOf(r);
    CHECK(yaml == kHead +
                      "steps:\n"
                      "  - producer: { topic: u, name: p1, schema: STRING }\n"
                      "    expect: { schema_version: 0 }\n"
                      "  - publish: { producer: p1, count: 2 }\n"
                      "    expect: ok\n"
                      "  - unload: u\n"
                      "    expect: { p1: { schema_version: 0 } }\n"
                      "  - publish: { producer: p1, count: 3 }\n"
                      "    expect: ok\n");
    requireReplayPasses(yaml);
}

TEST_CASE("recorder: topic policies, removed settings and refused calls are set-policy and set-broker-config steps",
          "[record]") {
    auto r = recorder();
    FileCheck file(r);
    // The topic first: a topic policy needs it (a real broker answers 404 otherwise, issue 42).
    r.admin(exchange("PUT", "/admin/v2/persistent/public/default/t", "", 204));
    r.admin(exchange("PUT", "/admin/v2/persistent/public/default/t/schemaCompatibilityStrategy", "\"FORWARD\"", 204));
    r.admin(exchange("DELETE", "/admin/v2/persistent/public/default/t/schemaCompatibilityStrategy", "", 204));
    r.admin(exchange("POST", "/admin/v2/persistent/public/default/t/schemaValidationEnforced", "true", 204));
    r.admin(exchange("DELETE", "/admin/v2/brokers/configuration/isAllowAutoUpdateSchemaEnabled", "", 204));
    r.admin(exchange("POST", "/admin/v2/brokers/configuration/schemaCompatibilityStrategy/FULL", "", 412,
                     R"({"reason":"Can't update non-dynamic configuration"})"));
    r.admin(exchange("GET", "/admin/v2/namespaces/public/default/schemaCompatibilityStrategy", "", 200, "\"FULL\""));
    r.admin(exchange("PUT", "/admin/v2/namespaces/public/default/schemaCompatibilityStrategy", "FULL", 400,
                     R"({"reason":"bad body"})"));  // not JSON: nothing a step can say
    auto yaml = yamlOf(r);
    CHECK(yaml == kHead +
                      "topics:\n"
                      "  t: ~\n"
                      "steps:\n"
                      "  - set-policy: { topic: t, schema_compatibility_strategy: FORWARD }\n"
                      "    expect: ok\n"
                      "  - set-policy: { topic: t, schema_compatibility_strategy: null }\n"
                      "    expect: ok\n"
                      "  - set-policy: { topic: t, schema_validation_enforced: true }\n"
                      "    expect: ok\n"
                      "  - set-broker-config: { isAllowAutoUpdateSchemaEnabled: null }\n"
                      "    expect: ok\n"
                      "  - set-broker-config: { schemaCompatibilityStrategy: FULL }\n"
                      "    expect: { error: 412, message: \"Can't update non-dynamic configuration\" }\n");
    requireReplayPasses(yaml);
}

// Issue 40, item 12: every recording loads. Names are whatever clients send:
// YAML syntax, NUL and other controls, characters YAML does not print (NEL,
// U+2028, U+FFFE), bytes that are no UTF-8 (YAML holds only Unicode: they are
// written as the text \xNN, and the broker's messages naming them alike).
TEST_CASE("recorder: names with YAML syntax, controls and bytes that are no UTF-8 are written so the file loads",
          "[record]") {
    const std::vector<std::string> names = {
        "a: b", "- x", "#c", "&anchor", "*alias", "!tag", "|", ">", "'q'", "\"", "%x", "@x", "`x", "{x}", "[x]",
        "x #y", "x\ny", std::string("x\0y", 3), "\t", "x\r\n", "\xc2\x85nel", "line\xe2\x80\xa8sep", "\xef\xbf\xbe",
        "bad\xff", "\xc3\x28", "\xed\xa0\x80surrogate", "  ", "true", "null", "~", "1e3", "0x10", "---", "...",
        "default", "<1"};
    auto r = recorder();
    FileCheck file(r);
    r.received(1, connect());
    std::uint64_t id = 0;
    for (const auto& name : names) {
        ++id;
        std::string topic = "persistent://public/default/t" + std::to_string(id);
        r.received(1, producer(topic, id, id * 2, name, "String"));
        r.sent(1, producerSuccess(id * 2, name, 0), nullptr);
        r.received(1, send(id, 0));
        r.sent(1, receipt(id, 0), nullptr);
        r.received(1, subscribe(topic, name, 1000 + id, id * 2 + 1, name, pulsar::proto::CommandSubscribe::Shared));
        r.sent(1, error(id * 2 + 1, pulsar::proto::ConsumerBusy, "Exclusive consumer is already connected: " + name),
               nullptr);
    }
    // Topics and namespaces with odd but valid names.
    r.received(1, producer("persistent://public/default/a.b-c_d=e", 500, 500, "odd", "String"));
    r.sent(1, producerSuccess(500, "odd", 0), nullptr);
    r.admin(exchange("PUT", "/admin/v2/namespaces/my-tenant/ns.with:colon", "", 204));
    r.admin(exchange("PUT", "/admin/v2/persistent/my-tenant/ns.with:colon/topic%20x", "", 204));
    r.admin(exchange("PUT", "/admin/v2/namespaces/public/bad%ff", "", 204));
    r.admin(exchange("GET", "/admin/v2/schemas/public/default/t1/schema", "", 404, R"({"reason":"Schema not found: \u0000"})",
                     "Not Found"));
    auto yaml = yamlOf(r);  // loads
    auto loaded = cnx::sim::loadScenarioText(yaml, "recorded.yaml", ".");
    REQUIRE(loaded.ok());
    const auto& steps = loaded.scenarios.front().steps;
    // Valid UTF-8 names come back as they were sent, every one of them.
    std::set<std::string> producers;
    for (const auto& s : steps)
        if (const auto* p = std::get_if<cnx::sim::ProducerStep>(&s.body)) producers.insert(p->name);
    for (const auto& name : names) {
        INFO(name);
        // (A name a reconnect map would read as a version range, such as 1e3, gets the `p-` prefix.)
        if (cnx::wellFormedUtf8(name)) CHECK(producers.count(name) + producers.count("p-" + name) == 1);
    }
    CHECK(producers.count("bad\\xff") == 1);  // the text a reader sees
}

// Issue 40, item 12: a batch's num_messages is any int32, and three SENDs of
// 2^31-1 messages overflowed the step's int (UB, then a negative count). The
// count is kept in 64 bits and written within the format's bound, with a note.
TEST_CASE("recorder: SEND counts past 2^31 are counted in 64 bits and written within the format's bound", "[record]") {
    auto r = recorder();
    FileCheck file(r);
    r.received(1, connect());
    r.received(1, producer("persistent://public/default/many", 1, 1, "p1", "String"));
    r.sent(1, producerSuccess(1, "p1", 0), nullptr);
    for (std::uint64_t seq = 0; seq < 3; ++seq) r.received(1, send(1, seq * 3'000'000'000ull, 2147483647));
    auto yaml = yamlOf(r);
    CHECK(yaml == kHead +
                      "steps:\n"
                      "  - producer: { topic: many, name: p1, schema: STRING }\n"
                      "    expect: { schema_version: 0 }\n"
                      "  # the SENDs claimed 6442450941 messages; a publish counts at most 1000000, so the replay sends that many\n"
                      "  - publish: { producer: p1, count: 1000000 }\n"
                      "    expect: ok\n");
}

// Issue 40, item 13: a get-schema answered with a NONE schema was written
// `schema: NONE`, which the loader refuses (`NONE needs a definition`); its
// `type: NONE` says it all. A bare NONE on the wire is a BYTES schema (Pulsar's
// Commands.getSchemaType), which a scenario writes as BYTES.
TEST_CASE("recorder: a NONE schema is written as the loader reads it back", "[record]") {
    auto r = recorder();
    FileCheck file(r);
    r.received(1, connect());
    r.received(1, producer("persistent://public/default/raw", 1, 1, "p1", "None"));
    r.sent(1, producerSuccess(1, "p1", 0), nullptr);
    r.admin(exchange("GET", "/admin/v2/schemas/public/default/raw/schema", "", 200,
                     R"({"version":0,"type":"NONE","timestamp":0,"data":"","properties":{}})"));
    auto yaml = yamlOf(r);
    CHECK(yaml == kHead +
                      "steps:\n"
                      "  - producer: { topic: raw, name: p1, schema: BYTES }\n"
                      "    expect: { schema_version: 0 }\n"
                      "  - get-schema: { topic: raw }\n"
                      "    expect: { schema_version: 0, type: NONE, properties: {} }\n");
}

// Issue 40, item 14: the broker's settings at start are the header's broker.config.
TEST_CASE("recorder: the broker's start settings are the header's config", "[record]") {
    auto r = recorder();
    FileCheck file(r);
    r.setBrokerConfig({{"isSchemaValidationEnforced", "true", {}}, {"schemaCompatibilityStrategy", "BACKWARD", {}}});
    r.received(1, connect());
    r.received(1, producer("persistent://public/default/t", 1, 1, "p1", "String"));
    r.sent(1, producerSuccess(1, "p1", 0), nullptr);
    auto yaml = yamlOf(r);
    CHECK(yaml == kHead +
                      "  config:\n"
                      "    isSchemaValidationEnforced: true\n"
                      "    schemaCompatibilityStrategy: BACKWARD\n"
                      "steps:\n"
                      "  - producer: { topic: t, name: p1, schema: STRING }\n"
                      "    expect: { schema_version: 0 }\n");
    requireReplayPasses(yaml);
}

// Issue 40, item 10: the file follows the session. A step whose answer has not
// come yet is already in it (without expect, saying so), and the file is
// rewritten from the first step that changed: here the earlier producer's
// answer comes after a later step was written.
TEST_CASE("recorder: the recording file holds every step as it happens, answered or not", "[record]") {
    auto r = recorder();
    FileCheck file(r);
    r.received(1, connect());
    r.received(1, producer("persistent://public/default/a", 1, 1, "pa", "String"));
    auto text = issue7::readText(file.path());
    CHECK(text.find("  # no answer was seen before the recording ended\n  - producer: { topic: a, name: pa, schema: STRING }\n") !=
          std::string::npos);
    r.received(1, producer("persistent://public/default/b", 2, 2, "pb", "String"));
    r.sent(1, producerSuccess(2, "pb", 0), nullptr);
    r.sent(1, producerSuccess(1, "pa", 0), nullptr);
    text = issue7::readText(file.path());
    CHECK(text == kHead +
                      "steps:\n"
                      "  - producer: { topic: a, name: pa, schema: STRING }\n"
                      "    expect: { schema_version: 0 }\n"
                      "  - producer: { topic: b, name: pb, schema: STRING }\n"
                      "    expect: { schema_version: 0 }\n");
}

// Issue 40, item 15: 20,000 producers named `p` took 33.7 s with --record
// against 0.85 s without: each new `p` tried every earlier suffix (p-2, p-3,
// ...), and every PRODUCER looked through every earlier producer. Hidden from
// the unit run: ctest runs it as record.producers_named_alike_are_linear with
// a TIMEOUT that the quadratic recorder (4.5e8 name probes: over ten minutes
// under the sanitizers) cannot meet and the linear one meets with a wide margin
// (about 20 s of CPU), with the recording file
// following the session as serve --record does.
TEST_CASE("recorder: thirty thousand producers named alike on as many topics are recorded in linear time",
          "[.][record][slow]") {
    constexpr std::uint64_t kProducers = 30'000;
    auto r = recorder();
    issue7::TempDir dir;
    auto created = cnx::record::RecordingFile::create(dir / "many.yaml", r);
    REQUIRE(std::holds_alternative<std::unique_ptr<cnx::record::RecordingFile>>(created));
    auto& recording = *std::get<std::unique_ptr<cnx::record::RecordingFile>>(created);
    r.received(1, connect());
    for (std::uint64_t i = 1; i <= kProducers; ++i) {
        r.received(1, producer("persistent://public/default/t" + std::to_string(i), i, i, "p", "String"));
        r.sent(1, producerSuccess(i, "p", 0), nullptr);
    }
    REQUIRE_FALSE(recording.finish(r));
    auto text = issue7::readText(dir / "many.yaml");
    CHECK(text.find("  - producer: { topic: t30000, name: p-30000, schema: STRING }\n") != std::string::npos);
}

// Issue 40, item 12: one YAML value is at most 1 MiB for the loader, so a
// 2 MiB definition written inline made a recording that does not load. It goes
// to a pulsar-admin schema-definition file beside the recording (`file:`).
TEST_CASE("recorder: a 2 MiB schema goes to a definition file beside the recording, which loads and replays",
          "[record]") {
    std::string big = R"({"type":"record","name":"Big","doc":")" + std::string(2u << 20, 'x') +
                      R"(","fields":[{"name":"id","type":"long"}]})";
    std::string escaped;
    for (char c : big) escaped += c == '"' ? std::string("\\\"") : std::string(1, c);
    auto r = recorder();
    FileCheck file(r);
    r.admin(exchange("POST", "/admin/v2/schemas/public/default/big/schema",
                     R"({"type":"AVRO","schema":")" + escaped + R"(","properties":{}})", 200, R"({"version":{"version":0}})"));
    r.admin(exchange("GET", "/admin/v2/schemas/public/default/big/schema", "", 200,
                     R"({"version":0,"type":"AVRO","timestamp":1,"data":")" + escaped + R"(","properties":{}})"));
    file.finish();
    auto text = issue7::readText(file.path());
    INFO(text.substr(0, 2000));
    CHECK(text.size() < 4096);
    CHECK(text.find("schemas:\n  big-avro-1:\n    file: recorded.yaml.schemas/big-avro-1-") != std::string::npos);
    CHECK(text.find("  - get-schema: { topic: big }\n    expect: { schema_version: 0, type: AVRO, schema: big-avro-1, "
                    "properties: {} }\n") != std::string::npos);
    auto loaded = cnx::sim::loadScenarioFile(file.path());
    REQUIRE(loaded.ok());
    CHECK(loaded.scenarios.front().schemas.at("big-avro-1").data.data == big);
    auto replay = issue7::cli({"run", "--strict", file.path().string()});
    INFO(replay.out << replay.err);
    CHECK(replay.status == 0);
}
