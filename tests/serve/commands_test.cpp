// `cnxsim serve`, command by command, through the real binary: every command a
// real client depends on, and the fields of each answer that a client reads
// (Pulsar's ServerCnx/Commands are the reference for what is sent). The client
// is the test's own (serve_client.h); nothing of the server is linked in.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <set>

#include "serve_commands.h"

using namespace serve_test;
using namespace serve_test::cmd;
using pulsar::proto::BaseCommand;
using pulsar::proto::CommandSubscribe;

namespace {

constexpr std::uint64_t kNoEntry = static_cast<std::uint64_t>(-1);

const std::string kUserV1 =
    R"({"type":"record","name":"User","namespace":"t","fields":[{"name":"id","type":"int"}]})";
const std::string kUserV2 =  // a field with a default: compatible with v1 under every strategy
    R"({"type":"record","name":"User","namespace":"t","fields":[{"name":"id","type":"int"},)"
    R"({"name":"email","type":["null","string"],"default":null}]})";
const std::string kUserV3 =  // a required field without a default: not readable from v1 data
    R"({"type":"record","name":"User","namespace":"t","fields":[{"name":"id","type":"int"},)"
    R"({"name":"age","type":"int"}]})";

std::string releaseOf(const ServeProcess& server) {
    // "ready: pulsar://127.0.0.1:N (Pulsar X.Y.Z behaviour)"
    auto at = server.readyLine().find("(Pulsar ");
    if (at == std::string::npos) return "";
    auto from = at + 8;
    return server.readyLine().substr(from, server.readyLine().find(' ', from) - from);
}

}  // namespace

TEST_CASE("CONNECTED: server version, negotiated protocol version, max message size", "[serve][commands]") {
    SECTION("the newest release answers up to v21") {
        ServeProcess server;
        REQUIRE(server.port() != 0);
        Client c(server.port());
        auto r = c.handshake(1000);
        REQUIRE(r.type() == BaseCommand::CONNECTED);
        CHECK(r.connected().server_version() == "Pulsar Server" + releaseOf(server));  // Commands.newConnected
        CHECK(r.connected().protocol_version() == 21);
        CHECK(r.connected().max_message_size() == 5 * 1024 * 1024);
        Client older(server.port());
        auto o = older.handshake(12);  // a client older than the broker: its own version
        REQUIRE(o.type() == BaseCommand::CONNECTED);
        CHECK(o.connected().protocol_version() == 12);
    }
    SECTION("2.4.0 answers up to v14") {
        ServeProcess server({"--broker-version", "2.4.0"});
        REQUIRE(server.port() != 0);
        CHECK(releaseOf(server) == "2.4.0");
        Client c(server.port());
        auto r = c.handshake(21);
        REQUIRE(r.type() == BaseCommand::CONNECTED);
        CHECK(r.connected().server_version() == "Pulsar Server2.4.0");
        CHECK(r.connected().protocol_version() == 14);
        CHECK(r.connected().max_message_size() == 5 * 1024 * 1024);
        Client older(server.port());
        auto o = older.handshake(10);
        REQUIRE(o.type() == BaseCommand::CONNECTED);
        CHECK(o.connected().protocol_version() == 10);
    }
}

// PIP-344 (#22206): from 3.0.7, 3.3.1 and 4.0.0 CONNECTED says the broker answers
// PARTITIONED_METADATA without auto-creation, and a request with
// metadata_auto_creation_enabled=false for a topic that does not exist is
// TopicNotFound (ServerCnx.handlePartitionMetadataRequest). Found by the Java
// client suite: getPartitionsForTopic(missing, false) listed the missing topic
// instead of failing with TopicDoesNotExistException (tests/clients/java).
TEST_CASE("PIP-344: CONNECTED feature flag and PARTITIONED_METADATA without auto-creation", "[serve][commands]") {
    auto metadata = [](const std::string& topic, std::uint64_t request, bool autoCreate) {
        auto pm = command(BaseCommand::PARTITIONED_METADATA);
        pm.mutable_partitionmetadata()->set_topic(topic);
        pm.mutable_partitionmetadata()->set_request_id(request);
        pm.mutable_partitionmetadata()->set_metadata_auto_creation_enabled(autoCreate);
        return pm;
    };
    using Response = pulsar::proto::CommandPartitionedTopicMetadataResponse;
    SECTION("4.2: the flag, TopicNotFound for a missing topic, 0 for an existing one") {
        ServeProcess server({"--broker-version", "4.2"});
        REQUIRE(server.port() != 0);
        Client c(server.port());
        auto r = c.handshake(21);
        REQUIRE(r.type() == BaseCommand::CONNECTED);
        CHECK(r.connected().feature_flags().supports_get_partitioned_metadata_without_auto_creation());
        auto missing = c.call(metadata("persistent://public/default/pip344-missing", 1, false));
        REQUIRE(missing.type() == BaseCommand::PARTITIONED_METADATA_RESPONSE);
        CHECK(missing.partitionmetadataresponse().response() == Response::Failed);
        CHECK(missing.partitionmetadataresponse().error() == pulsar::proto::TopicNotFound);
        CHECK(missing.partitionmetadataresponse().message().empty());
        // With auto-creation (the field's default) the same topic answers 0, as before.
        auto created = c.call(metadata("persistent://public/default/pip344-missing", 2, true));
        CHECK(created.partitionmetadataresponse().response() == Response::Success);
        CHECK(created.partitionmetadataresponse().partitions() == 0);
    }
    SECTION("3.0.6: no flag; the field is not read") {
        ServeProcess server({"--broker-version", "3.0.6"});
        REQUIRE(server.port() != 0);
        Client c(server.port());
        auto r = c.handshake(21);
        REQUIRE(r.type() == BaseCommand::CONNECTED);
        CHECK_FALSE(r.connected().feature_flags().supports_get_partitioned_metadata_without_auto_creation());
        auto p = c.call(metadata("persistent://public/default/pip344-missing", 1, false));
        CHECK(p.partitionmetadataresponse().response() == Response::Success);
        CHECK(p.partitionmetadataresponse().partitions() == 0);
    }
}

TEST_CASE("PING/PONG, PARTITIONED_METADATA, LOOKUP, GET_TOPICS_OF_NAMESPACE", "[serve][commands]") {
    ServeProcess server;
    REQUIRE(server.port() != 0);
    Session s(server);
    auto& c = s.client;
    CHECK(c.call(ping()).type() == BaseCommand::PONG);
    const std::string invalid = "persistent://public/default/";  // no local name

    auto pm = command(BaseCommand::PARTITIONED_METADATA);
    pm.mutable_partitionmetadata()->set_topic("persistent://public/default/plain");
    pm.mutable_partitionmetadata()->set_request_id(5);
    auto p = c.call(pm);
    REQUIRE(p.type() == BaseCommand::PARTITIONED_METADATA_RESPONSE);
    CHECK(p.partitionmetadataresponse().request_id() == 5);
    CHECK(p.partitionmetadataresponse().partitions() == 0);
    CHECK(p.partitionmetadataresponse().response() == pulsar::proto::CommandPartitionedTopicMetadataResponse::Success);
    pm.mutable_partitionmetadata()->set_topic(invalid);
    pm.mutable_partitionmetadata()->set_request_id(6);
    p = c.call(pm);
    REQUIRE(p.type() == BaseCommand::PARTITIONED_METADATA_RESPONSE);
    CHECK(p.partitionmetadataresponse().request_id() == 6);
    CHECK(p.partitionmetadataresponse().response() == pulsar::proto::CommandPartitionedTopicMetadataResponse::Failed);
    CHECK(p.partitionmetadataresponse().error() == pulsar::proto::InvalidTopicName);

    auto lookup = command(BaseCommand::LOOKUP);
    lookup.mutable_lookuptopic()->set_topic("persistent://public/default/plain");
    lookup.mutable_lookuptopic()->set_request_id(7);
    auto l = c.call(lookup);
    REQUIRE(l.type() == BaseCommand::LOOKUP_RESPONSE);
    CHECK(l.lookuptopicresponse().request_id() == 7);
    CHECK(l.lookuptopicresponse().response() == pulsar::proto::CommandLookupTopicResponse::Connect);
    CHECK(l.lookuptopicresponse().authoritative());
    CHECK(l.lookuptopicresponse().brokerserviceurl() == "pulsar://127.0.0.1:" + std::to_string(server.port()));
    CHECK_FALSE(l.lookuptopicresponse().proxy_through_service_url());
    lookup.mutable_lookuptopic()->set_topic(invalid);
    lookup.mutable_lookuptopic()->set_request_id(8);
    l = c.call(lookup);
    REQUIRE(l.type() == BaseCommand::LOOKUP_RESPONSE);
    CHECK(l.lookuptopicresponse().request_id() == 8);
    CHECK(l.lookuptopicresponse().response() == pulsar::proto::CommandLookupTopicResponse::Failed);
    CHECK(l.lookuptopicresponse().error() == pulsar::proto::InvalidTopicName);

    openProducer(c, "persistent://public/default/p1", 1, 10);
    openProducer(c, "non-persistent://public/default/n1", 2, 11);
    openProducer(c, "persistent://public/other/elsewhere", 3, 12);
    auto list = [&](pulsar::proto::CommandGetTopicsOfNamespace::Mode mode, std::uint64_t requestId) {
        auto q = command(BaseCommand::GET_TOPICS_OF_NAMESPACE);
        q.mutable_gettopicsofnamespace()->set_request_id(requestId);
        q.mutable_gettopicsofnamespace()->set_namespace_("public/default");
        q.mutable_gettopicsofnamespace()->set_mode(mode);
        auto r = c.call(q);
        REQUIRE(r.type() == BaseCommand::GET_TOPICS_OF_NAMESPACE_RESPONSE);
        CHECK(r.gettopicsofnamespaceresponse().request_id() == requestId);
        const auto& t = r.gettopicsofnamespaceresponse().topics();
        return std::set<std::string>(t.begin(), t.end());
    };
    using Mode = pulsar::proto::CommandGetTopicsOfNamespace;
    CHECK(list(Mode::PERSISTENT, 13) == std::set<std::string>{"persistent://public/default/p1"});
    CHECK(list(Mode::NON_PERSISTENT, 14) == std::set<std::string>{"non-persistent://public/default/n1"});
    CHECK(list(Mode::ALL, 15) ==
          std::set<std::string>{"persistent://public/default/p1", "non-persistent://public/default/n1"});
    CHECK(server.stop() == 0);
}

TEST_CASE("PRODUCER_SUCCESS: name, 8-byte schema version, last sequence id, and an incompatible schema refused",
          "[serve][commands]") {
    ServeProcess server;
    REQUIRE(server.port() != 0);
    Session s(server);
    auto& c = s.client;
    const std::string topic = "persistent://public/default/users";
    using pulsar::proto::Schema;

    auto first = c.call(producer(topic, 1, 100, schema(Schema::Avro, kUserV1)));
    REQUIRE(first.type() == BaseCommand::PRODUCER_SUCCESS);
    const auto& ps = first.producer_success();
    CHECK(ps.request_id() == 100);
    CHECK_FALSE(ps.producer_name().empty());  // assigned by the broker
    CHECK(ps.schema_version() == version(0));
    CHECK(ps.last_sequence_id() == -1);
    CHECK(ps.producer_ready());

    auto named = c.call(producer(topic, 2, 101, schema(Schema::Avro, kUserV2), std::string("my-producer")));
    REQUIRE(named.type() == BaseCommand::PRODUCER_SUCCESS);
    CHECK(named.producer_success().request_id() == 101);
    CHECK(named.producer_success().producer_name() == "my-producer");  // kept as given
    CHECK(named.producer_success().schema_version() == version(1));  // the evolved schema: a new version
    CHECK(named.producer_success().schema_version().size() == 8);

    auto again = c.call(producer(topic, 3, 102, schema(Schema::Avro, kUserV1)));
    REQUIRE(again.type() == BaseCommand::PRODUCER_SUCCESS);
    CHECK(again.producer_success().schema_version() == version(0));  // an existing schema: its version
    CHECK(again.producer_success().producer_name() != ps.producer_name());

    auto refused = c.call(producer(topic, 4, 103, schema(Schema::Avro, kUserV3)));
    REQUIRE(refused.type() == BaseCommand::ERROR);
    CHECK(refused.error().request_id() == 103);
    CHECK(refused.error().error() == pulsar::proto::IncompatibleSchema);
    CHECK_FALSE(refused.error().message().empty());
    CHECK(c.call(ping()).type() == BaseCommand::PONG);  // a refusal does not close the connection
    CHECK(server.stop() == 0);
}

TEST_CASE("SEND_RECEIPT in order with increasing ids, a batch as one entry, a bad CRC32C as ChecksumError",
          "[serve][commands]") {
    ServeProcess server;
    REQUIRE(server.port() != 0);
    Session s(server);
    auto& c = s.client;
    const std::string topic = "persistent://public/default/receipts";
    auto name = openProducer(c, topic, 9, 1);

    // Pipelined: five SENDs before reading any receipt; the receipts come in order.
    for (std::uint64_t seq = 0; seq < 5; ++seq) c.sendPayload(send(9, seq), metadata(name, seq), "m" + std::to_string(seq));
    std::optional<pulsar::proto::MessageIdData> previous;
    for (std::uint64_t seq = 0; seq < 5; ++seq) {
        auto r = c.read();
        REQUIRE(r.has_value());
        REQUIRE(r->type() == BaseCommand::SEND_RECEIPT);
        CHECK(r->send_receipt().producer_id() == 9);
        CHECK(r->send_receipt().sequence_id() == seq);
        const auto& id = r->send_receipt().message_id();
        CHECK(id.ledgerid() != kNoEntry);
        CHECK(id.entryid() != kNoEntry);
        if (previous) {
            CHECK(id.ledgerid() == previous->ledgerid());
            CHECK(id.entryid() == previous->entryid() + 1);
        }
        previous = id;
    }

    // A batch of three: one SEND, one receipt, one entry.
    pulsar::proto::MessageMetadata batchMeta = metadata(name, 5);
    batchMeta.set_num_messages_in_batch(3);
    std::string batchPayload;
    for (int i = 0; i < 3; ++i) {
        pulsar::proto::SingleMessageMetadata single;
        std::string body = "batched-" + std::to_string(i);
        single.set_payload_size(static_cast<int>(body.size()));
        single.set_sequence_id(5 + i);
        std::string m = single.SerializeAsString();
        batchPayload += be32(static_cast<std::uint32_t>(m.size())) + m + body;
    }
    c.sendPayload(send(9, 5, 3), batchMeta, batchPayload);
    auto batchReceipt = c.read();
    REQUIRE(batchReceipt.has_value());
    REQUIRE(batchReceipt->type() == BaseCommand::SEND_RECEIPT);
    CHECK(batchReceipt->send_receipt().sequence_id() == 5);
    CHECK(batchReceipt->send_receipt().message_id().entryid() == previous->entryid() + 1);

    // A checksum that does not match: SEND_ERROR ChecksumError, nothing stored.
    auto bad = metadata(name, 8);
    std::string body = send(9, 8).SerializeAsString(), m = bad.SerializeAsString();
    std::string checked = be32(static_cast<std::uint32_t>(m.size())) + m + "corrupted";
    std::string tail = std::string("\x0e\x01", 2) + be32(crc32c(checked) ^ 1u) + checked;
    c.raw(be32(static_cast<std::uint32_t>(4 + body.size() + tail.size())) + be32(static_cast<std::uint32_t>(body.size())) +
          body + tail);
    auto err = c.read();
    REQUIRE(err.has_value());
    REQUIRE(err->type() == BaseCommand::SEND_ERROR);
    CHECK(err->send_error().producer_id() == 9);
    CHECK(err->send_error().sequence_id() == 8);
    CHECK(err->send_error().error() == pulsar::proto::ChecksumError);

    // A consumer from the earliest position sees the six entries exactly as sent.
    Session reader(server);
    auto& r = reader.client;
    subscribeOk(r, subscribe(topic, "audit", 1, 1, CommandSubscribe::Exclusive, CommandSubscribe::Earliest));
    r.send(flow(1, 100));
    for (std::uint64_t seq = 0; seq < 5; ++seq) {
        auto f = r.readUntil(BaseCommand::MESSAGE);
        REQUIRE(f.has_value());
        CHECK(f->payload == "m" + std::to_string(seq));
        CHECK(f->metadataBytes == metadata(name, seq).SerializeAsString());
    }
    auto batch = r.readUntil(BaseCommand::MESSAGE);
    REQUIRE(batch.has_value());
    CHECK(batch->command.message().message_id().entryid() == batchReceipt->send_receipt().message_id().entryid());
    CHECK(batch->metadataBytes == batchMeta.SerializeAsString());
    CHECK(batch->metadata.num_messages_in_batch() == 3);
    CHECK(batch->payload == batchPayload);
    CHECK(batch->checksumPresent);
    CHECK(batch->checksumValid);
    CHECK(quiet(r));  // the corrupted message was not stored
    CHECK(server.stop() == 0);
}

TEST_CASE("SUBSCRIBE Earliest and Latest, FLOW permits, MESSAGE fields", "[serve][commands]") {
    ServeProcess server;
    REQUIRE(server.port() != 0);
    Session p(server), e(server), l(server);
    const std::string topic = "persistent://public/default/positions";
    auto name = openProducer(p.client, topic, 1, 1, schema(pulsar::proto::Schema::String));
    std::vector<pulsar::proto::MessageIdData> ids;
    for (std::uint64_t seq = 0; seq < 3; ++seq)
        ids.push_back(sendOne(p.client, 1, metadata(name, seq, version(0)), "before-" + std::to_string(seq)));

    subscribeOk(e.client, subscribe(topic, "from-earliest", 21, 2, CommandSubscribe::Exclusive, CommandSubscribe::Earliest));
    subscribeOk(l.client, subscribe(topic, "from-latest", 22, 3, CommandSubscribe::Exclusive, CommandSubscribe::Latest));

    // Two permits: two MESSAGEs, then nothing until the next FLOW.
    e.client.send(flow(21, 2));
    for (std::uint64_t seq = 0; seq < 2; ++seq) {
        auto f = e.client.readFrame();
        REQUIRE(f.has_value());
        REQUIRE(f->command.type() == BaseCommand::MESSAGE);
        const auto& msg = f->command.message();
        CHECK(msg.consumer_id() == 21);
        CHECK(msg.message_id().ledgerid() == ids[seq].ledgerid());
        CHECK(msg.message_id().entryid() == ids[seq].entryid());
        CHECK(msg.redelivery_count() == 0);
        CHECK(f->payload == "before-" + std::to_string(seq));
        CHECK(f->metadataBytes == metadata(name, seq, version(0)).SerializeAsString());
        CHECK(f->metadata.schema_version() == version(0));
        CHECK(f->checksumPresent);
        CHECK(f->checksumValid);
    }
    CHECK(quiet(e.client));
    e.client.send(flow(21, 10));
    auto third = e.client.readFrame();
    REQUIRE(third.has_value());
    REQUIRE(third->command.type() == BaseCommand::MESSAGE);
    CHECK(third->payload == "before-2");

    // Latest: the three earlier messages are not delivered, a later one is, to both.
    l.client.send(flow(22, 10));
    CHECK(quiet(l.client));
    auto later = sendOne(p.client, 1, metadata(name, 3, version(0)), "after");
    for (auto* consumer : {&l.client, &e.client}) {
        auto f = consumer->readFrame();
        REQUIRE(f.has_value());
        REQUIRE(f->command.type() == BaseCommand::MESSAGE);
        CHECK(f->payload == "after");
        CHECK(f->command.message().message_id().entryid() == later.entryid());
    }
    CHECK(l.client.readFrame(300ms) == std::nullopt);
    CHECK(server.stop() == 0);
}

TEST_CASE("ACK individual and cumulative with ACK_RESPONSE, REDELIVER, UNSUBSCRIBE, GET_LAST_MESSAGE_ID",
          "[serve][commands]") {
    ServeProcess server;
    REQUIRE(server.port() != 0);
    Session p(server), c(server);
    const std::string topic = "persistent://public/default/acks";
    auto name = openProducer(p.client, topic, 1, 1);
    subscribeOk(c.client, subscribe(topic, "sub", 5, 2, CommandSubscribe::Shared, CommandSubscribe::Earliest));

    auto lastId = [&](std::uint64_t requestId) {
        auto q = command(BaseCommand::GET_LAST_MESSAGE_ID);
        q.mutable_getlastmessageid()->set_consumer_id(5);
        q.mutable_getlastmessageid()->set_request_id(requestId);
        auto r = c.client.call(q);
        REQUIRE(r.type() == BaseCommand::GET_LAST_MESSAGE_ID_RESPONSE);
        CHECK(r.getlastmessageidresponse().request_id() == requestId);
        return r.getlastmessageidresponse().last_message_id();
    };
    CHECK(lastId(3).entryid() == kNoEntry);  // nothing written yet: entry -1

    std::vector<pulsar::proto::MessageIdData> ids;
    for (std::uint64_t seq = 0; seq < 5; ++seq) ids.push_back(sendOne(p.client, 1, metadata(name, seq), "x"));
    auto last = lastId(4);
    CHECK(last.ledgerid() == ids.back().ledgerid());
    CHECK(last.entryid() == ids.back().entryid());

    c.client.send(flow(5, 100));
    for (std::size_t i = 0; i < ids.size(); ++i) {
        auto f = c.client.readFrame();
        REQUIRE(f.has_value());
        REQUIRE(f->command.type() == BaseCommand::MESSAGE);
        CHECK(f->command.message().message_id().entryid() == ids[i].entryid());
    }
    auto ack = [&](pulsar::proto::CommandAck_AckType type, const pulsar::proto::MessageIdData& id, std::optional<std::uint64_t> requestId) {
        auto a = command(BaseCommand::ACK);
        a.mutable_ack()->set_consumer_id(5);
        a.mutable_ack()->set_ack_type(type);
        *a.mutable_ack()->add_message_id() = id;
        if (requestId) a.mutable_ack()->set_request_id(*requestId);
        c.client.send(a);
    };
    using pulsar::proto::CommandAck;
    ack(CommandAck::Individual, ids[3], 10);
    auto r = c.client.read();
    REQUIRE(r.has_value());
    REQUIRE(r->type() == BaseCommand::ACK_RESPONSE);
    CHECK(r->ackresponse().consumer_id() == 5);
    CHECK(r->ackresponse().request_id() == 10);
    CHECK_FALSE(r->ackresponse().has_error());
    ack(CommandAck::Cumulative, ids[1], 11);
    r = c.client.read();
    REQUIRE(r.has_value());
    REQUIRE(r->type() == BaseCommand::ACK_RESPONSE);
    CHECK(r->ackresponse().request_id() == 11);
    CHECK_FALSE(r->ackresponse().has_error());
    ack(CommandAck::Individual, ids[2], std::nullopt);  // no request id: no ACK_RESPONSE
    CHECK(quiet(c.client));

    // Only entry 4 is unacknowledged: it alone comes back, counted once.
    auto redeliver = command(BaseCommand::REDELIVER_UNACKNOWLEDGED_MESSAGES);
    redeliver.mutable_redeliverunacknowledgedmessages()->set_consumer_id(5);
    c.client.send(redeliver);
    auto again = c.client.readFrame();
    REQUIRE(again.has_value());
    REQUIRE(again->command.type() == BaseCommand::MESSAGE);
    CHECK(again->command.message().message_id().entryid() == ids[4].entryid());
    CHECK(again->command.message().redelivery_count() == 1);
    CHECK(quiet(c.client));

    auto unsub = command(BaseCommand::UNSUBSCRIBE);
    unsub.mutable_unsubscribe()->set_consumer_id(5);
    unsub.mutable_unsubscribe()->set_request_id(12);
    auto u = c.client.call(unsub);
    REQUIRE(u.type() == BaseCommand::SUCCESS);
    CHECK(u.success().request_id() == 12);
    // The subscription is gone: the same name from Latest does not get entry 4 back.
    subscribeOk(c.client, subscribe(topic, "sub", 6, 13, CommandSubscribe::Shared, CommandSubscribe::Latest));
    c.client.send(flow(6, 10));
    CHECK(quiet(c.client));

    // For a consumer id not on the connection: Pulsar answers ERROR MetadataError "Consumer not found".
    auto q = command(BaseCommand::GET_LAST_MESSAGE_ID);
    q.mutable_getlastmessageid()->set_consumer_id(99);
    q.mutable_getlastmessageid()->set_request_id(14);
    auto unknown = c.client.call(q);
    REQUIRE(unknown.type() == BaseCommand::ERROR);
    CHECK(unknown.error().request_id() == 14);
    CHECK(unknown.error().error() == pulsar::proto::MetadataError);
    CHECK(server.stop() == 0);
}

TEST_CASE("REDELIVER on Exclusive and Failover: the entry comes back with redelivery_count 0", "[serve][commands]") {
    // Pulsar's single-active-consumer dispatcher uses RedeliveryTrackerDisabled:
    // only Shared and Key_Shared subscriptions count redeliveries.
    ServeProcess server;
    REQUIRE(server.port() != 0);
    Session p(server), c(server);
    const std::string topic = "persistent://public/default/single-active";
    auto name = openProducer(p.client, topic, 1, 1);
    auto type = GENERATE(CommandSubscribe::Exclusive, CommandSubscribe::Failover);
    subscribeOk(c.client, subscribe(topic, "sub", 3, 2, type, CommandSubscribe::Earliest));
    if (type == CommandSubscribe::Failover) {  // a Failover consumer is told it is active (issue 41 item 11)
        auto notice = c.client.readFrame();
        REQUIRE(notice.has_value());
        REQUIRE(notice->command.type() == BaseCommand::ACTIVE_CONSUMER_CHANGE);
        CHECK(notice->command.active_consumer_change().is_active());
    }
    auto id = sendOne(p.client, 1, metadata(name, 0), "once");
    c.client.send(flow(3, 10));
    auto first = c.client.readFrame();
    REQUIRE(first.has_value());
    REQUIRE(first->command.type() == BaseCommand::MESSAGE);
    auto redeliver = command(BaseCommand::REDELIVER_UNACKNOWLEDGED_MESSAGES);
    redeliver.mutable_redeliverunacknowledgedmessages()->set_consumer_id(3);
    c.client.send(redeliver);
    auto again = c.client.readFrame();
    REQUIRE(again.has_value());
    REQUIRE(again->command.type() == BaseCommand::MESSAGE);
    CHECK(again->command.message().message_id().entryid() == id.entryid());
    CHECK(again->command.message().redelivery_count() == 0);
    CHECK(server.stop() == 0);
}

TEST_CASE("CLOSE_PRODUCER and CLOSE_CONSUMER answered SUCCESS, for unknown ids too", "[serve][commands]") {
    ServeProcess server;
    REQUIRE(server.port() != 0);
    Session s(server);
    auto& c = s.client;
    const std::string topic = "persistent://public/default/closing";
    openProducer(c, topic, 1, 1);
    subscribeOk(c, subscribe(topic, "sub", 2, 2));
    auto closeProducer = [&](std::uint64_t id, std::uint64_t requestId) {
        auto q = command(BaseCommand::CLOSE_PRODUCER);
        q.mutable_close_producer()->set_producer_id(id);
        q.mutable_close_producer()->set_request_id(requestId);
        return c.call(q);
    };
    auto closeConsumer = [&](std::uint64_t id, std::uint64_t requestId) {
        auto q = command(BaseCommand::CLOSE_CONSUMER);
        q.mutable_close_consumer()->set_consumer_id(id);
        q.mutable_close_consumer()->set_request_id(requestId);
        return c.call(q);
    };
    for (auto [r, requestId] : {std::pair{closeProducer(1, 3), 3}, std::pair{closeConsumer(2, 4), 4},
                                // Unknown ids: SUCCESS, as ServerCnx answers since 2.x ("was not registered").
                                std::pair{closeProducer(77, 5), 5}, std::pair{closeConsumer(78, 6), 6}}) {
        REQUIRE(r.type() == BaseCommand::SUCCESS);
        CHECK(r.success().request_id() == static_cast<std::uint64_t>(requestId));
    }
    // The closed consumer's subscription takes a new Exclusive consumer; the producer id is free again.
    subscribeOk(c, subscribe(topic, "sub", 3, 7));
    openProducer(c, topic, 1, 8);
    CHECK(server.stop() == 0);
}

TEST_CASE("GET_SCHEMA by version and latest, GET_OR_CREATE_SCHEMA", "[serve][commands]") {
    ServeProcess server;
    REQUIRE(server.port() != 0);
    Session s(server);
    auto& c = s.client;
    using pulsar::proto::Schema;
    const std::string topic = "persistent://public/default/schemas";
    openProducer(c, topic, 1, 1, schema(Schema::Avro, kUserV1));

    auto getSchema = [&](const std::string& t, std::optional<std::int64_t> v, std::uint64_t requestId) {
        auto q = command(BaseCommand::GET_SCHEMA);
        q.mutable_getschema()->set_topic(t);
        q.mutable_getschema()->set_request_id(requestId);
        if (v) q.mutable_getschema()->set_schema_version(version(*v));
        auto r = c.call(q);
        REQUIRE(r.type() == BaseCommand::GET_SCHEMA_RESPONSE);
        CHECK(r.getschemaresponse().request_id() == requestId);
        return r.getschemaresponse();
    };
    auto getOrCreate = [&](const std::string& t, const std::string& definition, std::uint64_t requestId) {
        auto q = command(BaseCommand::GET_OR_CREATE_SCHEMA);
        q.mutable_getorcreateschema()->set_topic(t);
        q.mutable_getorcreateschema()->set_request_id(requestId);
        *q.mutable_getorcreateschema()->mutable_schema() = schema(Schema::Avro, definition);
        auto r = c.call(q);
        REQUIRE(r.type() == BaseCommand::GET_OR_CREATE_SCHEMA_RESPONSE);
        CHECK(r.getorcreateschemaresponse().request_id() == requestId);
        return r.getorcreateschemaresponse();
    };

    auto created = getOrCreate(topic, kUserV2, 2);
    CHECK_FALSE(created.has_error_code());
    CHECK(created.schema_version() == version(1));
    auto existing = getOrCreate(topic, kUserV1, 3);
    CHECK_FALSE(existing.has_error_code());
    CHECK(existing.schema_version() == version(0));
    auto incompatible = getOrCreate(topic, kUserV3, 4);
    CHECK(incompatible.error_code() == pulsar::proto::IncompatibleSchema);
    CHECK_FALSE(incompatible.error_message().empty());
    CHECK_FALSE(incompatible.has_schema_version());
    auto noTopic = getOrCreate("persistent://public/default/never-created", kUserV1, 5);
    CHECK(noTopic.error_code() == pulsar::proto::TopicNotFound);

    auto latest = getSchema(topic, std::nullopt, 6);
    CHECK_FALSE(latest.has_error_code());
    CHECK(latest.schema_version() == version(1));
    CHECK(latest.schema().type() == Schema::Avro);
    CHECK(latest.schema().schema_data() == kUserV2);
    auto v0 = getSchema(topic, 0, 7);
    CHECK_FALSE(v0.has_error_code());
    CHECK(v0.schema_version() == version(0));
    CHECK(v0.schema().schema_data() == kUserV1);
    // ServerCnx.handleGetSchema: no schema found -> TopicNotFound "Topic not found or no-schema <topic>".
    auto missing = getSchema(topic, 9, 8);
    CHECK(missing.error_code() == pulsar::proto::TopicNotFound);
    auto unknown = getSchema("persistent://public/default/no-such-topic", std::nullopt, 9);
    CHECK(unknown.error_code() == pulsar::proto::TopicNotFound);
    CHECK_THAT(unknown.error_message(), Catch::StartsWith("Topic not found or no-schema"));
    CHECK(server.stop() == 0);
}

TEST_CASE("Exclusive refuses a second consumer with ConsumerBusy, Shared spreads over its consumers",
          "[serve][commands]") {
    ServeProcess server;
    REQUIRE(server.port() != 0);
    Session a(server), b(server), p(server);
    const std::string topic = "persistent://public/default/modes";
    subscribeOk(a.client, subscribe(topic, "only-one", 1, 1, CommandSubscribe::Exclusive));
    auto busy = b.client.call(subscribe(topic, "only-one", 1, 2, CommandSubscribe::Exclusive));
    REQUIRE(busy.type() == BaseCommand::ERROR);
    CHECK(busy.error().request_id() == 2);
    CHECK(busy.error().error() == pulsar::proto::ConsumerBusy);
    CHECK(b.client.call(ping()).type() == BaseCommand::PONG);

    subscribeOk(a.client, subscribe(topic, "many", 2, 3, CommandSubscribe::Shared));
    subscribeOk(b.client, subscribe(topic, "many", 2, 4, CommandSubscribe::Shared));
    a.client.send(flow(2, 100));
    b.client.send(flow(2, 100));
    CHECK(a.client.call(ping()).type() == BaseCommand::PONG);  // the FLOWs are in before the SENDs
    CHECK(b.client.call(ping()).type() == BaseCommand::PONG);
    auto name = openProducer(p.client, topic, 1, 1);
    for (std::uint64_t seq = 0; seq < 6; ++seq) sendOne(p.client, 1, metadata(name, seq), std::to_string(seq));
    std::multiset<std::string> seen;
    std::size_t fromA = 0, fromB = 0;
    for (auto [from, count] : {std::pair{&a.client, &fromA}, std::pair{&b.client, &fromB}}) {
        while (auto f = from->readFrame(500ms)) {
            REQUIRE(f->command.type() == BaseCommand::MESSAGE);
            CHECK(f->command.message().consumer_id() == 2);  // the Shared one: "only-one"'s has no permits
            seen.insert(f->payload);
            ++*count;
        }
    }
    CHECK(seen == std::multiset<std::string>{"0", "1", "2", "3", "4", "5"});
    CHECK(fromA > 0);
    CHECK(fromB > 0);
    CHECK(server.stop() == 0);
}

// Issue 40 items 8 and 9: no answer passes the frame limit announced in CONNECTED.
namespace {

/// An Avro record of `fields` int fields f0..f(n-1); the last one named `last`.
std::string wideRecord(int fields, const std::string& last) {
    std::string out = R"({"type":"record","name":"Wide","namespace":"t","fields":[)";
    for (int i = 0; i < fields; ++i) {
        if (i > 0) out += ',';
        out += R"({"name":")" + (i + 1 == fields ? last : "f" + std::to_string(i)) + R"(","type":"int"})";
    }
    return out + "]}";
}

constexpr std::size_t kFrameLimit = 5 * 1024 * 1024 + 10 * 1024;  // max_message_size + Pulsar's padding

}  // namespace

TEST_CASE("a 150,000-field record admitted, the same with its last field renamed gets IncompatibleSchema",
          "[serve][commands][issue40]") {
    ServeProcess server;
    Session s(server);
    const std::string topic = "persistent://public/default/wide";
    s.client.send(producer(topic, 1, 1, schema(pulsar::proto::Schema::Avro, wideRecord(150'000, "last"))));
    auto admitted = s.client.readFrame(60s);
    REQUIRE(admitted.has_value());
    REQUIRE(admitted->command.type() == BaseCommand::PRODUCER_SUCCESS);
    // Not readable from the stored schema's data (a field without default): refused, and the
    // refusal (its text embeds both schemas) reaches the client on the open connection.
    s.client.send(producer(topic, 2, 2, schema(pulsar::proto::Schema::Avro, wideRecord(150'000, "renamed"))));
    auto answer = s.client.readFrame(60s);
    REQUIRE(answer.has_value());
    REQUIRE(answer->command.type() == BaseCommand::ERROR);
    CHECK(answer->command.error().request_id() == 2);
    CHECK(answer->command.error().error() == pulsar::proto::IncompatibleSchema);
    CHECK_THAT(answer->command.error().message(), Catch::StartsWith("org.apache.pulsar.broker.service.schema.exceptions"));
    CHECK_THAT(answer->command.error().message(), Catch::EndsWith("more bytes]"));
    CHECK(answer->command.ByteSizeLong() + 4 <= kFrameLimit);
    CHECK(s.client.call(ping()).type() == BaseCommand::PONG);  // the connection stays
}

TEST_CASE("GET_TOPICS_OF_NAMESPACE past the frame limit is refused in a frame within it", "[serve][commands][issue40]") {
    ServeProcess server;
    Session s(server);
    // 700 topics of 8,000-byte names: a 5.6 MB list.
    const std::string stem = "persistent://public/default/" + std::string(8000, 'n');
    for (std::uint64_t i = 0; i < 700; ++i) openProducer(s.client, stem + std::to_string(i), i, i);
    auto request = command(BaseCommand::GET_TOPICS_OF_NAMESPACE);
    request.mutable_gettopicsofnamespace()->set_request_id(9000);
    request.mutable_gettopicsofnamespace()->set_namespace_("public/default");
    s.client.send(request);
    auto answer = s.client.readFrame(30s);  // the client reads frames up to 6 MiB
    REQUIRE(answer.has_value());
    REQUIRE(answer->command.type() == BaseCommand::ERROR);
    CHECK(answer->command.ByteSizeLong() + 4 <= kFrameLimit);
    CHECK(answer->command.error().request_id() == 9000);
    CHECK_THAT(answer->command.error().message(), Catch::Contains("frame limit"));
    CHECK(s.client.call(ping()).type() == BaseCommand::PONG);  // the connection stays
}

// Issue 41 item 15: a consumer that reads normally is never closed as one that
// "does not read", however much its permits let the broker dispatch at once:
// past a high-water mark of bytes waiting to go to the peer, dispatch to it
// pauses and resumes once they drain (the broker's dispatchers read one entry
// at a time for a connection that is not writable, Consumer.isWritable).
// Before: the whole backlog was queued at once and the connection closed by
// --max-queued-bytes.
TEST_CASE("a consumer whose permits cover more than --max-queued-bytes gets every message, paused not closed",
          "[serve][commands][issue41]") {
    ServeProcess server({"--max-queued-bytes", "1048576", "-v"});
    REQUIRE(server.port() != 0);
    Session p(server), c(server);
    const std::string topic = "persistent://public/default/large-backlog";
    auto name = openProducer(p.client, topic, 1, 1);
    constexpr int kMessages = 12;
    const std::string big(200 * 1024, 'b');  // 12 x 200 KiB: 2.4 MiB, over the 1 MiB bound
    for (std::uint64_t seq = 0; seq < kMessages; ++seq) sendOne(p.client, 1, metadata(name, seq), big);
    subscribeOk(c.client, subscribe(topic, "backlog", 5, 2, CommandSubscribe::Exclusive, CommandSubscribe::Earliest));
    c.client.send(flow(5, 1000));
    for (std::uint64_t i = 0; i < kMessages; ++i) {
        auto f = c.client.readFrame(10s);
        REQUIRE(f.has_value());
        REQUIRE(f->command.type() == BaseCommand::MESSAGE);
        CHECK(f->command.message().message_id().entryid() == i);
        CHECK(f->payload.size() == big.size());
    }
    CHECK(c.client.call(ping()).type() == BaseCommand::PONG);  // still connected
    CHECK(server.stop() == 0);
}

// Issue 41 item 14: a Shared subscription holds a message until its
// deliver_at_time (a timer on serve's clock fires it); the one after it goes first.
// Key_Shared's dispatcher extends Shared's and holds it too (issue 43: the Go
// client's TestConsumerKeySharedWithDelayedMessages got it at once).
TEST_CASE("a delayed message comes after the later one on a Shared or Key_Shared subscription",
          "[serve][commands][issue41]") {
    auto subType = GENERATE(CommandSubscribe::Shared, CommandSubscribe::Key_Shared);
    ServeProcess server;
    REQUIRE(server.port() != 0);
    Session p(server), c(server);
    const std::string topic = "persistent://public/default/delayed";
    auto name = openProducer(p.client, topic, 1, 1);
    auto delayed = metadata(name, 0);
    auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch()).count();
    delayed.set_deliver_at_time(now + 300);
    sendOne(p.client, 1, delayed, "later");
    sendOne(p.client, 1, metadata(name, 1), "now");
    subscribeOk(c.client, subscribe(topic, "shared", 5, 2, subType, CommandSubscribe::Earliest));
    c.client.send(flow(5, 10));
    std::vector<std::string> got;
    for (int i = 0; i < 2; ++i) {
        auto f = c.client.readFrame(10s);
        REQUIRE(f.has_value());
        REQUIRE(f->command.type() == BaseCommand::MESSAGE);
        got.push_back(f->payload);
    }
    CHECK(got == std::vector<std::string>{"now", "later"});
    CHECK(server.stop() == 0);
}
