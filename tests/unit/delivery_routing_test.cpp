// Issue 41: who gets an entry, and what it carries. Key_Shared routing by the
// key's hash (auto-split and sticky ranges, ConsumerAssignError), the Failover
// active consumer and ACTIVE_CONSUMER_CHANGE, batch-index acknowledgement
// (ack_set on ACK and on the redelivered MESSAGE).

#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "broker_model/broker/sticky_key.h"
#include "model_test_support.h"

namespace {

using namespace cnx::testing;
using pulsar::proto::CommandSubscribe;

BaseCommand subscribeCmd(const std::string& topic, std::uint64_t consumerId, std::uint64_t requestId,
                         CommandSubscribe::SubType type, const std::string& name) {
    auto c = TestClient::subscribeCmd(topic, "sub", consumerId, requestId);
    c.mutable_subscribe()->set_subtype(type);
    c.mutable_subscribe()->set_consumer_name(name);
    c.mutable_subscribe()->set_initialposition(CommandSubscribe::Earliest);
    return c;
}

BaseCommand stickySubscribe(const std::string& topic, std::uint64_t consumerId, std::uint64_t requestId,
                            std::vector<std::pair<int, int>> ranges) {
    auto c = subscribeCmd(topic, consumerId, requestId, CommandSubscribe::Key_Shared, "c" + std::to_string(consumerId));
    auto* meta = c.mutable_subscribe()->mutable_keysharedmeta();
    meta->set_keysharedmode(pulsar::proto::STICKY);
    for (auto [start, end] : ranges) {
        auto* r = meta->add_hashranges();
        r->set_start(start);
        r->set_end(end);
    }
    return c;
}

/// SEND of one message (or a batch of `batch`) with the given keys.
BaseCommand sendCmd(std::uint64_t sequenceId, int batch = 1) {
    BaseCommand c;
    c.set_type(BaseCommand::SEND);
    c.mutable_send()->set_producer_id(1);
    c.mutable_send()->set_sequence_id(sequenceId);
    if (batch > 1) c.mutable_send()->set_num_messages(batch);
    return c;
}

pulsar::proto::MessageMetadata keyed(std::uint64_t sequenceId, const std::string& partitionKey,
                                     const std::string& orderingKey = "") {
    pulsar::proto::MessageMetadata m;
    m.set_producer_name("p");
    m.set_sequence_id(sequenceId);
    m.set_publish_time(1);
    if (!partitionKey.empty()) m.set_partition_key(partitionKey);
    if (!orderingKey.empty()) m.set_ordering_key(orderingKey);
    return m;
}

std::vector<cnx::wire::Frame> ofType(const std::vector<cnx::wire::Frame>& frames, BaseCommand::Type type) {
    std::vector<cnx::wire::Frame> out;
    for (const auto& f : frames)
        if (f.command.type() == type) out.push_back(f);
    return out;
}

struct Clients {
    BrokerFixture f;
    TestClient producer{f};
    TestClient a{f};
    TestClient b{f};
    explicit Clients(const std::string& topic) {
        REQUIRE(producer.connect().type() == BaseCommand::CONNECTED);
        REQUIRE(a.connect().type() == BaseCommand::CONNECTED);
        REQUIRE(b.connect().type() == BaseCommand::CONNECTED);
        REQUIRE(producer.producer(topic, 1, "p").type() == BaseCommand::PRODUCER_SUCCESS);
    }
};

}  // namespace

TEST_CASE("the sticky key hash is Murmur3_32Hash of Pulsar: MurmurHash3 x86 32 with seed 0, masked", "[delivery][issue41]") {
    CHECK(cnx::sticky::murmur3("") == 0u);
    CHECK(cnx::sticky::murmur3("hello") == 0x248bfa47u);
    CHECK(cnx::sticky::murmur3("The quick brown fox jumps over the lazy dog") == 0x2e4ff723u);
    pulsar::proto::MessageMetadata m;
    CHECK(cnx::sticky::stickyKey(m) == "NONE_KEY");
    m.set_partition_key("aGVsbG8=");
    CHECK(cnx::sticky::stickyKey(m) == "aGVsbG8=");
    m.set_partition_key_b64_encoded(true);
    CHECK(cnx::sticky::stickyKey(m) == "hello");
    m.set_ordering_key("first");  // the ordering key comes first
    CHECK(cnx::sticky::stickyKey(m) == "first");
}

TEST_CASE("Key_Shared auto-split: each entry goes to the consumer whose half holds its key's hash", "[delivery][issue41]") {
    const std::string topic = "persistent://public/default/key-shared";
    Clients s(topic);
    REQUIRE(s.a.one(subscribeCmd(topic, 1, 10, CommandSubscribe::Key_Shared, "a")).type() == BaseCommand::SUCCESS);
    REQUIRE(s.b.one(subscribeCmd(topic, 2, 11, CommandSubscribe::Key_Shared, "b")).type() == BaseCommand::SUCCESS);
    s.a.raw(cnx::wire::encodeFrame(TestClient::flowCmd(1, 1000)));
    s.b.raw(cnx::wire::encodeFrame(TestClient::flowCmd(2, 1000)));
    // HashRangeAutoSplitStickyKeyConsumerSelector: a holds (32768, 65536], b (the
    // split of the widest part) [0, 32768].
    std::map<std::uint64_t, char> expected;
    for (std::uint64_t i = 0; i < 40; ++i) {
        auto meta = i % 5 == 0 ? keyed(i, "k" + std::to_string(i % 7), "o" + std::to_string(i % 3))
                               : keyed(i, "k" + std::to_string(i % 7));
        auto slot = cnx::sticky::slotOf(meta);
        expected[i] = slot <= 32768 ? 'b' : 'a';
        REQUIRE(s.producer.sendPayload(sendCmd(i), meta, "m").front().type() == BaseCommand::SEND_RECEIPT);
    }
    auto toA = ofType(s.a.receivedFrames(), BaseCommand::MESSAGE);
    auto toB = ofType(s.b.receivedFrames(), BaseCommand::MESSAGE);
    CHECK(toA.size() + toB.size() == 40);
    int seenA = 0, seenB = 0;
    for (const auto& m : toA) {
        CHECK(expected[m.command.message().message_id().entryid()] == 'a');
        ++seenA;
    }
    for (const auto& m : toB) {
        CHECK(expected[m.command.message().message_id().entryid()] == 'b');
        ++seenB;
    }
    CHECK(seenA > 0);
    CHECK(seenB > 0);
}

TEST_CASE("Key_Shared sticky: each consumer gets its ranges' keys, an overlapping or empty range is ConsumerAssignError",
          "[delivery][issue41]") {
    const std::string topic = "persistent://public/default/key-shared-sticky";
    Clients s(topic);
    REQUIRE(s.a.one(stickySubscribe(topic, 1, 10, {{0, 20000}})).type() == BaseCommand::SUCCESS);
    auto overlap = s.b.one(stickySubscribe(topic, 2, 11, {{20001, 40000}, {100, 200}}));
    REQUIRE(overlap.type() == BaseCommand::ERROR);
    CHECK(overlap.error().error() == pulsar::proto::ConsumerAssignError);
    auto empty = s.b.one(stickySubscribe(topic, 3, 12, {}));
    REQUIRE(empty.type() == BaseCommand::ERROR);
    CHECK(empty.error().error() == pulsar::proto::ConsumerAssignError);
    REQUIRE(s.b.one(stickySubscribe(topic, 4, 13, {{20001, 65535}})).type() == BaseCommand::SUCCESS);
    s.a.raw(cnx::wire::encodeFrame(TestClient::flowCmd(1, 1000)));
    s.b.raw(cnx::wire::encodeFrame(TestClient::flowCmd(4, 1000)));
    int toA = 0, toB = 0;
    for (std::uint64_t i = 0; i < 30; ++i) {
        auto meta = keyed(i, "key-" + std::to_string(i));
        bool forA = cnx::sticky::slotOf(meta) <= 20000;
        s.producer.sendPayload(sendCmd(i), meta, "m");
        auto gotA = ofType(s.a.receivedFrames(), BaseCommand::MESSAGE).size();
        auto gotB = ofType(s.b.receivedFrames(), BaseCommand::MESSAGE).size();
        CHECK(gotA == (forA ? 1u : 0u));
        CHECK(gotB == (forA ? 0u : 1u));
        toA += static_cast<int>(gotA);
        toB += static_cast<int>(gotB);
    }
    CHECK(toA + toB == 30);
}

TEST_CASE("Failover on a partition: the active consumer is partition index mod the consumers sorted by name, told by ACTIVE_CONSUMER_CHANGE",
          "[delivery][issue41]") {
    const std::string topic = "persistent://public/default/failover-partition-3";
    Clients s(topic);
    // b subscribes first: alone, it is active.
    auto first = s.b.send(subscribeCmd(topic, 2, 10, CommandSubscribe::Failover, "consumer-b"));
    REQUIRE(first.size() == 2);
    CHECK(first[0].type() == BaseCommand::SUCCESS);
    REQUIRE(first[1].type() == BaseCommand::ACTIVE_CONSUMER_CHANGE);
    CHECK(first[1].active_consumer_change().is_active());
    // a joins: sorted [consumer-a, consumer-b], partition 3 % 2 = 1: b stays active, a is told it is not.
    auto second = s.a.send(subscribeCmd(topic, 1, 11, CommandSubscribe::Failover, "consumer-a"));
    REQUIRE(second.size() == 2);
    CHECK(second[0].type() == BaseCommand::SUCCESS);
    REQUIRE(second[1].type() == BaseCommand::ACTIVE_CONSUMER_CHANGE);
    CHECK_FALSE(second[1].active_consumer_change().is_active());
    s.a.raw(cnx::wire::encodeFrame(TestClient::flowCmd(1, 10)));
    s.b.raw(cnx::wire::encodeFrame(TestClient::flowCmd(2, 10)));
    REQUIRE(s.producer.publish(1, 0).type() == BaseCommand::SEND_RECEIPT);
    CHECK(ofType(s.a.receivedFrames(), BaseCommand::MESSAGE).empty());
    CHECK(ofType(s.b.receivedFrames(), BaseCommand::MESSAGE).size() == 1);
    // b leaves: a becomes active, is told so, and gets what b had not acknowledged.
    BaseCommand close;
    close.set_type(BaseCommand::CLOSE_CONSUMER);
    close.mutable_close_consumer()->set_consumer_id(2);
    close.mutable_close_consumer()->set_request_id(12);
    s.b.send(close);
    auto toA = s.a.receivedFrames();
    auto changes = ofType(toA, BaseCommand::ACTIVE_CONSUMER_CHANGE);
    REQUIRE(changes.size() == 1);
    CHECK(changes[0].command.active_consumer_change().is_active());
    CHECK(ofType(toA, BaseCommand::MESSAGE).size() == 1);
}

TEST_CASE("a client before v12 gets no ACTIVE_CONSUMER_CHANGE", "[delivery][issue41][protocol]") {
    const std::string topic = "persistent://public/default/failover-old-client";
    BrokerFixture f;
    TestClient old(f);
    REQUIRE(old.connect(11).type() == BaseCommand::CONNECTED);
    auto answer = old.send(subscribeCmd(topic, 1, 10, CommandSubscribe::Failover, "c"));
    REQUIRE(answer.size() == 1);
    CHECK(answer[0].type() == BaseCommand::SUCCESS);
}

namespace {

/// Publishes one batch of 5 on `topic`, subscribes consumer 1 (Shared) and reads it.
void batchOfFive(Clients& s, const std::string& topic) {
    auto meta = keyed(0, "");
    meta.set_num_messages_in_batch(5);
    REQUIRE(s.producer.sendPayload(sendCmd(0, 5), meta, "batch").front().type() == BaseCommand::SEND_RECEIPT);
    REQUIRE(s.a.one(subscribeCmd(topic, 1, 10, CommandSubscribe::Shared, "a")).type() == BaseCommand::SUCCESS);
    s.a.raw(cnx::wire::encodeFrame(TestClient::flowCmd(1, 100)));
    REQUIRE(ofType(s.a.receivedFrames(), BaseCommand::MESSAGE).size() == 1);
}

BaseCommand ackWithSet(std::uint64_t ledger, std::vector<std::int64_t> ackSet, bool cumulative) {
    BaseCommand c;
    c.set_type(BaseCommand::ACK);
    c.mutable_ack()->set_consumer_id(1);
    c.mutable_ack()->set_ack_type(cumulative ? pulsar::proto::CommandAck::Cumulative
                                             : pulsar::proto::CommandAck::Individual);
    auto* id = c.mutable_ack()->add_message_id();
    id->set_ledgerid(ledger);
    id->set_entryid(0);
    for (auto w : ackSet) id->add_ack_set(w);
    return c;
}

BaseCommand redeliverAll() {
    BaseCommand c;
    c.set_type(BaseCommand::REDELIVER_UNACKNOWLEDGED_MESSAGES);
    c.mutable_redeliverunacknowledgedmessages()->set_consumer_id(1);
    return c;
}

}  // namespace

TEST_CASE("batch-index acknowledgement: the redelivered batch carries the ack_set of what is left", "[delivery][issue41]") {
    const std::string topic = "persistent://public/default/batch-index-ack";
    Clients s(topic);
    s.f.broker.policies().broker.acknowledgmentAtBatchIndexLevelEnabled = true;
    batchOfFive(s, topic);
    auto ledger = s.f.broker.findTopic(*cnx::TopicName::parse(topic))->lastPosition().ledgerId;
    // Messages 0, 2, 4 acknowledged: bits 1 and 3 left (the client's BitSet of what is unacknowledged).
    s.a.send(ackWithSet(ledger, {0b11010}, false));
    s.a.send(ackWithSet(ledger, {0b01011}, false));  // 2 and 4 (again) acknowledged: left is 1 and 3
    s.a.raw(cnx::wire::encodeFrame(redeliverAll()));
    auto redelivered = ofType(s.a.receivedFrames(), BaseCommand::MESSAGE);
    REQUIRE(redelivered.size() == 1);
    const auto& ackSet = redelivered[0].command.message().ack_set();
    REQUIRE(ackSet.size() == 1);
    CHECK(ackSet[0] == 0b01010);
    // The rest acknowledged: the entry is gone, nothing comes back.
    s.a.send(ackWithSet(ledger, {0}, false));
    s.a.raw(cnx::wire::encodeFrame(redeliverAll()));
    CHECK(ofType(s.a.receivedFrames(), BaseCommand::MESSAGE).empty());
}

TEST_CASE("batch-index acknowledgement off (the default before 4.1, PIP-391): an ACK with ack_set acknowledges the whole entry",
          "[delivery][issue41]") {
    const std::string topic = "persistent://public/default/batch-index-ack-off";
    Clients s(topic);
    s.f.broker.policies().broker.acknowledgmentAtBatchIndexLevelEnabled = false;
    batchOfFive(s, topic);
    auto ledger = s.f.broker.findTopic(*cnx::TopicName::parse(topic))->lastPosition().ledgerId;
    s.a.send(ackWithSet(ledger, {0b11110}, false));
    s.a.raw(cnx::wire::encodeFrame(redeliverAll()));
    CHECK(ofType(s.a.receivedFrames(), BaseCommand::MESSAGE).empty());
}

TEST_CASE("batch-index acknowledgement, cumulative: the entries before go, the batch keeps the messages after the index",
          "[delivery][issue41]") {
    const std::string topic = "persistent://public/default/batch-index-ack-cumulative";
    Clients s(topic);
    s.f.broker.policies().broker.acknowledgmentAtBatchIndexLevelEnabled = true;
    batchOfFive(s, topic);
    auto ledger = s.f.broker.findTopic(*cnx::TopicName::parse(topic))->lastPosition().ledgerId;
    s.a.send(ackWithSet(ledger, {0b10000}, true));  // up to index 3
    s.a.raw(cnx::wire::encodeFrame(redeliverAll()));
    auto redelivered = ofType(s.a.receivedFrames(), BaseCommand::MESSAGE);
    REQUIRE(redelivered.size() == 1);
    REQUIRE(redelivered[0].command.message().ack_set().size() == 1);
    CHECK(redelivered[0].command.message().ack_set(0) == 0b10000);
}

namespace {

/// Entry ids of the MESSAGE frames, in the order they came.
std::vector<std::uint64_t> entriesOf(const std::vector<cnx::wire::Frame>& frames) {
    std::vector<std::uint64_t> out;
    for (const auto& f : ofType(frames, BaseCommand::MESSAGE)) out.push_back(f.command.message().message_id().entryid());
    return out;
}

/// Entry 0 to be delivered at 5000 ms (the simulated clock starts at 0), entry 1
/// at once; then a consumer of `type` subscribes from the earliest and asks for both.
std::vector<std::uint64_t> delayedRun(CommandSubscribe::SubType type, bool enabled, std::int64_t* clockAfter) {
    const std::string topic = "persistent://public/default/delayed";
    Clients s(topic);
    s.f.broker.policies().broker.delayedDeliveryEnabled = enabled;
    auto later = keyed(0, "");
    later.set_deliver_at_time(5000);
    REQUIRE(s.producer.sendPayload(sendCmd(0), later, "later").front().type() == BaseCommand::SEND_RECEIPT);
    REQUIRE(s.producer.sendPayload(sendCmd(1), keyed(1, ""), "now").front().type() == BaseCommand::SEND_RECEIPT);
    auto answer = s.a.send(subscribeCmd(topic, 1, 10, type, "a"));  // Failover: ACTIVE_CONSUMER_CHANGE after it
    REQUIRE(!answer.empty());
    REQUIRE(answer.front().type() == BaseCommand::SUCCESS);
    s.a.raw(cnx::wire::encodeFrame(TestClient::flowCmd(1, 10)));  // runs until idle: the clock moves to the timer, if any
    *clockAfter = s.f.scheduler.nowMs();
    return entriesOf(s.a.receivedFrames());
}

}  // namespace

TEST_CASE("delayed delivery on Shared: an entry is held until its deliver_at_time, on the scheduler's clock",
          "[delivery][issue41]") {
    std::int64_t clock = 0;
    CHECK(delayedRun(CommandSubscribe::Shared, true, &clock) == std::vector<std::uint64_t>{1, 0});
    CHECK(clock == 5000);  // entry 0 went out once the clock reached its time
}

TEST_CASE("delayed delivery: Exclusive and Failover deliver at once, and so does Shared with delayedDeliveryEnabled=false",
          "[delivery][issue41]") {
    std::int64_t clock = 0;
    CHECK(delayedRun(CommandSubscribe::Exclusive, true, &clock) == std::vector<std::uint64_t>{0, 1});
    CHECK(clock == 0);
    CHECK(delayedRun(CommandSubscribe::Failover, true, &clock) == std::vector<std::uint64_t>{0, 1});
    CHECK(delayedRun(CommandSubscribe::Shared, false, &clock) == std::vector<std::uint64_t>{0, 1});
    CHECK(clock == 0);
}
