#pragma once
// Command builders for the tests of `cnxsim serve` (commands_test.cpp,
// load_test.cpp): each fills the fields a real client fills, nothing more;
// and the round trips those tests repeat, each REQUIREing its answer.

#include <catch2/catch.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "serve_client.h"

namespace serve_test::cmd {

using pulsar::proto::BaseCommand;
using pulsar::proto::MessageMetadata;

inline BaseCommand command(BaseCommand::Type type) {
    BaseCommand c;
    c.set_type(type);
    return c;
}
inline BaseCommand ping() { return command(BaseCommand::PING); }

inline pulsar::proto::Schema schema(pulsar::proto::Schema::Type type, const std::string& data = "") {
    pulsar::proto::Schema s;
    s.set_name("s");
    s.set_schema_data(data);
    s.set_type(type);
    return s;
}

inline BaseCommand producer(const std::string& topic, std::uint64_t producerId, std::uint64_t requestId,
                            std::optional<pulsar::proto::Schema> withSchema = std::nullopt,
                            std::optional<std::string> name = std::nullopt) {
    auto c = command(BaseCommand::PRODUCER);
    auto* p = c.mutable_producer();
    p->set_topic(topic);
    p->set_producer_id(producerId);
    p->set_request_id(requestId);
    if (name) p->set_producer_name(*name);
    if (withSchema) *p->mutable_schema() = *withSchema;
    return c;
}

inline BaseCommand send(std::uint64_t producerId, std::uint64_t sequenceId, int numMessages = 1) {
    auto c = command(BaseCommand::SEND);
    c.mutable_send()->set_producer_id(producerId);
    c.mutable_send()->set_sequence_id(sequenceId);
    if (numMessages != 1) c.mutable_send()->set_num_messages(numMessages);
    return c;
}

inline MessageMetadata metadata(const std::string& producerName, std::uint64_t sequenceId,
                                std::optional<std::string> schemaVersion = std::nullopt) {
    MessageMetadata m;
    m.set_producer_name(producerName);
    m.set_sequence_id(sequenceId);
    m.set_publish_time(1700000000000 + static_cast<std::int64_t>(sequenceId));
    if (schemaVersion) m.set_schema_version(*schemaVersion);
    return m;
}

inline BaseCommand subscribe(const std::string& topic, const std::string& subscription, std::uint64_t consumerId,
                             std::uint64_t requestId,
                             pulsar::proto::CommandSubscribe::SubType type = pulsar::proto::CommandSubscribe::Exclusive,
                             pulsar::proto::CommandSubscribe::InitialPosition position =
                                 pulsar::proto::CommandSubscribe::Latest) {
    auto c = command(BaseCommand::SUBSCRIBE);
    auto* s = c.mutable_subscribe();
    s->set_topic(topic);
    s->set_subscription(subscription);
    s->set_subtype(type);
    s->set_consumer_id(consumerId);
    s->set_request_id(requestId);
    s->set_consumer_name("consumer-" + std::to_string(consumerId));
    s->set_initialposition(position);
    return c;
}

inline BaseCommand flow(std::uint64_t consumerId, std::uint32_t permits) {
    auto c = command(BaseCommand::FLOW);
    c.mutable_flow()->set_consumer_id(consumerId);
    c.mutable_flow()->set_messagepermits(permits);
    return c;
}

/// LOOKUP, with the client's listener name when given.
inline BaseCommand lookup(const std::string& topic, std::uint64_t requestId, const std::string& listener = "") {
    auto c = command(BaseCommand::LOOKUP);
    c.mutable_lookuptopic()->set_topic(topic);
    c.mutable_lookuptopic()->set_request_id(requestId);
    if (!listener.empty()) c.mutable_lookuptopic()->set_advertised_listener_name(listener);
    return c;
}

inline BaseCommand consumerStats(std::uint64_t consumerId, std::uint64_t requestId) {
    auto c = command(BaseCommand::CONSUMER_STATS);
    c.mutable_consumerstats()->set_consumer_id(consumerId);
    c.mutable_consumerstats()->set_request_id(requestId);
    return c;
}

/// The 8 bytes of a schema version, big-endian, as the broker sends them.
inline std::string version(std::int64_t v) {
    std::string out(8, '\0');
    for (int i = 7; i >= 0; --i) {
        out[static_cast<std::size_t>(i)] = static_cast<char>(static_cast<std::uint64_t>(v) & 0xff);
        v = static_cast<std::int64_t>(static_cast<std::uint64_t>(v) >> 8);
    }
    return out;
}

// --- round trips (Catch2 assertions) ------------------------------------------------

/// A connected client; REQUIREs the CONNECTED.
struct Session {
    explicit Session(const ServeProcess& server) : client(server.port()) {
        REQUIRE(client.connected());
        REQUIRE(client.handshake().type() == BaseCommand::CONNECTED);
    }
    Client client;
};

/// PRODUCER answered PRODUCER_SUCCESS: its producer name.
inline std::string openProducer(Client& c, const std::string& topic, std::uint64_t producerId, std::uint64_t requestId,
                                std::optional<pulsar::proto::Schema> s = std::nullopt) {
    auto r = c.call(producer(topic, producerId, requestId, s));
    REQUIRE(r.type() == BaseCommand::PRODUCER_SUCCESS);
    return r.producer_success().producer_name();
}

/// One SEND and its SEND_RECEIPT (REQUIREd).
inline pulsar::proto::MessageIdData sendOne(Client& c, std::uint64_t producerId,
                                            const pulsar::proto::MessageMetadata& meta, const std::string& payload) {
    c.sendPayload(send(producerId, meta.sequence_id()), meta, payload);
    auto r = c.read();
    REQUIRE(r.has_value());
    REQUIRE(r->type() == BaseCommand::SEND_RECEIPT);
    CHECK(r->send_receipt().producer_id() == producerId);
    CHECK(r->send_receipt().sequence_id() == meta.sequence_id());
    return r->send_receipt().message_id();
}

inline void subscribeOk(Client& c, const BaseCommand& subscribeCommand) {
    auto r = c.call(subscribeCommand);
    REQUIRE(r.type() == BaseCommand::SUCCESS);
    CHECK(r.success().request_id() == subscribeCommand.subscribe().request_id());
}

/// No frame arrives within `wait` (the connection still answers a PING afterwards).
inline bool quiet(Client& c, std::chrono::milliseconds wait = 300ms) {
    auto f = c.readFrame(wait);
    if (f) return false;
    return c.call(ping()).type() == BaseCommand::PONG;
}

}  // namespace serve_test::cmd
