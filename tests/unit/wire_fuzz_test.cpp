// The wire layer under seeded random and mutated input: ServerCnx never
// crashes, hangs or grows without bound on any frame.

#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>


#include "wire_test_support.h"

using namespace cnx::testing::wire_tests;

namespace {

/// Valid frames of every command the model handles, to be mutated.
std::vector<std::string> seedFrames() {
    std::vector<std::string> out;
    BaseCommand connect;
    connect.set_type(BaseCommand::CONNECT);
    connect.mutable_connect()->set_client_version("Pulsar-CPP-v4.2.0");
    connect.mutable_connect()->set_protocol_version(21);
    out.push_back(wire::encodeFrame(connect));
    out.push_back(wire::encodeFrame(producerWithSchema()));
    out.push_back(wire::encodeFrame(TestClient::producerCmd("orders", 1, 2, "", wireSchema(Schema::String))));
    out.push_back(wire::encodeFrame(TestClient::producerCmd("non-persistent://public/default/np", 2, 3)));
    out.push_back(wire::encodeFrame(
        TestClient::subscribeCmd("persistent://public/default/orders", "s", 1, 4, wireSchema(Schema::AutoConsume))));
    out.push_back(wire::encodeFrame(
        TestClient::subscribeCmd("orders", "s", 2, 5, wireSchema(Schema::Avro, cnx::testing::kUserV1Avro))));
    out.push_back(wire::encodePayloadFrame(sendCmd(7, 1), meta(), "payload"));
    out.push_back(wire::encodePayloadFrame(sendCmd(1, 2), meta(), ""));
    BaseCommand gs;
    gs.set_type(BaseCommand::GET_SCHEMA);
    gs.mutable_getschema()->set_request_id(6);
    gs.mutable_getschema()->set_topic("orders");
    gs.mutable_getschema()->set_schema_version(wire::encodeSchemaVersion(0));
    out.push_back(wire::encodeFrame(gs));
    BaseCommand goc;
    goc.set_type(BaseCommand::GET_OR_CREATE_SCHEMA);
    goc.mutable_getorcreateschema()->set_request_id(7);
    goc.mutable_getorcreateschema()->set_topic("orders");
    *goc.mutable_getorcreateschema()->mutable_schema() = wireSchema(Schema::Int64);
    out.push_back(wire::encodeFrame(goc));
    BaseCommand cp;
    cp.set_type(BaseCommand::CLOSE_PRODUCER);
    cp.mutable_close_producer()->set_producer_id(7);
    cp.mutable_close_producer()->set_request_id(8);
    out.push_back(wire::encodeFrame(cp));
    BaseCommand cc;
    cc.set_type(BaseCommand::CLOSE_CONSUMER);
    cc.mutable_close_consumer()->set_consumer_id(1);
    cc.mutable_close_consumer()->set_request_id(9);
    out.push_back(wire::encodeFrame(cc));
    out.push_back(wire::encodeFrame(ping()));
    return out;
}

std::string randomBytes(std::mt19937_64& rng, std::size_t maxLen) {
    std::uniform_int_distribution<std::size_t> len(0, maxLen);
    std::uniform_int_distribution<int> byte(0, 255);
    std::string s(len(rng), '\0');
    for (auto& ch : s) ch = static_cast<char>(byte(rng));
    return s;
}

/// One random mutation of a valid frame: flips, truncation, extension, size-field rewrites.
std::string mutate(std::mt19937_64& rng, std::string s) {
    std::uniform_int_distribution<int> kind(0, 6);
    std::uniform_int_distribution<int> byte(0, 255);
    auto pos = [&](std::size_t n) { return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
    switch (kind(rng)) {
        case 0:  // flip 1..4 random bytes
            for (int i = 0, n = 1 + byte(rng) % 4; i < n && !s.empty(); ++i) s[pos(s.size())] = static_cast<char>(byte(rng));
            break;
        case 1:  // truncate
            s.resize(pos(s.size() + 1));
            break;
        case 2:  // append garbage
            s += randomBytes(rng, 16);
            break;
        case 3:  // rewrite totalSize
            if (s.size() >= 4) s.replace(0, 4, u32(static_cast<std::uint32_t>(rng())));
            break;
        case 4:  // rewrite commandSize, keeping totalSize consistent with the length
            if (s.size() >= 8) s.replace(4, 4, u32(static_cast<std::uint32_t>(pos(s.size() + 8))));
            break;
        case 5:  // flip a byte inside the BaseCommand and keep the sizes (reaches the handlers)
            if (s.size() > 8) s[8 + pos(s.size() - 8)] ^= static_cast<char>(1 << (byte(rng) % 8));
            break;
        case 6:  // insert a byte and fix totalSize
            if (s.size() >= 8) {
                s.insert(8 + pos(s.size() - 7), 1, static_cast<char>(byte(rng)));
                s.replace(0, 4, u32(static_cast<std::uint32_t>(s.size() - 4)));
            }
            break;
    }
    return s;
}

}  // namespace

TEST_CASE("§8.1 fuzz: 5,000 seeded random and mutated frames never crash or hang ServerCnx", "[wire][ref-8.1][fuzz]") {
    QuietProtobuf quiet;
    struct Row {
        const char* what;
        std::uint64_t seed;
        int iterations;
        bool mutateValid;   // mutations of valid frames, else random bytes
        bool connectFirst;  // a valid CONNECT precedes the input
    };
    // 4 x 1,250 = 5,000 inputs. A failure prints the row and the iteration: rerun with that seed.
    const Row rows[] = {
        {"random bytes before CONNECT", 0xC0FFEE, 1250, false, false},
        {"random bytes after CONNECT", 0xBADC0DE, 1250, false, true},
        {"mutated valid frames before CONNECT", 0x5EED, 1250, true, false},
        {"mutated valid frames after CONNECT", 0xFEEDFACE, 1250, true, true},
    };
    const auto seeds = seedFrames();
    const auto connectFrame = seeds.front();
    for (const auto& row : rows) {
        SECTION(row.what) {
            std::mt19937_64 rng(row.seed);
            BrokerFixture f;  // one broker per row: state accumulates across inputs, as on a real broker
            std::size_t refusedCount = 0, responded = 0;
            for (int i = 0; i < row.iterations; ++i) {
                std::string input;
                if (row.mutateValid) {
                    input = seeds[std::uniform_int_distribution<std::size_t>(0, seeds.size() - 1)(rng)];
                    for (int m = 0, n = 1 + static_cast<int>(rng() % 3); m < n; ++m) input = mutate(rng, input);
                } else {
                    // Mostly short strings; sometimes with a plausible header so decoding gets further.
                    input = randomBytes(rng, 64);
                    if (rng() % 2 && input.size() >= 8) {
                        input.replace(0, 4, u32(static_cast<std::uint32_t>(input.size() - 4)));
                        input.replace(4, 4, u32(static_cast<std::uint32_t>(rng() % (input.size() - 4))));
                    }
                }
                std::size_t frames = 0;
                cnx::ServerCnx conn(f.broker, [&](std::string out) {
                    ++frames;
                    std::string error;
                    // Whatever the broker sends back must itself be a well-formed frame.
                    CHECK(wire::decodeFrame(out, &error).has_value());
                });
                if (row.connectFirst) REQUIRE_FALSE(conn.receive(connectFrame).has_value());
                const std::size_t framesBefore = frames;
                auto refused = conn.receive(input);
                // Bounded: the scheduler drains (a runaway continuation loop would show here).
                auto ran = f.scheduler.runUntilIdle();
                INFO("row '" << row.what << "' seed " << row.seed << " iteration " << i << " ran " << ran);
                CHECK(ran < 1000);
                if (refused) {
                    ++refusedCount;
                    CHECK(conn.closed());
                    CHECK_FALSE(refused->empty());
                    CHECK(frames == framesBefore);  // a refused frame is never answered
                    CHECK(conn.receive(connectFrame) == std::optional<std::string>("the connection is closed"));
                    CHECK(frames == framesBefore);
                } else {
                    // Before CONNECT only a CONNECT is accepted, and it is always answered.
                    if (!row.connectFirst) CHECK(frames > framesBefore);
                    if (frames > framesBefore) ++responded;
                }
            }
            // Garbage must be refused, and some mutated requests must reach a handler and be answered.
            CHECK(refusedCount > 0);
            if (row.mutateValid) CHECK(responded > 0);
            CHECK(f.scheduler.pending() == 0);
        }
    }
}
