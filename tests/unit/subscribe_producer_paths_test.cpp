// Issue 41: what the broker does on the SUBSCRIBE and PRODUCER paths that the
// official C++ client's own tests rely on. Readers start where they ask
// (start_message_id on a non-durable subscription), MESSAGE carries the
// partition index, GET_LAST_MESSAGE_ID answers -1:-1 on an empty topic with
// the cursor's mark-delete position, an empty subscription name and
// read_compacted where it is not allowed are refused, a partition past the
// partitioned topic's count is refused (#19086), PRODUCER's
// initial_subscription_name creates that subscription (PIP-124), and an
// ExclusiveWithFencing producer closes the producer it fences.

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "model_test_support.h"

namespace {

using namespace cnx::testing;
using pulsar::proto::CommandSubscribe;

const std::string kTopic = "persistent://public/default/issue41";

/// A reader's SUBSCRIBE (non-durable, Exclusive, initialPosition Latest as the C++ client sends it).
BaseCommand readerAt(const std::string& topic, std::uint64_t consumerId, std::int64_t ledger, std::int64_t entry,
                     const std::string& subscription) {
    auto c = TestClient::subscribeCmd(topic, subscription, consumerId, 100 + consumerId, std::nullopt, /*durable=*/false);
    auto* s = c.mutable_subscribe();
    s->set_subtype(CommandSubscribe::Exclusive);
    s->set_initialposition(CommandSubscribe::Latest);
    s->mutable_start_message_id()->set_ledgerid(static_cast<std::uint64_t>(ledger));
    s->mutable_start_message_id()->set_entryid(static_cast<std::uint64_t>(entry));
    return c;
}

std::vector<std::uint64_t> entriesIn(const std::vector<cnx::wire::Frame>& frames) {
    std::vector<std::uint64_t> out;
    for (const auto& f : frames)
        if (f.command.type() == BaseCommand::MESSAGE) out.push_back(f.command.message().message_id().entryid());
    return out;
}

/// The entries consumer `consumerId` of `client` gets for 100 permits.
std::vector<std::uint64_t> read(TestClient& client, std::uint64_t consumerId) {
    client.raw(cnx::wire::encodeFrame(TestClient::flowCmd(consumerId, 100)));
    return entriesIn(client.receivedFrames());
}

BaseCommand getLastMessageId(std::uint64_t consumerId, std::uint64_t requestId) {
    BaseCommand c;
    c.set_type(BaseCommand::GET_LAST_MESSAGE_ID);
    c.mutable_getlastmessageid()->set_consumer_id(consumerId);
    c.mutable_getlastmessageid()->set_request_id(requestId);
    return c;
}

struct Session {
    explicit Session(const cnx::BehaviourProfile& profile = cnx::newestProfile()) : f(profile) {
        REQUIRE(producer.connect().type() == BaseCommand::CONNECTED);
        REQUIRE(consumer.connect().type() == BaseCommand::CONNECTED);
    }
    void publish(const std::string& topic, int n) {
        REQUIRE(producer.producer(topic, 1, "p").type() == BaseCommand::PRODUCER_SUCCESS);
        for (int i = 0; i < n; ++i)
            REQUIRE(producer.publish(1, static_cast<std::uint64_t>(i)).type() == BaseCommand::SEND_RECEIPT);
    }
    std::uint64_t ledger(const std::string& topic) {
        return f.broker.findTopic(*cnx::TopicName::parse(topic))->lastPosition().ledgerId;
    }
    BrokerFixture f;
    TestClient producer{f};
    TestClient consumer{f};
};

const cnx::BehaviourProfile& release(const char* version) {
    const auto* p = cnx::profileFor(version);
    REQUIRE(p != nullptr);
    return *p;
}

}  // namespace

TEST_CASE("a reader starts at MessageId.earliest, at its start message id (read again) or after the last entry",
          "[issue41][reader]") {
    // PersistentTopic.getNonDurableSubscription / NonDurableCursorImpl; on main every
    // reader started after the last entry whatever it asked.
    Session s;
    s.publish(kTopic, 5);
    auto ledger = static_cast<std::int64_t>(s.ledger(kTopic));
    constexpr auto kMax = std::numeric_limits<std::int64_t>::max();

    REQUIRE(s.consumer.one(readerAt(kTopic, 1, -1, -1, "r-earliest")).type() == BaseCommand::SUCCESS);
    CHECK(read(s.consumer, 1) == std::vector<std::uint64_t>{0, 1, 2, 3, 4});

    // The start entry comes again: the C++ client drops it when its start is exclusive.
    REQUIRE(s.consumer.one(readerAt(kTopic, 2, ledger, 2, "r-at-2")).type() == BaseCommand::SUCCESS);
    CHECK(read(s.consumer, 2) == std::vector<std::uint64_t>{2, 3, 4});

    REQUIRE(s.consumer.one(readerAt(kTopic, 3, ledger, 0, "r-at-0")).type() == BaseCommand::SUCCESS);
    CHECK(read(s.consumer, 3) == std::vector<std::uint64_t>{0, 1, 2, 3, 4});

    REQUIRE(s.consumer.one(readerAt(kTopic, 4, kMax, kMax, "r-latest")).type() == BaseCommand::SUCCESS);
    CHECK(read(s.consumer, 4).empty());
    // An id past the last entry falls back to initialPosition: Earliest reads from the first.
    auto earliestFallback = readerAt(kTopic, 5, ledger, 99, "r-past-end");
    earliestFallback.mutable_subscribe()->set_initialposition(CommandSubscribe::Earliest);
    REQUIRE(s.consumer.one(earliestFallback).type() == BaseCommand::SUCCESS);
    CHECK(read(s.consumer, 5) == std::vector<std::uint64_t>{0, 1, 2, 3, 4});
    // An older ledger's id: the first entry held.
    REQUIRE(s.consumer.one(readerAt(kTopic, 6, ledger - 1, 7, "r-old-ledger")).type() == BaseCommand::SUCCESS);
    CHECK(read(s.consumer, 6).size() == 5);

    REQUIRE(s.producer.publish(1, 5).type() == BaseCommand::SEND_RECEIPT);
    CHECK(entriesIn(s.consumer.receivedFrames()).size() == 6);  // entry 5, once per reader
}

TEST_CASE("a durable subscription ignores start_message_id, a reader may not take a durable one's name",
          "[issue41][reader]") {
    Session s;
    s.publish(kTopic, 3);
    auto durable = readerAt(kTopic, 1, -1, -1, "durable");
    durable.mutable_subscribe()->set_durable(true);
    REQUIRE(s.consumer.one(durable).type() == BaseCommand::SUCCESS);
    CHECK(read(s.consumer, 1).empty());  // Latest: PersistentTopic.getDurableSubscription has no start id

    auto reader = s.consumer.one(readerAt(kTopic, 2, -1, -1, "durable"));
    REQUIRE(reader.type() == BaseCommand::ERROR);
    CHECK(reader.error().error() == pulsar::proto::NotAllowedError);
    CHECK(reader.error().message() == "Durable subscription with the same name already exists.");
}

TEST_CASE("MESSAGE carries the partition index of a partition, -1 for a topic that is not partitioned",
          "[issue41][partition]") {
    // ConsumerTest.testAcknowledgeCumulativeWithPartition indexes arrays by partition():
    // on main every message said -1 (unset).
    Session s;
    const std::string base = "persistent://public/default/issue41-partitioned";
    s.f.broker.declareTopic(*cnx::TopicName::parse(base), 2);
    const std::string partition1 = base + "-partition-1";
    s.publish(partition1, 1);
    REQUIRE(s.consumer.one(readerAt(partition1, 1, -1, -1, "r")).type() == BaseCommand::SUCCESS);
    s.consumer.raw(cnx::wire::encodeFrame(TestClient::flowCmd(1, 10)));
    auto frames = s.consumer.receivedFrames();
    REQUIRE(frames.size() == 1);
    CHECK(frames[0].command.message().message_id().partition() == 1);

    TestClient other(s.f);
    REQUIRE(other.connect().type() == BaseCommand::CONNECTED);
    REQUIRE(other.producer(kTopic, 1, "q").type() == BaseCommand::PRODUCER_SUCCESS);
    REQUIRE(other.publish(1, 0).type() == BaseCommand::SEND_RECEIPT);
    REQUIRE(s.consumer.one(readerAt(kTopic, 2, -1, -1, "r")).type() == BaseCommand::SUCCESS);
    s.consumer.raw(cnx::wire::encodeFrame(TestClient::flowCmd(2, 10)));
    frames = s.consumer.receivedFrames();
    REQUIRE(frames.size() == 1);
    CHECK(frames[0].command.message().message_id().has_partition());  // set always, as Commands.newMessageCommand
    CHECK(frames[0].command.message().message_id().partition() == -1);
}

TEST_CASE("GET_LAST_MESSAGE_ID on an empty topic answers -1:-1, with the cursor's mark-delete position",
          "[issue41][last-message-id]") {
    Session s;
    REQUIRE(s.consumer.subscribe(kTopic, "sub", 1).type() == BaseCommand::SUCCESS);
    auto empty = s.consumer.one(getLastMessageId(1, 300));
    REQUIRE(empty.type() == BaseCommand::GET_LAST_MESSAGE_ID_RESPONSE);
    const auto& none = empty.getlastmessageidresponse();
    CHECK(static_cast<std::int64_t>(none.last_message_id().ledgerid()) == -1);
    CHECK(static_cast<std::int64_t>(none.last_message_id().entryid()) == -1);
    REQUIRE(none.has_consumer_mark_delete_position());
    CHECK(static_cast<std::int64_t>(none.consumer_mark_delete_position().entryid()) == -1);

    s.publish(kTopic, 2);
    auto two = s.consumer.one(getLastMessageId(1, 301)).getlastmessageidresponse();
    CHECK(two.last_message_id().ledgerid() == s.ledger(kTopic));
    CHECK(two.last_message_id().entryid() == 1);
    CHECK(two.consumer_mark_delete_position().ledgerid() == s.ledger(kTopic));
    CHECK(static_cast<std::int64_t>(two.consumer_mark_delete_position().entryid()) == -1);  // nothing acknowledged
}

TEST_CASE("an empty subscription name and read_compacted where it is not allowed are refused",
          "[issue41][subscribe]") {
    Session s;
    auto blank = s.consumer.subscribe(kTopic, "", 1);
    REQUIRE(blank.type() == BaseCommand::ERROR);
    CHECK(blank.error().error() == pulsar::proto::ProducerBusy);  // NamingException
    CHECK(blank.error().message() == "Empty subscription name");

    // A table view's reader on a non-persistent topic (TableViewTest.testNotSupportNonPersistentTopic).
    auto compacted = readerAt("non-persistent://public/default/issue41", 2, -1, -1, "tv");
    compacted.mutable_subscribe()->set_read_compacted(true);
    auto refused = s.consumer.one(compacted);
    REQUIRE(refused.type() == BaseCommand::ERROR);
    CHECK(refused.error().error() == pulsar::proto::NotAllowedError);
    CHECK(refused.error().message() == "readCompacted only valid on persistent topics");

    auto shared = TestClient::subscribeCmd(kTopic, "shared", 3, 400);
    shared.mutable_subscribe()->set_read_compacted(true);
    auto notExclusive = s.consumer.one(shared);
    REQUIRE(notExclusive.type() == BaseCommand::ERROR);
    CHECK(notExclusive.error().message() == "readCompacted only allowed on failover or exclusive subscriptions");
}

TEST_CASE("a partition past the partitioned topic's count is refused from 3.0 (#19086)", "[issue41][partition]") {
    const std::string base = "persistent://public/default/issue41-two";
    const std::string beyond = base + "-partition-2";
    Session s;
    s.f.broker.declareTopic(*cnx::TopicName::parse(base), 2);
    auto producer = s.producer.producer(beyond, 1, "p");
    REQUIRE(producer.type() == BaseCommand::ERROR);
    CHECK(producer.error().error() == pulsar::proto::NotAllowedError);
    CHECK(producer.error().message() == "Illegal topic partition name " + beyond + " with max allowed 2 partitions");
    auto consumer = s.consumer.subscribe(beyond, "sub", 1);
    REQUIRE(consumer.type() == BaseCommand::ERROR);
    CHECK(consumer.error().error() == pulsar::proto::NotAllowedError);
    CHECK(s.f.broker.findTopic(*cnx::TopicName::parse(beyond)) == nullptr);
    CHECK(s.producer.producer(base + "-partition-1", 2, "p1").type() == BaseCommand::PRODUCER_SUCCESS);

    Session older(release("2.11"));
    older.f.broker.declareTopic(*cnx::TopicName::parse(base), 2);
    CHECK(older.producer.producer(beyond, 1, "p").type() == BaseCommand::PRODUCER_SUCCESS);
}

TEST_CASE("PRODUCER's initial_subscription_name creates that subscription at the first entry (PIP-124)",
          "[issue41][initial-subscription]") {
    auto producerWithInitialSubscription = [](const std::string& topic) {
        auto c = TestClient::producerCmd(topic, 1, 50, "dlq-producer");
        c.mutable_producer()->set_initial_subscription_name("init-sub");
        return c;
    };
    Session s;
    REQUIRE(s.producer.one(producerWithInitialSubscription(kTopic)).type() == BaseCommand::PRODUCER_SUCCESS);
    REQUIRE(s.f.broker.findTopic(*cnx::TopicName::parse(kTopic))->hasSubscription("init-sub"));
    for (std::uint64_t i = 0; i < 3; ++i) REQUIRE(s.producer.publish(1, i).type() == BaseCommand::SEND_RECEIPT);
    // A consumer of that subscription (Latest) finds the messages waiting for it.
    auto sub = TestClient::subscribeCmd(kTopic, "init-sub", 1, 60);
    sub.mutable_subscribe()->set_initialposition(CommandSubscribe::Latest);
    REQUIRE(s.consumer.one(sub).type() == BaseCommand::SUCCESS);
    CHECK(read(s.consumer, 1) == std::vector<std::uint64_t>{0, 1, 2});

    Session off;
    REQUIRE(!off.f.broker.setConfig("allowAutoSubscriptionCreation", "false"));
    auto refused = off.producer.one(producerWithInitialSubscription(kTopic));
    REQUIRE(refused.type() == BaseCommand::ERROR);
    CHECK(refused.error().error() == pulsar::proto::NotAllowedError);
    CHECK(refused.error().message() ==
          "Could not create the initial subscription due to the auto subscription creation is not allowed.");

    Session before(release("2.9"));
    REQUIRE(before.producer.one(producerWithInitialSubscription(kTopic)).type() == BaseCommand::PRODUCER_SUCCESS);
    CHECK(!before.f.broker.findTopic(*cnx::TopicName::parse(kTopic))->hasSubscription("init-sub"));
}

TEST_CASE("an ExclusiveWithFencing producer closes the producer it fences, whose reconnect is refused",
          "[issue41][producer]") {
    Session s;
    auto exclusive = TestClient::producerCmd(kTopic, 1, 70, "p-name-1");
    exclusive.mutable_producer()->set_producer_access_mode(pulsar::proto::Exclusive);
    REQUIRE(s.producer.one(exclusive).type() == BaseCommand::PRODUCER_SUCCESS);

    auto fencing = TestClient::producerCmd(kTopic, 1, 71, "p-name-3");
    fencing.mutable_producer()->set_producer_access_mode(pulsar::proto::ExclusiveWithFencing);
    REQUIRE(s.consumer.one(fencing).type() == BaseCommand::PRODUCER_SUCCESS);
    auto closed = s.producer.received();
    REQUIRE(closed.size() == 1);
    CHECK(closed[0].type() == BaseCommand::CLOSE_PRODUCER);
    CHECK(closed[0].close_producer().producer_id() == 1);

    // The C++ client reconnects its producer: refused, so its sends fail with ProducerFenced.
    exclusive.mutable_producer()->set_request_id(72);
    auto again = s.producer.one(exclusive);
    REQUIRE(again.type() == BaseCommand::ERROR);
    CHECK(again.error().error() == pulsar::proto::ProducerFenced);
}

TEST_CASE("a reader that a SEEK closed gets its cursor back, at the reset position, when it subscribes again",
          "[issue41][reader][seek]") {
    // PersistentSubscription.removeConsumer(isResetCursor) keeps the managed ledger's
    // cursor and newNonDurableCursor hands it back by name: after a seek by timestamp
    // the C++ client subscribes again without a start message id
    // (ReaderSeekTest.testHasMessageAvailableAfterSeekTimestamp). On main the reader
    // came back after the last entry.
    Session s;
    s.publish(kTopic, 3);
    REQUIRE(s.consumer.one(readerAt(kTopic, 1, -1, -1, "reader")).type() == BaseCommand::SUCCESS);
    CHECK(read(s.consumer, 1).size() == 3);
    BaseCommand seek;
    seek.set_type(BaseCommand::SEEK);
    seek.mutable_seek()->set_consumer_id(1);
    seek.mutable_seek()->set_request_id(500);
    seek.mutable_seek()->set_message_publish_time(0);
    auto answers = s.consumer.send(seek);
    REQUIRE(answers.size() == 2);
    CHECK(answers[0].type() == BaseCommand::CLOSE_CONSUMER);
    CHECK(answers[1].type() == BaseCommand::SUCCESS);

    auto again = TestClient::subscribeCmd(kTopic, "reader", 1, 501, std::nullopt, /*durable=*/false);
    again.mutable_subscribe()->set_subtype(CommandSubscribe::Exclusive);
    REQUIRE(s.consumer.one(again).type() == BaseCommand::SUCCESS);
    CHECK(read(s.consumer, 1) == std::vector<std::uint64_t>{0, 1, 2});
    auto last = s.consumer.one(getLastMessageId(1, 502)).getlastmessageidresponse();
    CHECK(static_cast<std::int64_t>(last.consumer_mark_delete_position().entryid()) == -1);

    // A reader closed without a SEEK leaves nothing behind: the same name starts afresh.
    REQUIRE(s.consumer.closeConsumer(1).type() == BaseCommand::SUCCESS);
    again.mutable_subscribe()->set_request_id(503);
    REQUIRE(s.consumer.one(again).type() == BaseCommand::SUCCESS);
    CHECK(read(s.consumer, 1).empty());
}
