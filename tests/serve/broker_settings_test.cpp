// What a broker started from upstream CI's broker.conf answers and the official
// C++ client's test set-up and checks use (issue 41 items 3, 4, 5, 16): the
// HTTP lookup, advertisedAddress and advertisedListeners, --bind by name,
// maxMessageSize, admin REST for clusters, stats, terminate, namespace
// grants and max_producers_per_topic, and CONSUMER_STATS. Each case failed on
// 0de8152 (the path answered 404, the setting was an unknown key, or the
// command closed the connection).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include "http_client.h"
#include "serve_client.h"
#include "serve_commands.h"

using namespace serve_test;
using namespace serve_test::cmd;

namespace {

/// The port after `prefix` in the ready line (0 when the line does not start so).
std::uint16_t portAfter(const std::string& line, const std::string& prefix) {
    if (line.rfind(prefix, 0) != 0) return 0;
    return static_cast<std::uint16_t>(std::stoi(line.substr(prefix.size())));
}

/// `serve` with `args` exits 2 before listening, saying `expected` on stderr.
void refusedAtStart(std::vector<std::string> args, const std::string& expected) {
    auto errFile = "/tmp/cnxsim-broker-settings-" + std::to_string(getpid()) + ".err";
    ServeProcess server(std::move(args), ServeStderr{ServeStderr::To::file, errFile});
    CHECK(server.port() == 0);
    CHECK(server.stop() == 2);
    std::ifstream in(errFile);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK_THAT(text, Catch::Contains(expected));
    std::remove(errFile.c_str());
}

}  // namespace

TEST_CASE("HTTP lookup answers LookupData as the broker does", "[serve][issue41]") {
    ServeProcess server;
    REQUIRE(server.port() != 0);
    auto a = call(server.adminPort(), http::verb::get, "/lookup/v2/topic/persistent/public/default/t1");
    REQUIRE(a.status == 200);
    const auto broker = "pulsar://127.0.0.1:" + std::to_string(server.port());
    // Pulsar's ObjectMapper leaves out nulls: no TLS URLs on a broker without TLS.
    CHECK(a.json() == Json{{"brokerUrl", broker},
                           {"httpUrl", "http://127.0.0.1:" + std::to_string(server.adminPort())},
                           {"nativeUrl", broker},
                           {"brokerUrlSsl", ""}});
    CHECK(call(server.adminPort(), http::verb::post, "/lookup/v2/topic/persistent/public/default/t1").status == 405);
    // The partitioned-metadata path of the client's HTTP lookup service.
    CHECK(call(server.adminPort(), http::verb::put, "/admin/v2/persistent/public/default/p3/partitions", "3").status == 204);
    auto pm = call(server.adminPort(), http::verb::get,
                   "/admin/v2/persistent/public/default/p3/partitions?checkAllowAutoCreation=true");
    CHECK(pm.json() == Json{{"deleted", false}, {"partitions", 3}});  // `deleted` from 3.0 (#18193)
    // The namespace's topics by mode, as the client's pattern consumers ask.
    Session s(server);
    openProducer(s.client, "non-persistent://public/default/np", 1, 1);
    openProducer(s.client, "persistent://public/default/pp", 2, 2);
    auto topics = [&](const std::string& mode) {
        return call(server.adminPort(), http::verb::get, "/admin/v2/namespaces/public/default/topics?mode=" + mode).json();
    };
    CHECK(topics("NON_PERSISTENT") == Json::array({"non-persistent://public/default/np"}));
    CHECK(topics("ALL").size() == 5);  // pp, np and the three partitions of p3
    CHECK(server.stop() == 0);
}

TEST_CASE("HTTP lookup of a missing topic without auto-creation is 404", "[serve][issue41]") {
    ServeProcess server({"--set", "allowAutoTopicCreation=false"});
    REQUIRE(server.port() != 0);
    auto a = call(server.adminPort(), http::verb::get, "/lookup/v2/topic/persistent/public/default/missing");
    CHECK(a.status == 404);
    CHECK(a.json() == Json{{"reason", "Topic not found."}});
    CHECK(call(server.adminPort(), http::verb::get, "/lookup/v2/topic/non-persistent/public/default/missing").status == 200);
    CHECK(server.stop() == 0);
}

TEST_CASE("advertisedAddress is what LOOKUP answers, binary and HTTP", "[serve][issue41]") {
    ServeProcess server({"--set", "advertisedAddress=localhost"});
    REQUIRE(server.port() != 0);
    Session s(server);
    auto l = s.client.call(lookup("persistent://public/default/t", 3));
    REQUIRE(l.type() == BaseCommand::LOOKUP_RESPONSE);
    CHECK(l.lookuptopicresponse().brokerserviceurl() == "pulsar://localhost:" + std::to_string(server.port()));
    auto a = call(server.adminPort(), http::verb::get, "/lookup/v2/topic/persistent/public/default/t");
    CHECK(a.json()["brokerUrl"] == "pulsar://localhost:" + std::to_string(server.port()));
    CHECK(a.json()["httpUrl"] == "http://localhost:" + std::to_string(server.adminPort()));
    CHECK(server.stop() == 0);
}

TEST_CASE("serve --bind takes a host name", "[serve][issue41]") {
    ServeProcess server({"--bind", "localhost"});
    auto port = portAfter(server.readyLine(), "ready: pulsar://localhost:");
    REQUIRE(port != 0);
    Client c(port);  // 127.0.0.1: localhost resolves to it first
    REQUIRE(c.connected());
    REQUIRE(c.handshake().type() == BaseCommand::CONNECTED);
    auto l = c.call(lookup("persistent://public/default/t", 1));
    CHECK(l.lookuptopicresponse().brokerserviceurl() == "pulsar://localhost:" + std::to_string(port));
    CHECK(server.stop() == 0);
}

TEST_CASE("advertisedListeners: a known listener gets its URL, an unknown one is refused", "[serve][issue41]") {
    ServeProcess server({"--set", "advertisedListeners=internal:pulsar://broker.internal:6650,"
                                  "external:pulsar://broker.example:16650,external:pulsar+ssl://broker.example:16651"});
    REQUIRE(server.port() != 0);
    Session s(server);
    auto plain = s.client.call(lookup("persistent://public/default/t", 1));
    CHECK(plain.lookuptopicresponse().brokerserviceurl() == "pulsar://broker.internal:6650");  // the internal listener
    auto external = s.client.call(lookup("persistent://public/default/t", 2, "external"));
    CHECK(external.lookuptopicresponse().response() == pulsar::proto::CommandLookupTopicResponse::Connect);
    CHECK(external.lookuptopicresponse().brokerserviceurl() == "pulsar://broker.example:16650");
    auto unknown = s.client.call(lookup("persistent://public/default/t", 3, "test"));
    REQUIRE(unknown.type() == BaseCommand::LOOKUP_RESPONSE);
    CHECK(unknown.lookuptopicresponse().response() == pulsar::proto::CommandLookupTopicResponse::Failed);
    CHECK(unknown.lookuptopicresponse().error() == pulsar::proto::ServiceNotReady);
    CHECK(unknown.lookuptopicresponse().message() ==
          "org.apache.pulsar.broker.PulsarServerException: the broker do not have test listener");
    auto http = call(server.adminPort(), http::verb::get, "/lookup/v2/topic/persistent/public/default/t?listenerName=external");
    CHECK(http.json()["brokerUrl"] == "pulsar://broker.example:16650");
    CHECK(http.json()["brokerUrlTls"] == "pulsar+ssl://broker.example:16651");
    CHECK(call(server.adminPort(), http::verb::get, "/lookup/v2/topic/persistent/public/default/t?listenerName=test").status ==
          500);
    CHECK(server.stop() == 0);
}

TEST_CASE("advertisedListeners a broker refuses to start with", "[serve][issue41]") {
    refusedAtStart({"--set", "advertisedListeners=nolistenername"}, "do not contain listener name");
    refusedAtStart({"--set", "advertisedListeners=a:pulsar://h:1", "--set", "internalListenerName=b"},
                   "do not contain `internalListenerName` entry");
}

TEST_CASE("maxMessageSize is announced in CONNECTED and bounds a SEND frame", "[serve][issue41]") {
    ServeProcess server({"--set", "maxMessageSize=2048"});
    REQUIRE(server.port() != 0);
    Client c(server.port());
    auto r = c.handshake();
    REQUIRE(r.type() == BaseCommand::CONNECTED);
    CHECK(r.connected().max_message_size() == 2048);
    openProducer(c, "persistent://public/default/big", 1, 1);
    // Within maxMessageSize + Commands.MESSAGE_SIZE_FRAME_PADDING: stored.
    sendOne(c, 1, metadata("p", 1), std::string(2048 + 4096, 'x'));
    // Past it: the frame decoder fails and the connection closes, as Netty's does.
    c.sendPayload(send(1, 2), metadata("p", 2), std::string(2048 + 10 * 1024 + 1, 'y'));
    CHECK(c.closedByServer());
    CHECK(server.stop() == 0);
}

TEST_CASE("clusters: standalone exists, PUT of it is 409, another is not modelled", "[serve][issue41]") {
    ServeProcess server;
    REQUIRE(server.port() != 0);
    auto port = server.adminPort();
    const std::string body = R"({"serviceUrl":"http://localhost:8080/","brokerServiceUrl":"pulsar://localhost:6650/"})";
    auto put = call(port, http::verb::put, "/admin/v2/clusters/standalone", body);
    CHECK(put.status == 409);
    CHECK(put.json() == Json{{"reason", "Cluster already exists"}});
    auto got = call(port, http::verb::get, "/admin/v2/clusters/standalone");
    CHECK(got.status == 200);
    CHECK(got.json()["brokerServiceUrl"] == "pulsar://127.0.0.1:" + std::to_string(server.port()));
    CHECK(call(port, http::verb::get, "/admin/v2/clusters/other").status == 404);
    auto other = call(port, http::verb::put, "/admin/v2/clusters/other", body);
    CHECK(other.status == 501);
    CHECK_THAT(other.json()["reason"].get<std::string>(), Catch::Contains("not modelled: #41"));
    CHECK(server.stop() == 0);
}

TEST_CASE("topic stats: publishers with clientVersion, subscriptions with their consumers", "[serve][issue41]") {
    ServeProcess server;
    REQUIRE(server.port() != 0);
    Session s(server);
    auto& c = s.client;
    const std::string topic = "persistent://public/default/stats";
    auto name = openProducer(c, topic, 1, 1);
    subscribeOk(c, subscribe(topic, "sub", 7, 2));
    sendOne(c, 1, metadata(name, 1), "a");
    sendOne(c, 1, metadata(name, 2), "b");
    auto a = call(server.adminPort(), http::verb::get, "/admin/v2/persistent/public/default/stats/stats");
    REQUIRE(a.status == 200);
    auto j = a.json();
    REQUIRE(j["publishers"].size() == 1);
    CHECK(j["publishers"][0]["producerName"] == name);
    CHECK(j["publishers"][0]["clientVersion"] == "serve-test-client");
    auto sub = j["subscriptions"]["sub"];
    CHECK(sub["type"] == "Exclusive");
    CHECK(sub["msgBacklog"] == 2);
    REQUIRE(sub["consumers"].size() == 1);
    CHECK(sub["consumers"][0]["consumerName"] == "consumer-7");
    CHECK(sub["consumers"][0]["clientVersion"] == "serve-test-client");
    CHECK(call(server.adminPort(), http::verb::get, "/admin/v2/persistent/public/default/nothing/stats").status == 404);
    CHECK(server.stop() == 0);
}

TEST_CASE("terminate: producers closed, new ones refused with TopicTerminated", "[serve][issue41]") {
    ServeProcess server;
    REQUIRE(server.port() != 0);
    Session s(server);
    auto& c = s.client;
    const std::string topic = "persistent://public/default/ending";
    auto name = openProducer(c, topic, 1, 1);
    auto id = sendOne(c, 1, metadata(name, 1), "last");
    auto t = call(server.adminPort(), http::verb::post, "/admin/v2/persistent/public/default/ending/terminate");
    REQUIRE(t.status == 200);
    CHECK(t.json() == Json{{"ledgerId", id.ledgerid()}, {"entryId", id.entryid()}, {"partitionIndex", -1}});
    auto closed = c.read();
    REQUIRE(closed.has_value());
    CHECK(closed->type() == BaseCommand::CLOSE_PRODUCER);
    auto again = c.call(producer(topic, 2, 2));
    REQUIRE(again.type() == BaseCommand::ERROR);
    CHECK(again.error().error() == pulsar::proto::TopicTerminatedError);
    CHECK_THAT(again.error().message(), Catch::Contains("Topic was already terminated"));
    CHECK(call(server.adminPort(), http::verb::put, "/admin/v2/persistent/public/default/parted/partitions", "2").status == 204);
    auto parted = call(server.adminPort(), http::verb::post, "/admin/v2/persistent/public/default/parted/terminate");
    CHECK(parted.status == 405);
    CHECK(server.stop() == 0);
}

TEST_CASE("max_producers_per_topic from the namespace's policies refuses one producer too many", "[serve][issue41]") {
    ServeProcess server;
    REQUIRE(server.port() != 0);
    auto port = server.adminPort();
    REQUIRE(call(port, http::verb::put, "/admin/v2/namespaces/public/limited", R"({"max_producers_per_topic": 2})").status ==
            204);
    Session s(server);
    auto& c = s.client;
    const std::string topic = "persistent://public/limited/t";
    openProducer(c, topic, 1, 1);
    openProducer(c, topic, 2, 2);
    auto third = c.call(producer(topic, 3, 3));
    REQUIRE(third.type() == BaseCommand::ERROR);
    CHECK(third.error().error() == pulsar::proto::ProducerBusy);
    CHECK_THAT(third.error().message(), Catch::Contains("Topic reached max producers limit"));
    CHECK(call(port, http::verb::get, "/admin/v2/namespaces/public/limited/maxProducersPerTopic").json() == 2);
    CHECK(call(port, http::verb::post, "/admin/v2/namespaces/public/limited/maxProducersPerTopic", "3").status == 204);
    CHECK(c.call(producer(topic, 4, 4)).type() == BaseCommand::PRODUCER_SUCCESS);
    CHECK(call(port, http::verb::post, "/admin/v2/namespaces/public/limited/maxProducersPerTopic", "-1").status == 400);
    CHECK(server.stop() == 0);
}

TEST_CASE("namespace permissions are stored and listed, deduplication and backlog quotas answer not modelled", "[serve][issue41]") {
    ServeProcess server;
    REQUIRE(server.port() != 0);
    auto port = server.adminPort();
    auto granted = call(port, http::verb::post, "/admin/v2/namespaces/public/default/permissions/anonymous",
                        R"(["produce","consume"])");
    CHECK(granted.status == 204);
    auto policies = call(port, http::verb::get, "/admin/v2/namespaces/public/default").json();
    CHECK(policies["auth_policies"]["namespace_auth"]["anonymous"] == Json::array({"produce", "consume"}));
    // An action Jackson does not know is read as null: 204, listed as null (a real 4.2.4 broker);
    // a body that is no array is 400.
    CHECK(call(port, http::verb::post, "/admin/v2/namespaces/public/default/permissions/anonymous", R"(["fly"])").status ==
          204);
    CHECK(call(port, http::verb::get, "/admin/v2/namespaces/public/default/permissions").json() ==
          Json{{"anonymous", Json::array({nullptr})}});
    CHECK(call(port, http::verb::post, "/admin/v2/namespaces/public/default/permissions/anonymous", R"("produce")").status ==
          400);
    auto dedup = call(port, http::verb::post, "/admin/v2/namespaces/public/default/deduplication", "true");
    CHECK(dedup.status == 501);
    CHECK_THAT(dedup.json()["reason"].get<std::string>(), Catch::Contains("not modelled: #41"));
    CHECK(call(port, http::verb::post, "/admin/v2/namespaces/public/default/backlogQuota",
               R"({"policy":"producer_request_hold","limitSize":1024})")
              .status == 501);
    CHECK(server.stop() == 0);
}

TEST_CASE("CONSUMER_STATS is answered from the consumer and its subscription", "[serve][issue41]") {
    ServeProcess server;
    REQUIRE(server.port() != 0);
    Session s(server);
    auto& c = s.client;
    const std::string topic = "persistent://public/default/cstats";
    auto name = openProducer(c, topic, 1, 1);
    subscribeOk(c, subscribe(topic, "sub", 5, 2, pulsar::proto::CommandSubscribe::Shared));
    for (std::uint64_t i = 1; i <= 3; ++i) sendOne(c, 1, metadata(name, i), "m");
    auto r = c.call(consumerStats(5, 9));
    REQUIRE(r.type() == BaseCommand::CONSUMER_STATS_RESPONSE);
    const auto& st = r.consumerstatsresponse();
    CHECK(st.request_id() == 9);
    CHECK_FALSE(st.has_error_code());
    CHECK(st.consumername() == "consumer-5");
    CHECK(st.msgbacklog() == 3);
    CHECK(st.type() == "Shared");
    auto missing = c.call(consumerStats(77, 10));
    REQUIRE(missing.type() == BaseCommand::CONSUMER_STATS_RESPONSE);
    CHECK(missing.consumerstatsresponse().error_code() == pulsar::proto::ConsumerNotFound);
    CHECK(missing.consumerstatsresponse().error_message() == "Consumer 77 not found");
    CHECK(c.call(ping()).type() == BaseCommand::PONG);  // the connection stays open
    CHECK(server.stop() == 0);
}
