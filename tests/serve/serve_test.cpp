// `cnxsim serve` end to end (issue 10): the real binary on a free port, real
// TCP connections from a client of the test's own (serve_client.h), SIGTERM
// at the end of each case and exit status 0.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include "serve_client.h"

using namespace serve_test;
using pulsar::proto::BaseCommand;

namespace {

BaseCommand command(BaseCommand::Type type) {
    BaseCommand c;
    c.set_type(type);
    return c;
}
BaseCommand ping() { return command(BaseCommand::PING); }

BaseCommand producer(const std::string& topic, std::uint64_t producerId, std::uint64_t requestId,
                     std::optional<pulsar::proto::Schema::Type> schema) {
    auto c = command(BaseCommand::PRODUCER);
    auto* p = c.mutable_producer();
    p->set_topic(topic);
    p->set_producer_id(producerId);
    p->set_request_id(requestId);
    if (schema) {
        p->mutable_schema()->set_name("s");
        p->mutable_schema()->set_schema_data("");
        p->mutable_schema()->set_type(*schema);
    }
    return c;
}

/// PING answered PONG: the connection is still served. A keep-alive PING the
/// server sent meanwhile is answered and skipped, not taken for the answer.
bool served(Client& c) {
    c.send(ping());
    auto r = c.readSkippingPings();
    return r && r->type() == BaseCommand::PONG;
}

}  // namespace

TEST_CASE("ready line, CONNECT/CONNECTED, PING/PONG, SIGTERM exits 0", "[serve]") {
    ServeProcess server({"--broker-version", "3.0"});
    CHECK_THAT(server.readyLine(), Catch::Matches(R"(ready: pulsar://127\.0\.0\.1:[0-9]+ \(Pulsar 3\.0\.[0-9]+ behaviour\), admin http://127\.0\.0\.1:[0-9]+)"));
    REQUIRE(server.port() != 0);
    Client c(server.port());
    REQUIRE(c.connected());
    auto connected = c.handshake(6);
    REQUIRE(connected.type() == BaseCommand::CONNECTED);
    CHECK_FALSE(connected.connected().server_version().empty());
    CHECK(connected.connected().protocol_version() == 6);  // min(client 6, broker)
    CHECK(connected.connected().max_message_size() > 0);
    CHECK(served(c));

    Client newer(server.port());
    auto n = newer.handshake(1000);
    REQUIRE(n.type() == BaseCommand::CONNECTED);
    CHECK(n.connected().protocol_version() > 6);
    CHECK(n.connected().protocol_version() < 1000);  // the broker's own maximum
    CHECK(server.stop(SIGTERM) == 0);
}

TEST_CASE("SIGINT exits 0 too, with connections open", "[serve]") {
    ServeProcess server;
    REQUIRE(server.port() != 0);
    Client a(server.port()), b(server.port());
    REQUIRE(a.handshake().type() == BaseCommand::CONNECTED);
    REQUIRE(b.connected());
    CHECK(server.stop(SIGINT) == 0);
    CHECK(a.closedByServer());
}

TEST_CASE("LOOKUP answers itself, PARTITIONED_METADATA 0, GET_TOPICS_OF_NAMESPACE lists the topic", "[serve]") {
    ServeProcess server;
    REQUIRE(server.port() != 0);
    Client c(server.port());
    REQUIRE(c.handshake().type() == BaseCommand::CONNECTED);
    const std::string topic = "persistent://public/default/lookup-me";

    auto lookup = command(BaseCommand::LOOKUP);
    lookup.mutable_lookuptopic()->set_topic(topic);
    lookup.mutable_lookuptopic()->set_request_id(1);
    auto l = c.call(lookup);
    REQUIRE(l.type() == BaseCommand::LOOKUP_RESPONSE);
    CHECK(l.lookuptopicresponse().request_id() == 1);
    CHECK(l.lookuptopicresponse().response() == pulsar::proto::CommandLookupTopicResponse::Connect);
    CHECK(l.lookuptopicresponse().authoritative());
    CHECK(l.lookuptopicresponse().brokerserviceurl() == "pulsar://127.0.0.1:" + std::to_string(server.port()));

    auto pm = command(BaseCommand::PARTITIONED_METADATA);
    pm.mutable_partitionmetadata()->set_topic(topic);
    pm.mutable_partitionmetadata()->set_request_id(2);
    auto p = c.call(pm);
    REQUIRE(p.type() == BaseCommand::PARTITIONED_METADATA_RESPONSE);
    CHECK(p.partitionmetadataresponse().request_id() == 2);
    CHECK(p.partitionmetadataresponse().partitions() == 0);
    CHECK(p.partitionmetadataresponse().response() == pulsar::proto::CommandPartitionedTopicMetadataResponse::Success);

    REQUIRE(c.call(producer(topic, 1, 3, std::nullopt)).type() == BaseCommand::PRODUCER_SUCCESS);
    auto list = command(BaseCommand::GET_TOPICS_OF_NAMESPACE);
    list.mutable_gettopicsofnamespace()->set_request_id(4);
    list.mutable_gettopicsofnamespace()->set_namespace_("public/default");
    auto t = c.call(list);
    REQUIRE(t.type() == BaseCommand::GET_TOPICS_OF_NAMESPACE_RESPONSE);
    CHECK(t.gettopicsofnamespaceresponse().request_id() == 4);
    REQUIRE(t.gettopicsofnamespaceresponse().topics_size() == 1);
    CHECK(t.gettopicsofnamespaceresponse().topics(0) == topic);
    CHECK(server.stop() == 0);
}

TEST_CASE("PRODUCER with a STRING schema, an incompatible INT32 producer refused, SEND receipts", "[serve]") {
    ServeProcess server;
    REQUIRE(server.port() != 0);
    Client a(server.port()), b(server.port());
    REQUIRE(a.handshake().type() == BaseCommand::CONNECTED);
    REQUIRE(b.handshake().type() == BaseCommand::CONNECTED);
    const std::string topic = "persistent://public/default/strings";

    auto ok = a.call(producer(topic, 7, 10, pulsar::proto::Schema::String));
    REQUIRE(ok.type() == BaseCommand::PRODUCER_SUCCESS);
    CHECK(ok.producer_success().request_id() == 10);
    CHECK_FALSE(ok.producer_success().producer_name().empty());
    CHECK(ok.producer_success().schema_version() == std::string(8, '\0'));
    CHECK(ok.producer_success().last_sequence_id() == -1);

    auto refused = b.call(producer(topic, 1, 11, pulsar::proto::Schema::Int32));
    REQUIRE(refused.type() == BaseCommand::ERROR);
    CHECK(refused.error().request_id() == 11);
    CHECK(refused.error().error() == pulsar::proto::IncompatibleSchema);

    for (std::uint64_t seq : {0u, 1u, 5u}) {
        auto send = command(BaseCommand::SEND);
        send.mutable_send()->set_producer_id(7);
        send.mutable_send()->set_sequence_id(seq);
        pulsar::proto::MessageMetadata meta;
        meta.set_producer_name(ok.producer_success().producer_name());
        meta.set_sequence_id(seq);
        meta.set_publish_time(1700000000000);
        a.sendPayload(send, meta, "hello " + std::to_string(seq));
        auto receipt = a.read();
        REQUIRE(receipt.has_value());
        REQUIRE(receipt->type() == BaseCommand::SEND_RECEIPT);
        CHECK(receipt->send_receipt().producer_id() == 7);
        CHECK(receipt->send_receipt().sequence_id() == seq);
        CHECK(receipt->send_receipt().has_message_id());
    }
    CHECK(served(b));  // a refused producer does not close its connection
    CHECK(server.stop() == 0);
}

TEST_CASE("two connections at once are served independently", "[serve]") {
    ServeProcess server;
    REQUIRE(server.port() != 0);
    Client a(server.port()), b(server.port());
    REQUIRE(a.handshake().type() == BaseCommand::CONNECTED);
    REQUIRE(b.handshake().type() == BaseCommand::CONNECTED);
    // Interleaved: both ask before either reads.
    a.send(producer("persistent://public/default/a", 1, 1, std::nullopt));
    b.send(producer("persistent://public/default/b", 1, 1, std::nullopt));
    auto ra = a.read(), rb = b.read();
    REQUIRE(ra.has_value());
    REQUIRE(rb.has_value());
    CHECK(ra->type() == BaseCommand::PRODUCER_SUCCESS);
    CHECK(rb->type() == BaseCommand::PRODUCER_SUCCESS);
    CHECK(ra->producer_success().producer_name() != rb->producer_success().producer_name());
    b.shutdown();
    CHECK(served(a));
    CHECK(server.stop() == 0);
}

TEST_CASE("a bad peer gets its connection closed, the others stay served", "[serve]") {
    ServeProcess server;
    REQUIRE(server.port() != 0);
    Client bystander(server.port());
    REQUIRE(bystander.handshake().type() == BaseCommand::CONNECTED);

    SECTION("a frame declared over the maximum size") {
        Client bad(server.port());
        REQUIRE(bad.handshake().type() == BaseCommand::CONNECTED);
        bad.raw(be32(64 * 1024 * 1024) + be32(16));
        CHECK(bad.closedByServer());
    }
    SECTION("garbage bytes where a BaseCommand should be") {
        Client bad(server.port());
        REQUIRE(bad.handshake().type() == BaseCommand::CONNECTED);
        bad.raw(be32(12) + be32(8) + std::string("\xff\xff\xff\xff\xff\xff\xff\xff", 8));
        CHECK(bad.closedByServer());
    }
    SECTION("garbage before CONNECT") {
        Client bad(server.port());
        bad.raw("GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        CHECK(bad.closedByServer());
    }
    SECTION("a command before CONNECT") {
        Client bad(server.port());
        bad.send(ping());
        CHECK(bad.closedByServer());
    }
    SECTION("a frame cut mid-way, then the socket closed") {
        Client bad(server.port());
        REQUIRE(bad.handshake().type() == BaseCommand::CONNECTED);
        auto p = producer("persistent://public/default/cut", 1, 1, std::nullopt).SerializeAsString();
        std::string frame = be32(static_cast<std::uint32_t>(4 + p.size())) + be32(static_cast<std::uint32_t>(p.size())) + p;
        bad.raw(frame.substr(0, frame.size() / 2));
        bad.shutdown();
    }
    CHECK(served(bystander));
    Client late(server.port());  // and new connections are still accepted
    CHECK(late.handshake().type() == BaseCommand::CONNECTED);
    CHECK(server.stop() == 0);
}

TEST_CASE("keep-alive PINGs a silent peer and closes it after two intervals", "[serve]") {
    ServeProcess server({"--keepalive-seconds", "0.5"});
    REQUIRE(server.port() != 0);
    Client silent(server.port()), answering(server.port());
    REQUIRE(silent.handshake().type() == BaseCommand::CONNECTED);
    REQUIRE(answering.handshake().type() == BaseCommand::CONNECTED);

    // A peer answering each PING with PONG stays connected through three PING
    // rounds (a PING every two intervals: past the silent peer's two), counted
    // as they come rather than in a time window (meanwhile the other peer stays silent).
    int pings = 0;
    while (pings < 3) {
        auto f = answering.read(10s);  // a hang guard: the next PING is due within 1 s
        INFO("PINGs answered before the connection ended or went quiet for 10 s: " << pings);
        REQUIRE(f.has_value());
        if (f->type() != BaseCommand::PING) continue;
        ++pings;
        answering.send(command(BaseCommand::PONG));
    }
    CHECK(served(answering));

    // The silent peer got one PING, then was closed.
    auto first = silent.read(10s);
    REQUIRE(first.has_value());
    CHECK(first->type() == BaseCommand::PING);
    INFO("hang guard: the server did not close the silent peer within 10 s");
    CHECK(silent.closedByServer(10s));
    CHECK(server.stop() == 0);
}

TEST_CASE("a peer that never reads is closed once its write queue is over the bound", "[serve]") {
    ServeProcess server({"--max-queued-bytes", "65536", "-v"});  // -v: the close reason in the test log
    REQUIRE(server.port() != 0);
    Client bystander(server.port()), flooder(server.port());
    REQUIRE(bystander.handshake().type() == BaseCommand::CONNECTED);
    REQUIRE(flooder.handshake().type() == BaseCommand::CONNECTED);
    // PINGs without ever reading the PONGs: once the socket buffers are full the
    // PONGs queue in the server, over the bound, and the server closes the connection.
    std::string pingFrame = be32(6) + be32(2) + ping().SerializeAsString();
    REQUIRE(pingFrame.size() == 10);
    std::string chunk;
    for (int i = 0; i < 6553; ++i) chunk += pingFrame;
    std::size_t written = 0;
    while (written < 256u * 1024 * 1024 && flooder.rawChecked(chunk)) written += chunk.size();
    CHECK(written < 256u * 1024 * 1024);  // the server stopped taking them
    CHECK(flooder.closedByServer(10s));
    CHECK(served(bystander));
    CHECK(server.stop() == 0);
}
