#pragma once
// Helpers of the wire tests (wire_test.cpp, wire_fuzz_test.cpp): raw frame
// bytes and the few commands they send.

#include <cstdint>
#include <string>
#include <string_view>

#include "model_test_support.h"

namespace cnx::testing::wire_tests {

using cnx::SchemaType;
using cnx::testing::BaseCommand;
using cnx::testing::QuietProtobuf;
using cnx::testing::BrokerFixture;
using cnx::testing::TestClient;
using cnx::testing::wireSchema;
using pulsar::proto::Schema;
namespace wire = cnx::wire;

inline std::string u32(std::uint32_t v) {
    std::string out;
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xff));
    return out;
}

/// A frame assembled by hand: `[total][commandSize][command][rest]`.
inline std::string handFrame(std::string_view command, std::string_view rest = "", std::optional<std::uint32_t> total = {},
                      std::optional<std::uint32_t> commandSize = {}) {
    auto cs = commandSize.value_or(static_cast<std::uint32_t>(command.size()));
    auto ts = total.value_or(static_cast<std::uint32_t>(4 + command.size() + rest.size()));
    return u32(ts) + u32(cs) + std::string(command) + std::string(rest);
}

inline BaseCommand ping() {
    BaseCommand c;
    c.set_type(BaseCommand::PING);
    c.mutable_ping();
    return c;
}

inline BaseCommand producerWithSchema() {
    return TestClient::producerCmd("persistent://public/default/orders", 7, 3, "p",
                                   wireSchema(Schema::Avro, cnx::testing::kUserV1Avro));
}

inline BaseCommand sendCmd(std::uint64_t producerId = 1, std::uint64_t seq = 0) {
    BaseCommand c;
    c.set_type(BaseCommand::SEND);
    c.mutable_send()->set_producer_id(producerId);
    c.mutable_send()->set_sequence_id(seq);
    return c;
}

inline pulsar::proto::MessageMetadata meta() {
    pulsar::proto::MessageMetadata m;
    m.set_producer_name("p");
    m.set_sequence_id(0);
    m.set_publish_time(1);
    return m;
}

inline std::string decodeError(std::string_view bytes) {
    std::string error;
    auto f = wire::decodeFrame(bytes, &error);
    if (f) return "<decoded>";
    return error;
}

}  // namespace cnx::testing::wire_tests
