#pragma once
#include <google/protobuf/stubs/logging.h>
// Helpers shared by the model unit tests (registry, idle rule, policies,
// wire): a broker on the simulated scheduler, and a test client that speaks to
// ServerCnx only through encoded frames and decodes every frame it gets back.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "broker_model/broker/broker.h"
#include "sim/runtime/sim_scheduler.h"
#include "broker_model/profile/profile.h"
#include "broker_model/protocol/server_cnx.h"
#include "broker_model/wire/frame.h"
#include "broker_model/wire/schema_wire.h"

namespace cnx::testing {

/// Silences libprotobuf's "Can't parse message" log lines while alive (the
/// decoder reports the same problem as a value).
class QuietProtobuf {
public:
    QuietProtobuf() : old_(google::protobuf::SetLogHandler(nullptr)) {}
    ~QuietProtobuf() { google::protobuf::SetLogHandler(old_); }

private:
    google::protobuf::LogHandler* old_;
};


using pulsar::proto::BaseCommand;

/// A schema record of `type` with definition `data` (empty for primitives).
inline SchemaData schemaOf(SchemaType type, std::string data = "", SchemaProperties props = {}) {
    return SchemaData{type, std::move(data), std::move(props)};
}

inline const char* kUserV1Avro =
    R"({"type":"record","name":"User","namespace":"cnx.test","fields":[{"name":"id","type":"long"}]})";

/// A broker with its own scheduler; `profile` is copied so tests may edit switches.
struct BrokerFixture {
    explicit BrokerFixture(const BehaviourProfile& p = newestProfile()) : profile(p), broker(profile, scheduler) {}
    BehaviourProfile profile;
    sim::SimScheduler scheduler;
    Broker broker;

    /// Calls `call` with a callback that keeps its argument, runs the broker
    /// until idle and returns what the callback got (nullopt: never called).
    template <typename Result, typename Call>
    std::optional<Result> answerOf(Call call) {
        std::optional<Result> r;
        call([&r](Result a) { r = std::move(a); });
        scheduler.runUntilIdle();
        return r;
    }
};

/// Builds a wire Schema of `type` (a proto enum) with `data`.
inline pulsar::proto::Schema wireSchema(pulsar::proto::Schema::Type type, std::string data = "",
                                        std::string name = "test") {
    pulsar::proto::Schema s;
    s.set_name(std::move(name));
    s.set_type(type);
    s.set_schema_data(std::move(data));
    return s;
}

/// One client connection, driven frame by frame. Every call encodes a
/// BaseCommand with wire::encodeFrame, hands it to ServerCnx::receive, runs the
/// scheduler until idle and returns the frames the broker sent meanwhile.
class TestClient {
public:
    explicit TestClient(BrokerFixture& f)
        : fixture_(f), cnx_(std::make_unique<ServerCnx>(f.broker, [this](std::string frame) { sent_.push_back(frame); })) {}

    ServerCnx& cnx() { return *cnx_; }

    /// Sends raw bytes; returns ServerCnx::receive's refusal, if any.
    std::optional<std::string> raw(std::string_view bytes) {
        auto r = cnx_->receive(bytes);
        fixture_.scheduler.runUntilIdle();
        return r;
    }

    /// Sends `cmd` and returns every decoded response frame.
    std::vector<BaseCommand> send(const BaseCommand& cmd, std::optional<std::string>* refusal = nullptr) {
        sent_.clear();
        auto r = raw(wire::encodeFrame(cmd));
        if (refusal) *refusal = r;
        return decodeAll();
    }

    std::vector<BaseCommand> sendPayload(const BaseCommand& cmd, const pulsar::proto::MessageMetadata& meta,
                                         std::string_view payload) {
        sent_.clear();
        raw(wire::encodePayloadFrame(cmd, meta, payload));
        return decodeAll();
    }

    /// The single response to `cmd` (fails the test if there is not exactly one).
    BaseCommand one(const BaseCommand& cmd) {
        auto frames = send(cmd);
        if (frames.size() != 1) {
            BaseCommand none;
            none.set_type(BaseCommand::PONG);  // never a valid answer to the commands tests send
            lastCount_ = frames.size();
            return none;
        }
        lastCount_ = 1;
        return frames.front();
    }
    std::size_t lastCount() const { return lastCount_; }

    BaseCommand connect(int protocolVersion = 21) {
        BaseCommand c;
        c.set_type(BaseCommand::CONNECT);
        c.mutable_connect()->set_client_version("Pulsar-CPP-v4.2.0");
        c.mutable_connect()->set_protocol_version(protocolVersion);
        return one(c);
    }

    static BaseCommand producerCmd(const std::string& topic, std::uint64_t producerId, std::uint64_t requestId,
                                   const std::string& name = "",
                                   std::optional<pulsar::proto::Schema> schema = std::nullopt) {
        BaseCommand c;
        c.set_type(BaseCommand::PRODUCER);
        auto* p = c.mutable_producer();
        p->set_topic(topic);
        p->set_producer_id(producerId);
        p->set_request_id(requestId);
        if (!name.empty()) p->set_producer_name(name);
        if (schema) *p->mutable_schema() = *schema;
        return c;
    }

    BaseCommand producer(const std::string& topic, std::uint64_t producerId, const std::string& name = "",
                         std::optional<pulsar::proto::Schema> schema = std::nullopt) {
        return one(producerCmd(topic, producerId, nextRequest_++, name, std::move(schema)));
    }

    /// FLOW: `permits` more messages for consumer `consumerId`.
    static BaseCommand flowCmd(std::uint64_t consumerId, std::uint32_t permits) {
        BaseCommand c;
        c.set_type(BaseCommand::FLOW);
        c.mutable_flow()->set_consumer_id(consumerId);
        c.mutable_flow()->set_messagepermits(permits);
        return c;
    }

    static BaseCommand subscribeCmd(const std::string& topic, const std::string& subscription,
                                    std::uint64_t consumerId, std::uint64_t requestId,
                                    std::optional<pulsar::proto::Schema> schema = std::nullopt, bool durable = true) {
        BaseCommand c;
        c.set_type(BaseCommand::SUBSCRIBE);
        auto* s = c.mutable_subscribe();
        s->set_topic(topic);
        s->set_subscription(subscription);
        s->set_subtype(pulsar::proto::CommandSubscribe::Shared);
        s->set_consumer_id(consumerId);
        s->set_request_id(requestId);
        s->set_consumer_name("consumer-" + std::to_string(consumerId));
        s->set_durable(durable);
        if (schema) *s->mutable_schema() = *schema;
        return c;
    }

    BaseCommand subscribe(const std::string& topic, const std::string& subscription, std::uint64_t consumerId,
                          std::optional<pulsar::proto::Schema> schema = std::nullopt, bool durable = true) {
        return one(subscribeCmd(topic, subscription, consumerId, nextRequest_++, std::move(schema), durable));
    }

    BaseCommand closeProducer(std::uint64_t producerId) {
        BaseCommand c;
        c.set_type(BaseCommand::CLOSE_PRODUCER);
        c.mutable_close_producer()->set_producer_id(producerId);
        c.mutable_close_producer()->set_request_id(nextRequest_++);
        return one(c);
    }

    BaseCommand closeConsumer(std::uint64_t consumerId) {
        BaseCommand c;
        c.set_type(BaseCommand::CLOSE_CONSUMER);
        c.mutable_close_consumer()->set_consumer_id(consumerId);
        c.mutable_close_consumer()->set_request_id(nextRequest_++);
        return one(c);
    }

    /// One SEND with a `bytes`-byte payload.
    BaseCommand publish(std::uint64_t producerId, std::uint64_t sequenceId, std::size_t bytes = 16) {
        BaseCommand c;
        c.set_type(BaseCommand::SEND);
        c.mutable_send()->set_producer_id(producerId);
        c.mutable_send()->set_sequence_id(sequenceId);
        pulsar::proto::MessageMetadata meta;
        meta.set_producer_name("p");
        meta.set_sequence_id(sequenceId);
        meta.set_publish_time(1);
        auto frames = sendPayload(c, meta, std::string(bytes, 'x'));
        lastCount_ = frames.size();
        return frames.size() == 1 ? frames.front() : BaseCommand{};
    }

    std::uint64_t nextRequestId() const { return nextRequest_; }
    std::uint64_t takeRequestId() { return nextRequest_++; }

    /// Hands `cmd` to ServerCnx without running the scheduler (to observe
    /// pending states); returns the frames sent synchronously.
    std::vector<BaseCommand> deliverOnly(const BaseCommand& cmd, std::optional<std::string>* refusal = nullptr) {
        sent_.clear();
        auto r = cnx_->receive(wire::encodeFrame(cmd));
        if (refusal) *refusal = r;
        return decodeAll();
    }
    /// Runs the scheduler until idle; returns the frames sent meanwhile.
    std::vector<BaseCommand> runPending() {
        sent_.clear();
        fixture_.scheduler.runUntilIdle();
        return decodeAll();
    }
    /// The frames the broker sent since the last call that collected them
    /// (e.g. while another client's call ran the scheduler).
    std::vector<BaseCommand> received() { return decodeAll(); }
    /// The whole frames (metadata and payload of MESSAGE frames included)
    /// the broker sent since the last call that collected them.
    std::vector<wire::Frame> receivedFrames() {
        std::vector<wire::Frame> out;
        for (const auto& f : sent_) {
            std::string error;
            if (auto decoded = wire::decodeFrame(f, &error)) out.push_back(std::move(*decoded));
        }
        sent_.clear();
        return out;
    }
    /// Raw frames sent since the last call that collected them.
    std::size_t rawSentCount() const { return sent_.size(); }

private:
    std::vector<BaseCommand> decodeAll() {
        std::vector<BaseCommand> out;
        for (const auto& f : sent_) {
            std::string error;
            auto decoded = wire::decodeFrame(f, &error);
            if (decoded) out.push_back(decoded->command);
        }
        sent_.clear();
        return out;
    }

    BrokerFixture& fixture_;
    std::vector<std::string> sent_;
    std::unique_ptr<ServerCnx> cnx_;
    std::uint64_t nextRequest_ = 1;
    std::size_t lastCount_ = 0;
};

}  // namespace cnx::testing
