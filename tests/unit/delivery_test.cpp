// Message delivery through ServerCnx (the model `cnxsim serve` answers with):
// entries stored as sent, FLOW permits, MESSAGE frames with the producer's
// metadata, acknowledgements, redelivery counts, subscription positions, a
// durable cursor across an unload, UNSUBSCRIBE and GET_LAST_MESSAGE_ID.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "model_test_support.h"

namespace {

using namespace cnx::testing;
using pulsar::proto::CommandSubscribe;

const std::string kTopic = "persistent://public/default/delivery";

BaseCommand ack(std::uint64_t consumerId, std::uint64_t ledger, std::uint64_t entry, bool cumulative = false,
                std::optional<std::uint64_t> requestId = std::nullopt) {
    BaseCommand c;
    c.set_type(BaseCommand::ACK);
    auto* a = c.mutable_ack();
    a->set_consumer_id(consumerId);
    a->set_ack_type(cumulative ? pulsar::proto::CommandAck::Cumulative : pulsar::proto::CommandAck::Individual);
    auto* id = a->add_message_id();
    id->set_ledgerid(ledger);
    id->set_entryid(entry);
    if (requestId) a->set_request_id(*requestId);
    return c;
}

BaseCommand redeliverAll(std::uint64_t consumerId) {
    BaseCommand c;
    c.set_type(BaseCommand::REDELIVER_UNACKNOWLEDGED_MESSAGES);
    c.mutable_redeliverunacknowledgedmessages()->set_consumer_id(consumerId);
    return c;
}

BaseCommand subscribeAt(std::uint64_t consumerId, std::uint64_t requestId, CommandSubscribe::SubType type,
                        bool earliest, const std::string& subscription = "sub") {
    auto c = TestClient::subscribeCmd(kTopic, subscription, consumerId, requestId);
    c.mutable_subscribe()->set_subtype(type);
    c.mutable_subscribe()->set_initialposition(earliest ? CommandSubscribe::Earliest : CommandSubscribe::Latest);
    return c;
}

/// The MESSAGE frames among `frames`: (entry id, payload, redelivery count).
struct Delivered {
    std::uint64_t entry;
    std::string payload;
    std::uint32_t redeliveries;
    std::string producerName;
};
std::vector<Delivered> messagesIn(const std::vector<cnx::wire::Frame>& frames) {
    std::vector<Delivered> out;
    for (const auto& f : frames) {
        if (f.command.type() != BaseCommand::MESSAGE) continue;
        const auto& m = f.command.message();
        out.push_back({m.message_id().entryid(), f.payload, m.redelivery_count(),
                       f.metadata ? f.metadata->producer_name() : ""});
    }
    return out;
}

struct Session {
    BrokerFixture f;
    TestClient producer{f};
    TestClient consumer{f};
    Session() {
        REQUIRE(producer.connect().type() == BaseCommand::CONNECTED);
        REQUIRE(consumer.connect().type() == BaseCommand::CONNECTED);
        REQUIRE(producer.producer(kTopic, 1, "p").type() == BaseCommand::PRODUCER_SUCCESS);
    }
    void publish(int n, std::uint64_t firstSeq = 0) {
        for (int i = 0; i < n; ++i) REQUIRE(producer.publish(1, firstSeq + static_cast<std::uint64_t>(i)).type() == BaseCommand::SEND_RECEIPT);
    }
};

}  // namespace

TEST_CASE("a consumer gets what the producer sent, as sent, within its permits", "[delivery]") {
    Session s;
    s.publish(3);
    auto sub = s.consumer.send(subscribeAt(1, 100, CommandSubscribe::Shared, /*earliest=*/true));
    REQUIRE(sub.size() == 1);
    REQUIRE(sub[0].type() == BaseCommand::SUCCESS);
    s.consumer.raw(cnx::wire::encodeFrame(TestClient::flowCmd(1, 2)));
    auto got = messagesIn(s.consumer.receivedFrames());
    REQUIRE(got.size() == 2);  // two permits, two messages
    CHECK(got[0].entry == 0);
    CHECK(got[1].entry == 1);
    CHECK(got[0].payload == std::string(16, 'x'));
    CHECK(got[0].producerName == "p");
    CHECK(got[0].redeliveries == 0);
    s.consumer.raw(cnx::wire::encodeFrame(TestClient::flowCmd(1, 5)));
    got = messagesIn(s.consumer.receivedFrames());
    REQUIRE(got.size() == 1);
    CHECK(got[0].entry == 2);
    s.publish(1, 3);  // a new entry goes out at once: permits are left
    got = messagesIn(s.consumer.receivedFrames());
    REQUIRE(got.size() == 1);
    CHECK(got[0].entry == 3);
}

TEST_CASE("a Latest subscription starts after what is stored, an Earliest one at the first entry", "[delivery]") {
    Session s;
    s.publish(2);
    s.consumer.send(subscribeAt(1, 100, CommandSubscribe::Exclusive, /*earliest=*/false, "latest"));
    s.consumer.send(subscribeAt(2, 101, CommandSubscribe::Exclusive, /*earliest=*/true, "earliest"));
    s.consumer.raw(cnx::wire::encodeFrame(TestClient::flowCmd(1, 10)));
    CHECK(messagesIn(s.consumer.receivedFrames()).empty());
    s.consumer.raw(cnx::wire::encodeFrame(TestClient::flowCmd(2, 10)));
    CHECK(messagesIn(s.consumer.receivedFrames()).size() == 2);
    s.publish(1, 2);
    auto got = s.consumer.receivedFrames();
    CHECK(messagesIn(got).size() == 2);  // the new entry, once per subscription
}

TEST_CASE("acknowledged entries are not redelivered, the others come back with their redelivery count", "[delivery]") {
    Session s;
    s.publish(3);
    s.consumer.send(subscribeAt(1, 100, CommandSubscribe::Shared, true));
    s.consumer.raw(cnx::wire::encodeFrame(TestClient::flowCmd(1, 3)));
    auto first = messagesIn(s.consumer.receivedFrames());
    REQUIRE(first.size() == 3);
    auto ledger = s.f.broker.findTopic(*cnx::TopicName::parse(kTopic))->lastPosition().ledgerId;
    auto receipt = s.consumer.send(ack(1, ledger, 0, false, 7));
    REQUIRE(receipt.size() == 1);
    CHECK(receipt[0].type() == BaseCommand::ACK_RESPONSE);
    CHECK(receipt[0].ackresponse().request_id() == 7);
    CHECK_FALSE(receipt[0].ackresponse().has_error());
    s.consumer.raw(cnx::wire::encodeFrame(TestClient::flowCmd(1, 5)));
    s.consumer.raw(cnx::wire::encodeFrame(redeliverAll(1)));
    auto again = messagesIn(s.consumer.receivedFrames());
    REQUIRE(again.size() == 2);
    CHECK(again[0].entry == 1);
    CHECK(again[1].entry == 2);
    CHECK(again[0].redeliveries == 1);
    // A cumulative ack covers both; nothing is left to redeliver.
    CHECK(s.consumer.send(ack(1, ledger, 2, true)).empty());
    s.consumer.raw(cnx::wire::encodeFrame(redeliverAll(1)));
    CHECK(messagesIn(s.consumer.receivedFrames()).empty());
}

TEST_CASE("Shared consumers take turns, a closed consumer's unacknowledged entries go to the other", "[delivery]") {
    Session s;
    TestClient other(s.f);
    REQUIRE(other.connect().type() == BaseCommand::CONNECTED);
    s.consumer.send(subscribeAt(1, 100, CommandSubscribe::Shared, true));
    other.send(subscribeAt(1, 200, CommandSubscribe::Shared, true));
    s.consumer.raw(cnx::wire::encodeFrame(TestClient::flowCmd(1, 10)));
    other.raw(cnx::wire::encodeFrame(TestClient::flowCmd(1, 10)));
    s.publish(4);
    auto a = messagesIn(s.consumer.receivedFrames());
    auto b = messagesIn(other.receivedFrames());
    CHECK(a.size() == 2);
    CHECK(b.size() == 2);
    REQUIRE(s.consumer.closeConsumer(1).type() == BaseCommand::SUCCESS);
    auto moved = messagesIn(other.receivedFrames());
    REQUIRE(moved.size() == 2);
    CHECK(moved[0].entry == a[0].entry);
    CHECK(moved[1].entry == a[1].entry);
}

TEST_CASE("a durable subscription keeps its acknowledgements across an unload", "[delivery]") {
    Session s;
    s.publish(3);
    s.consumer.send(subscribeAt(1, 100, CommandSubscribe::Exclusive, true));
    s.consumer.raw(cnx::wire::encodeFrame(TestClient::flowCmd(1, 10)));
    REQUIRE(messagesIn(s.consumer.receivedFrames()).size() == 3);
    auto ledger = s.f.broker.findTopic(*cnx::TopicName::parse(kTopic))->lastPosition().ledgerId;
    s.consumer.send(ack(1, ledger, 0));
    s.f.broker.unload(*cnx::TopicName::parse(kTopic));
    s.consumer.receivedFrames();  // CLOSE_CONSUMER
    s.consumer.send(subscribeAt(2, 101, CommandSubscribe::Exclusive, false));
    s.consumer.raw(cnx::wire::encodeFrame(TestClient::flowCmd(2, 10)));
    auto got = messagesIn(s.consumer.receivedFrames());
    REQUIRE(got.size() == 2);
    CHECK(got[0].entry == 1);
    CHECK(got[1].entry == 2);
}

TEST_CASE("GET_LAST_MESSAGE_ID and UNSUBSCRIBE", "[delivery]") {
    Session s;
    s.consumer.send(subscribeAt(1, 100, CommandSubscribe::Shared, true));
    BaseCommand last;
    last.set_type(BaseCommand::GET_LAST_MESSAGE_ID);
    last.mutable_getlastmessageid()->set_consumer_id(1);
    last.mutable_getlastmessageid()->set_request_id(300);
    auto empty = s.consumer.send(last);
    REQUIRE(empty.size() == 1);
    CHECK(empty[0].getlastmessageidresponse().last_message_id().entryid() == static_cast<std::uint64_t>(-1));
    s.publish(2);
    auto two = s.consumer.send(last);
    REQUIRE(two.size() == 1);
    CHECK(two[0].getlastmessageidresponse().request_id() == 300);
    CHECK(two[0].getlastmessageidresponse().last_message_id().entryid() == 1);

    TestClient other(s.f);
    REQUIRE(other.connect().type() == BaseCommand::CONNECTED);
    other.send(subscribeAt(1, 200, CommandSubscribe::Shared, true));
    BaseCommand unsub;
    unsub.set_type(BaseCommand::UNSUBSCRIBE);
    unsub.mutable_unsubscribe()->set_consumer_id(1);
    unsub.mutable_unsubscribe()->set_request_id(301);
    auto refused = s.consumer.send(unsub);
    REQUIRE(refused.size() == 1);
    CHECK(refused[0].type() == BaseCommand::ERROR);
    REQUIRE(other.closeConsumer(1).type() == BaseCommand::SUCCESS);
    auto ok = s.consumer.send(unsub);
    REQUIRE(ok.size() == 1);
    CHECK(ok[0].type() == BaseCommand::SUCCESS);
    CHECK(s.f.broker.findTopic(*cnx::TopicName::parse(kTopic))->subscriptions().empty());
}

TEST_CASE("a SEND whose checksum does not match is refused with ChecksumError", "[delivery]") {
    Session s;
    BaseCommand send;
    send.set_type(BaseCommand::SEND);
    send.mutable_send()->set_producer_id(1);
    send.mutable_send()->set_sequence_id(0);
    pulsar::proto::MessageMetadata meta;
    meta.set_producer_name("p");
    meta.set_sequence_id(0);
    meta.set_publish_time(1);
    auto bytes = cnx::wire::encodePayloadFrame(send, meta, "payload");
    bytes.back() ^= 0x01;  // one bit of the payload flipped after the checksum was computed
    s.producer.raw(bytes);
    auto frames = s.producer.received();
    REQUIRE(frames.size() == 1);
    CHECK(frames[0].type() == BaseCommand::SEND_ERROR);
    CHECK(frames[0].send_error().error() == pulsar::proto::ChecksumError);
    CHECK(frames[0].send_error().message() == "Checksum failed on the broker");
    CHECK(s.f.broker.findTopic(*cnx::TopicName::parse(kTopic))->lastPosition().entryId == static_cast<std::uint64_t>(-1));
}

// Never a command the client's protocol does not know (reference §8.6 and
// upstream ServerCnx / PulsarCommandSenderImpl): a consumer before v11 gets
// MESSAGE without the checksum block, a client before v5 has its connection
// dropped where a newer one gets CLOSE_CONSUMER.
TEST_CASE("a consumer before protocol v11 gets MESSAGE without the checksum, one from v11 with it", "[delivery][protocol]") {
    for (int version : {10, 11}) {
        INFO("consumer protocol v" << version);
        BrokerFixture f;
        TestClient producer{f}, consumer{f};
        REQUIRE(producer.connect().type() == BaseCommand::CONNECTED);
        REQUIRE(consumer.connect(version).type() == BaseCommand::CONNECTED);
        REQUIRE(producer.producer(kTopic, 1, "p").type() == BaseCommand::PRODUCER_SUCCESS);
        REQUIRE(producer.publish(1, 0).type() == BaseCommand::SEND_RECEIPT);
        REQUIRE(consumer.one(subscribeAt(1, 10, CommandSubscribe::Exclusive, true)).type() == BaseCommand::SUCCESS);
        consumer.raw(cnx::wire::encodeFrame(TestClient::flowCmd(1, 1)));
        auto frames = consumer.receivedFrames();
        REQUIRE(messagesIn(frames).size() == 1);
        for (const auto& fr : frames) {
            if (fr.command.type() == BaseCommand::MESSAGE) CHECK(fr.checksumPresent == (version >= 11));
        }
    }
}

TEST_CASE("an unload drops a pre-v5 client's connection instead of sending CLOSE_CONSUMER", "[delivery][protocol]") {
    for (int version : {4, 5}) {
        INFO("client protocol v" << version);
        BrokerFixture f;
        TestClient consumer{f};
        REQUIRE(consumer.connect(version).type() == BaseCommand::CONNECTED);
        REQUIRE(consumer.one(subscribeAt(1, 10, CommandSubscribe::Exclusive, true)).type() == BaseCommand::SUCCESS);
        f.broker.unload(*cnx::TopicName::parse(kTopic));
        f.scheduler.runUntilIdle();
        auto frames = consumer.receivedFrames();
        bool closeSent = false;
        for (const auto& fr : frames) closeSent = closeSent || fr.command.type() == BaseCommand::CLOSE_CONSUMER;
        CHECK(closeSent == (version >= 5));
        CHECK(consumer.cnx().closed() == (version < 5));
        CHECK(consumer.cnx().droppedByBroker() == (version < 5));
    }
}

TEST_CASE("SEEK resets the cursor: by message id, by publish time, earliest and latest", "[delivery][seek]") {
    Session s;
    s.publish(4);
    REQUIRE(s.consumer.one(subscribeAt(1, 10, CommandSubscribe::Exclusive, true)).type() == BaseCommand::SUCCESS);
    s.consumer.raw(cnx::wire::encodeFrame(TestClient::flowCmd(1, 10)));
    REQUIRE(messagesIn(s.consumer.receivedFrames()).size() == 4);
    s.consumer.raw(cnx::wire::encodeFrame(ack(1, 1, 3, /*cumulative=*/true)));
    auto ledger = s.f.broker.findTopic(*cnx::TopicName::parse(kTopic))->lastPosition().ledgerId;

    auto seekTo = [&](std::uint64_t requestId, std::optional<std::pair<std::int64_t, std::int64_t>> id,
                      std::optional<std::uint64_t> time) {
        BaseCommand c;
        c.set_type(BaseCommand::SEEK);
        c.mutable_seek()->set_consumer_id(1);
        c.mutable_seek()->set_request_id(requestId);
        if (id) {
            c.mutable_seek()->mutable_message_id()->set_ledgerid(static_cast<std::uint64_t>(id->first));
            c.mutable_seek()->mutable_message_id()->set_entryid(static_cast<std::uint64_t>(id->second));
        }
        if (time) c.mutable_seek()->set_message_publish_time(*time);
        auto answers = s.consumer.send(c);
        REQUIRE(answers.size() == 2);
        CHECK(answers[0].type() == BaseCommand::CLOSE_CONSUMER);  // first, as resetCursor disconnects
        CHECK(answers[1].type() == BaseCommand::SUCCESS);
        // The client reconnects its consumer and asks again.
        REQUIRE(s.consumer.one(subscribeAt(1, requestId + 1, CommandSubscribe::Exclusive, true)).type() ==
                BaseCommand::SUCCESS);
        s.consumer.raw(cnx::wire::encodeFrame(TestClient::flowCmd(1, 10)));
        std::vector<std::uint64_t> entries;
        for (const auto& m : messagesIn(s.consumer.receivedFrames())) entries.push_back(m.entry);
        s.consumer.raw(cnx::wire::encodeFrame(ack(1, ledger, 3, /*cumulative=*/true)));
        return entries;
    };
    CHECK(seekTo(20, std::pair<std::int64_t, std::int64_t>{static_cast<std::int64_t>(ledger), 2}, std::nullopt) ==
          std::vector<std::uint64_t>{2, 3});
    CHECK(seekTo(30, std::pair<std::int64_t, std::int64_t>{-1, -1}, std::nullopt) ==
          std::vector<std::uint64_t>{0, 1, 2, 3});  // MessageId.earliest
    CHECK(seekTo(40, std::pair<std::int64_t, std::int64_t>{INT64_MAX, INT64_MAX}, std::nullopt).empty());  // latest
    CHECK(seekTo(50, std::nullopt, 0) == std::vector<std::uint64_t>{0, 1, 2, 3});  // every entry is at or after time 0
}

TEST_CASE("a batch uses one permit per message in it, SEND_RECEIPT carries highest_sequence_id", "[delivery]") {
    Session s;
    // A batch of 3 (sequence ids 10..12) and a single message after it.
    BaseCommand send;
    send.set_type(BaseCommand::SEND);
    send.mutable_send()->set_producer_id(1);
    send.mutable_send()->set_sequence_id(10);
    send.mutable_send()->set_highest_sequence_id(12);
    send.mutable_send()->set_num_messages(3);
    pulsar::proto::MessageMetadata meta;
    meta.set_producer_name("p");
    meta.set_sequence_id(10);
    meta.set_publish_time(1);
    meta.set_num_messages_in_batch(3);
    auto receipt = s.producer.sendPayload(send, meta, "batch");
    REQUIRE(receipt.size() == 1);
    REQUIRE(receipt[0].type() == BaseCommand::SEND_RECEIPT);
    CHECK(receipt[0].send_receipt().sequence_id() == 10);
    CHECK(receipt[0].send_receipt().highest_sequence_id() == 12);
    auto single = s.producer.publish(1, 13);
    REQUIRE(single.type() == BaseCommand::SEND_RECEIPT);
    CHECK(single.send_receipt().highest_sequence_id() == 13);

    REQUIRE(s.consumer.one(subscribeAt(1, 10, CommandSubscribe::Exclusive, true)).type() == BaseCommand::SUCCESS);
    s.consumer.raw(cnx::wire::encodeFrame(TestClient::flowCmd(1, 2)));  // fewer permits than the batch holds: it still goes
    auto got = messagesIn(s.consumer.receivedFrames());
    REQUIRE(got.size() == 1);
    CHECK(got[0].entry == 0);
    s.consumer.raw(cnx::wire::encodeFrame(TestClient::flowCmd(1, 1)));  // permits -1 + 1 = 0: nothing more yet
    CHECK(messagesIn(s.consumer.receivedFrames()).empty());
    s.consumer.raw(cnx::wire::encodeFrame(TestClient::flowCmd(1, 1)));
    got = messagesIn(s.consumer.receivedFrames());
    REQUIRE(got.size() == 1);
    CHECK(got[0].entry == 1);

    // GET_LAST_MESSAGE_ID names the partition (-1: not partitioned) and, for a batch, its last index.
    BaseCommand last;
    last.set_type(BaseCommand::GET_LAST_MESSAGE_ID);
    last.mutable_getlastmessageid()->set_consumer_id(1);
    last.mutable_getlastmessageid()->set_request_id(20);
    auto answer = s.consumer.one(last);
    REQUIRE(answer.type() == BaseCommand::GET_LAST_MESSAGE_ID_RESPONSE);
    CHECK(answer.getlastmessageidresponse().last_message_id().entryid() == 1);
    CHECK(answer.getlastmessageidresponse().last_message_id().partition() == -1);
    CHECK_FALSE(answer.getlastmessageidresponse().last_message_id().has_batch_index());  // entry 1 is no batch
    s.producer.sendPayload(send, meta, "batch again");
    answer = s.consumer.one(last);
    CHECK(answer.getlastmessageidresponse().last_message_id().batch_index() == 2);
}
