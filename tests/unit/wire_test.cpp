// The wire layer and the connection state machine (reference §8, §1.1, §2.4):
// framing round trips and every class of malformed frame, schema-version
// encoding, proto <-> Java schema types, CONNECT / PING / protocol
// negotiation, the producer-id de-duplication on one connection, and a seeded
// fuzz of ServerCnx::receive (run under ASan/UBSan in CI).

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>


#include "broker_model/wire/command_pool.h"
#include "broker_model/wire/commands.h"
#include "broker_model/wire/enum_names.h"
#include "broker_model/wire/frame_pool.h"
#include "wire_test_support.h"

using namespace cnx::testing::wire_tests;

// --- §8.1 framing ----------------------------------------------------------------

TEST_CASE("§8.1 simple-command frame: [totalSize][commandSize][BaseCommand] round trip", "[wire][ref-8.1]") {
    auto cmd = producerWithSchema();
    auto bytes = wire::encodeFrame(cmd);
    auto body = cmd.SerializeAsString();
    REQUIRE(bytes.size() == 8 + body.size());
    CHECK(bytes.substr(0, 4) == u32(static_cast<std::uint32_t>(4 + body.size())));
    CHECK(bytes.substr(4, 4) == u32(static_cast<std::uint32_t>(body.size())));
    CHECK(bytes.substr(8) == body);

    std::string error;
    auto f = wire::decodeFrame(bytes, &error);
    REQUIRE(f.has_value());
    CHECK(f->command.SerializeAsString() == body);
    CHECK_FALSE(f->metadata.has_value());
    CHECK(f->payload.empty());
    CHECK(f->command.producer().schema().type() == Schema::Avro);

    auto p = wire::decodeFrame(wire::encodeFrame(ping()), &error);
    REQUIRE(p.has_value());
    CHECK(p->command.type() == BaseCommand::PING);
}

TEST_CASE("§8.1 payload frame (SEND): metadata and payload round trip, magic+checksum optional", "[wire][ref-8.1]") {
    auto cmd = sendCmd(4, 9);
    auto bytes = wire::encodePayloadFrame(cmd, meta(), "hello");
    std::string error;
    auto f = wire::decodeFrame(bytes, &error);
    INFO(error);
    REQUIRE(f.has_value());
    CHECK(f->command.send().producer_id() == 4);
    REQUIRE(f->metadata.has_value());
    CHECK(f->metadata->producer_name() == "p");
    CHECK(f->payload == "hello");

    // By hand, with a magic 0x0e01 + CRC32C block whose checksum is wrong: decoded, and flagged.
    auto body = cmd.SerializeAsString();
    auto m = meta().SerializeAsString();
    std::string rest = std::string("\x0e\x01", 2) + u32(0xdeadbeef) + u32(static_cast<std::uint32_t>(m.size())) + m + "hi";
    auto g = wire::decodeFrame(handFrame(body, rest), &error);
    INFO(error);
    REQUIRE(g.has_value());
    CHECK(g->payload == "hi");
    CHECK(g->checksumPresent);
    CHECK_FALSE(g->checksumValid);
    CHECK(f->checksumPresent);  // encodePayloadFrame writes the block, with the right CRC32C
    CHECK(f->checksumValid);
}

TEST_CASE("§8.1 payload frames are the bytes of the layout, built by hand", "[wire][ref-8.1]") {
    // [total][cmdSize][cmd]([0x0e02][size][entry])([0x0e01][CRC32C])[metaSize][meta][payload],
    // the CRC32C over everything after its block.
    auto cmd = sendCmd(4, 9);
    auto body = cmd.SerializeAsString();
    auto m = meta().SerializeAsString();
    const std::string checked = u32(static_cast<std::uint32_t>(m.size())) + m + "payload";
    pulsar::proto::BrokerEntryMetadata entry;
    entry.set_index(77);
    const auto e = entry.SerializeAsString();
    const std::string entryBlock = std::string("\x0e\x02", 2) + u32(static_cast<std::uint32_t>(e.size())) + e;
    const std::string crcBlock = std::string("\x0e\x01", 2) + u32(wire::crc32c(checked));
    CHECK(wire::encodePayloadFrame(cmd, meta(), "payload") == handFrame(body, crcBlock + checked));
    CHECK(wire::encodePayloadFrame(cmd, meta(), "payload", wire::Checksum::none) == handFrame(body, checked));
    CHECK(wire::encodePayloadFrame(cmd, meta(), "payload", wire::Checksum::crc32c, &entry) ==
          handFrame(body, entryBlock + crcBlock + checked));
    CHECK(wire::encodePayloadFrame(cmd, meta(), "", wire::Checksum::none, &entry) ==
          handFrame(body, entryBlock + u32(static_cast<std::uint32_t>(m.size())) + m));
    // A simple frame, into a buffer that held a longer one: exactly the frame.
    std::string buffer(500, 'x');
    wire::encodeFrameInto(cmd, buffer);
    CHECK(buffer == handFrame(body, ""));
    CHECK(wire::encodeFrame(cmd) == buffer);
}

TEST_CASE("§8.1 a pooled frame decoded again carries nothing of the frame before it", "[wire][ref-8.1]") {
    std::string error;
    // A payload frame with a (wrong) checksum block, released to this thread's pool...
    auto body = sendCmd(4, 9).SerializeAsString();
    auto m = meta().SerializeAsString();
    std::string rest = std::string("\x0e\x01", 2) + u32(0xdeadbeef) + u32(static_cast<std::uint32_t>(m.size())) + m + "hi";
    REQUIRE(wire::pooledFrames() < wire::kPooledFrames);  // room to keep the frame
    const wire::Frame* first = nullptr;
    {
        auto f = wire::decodePooledFrame(handFrame(body, rest), &error);
        INFO(error);
        REQUIRE(f);
        CHECK(f->metadata.has_value());
        CHECK(f->checksumPresent);
        first = f.get();
    }
    // ...and taken back for a simple command: its metadata, payload and checksum flags are gone.
    auto g = wire::decodePooledFrame(wire::encodeFrame(ping()), &error);
    REQUIRE(g);
    CHECK(g.get() == first);  // the same frame, reused
    CHECK(g->command.type() == BaseCommand::PING);
    CHECK_FALSE(g->command.has_send());
    CHECK_FALSE(g->metadata.has_value());
    CHECK(g->payload.empty());
    CHECK_FALSE(g->checksumPresent);
    CHECK_FALSE(g->checksumValid);

    // A malformed frame is null, whatever the pool holds.
    CHECK_FALSE(wire::decodePooledFrame(u32(4) + u32(9), &error));  // commandSize past totalSize
    CHECK_FALSE(error.empty());
}

TEST_CASE("§8.1 a pooled command built again carries nothing of the command before it", "[wire][ref-8.1]") {
    REQUIRE(wire::pooledCommands() < wire::kPooledCommands);  // room to keep the command
    const auto before = wire::pooledCommands();
    const BaseCommand* first = nullptr;
    {
        auto e = wire::error(7, pulsar::proto::IncompatibleSchema, "a refusal with a message");
        first = &*e;
    }
    CHECK(wire::pooledCommands() == std::max<std::size_t>(before, 1));  // taken (or made) and kept
    auto s = wire::success(9);
    CHECK(&*s == first);  // the same command, reused
    CHECK(s->type() == BaseCommand::SUCCESS);
    CHECK_FALSE(s->has_error());
    BaseCommand fresh;
    fresh.set_type(BaseCommand::SUCCESS);
    fresh.mutable_success()->set_request_id(9);
    CHECK(wire::encodeFrame(s) == wire::encodeFrame(fresh));

    // A command grown past kPooledCommandBytes is not kept: its strings would keep that capacity.
    const auto atBig = wire::pooledCommands();
    { auto e = wire::error(7, pulsar::proto::UnknownError, std::string(wire::kPooledCommandBytes + 1, 'x')); }
    CHECK(wire::pooledCommands() == (atBig > 0 ? atBig - 1 : 0));
}

TEST_CASE("§8.1 malformed frames are error values with a clear reason", "[wire][ref-8.1]") {
    QuietProtobuf quiet;
    const auto good = wire::encodeFrame(ping());
    const auto body = ping().SerializeAsString();

    struct Case {
        const char* what;
        std::string bytes;
        std::string expected;  // substring of the error
    };
    BaseCommand noBody;
    noBody.set_type(BaseCommand::PRODUCER);  // type without its `producer` message
    const auto sendBody = sendCmd().SerializeAsString();
    BaseCommand extra;  // a PING that also carries another command's message, lacking its required fields
    extra.set_type(BaseCommand::PING);
    extra.mutable_ping();
    extra.mutable_producer();
    const std::vector<Case> cases{
        {"empty", "", "shorter than its 8-byte header"},
        {"short header", good.substr(0, 5), "frame of 5 bytes is shorter than its 8-byte header"},
        {"totalSize larger than the bytes", handFrame(body, "", static_cast<std::uint32_t>(body.size() + 10)),
         "but " + std::to_string(4 + body.size()) + " bytes follow it"},
        {"totalSize smaller than the bytes", good + "x", "frame says totalSize="},
        {"commandSize > totalSize", handFrame(body, "", {}, static_cast<std::uint32_t>(body.size() + 1)),
         "exceeds totalSize="},
        {"oversize", u32(wire::kMaxFrameSize + 1) + u32(4), "exceeds the maximum 5253120"},
        {"garbage protobuf", handFrame(std::string("\xff\xff\xff\xff\xff", 5)), "BaseCommand does not parse"},
        {"missing required type", handFrame(""), "BaseCommand lacks required fields: type"},
        {"type without its body", wire::encodeFrame(noBody), "BaseCommand of type PRODUCER lacks its command message"},
        {"another command's message lacking its required fields", handFrame(extra.SerializePartialAsString()),
         "BaseCommand lacks required fields: producer.topic"},
        {"trailing bytes on a non-SEND command", handFrame(body, "xyz"), "a PING frame carries 3 bytes after its command"},
        {"SEND without metadataSize", handFrame(sendBody, "ab"), "payload command lacks its 4-byte metadataSize"},
        {"SEND with metadataSize past the end", handFrame(sendBody, u32(100) + "abc"),
         "metadataSize=100 runs past the end of the frame"},
        {"SEND with metadataSize 0xffffffff", handFrame(sendBody, u32(0xffffffffu)), "runs past the end of the frame"},
        {"SEND with unparseable metadata", handFrame(sendBody, u32(3) + "\xff\xff\xff"), "MessageMetadata does not parse"},
    };
    for (const auto& c : cases) {
        SECTION(c.what) {
            auto error = decodeError(c.bytes);
            CHECK_THAT(error, Catch::Contains(c.expected));

            // ServerCnx: the reason comes back, the connection closes, nothing is sent, no crash.
            BrokerFixture f;
            TestClient client(f);
            REQUIRE(client.connect().type() == BaseCommand::CONNECTED);
            auto refused = client.raw(c.bytes);
            REQUIRE(refused.has_value());
            CHECK_THAT(*refused, Catch::StartsWith("malformed frame: ") && Catch::Contains(c.expected));
            CHECK(client.cnx().closed());
            CHECK(client.send(ping()).empty());  // later frames are refused, no PONG
            CHECK(client.raw(good) == std::optional<std::string>("the connection is closed"));
        }
    }
}

// --- §4.1 / §1.4 schema versions ------------------------------------------------------

TEST_CASE("§8.1 a command's required fields are judged as protobuf's IsInitialized judges them", "[wire][ref-8.1]") {
    // commandInitialized answers the usual shape (a type and its own message)
    // from that message alone; every encoding, mutated at random, must get
    // IsInitialized()'s answer.
    std::vector<BaseCommand> seeds;
    seeds.push_back(TestClient::subscribeCmd("persistent://public/default/x", "s", 5, 6, wireSchema(Schema::String)));
    seeds.push_back(sendCmd());
    BaseCommand two;  // two messages: the generic walk
    two.set_type(BaseCommand::PING);
    two.mutable_ping();
    two.mutable_close_producer()->set_producer_id(1);
    two.mutable_close_producer()->set_request_id(2);
    seeds.push_back(two);
    BaseCommand partial;  // the type's own message lacking required fields
    partial.set_type(BaseCommand::PRODUCER);
    partial.mutable_producer()->set_topic("persistent://public/default/x");
    seeds.push_back(partial);
    QuietProtobuf quiet;
    std::mt19937 rng(20261205);
    std::size_t parsed = 0, initialized = 0;
    for (const auto& seed : seeds) {
        const auto bytes = seed.SerializePartialAsString();
        for (int round = 0; round < 4000; ++round) {
            std::string m = bytes;
            const int edits = 1 + static_cast<int>(rng() % 3);
            for (int e = 0; e < edits && !m.empty(); ++e) {
                const auto at = rng() % m.size();
                switch (rng() % 3) {
                    case 0: m[at] = static_cast<char>(rng()); break;
                    case 1: m.erase(at, 1 + rng() % 3); break;
                    default: m.insert(at, 1, static_cast<char>(rng())); break;
                }
            }
            if (round == 0) m = bytes;
            BaseCommand c;
            if (!c.ParsePartialFromString(m)) continue;
            ++parsed;
            initialized += c.IsInitialized();
            INFO("seed " << seed.ShortDebugString() << ", round " << round);
            REQUIRE(wire::commandInitialized(c, m) == c.IsInitialized());
        }
    }
    CHECK(parsed > 1000);
    CHECK(initialized > 100);
    CHECK(initialized < parsed);
}

TEST_CASE("§8.1 a command is framed as the very bytes protobuf serialises", "[wire][ref-8.1]") {
    // encodeFrame writes the usual command (its type and its message) itself;
    // every command must still come out as protobuf's own serialisation.
    std::vector<BaseCommand> commands;
    commands.push_back(TestClient::subscribeCmd("persistent://public/default/x", "s", 5, 6, wireSchema(Schema::String)));
    commands.push_back(sendCmd(4, 9));
    commands.push_back(*wire::producerSuccess(300, "p-1", wire::encodeSchemaVersion(2)));
    commands.push_back(*wire::topicsOfNamespace(1ULL << 40, {std::string(200, 't'), "persistent://public/default/b"}));
    BaseCommand two;  // two messages: protobuf's serialiser
    two.set_type(BaseCommand::PING);
    two.mutable_ping();
    two.mutable_close_producer()->set_producer_id(1);
    two.mutable_close_producer()->set_request_id(2);
    commands.push_back(two);
    BaseCommand typeOnly;  // no message
    typeOnly.set_type(BaseCommand::PONG);
    commands.push_back(typeOnly);
    BaseCommand unknown = *wire::success(3);  // a field this proto does not know
    unknown.GetReflection()->MutableUnknownFields(&unknown)->AddVarint(1000, 7);
    commands.push_back(unknown);
    for (const auto& c : commands) {
        INFO(c.ShortDebugString());
        const auto frame = wire::encodeFrame(c);
        CHECK(frame.substr(8) == c.SerializeAsString());
        pulsar::proto::MessageMetadata meta;
        meta.set_producer_name("p");
        meta.set_sequence_id(1);
        meta.set_publish_time(1);
        const auto payload = wire::encodePayloadFrame(c, meta, "x", wire::Checksum::none);
        CHECK(payload.substr(8, c.ByteSizeLong()) == c.SerializeAsString());
    }
}

namespace {

// What decodesToItself promises of `c`: its frame decodes, to `c` and nothing else.
bool decodesBackToItself(const BaseCommand& c) {
    std::string error;
    auto decoded = wire::decodeFrame(wire::encodeFrame(c), &error);
    return decoded && !decoded->metadata && decoded->payload.empty() &&
           decoded->command.SerializePartialAsString() == c.SerializePartialAsString();
}

// BaseCommand's message fields: the one a command's type names, or any other.
std::vector<const google::protobuf::FieldDescriptor*> commandMessageFields() {
    const auto* base = BaseCommand::descriptor();
    std::vector<const google::protobuf::FieldDescriptor*> out;
    for (int i = 0; i < base->field_count(); ++i)
        if (base->field(i)->type() == google::protobuf::FieldDescriptor::TYPE_MESSAGE) out.push_back(base->field(i));
    return out;
}

// A field of `m` or of a message set in it, cleared or given a value, by
// reflection's setters (as a modelled client or the broker builds messages).
void changeField(google::protobuf::Message& m, std::mt19937& rng, int depth = 0) {
    auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    const auto* d = m.GetDescriptor();
    const auto* r = m.GetReflection();
    if (d->field_count() == 0) return;
    const auto* f = d->field(static_cast<int>(pick(static_cast<std::size_t>(d->field_count()))));
    if (f->is_repeated()) {
        if (rng() % 2) r->ClearField(&m, f);
        else if (f->type() == google::protobuf::FieldDescriptor::TYPE_STRING || f->type() == google::protobuf::FieldDescriptor::TYPE_BYTES)
            r->AddString(&m, f, "v");
        return;
    }
    if (rng() % 2) {
        r->ClearField(&m, f);
        return;
    }
    using FD = google::protobuf::FieldDescriptor;
    switch (f->cpp_type()) {
        case FD::CPPTYPE_MESSAGE:
            if (depth < 3) changeField(*r->MutableMessage(&m, f), rng, depth + 1);
            break;
        case FD::CPPTYPE_STRING: r->SetString(&m, f, std::string(pick(4), 's')); break;
        case FD::CPPTYPE_UINT64: r->SetUInt64(&m, f, rng()); break;
        case FD::CPPTYPE_INT64: r->SetInt64(&m, f, static_cast<std::int64_t>(rng())); break;
        case FD::CPPTYPE_UINT32: r->SetUInt32(&m, f, rng()); break;
        case FD::CPPTYPE_INT32: r->SetInt32(&m, f, static_cast<std::int32_t>(rng())); break;
        case FD::CPPTYPE_BOOL: r->SetBool(&m, f, rng() % 2); break;
        case FD::CPPTYPE_ENUM: {
            const auto* e = f->enum_type();
            r->SetEnum(&m, f, e->value(static_cast<int>(pick(static_cast<std::size_t>(e->value_count())))));
            break;
        }
        default: break;
    }
}

// What payloadFrameDecodesToItself promises: the payload frame (CRC32C, no
// broker entry) decodes to the command, the metadata and the payload, with a
// valid checksum.
bool payloadDecodesBack(const BaseCommand& c, const pulsar::proto::MessageMetadata& m, std::string_view payload) {
    std::string error;
    auto decoded = wire::decodeFrame(wire::encodePayloadFrame(c, m, payload), &error);
    return decoded && decoded->metadata && decoded->payload == payload && decoded->checksumPresent &&
           decoded->checksumValid && !decoded->brokerEntryMetadata &&
           decoded->command.SerializePartialAsString() == c.SerializePartialAsString() &&
           decoded->metadata->SerializePartialAsString() == m.SerializePartialAsString();
}

}  // namespace

TEST_CASE("§8.1 a command decodes to itself exactly when decodesToItself says so", "[wire][ref-8.1]") {
    // A receiver in the same process takes the command instead of its frame
    // (ServerCnx::Receiver, ServerCnx::receive of a command): only where the
    // decode would succeed and give back that command and nothing else.
    std::vector<BaseCommand> commands;
    for (const auto& a : {wire::connected("Pulsar Server4.0.0", 21, 5 * 1024 * 1024),
                          wire::producerSuccess(3, "p-1", wire::encodeSchemaVersion(2)), wire::producerSuccess(4, "p-2", ""),
                          wire::error(5, pulsar::proto::IncompatibleSchema, "Trying to subscribe with incompatible schema"),
                          wire::success(6), wire::sendReceipt(1, 7, 10, 20), wire::closeProducer(8),
                          wire::getSchemaResponse(9, wireSchema(Schema::String), wire::encodeSchemaVersion(0)),
                          wire::topicsOfNamespace(10, {"persistent://public/default/a", "persistent://public/default/b"}),
                          wire::pong()})
        commands.push_back(*a);
    commands.push_back(producerWithSchema());
    commands.push_back(TestClient::subscribeCmd("persistent://public/default/x", "s", 5, 6, wireSchema(Schema::String)));
    commands.push_back(TestClient::producerCmd("persistent://public/default/y", 1, 2, "", std::nullopt));
    commands.push_back(ping());
    for (const auto& c : commands) {
        INFO(c.ShortDebugString());
        CHECK(wire::decodesToItself(c));
        CHECK(decodesBackToItself(c));
    }
    SECTION("a payload command: decoded") {
        CHECK_FALSE(wire::decodesToItself(sendCmd(1, 2)));
        CHECK_FALSE(wire::decodesToItself(*wire::message(1, 2, 3, 0)));
    }
    SECTION("a command lacking a required field: decoded, and refused") {
        QuietProtobuf quiet;
        BaseCommand c;
        c.set_type(BaseCommand::SUCCESS);
        c.mutable_success();  // request_id is required
        CHECK_FALSE(wire::decodesToItself(c));
        CHECK_FALSE(decodesBackToItself(c));
    }
    SECTION("a command without its message: decoded, and refused") {
        BaseCommand c;
        c.set_type(BaseCommand::SUCCESS);
        CHECK_FALSE(wire::decodesToItself(c));
        CHECK_FALSE(decodesBackToItself(c));
    }
    SECTION("a frame over the size limit: decoded, and refused") {
        BaseCommand c = *wire::error(1, pulsar::proto::UnknownError, std::string(wire::kMaxFrameSize, 'x'));
        CHECK_FALSE(wire::decodesToItself(c));
        CHECK_FALSE(decodesBackToItself(c));
    }
    SECTION("every command changed at random: decodesToItself agrees with the decode") {
        // Fields of the command's message (and of the messages in it) cleared
        // or set, another of BaseCommand's messages added, the message taken
        // away, the type changed: built by setters (reflection's), as a
        // modelled client or the broker builds them.
        QuietProtobuf quiet;
        std::mt19937 rng(20261205);
        const auto messages = commandMessageFields();
        auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
        std::size_t same = 0, differ = 0;
        for (const auto& seed : commands) {
            for (int round = 0; round < 300; ++round) {
                BaseCommand c = seed;
                const int edits = 1 + static_cast<int>(rng() % 3);
                for (int e = 0; e < edits; ++e) {
                    switch (rng() % 8) {
                        case 0: c.GetReflection()->MutableMessage(&c, messages[pick(messages.size())]); break;
                        case 1: {
                            const auto* f = messages[pick(messages.size())];
                            c.GetReflection()->ClearField(&c, f);
                            break;
                        }
                        case 2: {
                            const auto* types = pulsar::proto::BaseCommand_Type_descriptor();
                            c.set_type(static_cast<BaseCommand::Type>(types->value(static_cast<int>(pick(static_cast<std::size_t>(types->value_count()))))->number()));
                            break;
                        }
                        default: changeField(c, rng); break;
                    }
                }
                const bool said = wire::decodesToItself(c);
                INFO("seed " << seed.ShortDebugString() << ", round " << round << ": " << c.ShortDebugString());
                REQUIRE(said == decodesBackToItself(c));
                (said ? same : differ) += 1;
            }
        }
        CHECK(same > 500);
        CHECK(differ > 500);
    }
}

TEST_CASE("§8.1 a payload frame decodes to its parts exactly when payloadFrameDecodesToItself says so", "[wire][ref-8.1]") {
    // A modelled client hands ServerCnx the frame a SEND's bytes would decode
    // to (wire::pooledPayloadFrame) only where the decode would succeed and
    // give back the command, the metadata and the payload, checksum valid.
    CHECK(wire::payloadFrameDecodesToItself(sendCmd(1, 2), meta(), 5));
    CHECK(payloadDecodesBack(sendCmd(1, 2), meta(), "hello"));
    CHECK_FALSE(wire::payloadFrameDecodesToItself(*wire::success(1), meta(), 5));  // not a payload command
    CHECK_FALSE(wire::payloadFrameDecodesToItself(sendCmd(1, 2), meta(), wire::kMaxFrameSize));  // over the limit
    {
        QuietProtobuf quiet;
        pulsar::proto::MessageMetadata partial;  // producer_name, sequence_id, publish_time are required
        partial.set_producer_name("p");
        CHECK_FALSE(wire::payloadFrameDecodesToItself(sendCmd(1, 2), partial, 5));
        CHECK_FALSE(payloadDecodesBack(sendCmd(1, 2), partial, "hello"));
    }
    SECTION("the frame built without bytes is the decoded frame") {
        const std::string payload = "cnxsim-message";
        auto built = wire::pooledPayloadFrame(sendCmd(3, 4), meta(), payload);
        std::string error;
        auto decoded = wire::decodeFrame(wire::encodePayloadFrame(sendCmd(3, 4), meta(), payload), &error);
        REQUIRE(decoded);
        CHECK(built->command.SerializeAsString() == decoded->command.SerializeAsString());
        REQUIRE(built->metadata);
        CHECK(built->metadata->SerializeAsString() == decoded->metadata->SerializeAsString());
        CHECK(built->payload == decoded->payload);
        CHECK(built->checksumPresent == decoded->checksumPresent);
        CHECK(built->checksumValid == decoded->checksumValid);
        CHECK(built->brokerEntryMetadata.has_value() == decoded->brokerEntryMetadata.has_value());
    }
    SECTION("commands and metadata changed at random: the two agree") {
        QuietProtobuf quiet;
        std::mt19937 rng(20261205);
        const auto messages = commandMessageFields();
        auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
        std::size_t same = 0, differ = 0;
        for (const BaseCommand& seed : {sendCmd(1, 2), *wire::message(1, 2, 3, 0)}) {
            for (int round = 0; round < 1500; ++round) {
                BaseCommand c = seed;
                auto m = meta();
                const int edits = 1 + static_cast<int>(rng() % 3);
                for (int e = 0; e < edits; ++e) {
                    switch (rng() % 6) {
                        case 0: c.GetReflection()->MutableMessage(&c, messages[pick(messages.size())]); break;
                        case 1: c.GetReflection()->ClearField(&c, messages[pick(messages.size())]); break;
                        case 2: changeField(c, rng); break;
                        default: changeField(m, rng); break;
                    }
                }
                const std::string payload(pick(3) * 7, 'x');
                const bool said = wire::payloadFrameDecodesToItself(c, m, payload.size());
                INFO("seed " << seed.ShortDebugString() << ", round " << round << ": " << c.ShortDebugString() << " / "
                             << m.ShortDebugString());
                REQUIRE(said == payloadDecodesBack(c, m, payload));
                (said ? same : differ) += 1;
            }
        }
        CHECK(same > 300);
        CHECK(differ > 300);
    }
}

TEST_CASE("§4.1/§1.4 schema versions are 8-byte big-endian signed longs", "[wire][ref-4.1]") {
    CHECK(wire::encodeSchemaVersion(0) == std::string(8, '\0'));
    CHECK(wire::encodeSchemaVersion(1) == std::string(7, '\0') + "\x01");
    CHECK(wire::encodeSchemaVersion(258) == std::string(6, '\0') + "\x01\x02");
    CHECK(wire::encodeSchemaVersion(0x0102030405060708) == "\x01\x02\x03\x04\x05\x06\x07\x08");
    CHECK(wire::encodeSchemaVersion(-1) == std::string(8, '\xff'));
    for (std::int64_t v : {std::int64_t{0}, std::int64_t{1}, std::int64_t{255}, std::int64_t{256}, std::int64_t{-1},
                           std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min()}) {
        CHECK(wire::decodeSchemaVersion(wire::encodeSchemaVersion(v)) == std::optional<std::int64_t>(v));
    }
    CHECK_FALSE(wire::decodeSchemaVersion("").has_value());
    CHECK_FALSE(wire::decodeSchemaVersion(std::string(7, '\0')).has_value());
    CHECK_FALSE(wire::decodeSchemaVersion(std::string(9, '\0')).has_value());
    CHECK_FALSE(wire::decodeSchemaVersion(std::string(64, '\0')).has_value());  // pre-2.4 64-byte versions
}

TEST_CASE("§1.6 PRODUCER_SUCCESS carries the version as 8 bytes, or zero-length without schema", "[wire][ref-1.6]") {
    BrokerFixture f;
    TestClient c(f);
    c.connect();
    auto typed = c.producer("persistent://public/default/v", 1, "a", wireSchema(Schema::String));
    REQUIRE(typed.type() == BaseCommand::PRODUCER_SUCCESS);
    CHECK(typed.producer_success().schema_version() == wire::encodeSchemaVersion(0));
    CHECK(typed.producer_success().last_sequence_id() == -1);
    auto plain = c.producer("persistent://public/default/v", 2, "b");
    REQUIRE(plain.type() == BaseCommand::PRODUCER_SUCCESS);
    CHECK(plain.producer_success().has_schema_version());
    CHECK(plain.producer_success().schema_version().empty());
    auto generated = c.producer("persistent://public/default/v", 3);
    REQUIRE(generated.type() == BaseCommand::PRODUCER_SUCCESS);
    CHECK_FALSE(generated.producer_success().producer_name().empty());  // broker-generated name
}

TEST_CASE("enum names: the cached tables name and parse every value as protobuf's own functions do", "[wire]") {
    using pulsar::proto::CommandSubscribe;
    using pulsar::proto::ProducerAccessMode;
    for (int v = CommandSubscribe::SubType_MIN; v <= CommandSubscribe::SubType_MAX; ++v) {
        if (!CommandSubscribe::SubType_IsValid(v)) continue;
        auto t = static_cast<CommandSubscribe::SubType>(v);
        CHECK(wire::subTypeName(t) == CommandSubscribe::SubType_Name(t));
        CommandSubscribe::SubType parsed{};
        REQUIRE(wire::parseSubType(CommandSubscribe::SubType_Name(t), &parsed));
        CHECK(parsed == t);
    }
    for (int v = pulsar::proto::ProducerAccessMode_MIN; v <= pulsar::proto::ProducerAccessMode_MAX; ++v) {
        if (!pulsar::proto::ProducerAccessMode_IsValid(v)) continue;
        auto m = static_cast<ProducerAccessMode>(v);
        CHECK(wire::accessModeName(m) == pulsar::proto::ProducerAccessMode_Name(m));
        ProducerAccessMode parsed{};
        REQUIRE(wire::parseAccessMode(pulsar::proto::ProducerAccessMode_Name(m), &parsed));
        CHECK(parsed == m);
    }
    // No value of that name (the generated *_Parse is case-sensitive too): false, the output untouched.
    auto type = CommandSubscribe::Failover;
    CHECK_FALSE(wire::parseSubType("shared", &type));
    CHECK_FALSE(wire::parseSubType("", &type));
    CHECK(type == CommandSubscribe::Failover);
    auto mode = pulsar::proto::WaitForExclusive;
    CHECK_FALSE(wire::parseAccessMode("Exclusive2", &mode));
    CHECK(mode == pulsar::proto::WaitForExclusive);
    CHECK(wire::parseAccessMode("ExclusiveWithFencing", &mode));
    CHECK(mode == pulsar::proto::ExclusiveWithFencing);
}

// --- §2.4 schema type conversions -------------------------------------------------------

TEST_CASE("§2.4 proto <-> Java schema types", "[wire][ref-2.4]") {
    SECTION("proto -> Java") {
        CHECK(wire::fromProtoType(Schema::AutoConsume) == SchemaType::AUTO_CONSUME);
        CHECK(wire::fromProtoType(Schema::External) == SchemaType::NONE);
        CHECK(wire::fromProtoType(Schema::None) == SchemaType::NONE);
        CHECK(wire::fromProtoType(Schema::String) == SchemaType::STRING);
        CHECK(wire::fromProtoType(Schema::Bool) == SchemaType::BOOLEAN);
        CHECK(wire::fromProtoType(Schema::Int32) == SchemaType::INT32);
        CHECK(wire::fromProtoType(Schema::KeyValue) == SchemaType::KEY_VALUE);
        CHECK(wire::fromProtoType(Schema::LocalDateTime) == SchemaType::LOCAL_DATE_TIME);
        CHECK(wire::fromProtoType(Schema::ProtobufNative) == SchemaType::PROTOBUF_NATIVE);
        for (int v = 0; v <= 20; ++v) {
            CHECK(static_cast<int>(wire::fromProtoType(static_cast<Schema::Type>(v))) == v);
        }
    }
    SECTION("Java -> proto: AUTO_CONSUME -> AutoConsume, other negatives -> None") {
        CHECK(wire::toProtoType(SchemaType::AUTO_CONSUME) == Schema::AutoConsume);
        CHECK(wire::toProtoType(SchemaType::BYTES) == Schema::None);
        CHECK(wire::toProtoType(SchemaType::AUTO) == Schema::None);
        CHECK(wire::toProtoType(SchemaType::AUTO_PUBLISH) == Schema::None);
        CHECK(wire::toProtoType(SchemaType::NONE) == Schema::None);
        CHECK(wire::toProtoType(SchemaType::AVRO) == Schema::Avro);
        CHECK(wire::toProtoType(SchemaType::PROTOBUF_NATIVE) == Schema::ProtobufNative);
    }
    SECTION("the broker's record: name ignored, data verbatim, properties as a map (§1.2)") {
        auto s = wireSchema(Schema::Json, "{\"type\":\"record\"}", "client-chosen-name");
        auto* kv = s.add_properties();
        kv->set_key("owner");
        kv->set_value("billing");
        auto d = wire::fromProto(s);
        CHECK(d.type == SchemaType::JSON);
        CHECK(d.data == "{\"type\":\"record\"}");
        CHECK(d.properties == cnx::SchemaProperties{{"owner", "billing"}});
        auto back = wire::toProto(d, "public/default/orders");
        CHECK(back.name() == "public/default/orders");
        CHECK(back.type() == Schema::Json);
        CHECK(back.schema_data() == d.data);
        REQUIRE(back.properties_size() == 1);
        CHECK(back.properties(0).key() == "owner");
    }
    SECTION("an unknown proto type value (23) makes the command unparseable (closed proto2 enum, §2.3 derived)") {
        QuietProtobuf quiet;
        // A Schema with an unknown required enum value fails to parse: here, inside a SUBSCRIBE.
        auto sub = TestClient::subscribeCmd("persistent://public/default/x", "s", 5, 6, wireSchema(Schema::String));
        auto bytes = sub.SerializeAsString();
        // Patch the schema type varint (String=1) to 23: find "\x20\x01" (field 4 varint 1) inside the schema.
        auto at = bytes.rfind(std::string("\x20\x01", 2));
        REQUIRE(at != std::string::npos);
        bytes[at + 1] = 23;
        CHECK_THAT(decodeError(handFrame(bytes)), Catch::Contains("BaseCommand lacks required fields: subscribe.schema.type"));
    }
}

// --- §8.6 connection state machine ----------------------------------------------------------

TEST_CASE("§8.6 commands before CONNECT are refused and close the connection", "[wire][ref-8.6]") {
    BrokerFixture f;
    BaseCommand getSchema;
    getSchema.set_type(BaseCommand::GET_SCHEMA);
    getSchema.mutable_getschema()->set_request_id(1);
    getSchema.mutable_getschema()->set_topic("persistent://public/default/a");
    for (const auto& cmd : {TestClient::producerCmd("persistent://public/default/a", 1, 1),
                            TestClient::subscribeCmd("persistent://public/default/a", "s", 1, 1), getSchema}) {
        TestClient c(f);
        std::optional<std::string> refusal;
        auto frames = c.send(cmd, &refusal);
        INFO(BaseCommand::Type_Name(cmd.type()));
        REQUIRE(refusal.has_value());
        CHECK(*refusal == "received " + BaseCommand::Type_Name(cmd.type()) + " before CONNECT");
        CHECK(frames.empty());
        CHECK(c.cnx().closed());
        CHECK(c.cnx().protocolVersion() == 0);
    }
    CHECK(f.broker.loadedTopics().empty());  // nothing reached the model
}

TEST_CASE("§8.6 a second CONNECT and broker-only commands from the client are refused", "[wire][ref-8.6]") {
    BrokerFixture f;
    SECTION("second CONNECT") {
        TestClient c(f);
        c.connect();
        BaseCommand again;
        again.set_type(BaseCommand::CONNECT);
        again.mutable_connect()->set_client_version("x");
        std::optional<std::string> refusal;
        c.send(again, &refusal);
        CHECK(refusal == std::optional<std::string>("received a second CONNECT"));
        CHECK(c.cnx().closed());
    }
    SECTION("PRODUCER_SUCCESS sent by a client") {
        TestClient c(f);
        c.connect();
        BaseCommand bogus;
        bogus.set_type(BaseCommand::PRODUCER_SUCCESS);
        bogus.mutable_producer_success()->set_request_id(1);
        bogus.mutable_producer_success()->set_producer_name("x");
        std::optional<std::string> refusal;
        c.send(bogus, &refusal);
        CHECK(refusal == std::optional<std::string>("a client may not send PRODUCER_SUCCESS"));
    }
}

TEST_CASE("§8.1/§8.6 PING is answered with PONG", "[wire][ref-8.1][ref-8.6]") {
    BrokerFixture f;
    TestClient c(f);
    c.connect();
    for (int i = 0; i < 3; ++i) {
        std::optional<std::string> refusal;
        auto frames = c.send(ping(), &refusal);
        CHECK_FALSE(refusal.has_value());
        REQUIRE(frames.size() == 1);
        CHECK(frames[0].type() == BaseCommand::PONG);
    }
    BaseCommand pong;
    pong.set_type(BaseCommand::PONG);
    pong.mutable_pong();
    CHECK(c.send(pong).empty());  // a PONG from the client is accepted silently
    CHECK_FALSE(c.cnx().closed());
}

TEST_CASE("§8.3/§8.5 protocol negotiation answers min(client, profile max)", "[wire][ref-8.5]") {
    auto negotiated = [](const cnx::BehaviourProfile& p, int client) {
        BrokerFixture f(p);
        TestClient c(f);
        auto r = c.connect(client);
        REQUIRE(r.type() == BaseCommand::CONNECTED);
        CHECK(c.cnx().protocolVersion() == r.connected().protocol_version());
        CHECK(r.connected().server_version() == "Pulsar Server" + p.release.toString());
        CHECK(r.connected().max_message_size() == 5 * 1024 * 1024);
        return r.connected().protocol_version();
    };
    const auto& newest = cnx::newestProfile();
    CHECK(newest.maxProtocolVersion == 21);
    CHECK(negotiated(newest, 21) == 21);
    CHECK(negotiated(newest, 25) == 21);
    CHECK(negotiated(newest, 14) == 14);
    CHECK(negotiated(newest, 0) == 0);
    auto old = newest;
    old.maxProtocolVersion = 15;
    CHECK(negotiated(old, 21) == 15);
    CHECK(negotiated(old, 13) == 13);
}

TEST_CASE("§1.8 GET_OR_CREATE_SCHEMA on a topic that does not exist: TopicNotFound, no auto-creation",
          "[wire][ref-1.8]") {
    BrokerFixture f;
    BaseCommand goc;
    goc.set_type(BaseCommand::GET_OR_CREATE_SCHEMA);
    goc.mutable_getorcreateschema()->set_request_id(5);
    goc.mutable_getorcreateschema()->set_topic("persistent://public/default/x");
    *goc.mutable_getorcreateschema()->mutable_schema() = wireSchema(Schema::String);

    std::optional<std::string> refusal;
    TestClient modern(f);
    modern.connect(21);
    auto frames = modern.send(goc, &refusal);
    CHECK_FALSE(refusal.has_value());
    REQUIRE(frames.size() == 1);
    CHECK(frames[0].type() == BaseCommand::GET_OR_CREATE_SCHEMA_RESPONSE);
    // The topic does not exist and GET_OR_CREATE does not auto-create it (§1.8).
    CHECK(frames[0].getorcreateschemaresponse().error_code() == pulsar::proto::TopicNotFound);
    CHECK_THAT(frames[0].getorcreateschemaresponse().error_message(),
               Catch::StartsWith("Topic not found persistent://public/default/x"));
    CHECK(f.broker.loadedTopics().empty());
}

// §1.8 step 1: the not-found answer is sent directly as "Topic not found <topic>"
// (#20932); the "<class>: <msg> caused by ..." wrapping of step 4 is for failures
// of the schema step only.
TEST_CASE("§1.8 GET_OR_CREATE_SCHEMA not-found message is exactly 'Topic not found <topic>'",
          "[wire][ref-1.8]") {
    BrokerFixture f;
    BaseCommand goc;
    goc.set_type(BaseCommand::GET_OR_CREATE_SCHEMA);
    goc.mutable_getorcreateschema()->set_request_id(5);
    goc.mutable_getorcreateschema()->set_topic("x");
    *goc.mutable_getorcreateschema()->mutable_schema() = wireSchema(Schema::String);
    TestClient c(f);
    c.connect(21);
    auto frames = c.send(goc);
    REQUIRE(frames.size() == 1);
    CHECK(frames[0].getorcreateschemaresponse().error_message() == "Topic not found persistent://public/default/x");
}

// --- §1.1 step 3 producer-id de-duplication ------------------------------------------------

TEST_CASE("§1.1 producer-id de-duplication on one connection", "[wire][ref-1.1]") {
    const std::string topic = "persistent://public/default/dedup";
    BrokerFixture f;
    TestClient c(f);
    c.connect();

    SECTION("pending creation -> ServiceNotReady 'Producer is already present on the connection'") {
        auto first = TestClient::producerCmd(topic, 1, c.takeRequestId(), "p1", wireSchema(Schema::String));
        CHECK(c.deliverOnly(first).empty());  // the schema step is posted: still pending
        auto again = TestClient::producerCmd(topic, 1, c.takeRequestId(), "p1", wireSchema(Schema::String));
        auto frames = c.deliverOnly(again);
        REQUIRE(frames.size() == 1);
        CHECK(frames[0].type() == BaseCommand::ERROR);
        CHECK(frames[0].error().request_id() == again.producer().request_id());
        CHECK(frames[0].error().error() == pulsar::proto::ServiceNotReady);
        CHECK(frames[0].error().message() == "Producer is already present on the connection");
        auto later = c.runPending();
        REQUIRE(later.size() == 1);
        CHECK(later[0].type() == BaseCommand::PRODUCER_SUCCESS);
        CHECK(later[0].producer_success().request_id() == first.producer().request_id());
    }
    SECTION("ready -> PRODUCER_SUCCESS repeated with the same name and schema version") {
        auto r1 = c.producer(topic, 1, "p1", wireSchema(Schema::String));
        REQUIRE(r1.type() == BaseCommand::PRODUCER_SUCCESS);
        auto r2 = c.producer(topic, 1, "other-name", wireSchema(Schema::Int32));  // different request, same id
        REQUIRE(r2.type() == BaseCommand::PRODUCER_SUCCESS);
        CHECK(r2.producer_success().request_id() != r1.producer_success().request_id());
        CHECK(r2.producer_success().producer_name() == "p1");
        CHECK(r2.producer_success().schema_version() == r1.producer_success().schema_version());
        CHECK(f.broker.findTopic(*cnx::TopicName::parse(topic))->producers().size() == 1);
        CHECK(f.broker.registry().history("public/default/dedup").size() == 1);  // INT32 never registered
    }
    SECTION("failed -> its code, 'Producer is already failed to register present on the connection'") {
        REQUIRE(c.producer(topic, 9, "typed", wireSchema(Schema::String)).type() == BaseCommand::PRODUCER_SUCCESS);
        auto bad = c.producer(topic, 1, "p1", wireSchema(Schema::Int32));  // FULL: type mismatch
        REQUIRE(bad.type() == BaseCommand::ERROR);
        CHECK(bad.error().error() == pulsar::proto::IncompatibleSchema);
        auto again = c.producer(topic, 1, "p1", wireSchema(Schema::String));
        REQUIRE(again.type() == BaseCommand::ERROR);
        CHECK(again.error().error() == pulsar::proto::IncompatibleSchema);
        CHECK(again.error().message() == "Producer is already failed to register present on the connection");
    }
    SECTION("producer ids are per connection") {
        REQUIRE(c.producer(topic, 1, "p1").type() == BaseCommand::PRODUCER_SUCCESS);
        TestClient other(f);
        other.connect();
        auto r = other.producer(topic, 1, "p2");
        CHECK(r.type() == BaseCommand::PRODUCER_SUCCESS);
        CHECK(r.producer_success().producer_name() == "p2");
    }
}

// --- fuzz ---------------------------------------------------------------------------------
