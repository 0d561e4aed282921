// The wire layer on a byte stream (issue 9 item 6, reference §8.1): the
// frame-stream decoder fed any cut of a 1,000-frame stream of every command
// type, its error values, the checksum block, the full upstream proto (a real
// client's LOOKUP / PARTITIONED_METADATA parse and are answered), and
// the response builders of wire/commands.

#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <set>
#include <utility>
#include <string>
#include <vector>


#include "broker_model/wire/commands.h"
#include "broker_model/wire/frame_stream.h"
#include "model_test_support.h"
#include "wire_gen.h"

namespace {

using cnx::testing::BaseCommand;
using cnx::testing::QuietProtobuf;
using cnx::testing::BrokerFixture;
using cnx::testing::TestClient;
namespace wire = cnx::wire;
namespace gen = cnx::testing::wiregen;

std::string u32(std::uint32_t v) {
    std::string out;
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xff));
    return out;
}

std::string frameOf(const std::string& command, const std::string& rest = "") {
    return u32(static_cast<std::uint32_t>(4 + command.size() + rest.size())) +
           u32(static_cast<std::uint32_t>(command.size())) + command + rest;
}

const gen::Stream& theStream() {
    static const gen::Stream s = gen::mixedStream(0x15509, 1000);
    return s;
}

/// Feeds `bytes` cut at `cuts` (ascending offsets) and compares every frame;
/// empty when all 1,000 come out as encoded and the stream did not fail.
std::string decodeCut(const gen::Stream& s, const std::vector<std::size_t>& cuts) {
    wire::FrameStream stream;
    std::vector<wire::Frame> out;
    std::size_t from = 0;
    auto take = [&] {
        while (auto f = stream.next()) out.push_back(std::move(*f));
    };
    for (std::size_t cut : cuts) {
        if (!stream.feed(std::string_view(s.bytes).substr(from, cut - from))) return "failed: " + stream.error();
        take();
        from = cut;
    }
    if (!stream.feed(std::string_view(s.bytes).substr(from))) return "failed: " + stream.error();
    take();
    if (stream.buffered() != 0) return std::to_string(stream.buffered()) + " bytes left buffered";
    if (out.size() != s.frames.size())
        return std::to_string(out.size()) + " frames instead of " + std::to_string(s.frames.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
        auto d = gen::differs(out[i], s.frames[i]);
        if (!d.empty()) return "frame " + std::to_string(i) + ": " + d;
    }
    return "";
}

}  // namespace

TEST_CASE("CRC32C: the standard check value of \"123456789\" is 0xE3069283", "[wire][frame-stream]") {
    CHECK(wire::crc32c("123456789") == 0xE3069283u);
    CHECK(wire::crc32c("") == 0u);
}

TEST_CASE("the mixed stream holds every command type, simple and payload, with and without checksum",
          "[wire][frame-stream]") {
    const auto& s = theStream();
    REQUIRE(s.frames.size() == 1000);
    INFO("stream of " << s.bytes.size() << " bytes");
    std::set<int> types;
    std::size_t withChecksum = 0, payloadWithout = 0, large = 0;
    for (std::size_t i = 0; i < s.frames.size(); ++i) {
        BaseCommand c;
        REQUIRE(c.ParseFromString(s.frames[i].command));
        types.insert(c.type());
        if (s.frames[i].checksum) ++withChecksum;
        if (s.frames[i].metadata && !s.frames[i].checksum) ++payloadWithout;
        if (s.boundaries[i + 1] - s.boundaries[i] > 1000) ++large;
    }
    CHECK(types.size() == gen::allTypes().size());
    CHECK(types.count(BaseCommand::SEND) == 1);
    CHECK(types.count(BaseCommand::MESSAGE) == 1);
    CHECK(withChecksum > 0);
    CHECK(payloadWithout > 0);
    CHECK(large > 0);
}

TEST_CASE("FrameStream: 1,000 mixed frames decode the same whatever the cuts", "[wire][frame-stream]") {
    const auto& s = theStream();
    SECTION("whole") { CHECK(decodeCut(s, {}) == ""); }
    SECTION("one byte at a time (a cut at every offset)") {
        std::vector<std::size_t> cuts;
        for (std::size_t i = 1; i < s.bytes.size(); ++i) cuts.push_back(i);
        CHECK(decodeCut(s, cuts) == "");
    }
    SECTION("two pieces, cut at every offset within the first 4 frames") {
        std::size_t bad = 0;
        std::string first;
        for (std::size_t at = 0; at <= s.boundaries[4]; ++at) {
            auto d = decodeCut(s, {at});
            if (!d.empty() && bad++ == 0) first = "cut at " + std::to_string(at) + ": " + d;
        }
        CHECK(first == "");
        CHECK(bad == 0);
    }
    SECTION("two pieces, cut at every frame boundary") {
        std::size_t bad = 0;
        std::string first;
        for (std::size_t at : s.boundaries) {
            auto d = decodeCut(s, {at});
            if (!d.empty() && bad++ == 0) first = "cut at " + std::to_string(at) + ": " + d;
        }
        CHECK(first == "");
        CHECK(bad == 0);
    }
    SECTION("random chunk sizes, several seeds") {
        for (std::uint64_t seed : {1u, 2u, 3u, 42u, 0xC0FFEEu}) {
            std::mt19937_64 rng(seed);
            std::size_t biggest = seed % 2 ? 17 : 4096;
            std::vector<std::size_t> cuts;
            for (std::size_t at = 1 + rng() % biggest; at < s.bytes.size(); at += 1 + rng() % biggest) cuts.push_back(at);
            INFO("seed " << seed);
            CHECK(decodeCut(s, cuts) == "");
        }
    }
}

TEST_CASE("FrameStream: errors are values, and a failed stream stays failed", "[wire][frame-stream]") {
    QuietProtobuf quiet;
    const auto good = wire::encodeFrame(wire::ping());
    SECTION("a declared size above the maximum fails at once, nothing buffered") {
        wire::FrameStream s;
        CHECK(s.feed(u32(wire::kMaxFrameSize + 1).substr(0, 2)));  // half the size: not yet known
        CHECK_FALSE(s.failed());
        CHECK_FALSE(s.feed(u32(wire::kMaxFrameSize + 1).substr(2)));
        CHECK(s.failed());
        CHECK_THAT(s.error(), Catch::Contains("exceeds the maximum 5253120"));
        CHECK(s.buffered() == 0);
        CHECK_FALSE(s.feed(std::string(1000, 'x')));  // dropped, not held
        CHECK(s.buffered() == 0);
        CHECK_FALSE(s.next().has_value());
    }
    SECTION("0xffffffff as the size, with more bytes in the same chunk") {
        wire::FrameStream s;
        CHECK_FALSE(s.feed(u32(0xffffffffu) + std::string(64, '\0')));
        CHECK(s.buffered() == 0);
    }
    SECTION("a smaller maximum is honoured") {
        wire::FrameStream s(16);
        CHECK_FALSE(s.feed(u32(17)));
        CHECK_THAT(s.error(), Catch::Contains("frame size 17 exceeds the maximum 16"));
    }
    SECTION("inconsistent sizes: commandSize beyond totalSize, totalSize below 4") {
        wire::FrameStream a;
        CHECK_FALSE(a.feed(u32(6) + u32(9) + "ab"));
        CHECK_THAT(a.error(), Catch::Contains("commandSize=9 exceeds totalSize=6"));
        wire::FrameStream b;
        CHECK_FALSE(b.feed(u32(3) + "abc"));
        CHECK_THAT(b.error(), Catch::Contains("totalSize=3 is smaller than the 4-byte commandSize"));
    }
    SECTION("truncated at the end: no frame and no error") {
        wire::FrameStream s;
        CHECK(s.feed(good + good.substr(0, good.size() - 1)));
        CHECK(s.next().has_value());
        CHECK_FALSE(s.next().has_value());
        CHECK_FALSE(s.failed());
        CHECK(s.buffered() == good.size() - 1);
        CHECK(s.feed(good.substr(good.size() - 1)));  // the last byte completes it
        CHECK(s.next().has_value());
        CHECK(s.buffered() == 0);
    }
    SECTION("a command that does not parse; frames before it are still taken; later ones refused") {
        wire::FrameStream s;
        CHECK_FALSE(s.feed(good + frameOf(std::string("\xff\xff\xff\xff\xff", 5)) + good));
        CHECK_THAT(s.error(), Catch::Contains("BaseCommand does not parse"));
        CHECK(s.ready() == 1);
        CHECK(s.next().has_value());
        CHECK_FALSE(s.next().has_value());
        CHECK_FALSE(s.feed(good));
        CHECK_FALSE(s.next().has_value());
    }
    SECTION("garbage bytes: an error, never a crash") {
        std::size_t failedStreams = 0;
        for (std::uint64_t seed = 1; seed <= 200; ++seed) {
            std::mt19937_64 rng(seed);
            wire::FrameStream s(4096);
            for (int chunk = 0; chunk < 8; ++chunk) s.feed(gen::randomString(rng, 600));
            while (s.next()) {
            }
            if (s.failed()) ++failedStreams;
            CHECK(s.buffered() <= 4100);
        }
        CHECK(failedStreams > 150);
    }
}

TEST_CASE("payload frames: the CRC32C block is flagged, a bad checksum is no decode error", "[wire][frame-stream]") {
    BaseCommand send;
    send.set_type(BaseCommand::SEND);
    send.mutable_send()->set_producer_id(1);
    send.mutable_send()->set_sequence_id(2);
    pulsar::proto::MessageMetadata meta;
    meta.set_producer_name("p");
    meta.set_sequence_id(2);
    meta.set_publish_time(3);
    std::string error;

    auto good = wire::encodePayloadFrame(send, meta, "hello");
    auto f = wire::decodeFrame(good, &error);
    REQUIRE(f.has_value());
    CHECK(f->checksumPresent);
    CHECK(f->checksumValid);
    CHECK(f->payload == "hello");

    auto bad = good;
    bad.back() ^= 0x01;  // a payload byte changes, the checksum does not
    auto g = wire::decodeFrame(bad, &error);
    REQUIRE(g.has_value());
    CHECK(g->checksumPresent);
    CHECK_FALSE(g->checksumValid);
    CHECK(g->payload == "helln");

    auto none = wire::decodeFrame(wire::encodePayloadFrame(send, meta, "hello", wire::Checksum::none), &error);
    REQUIRE(none.has_value());
    CHECK_FALSE(none->checksumPresent);
    CHECK_FALSE(none->checksumValid);
    CHECK(none->payload == "hello");

    // MESSAGE from the broker may carry the broker-entry-metadata block (0x0e02) first.
    BaseCommand message;
    message.set_type(BaseCommand::MESSAGE);
    message.mutable_message()->set_consumer_id(4);
    message.mutable_message()->mutable_message_id()->set_ledgerid(5);
    message.mutable_message()->mutable_message_id()->set_entryid(6);
    pulsar::proto::BrokerEntryMetadata entry;
    entry.set_broker_timestamp(1234);
    entry.set_index(77);
    auto m = wire::decodeFrame(wire::encodePayloadFrame(message, meta, "payload", wire::Checksum::crc32c, &entry), &error);
    INFO(error);
    REQUIRE(m.has_value());
    REQUIRE(m->brokerEntryMetadata.has_value());
    CHECK(m->brokerEntryMetadata->index() == 77);
    CHECK(m->checksumValid);
    CHECK(m->metadata->producer_name() == "p");
    CHECK(m->payload == "payload");
}

TEST_CASE("a real client's LOOKUP and PARTITIONED_METADATA parse and are answered", "[wire][frame-stream]") {
    // As the C++ client's Commands::newLookup / newPartitionMetadataRequest encode them
    // (upstream field numbers), written out byte by byte.
    const std::string topic = "persistent://public/default/orders";
    std::string lookupBody = "\x0a" + std::string(1, static_cast<char>(topic.size())) + topic +
                             std::string("\x10\x05\x18\x00", 4);  // topic, request_id 5, authoritative false
    std::string lookup = std::string("\x08\x17", 2) + "\xba\x01" +  // type LOOKUP (23); field 23
                         std::string(1, static_cast<char>(lookupBody.size())) + lookupBody;
    std::string pmBody = "\x0a" + std::string(1, static_cast<char>(topic.size())) + topic +
                         std::string("\x10\x06\x30\x01", 4);  // request_id 6, metadata_auto_creation_enabled
    std::string pm = std::string("\x08\x15", 2) + "\xaa\x01" +  // type PARTITIONED_METADATA (21); field 21
                     std::string(1, static_cast<char>(pmBody.size())) + pmBody;

    std::string error;
    auto l = wire::decodeFrame(frameOf(lookup), &error);
    INFO(error);
    REQUIRE(l.has_value());
    CHECK(l->command.type() == BaseCommand::LOOKUP);
    CHECK(l->command.lookuptopic().topic() == topic);
    CHECK(l->command.lookuptopic().request_id() == 5);
    auto p = wire::decodeFrame(frameOf(pm), &error);
    REQUIRE(p.has_value());
    CHECK(p->command.type() == BaseCommand::PARTITIONED_METADATA);
    CHECK(p->command.partitionmetadata().request_id() == 6);
    CHECK(p->command.partitionmetadata().metadata_auto_creation_enabled());

    // The broker answers itself: Connect, authoritative, at its own service URL;
    // a non-partitioned topic has 0 partitions.
    BrokerFixture f;
    f.broker.setServiceUrl("pulsar://127.0.0.1:6650");
    TestClient client(f);
    REQUIRE(client.connect().type() == BaseCommand::CONNECTED);
    auto answer = client.one(l->command);
    REQUIRE(answer.type() == BaseCommand::LOOKUP_RESPONSE);
    CHECK(answer.lookuptopicresponse().request_id() == 5);
    CHECK(answer.lookuptopicresponse().response() == pulsar::proto::CommandLookupTopicResponse::Connect);
    CHECK(answer.lookuptopicresponse().authoritative());
    CHECK(answer.lookuptopicresponse().brokerserviceurl() == "pulsar://127.0.0.1:6650");
    answer = client.one(p->command);
    REQUIRE(answer.type() == BaseCommand::PARTITIONED_METADATA_RESPONSE);
    CHECK(answer.partitionmetadataresponse().request_id() == 6);
    CHECK(answer.partitionmetadataresponse().partitions() == 0);
    CHECK(answer.partitionmetadataresponse().response() == pulsar::proto::CommandPartitionedTopicMetadataResponse::Success);
    CHECK_FALSE(client.cnx().closed());

    f.broker.declareTopic(*cnx::TopicName::parse("persistent://public/default/parts"), 3);
    auto pm3 = p->command;
    pm3.mutable_partitionmetadata()->set_topic("persistent://public/default/parts");
    CHECK(client.one(pm3).partitionmetadataresponse().partitions() == 3);
    auto bad = l->command;
    bad.mutable_lookuptopic()->set_topic("persistent://no-namespace");
    answer = client.one(bad);
    CHECK(answer.lookuptopicresponse().response() == pulsar::proto::CommandLookupTopicResponse::Failed);
    CHECK(answer.lookuptopicresponse().error() == pulsar::proto::InvalidTopicName);

    BaseCommand list;
    list.set_type(BaseCommand::GET_TOPICS_OF_NAMESPACE);
    list.mutable_gettopicsofnamespace()->set_request_id(9);
    list.mutable_gettopicsofnamespace()->set_namespace_("public/default");
    f.broker.declareTopic(*cnx::TopicName::parse("non-persistent://public/default/np"), 0);
    f.broker.declareTopic(*cnx::TopicName::parse("persistent://other/ns/x"), 0);
    answer = client.one(list);
    REQUIRE(answer.type() == BaseCommand::GET_TOPICS_OF_NAMESPACE_RESPONSE);
    CHECK(answer.gettopicsofnamespaceresponse().request_id() == 9);
    std::vector<std::string> topics(answer.gettopicsofnamespaceresponse().topics().begin(),
                                    answer.gettopicsofnamespaceresponse().topics().end());
    CHECK(topics == std::vector<std::string>{"persistent://public/default/parts-partition-0",
                                             "persistent://public/default/parts-partition-1",
                                             "persistent://public/default/parts-partition-2"});
    list.mutable_gettopicsofnamespace()->set_mode(pulsar::proto::CommandGetTopicsOfNamespace::ALL);
    CHECK(client.one(list).gettopicsofnamespaceresponse().topics_size() == 4);
}

TEST_CASE("ServerCnx handles every command type: served, refused as broker-only, or not modelled",
          "[wire][frame-stream]") {
    std::mt19937_64 rng(0xD15);
    // What the model serves; random field values get an answer, never a refusal.
    const std::set<BaseCommand::Type> served{
        BaseCommand::CONNECT,        BaseCommand::PRODUCER,       BaseCommand::SUBSCRIBE,  BaseCommand::SEND,
        BaseCommand::CLOSE_PRODUCER, BaseCommand::CLOSE_CONSUMER, BaseCommand::GET_SCHEMA, BaseCommand::GET_OR_CREATE_SCHEMA,
        BaseCommand::PING,           BaseCommand::PONG,           BaseCommand::FLOW,       BaseCommand::ACK,
        BaseCommand::REDELIVER_UNACKNOWLEDGED_MESSAGES, BaseCommand::UNSUBSCRIBE, BaseCommand::GET_LAST_MESSAGE_ID,
        BaseCommand::SEEK,           BaseCommand::LOOKUP,         BaseCommand::PARTITIONED_METADATA, BaseCommand::GET_TOPICS_OF_NAMESPACE,
        BaseCommand::CONSUMER_STATS, BaseCommand::AUTH_RESPONSE};  // AUTH_RESPONSE: issue 44
    std::size_t notImplemented = 0;
    for (auto type : gen::allTypes()) {
        auto name = BaseCommand::Type_Name(type);
        INFO(name);
        BrokerFixture f;
        TestClient client(f);
        REQUIRE(client.connect().type() == BaseCommand::CONNECTED);
        auto c = gen::command(type, rng);
        pulsar::proto::MessageMetadata meta;
        gen::fill(meta, rng, 0, 8);
        auto bytes = wire::isPayloadCommand(type) ? wire::encodePayloadFrame(c, meta, "x") : wire::encodeFrame(c);
        wire::FrameStream stream;
        REQUIRE(stream.feed(bytes));
        auto frame = stream.next();
        REQUIRE(frame.has_value());
        auto refused = client.cnx().receive(*frame);
        f.scheduler.runUntilIdle();
        switch (wire::senderOf(type)) {
            case wire::Sender::broker:
                REQUIRE(refused.has_value());
                CHECK(*refused == "a client may not send " + name);
                break;
            case wire::Sender::client:
            case wire::Sender::either:
                if (served.count(type)) {
                    if (type == BaseCommand::CONNECT) CHECK(refused == std::optional<std::string>("received a second CONNECT"));
                    else CHECK_FALSE(refused.has_value());
                } else {
                    REQUIRE(refused.has_value());
                    CHECK_THAT(*refused, Catch::StartsWith(name + " is not modelled by this cnxsim (not modelled: "));
                    CHECK(client.cnx().closed());
                    ++notImplemented;
                }
                break;
        }
    }
    CHECK(notImplemented == 16);  // 33 client-only + 4 both ways, less the 21 served
}

TEST_CASE("wire::requestIdOf names the request a response answers", "[wire][frame-stream]") {
    CHECK(wire::requestIdOf(wire::success(3)) == 3u);
    CHECK(wire::requestIdOf(wire::error(4, pulsar::proto::UnknownError, "x")) == 4u);
    CHECK(wire::requestIdOf(wire::producerSuccess(5, "p", "")) == 5u);
    CHECK(wire::requestIdOf(wire::getSchemaResponseError(6, pulsar::proto::TopicNotFound, "x")) == 6u);
    CHECK(wire::requestIdOf(wire::getOrCreateSchemaResponse(7, "")) == 7u);
    CHECK_FALSE(wire::requestIdOf(wire::pong()).has_value());
    CHECK_FALSE(wire::requestIdOf(wire::sendReceipt(1, 2, 3, 4)).has_value());
    CHECK_FALSE(wire::requestIdOf(wire::closeProducer(1)).has_value());
    BaseCommand ack;
    ack.set_type(BaseCommand::ACK_RESPONSE);
    ack.mutable_ackresponse()->set_consumer_id(1);
    CHECK_FALSE(wire::requestIdOf(ack).has_value());
    ack.mutable_ackresponse()->set_request_id(9);
    CHECK(wire::requestIdOf(ack) == 9u);
    BaseCommand lookup;
    lookup.set_type(BaseCommand::LOOKUP_RESPONSE);
    lookup.mutable_lookuptopicresponse()->set_request_id(11);
    CHECK(wire::requestIdOf(lookup) == 11u);
    // Every response the builders make is a valid, complete command of its type.
    for (const auto& c : {wire::connected("v", 21, 5), wire::ping(), wire::pong(), wire::success(1),
                          wire::producerSuccessRepeated(1, "p", "v"), wire::sendError(1, 2, pulsar::proto::ChecksumError, "m"),
                          wire::closeConsumer(1), wire::getSchemaResponse(1, cnx::testing::wireSchema(pulsar::proto::Schema::String), "v"),
                          wire::getOrCreateSchemaResponseError(1, pulsar::proto::IncompatibleSchema, "m")}) {
        CHECK(c->IsInitialized());
        CHECK(wire::hasBody(c));
        CHECK(wire::senderOf(c->type()) != wire::Sender::client);
    }
}
