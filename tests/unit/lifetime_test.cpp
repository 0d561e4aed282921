// Lifetimes across the scheduler seam: a continuation must never reach an
// object that went away before it ran. Regression for the use after free in
// `Topic::notIdle` (a SUBSCRIBE with a schema pending in the scheduler, then
// `Broker::unload`, then the scheduler runs the continuation on the freed
// topic). Run under AddressSanitizer, a raw pointer here is a test failure.

#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "model_test_support.h"

namespace {

using cnx::testing::BaseCommand;
using cnx::testing::BrokerFixture;
using cnx::testing::TestClient;
using cnx::testing::wireSchema;
using pulsar::proto::Schema;

const std::string kTopic = "persistent://public/default/lifetime";

Schema avroUser() { return wireSchema(Schema::Avro, cnx::testing::kUserV1Avro); }

/// The only ERROR among `frames`, or a default command when there is none.
BaseCommand onlyError(const std::vector<BaseCommand>& frames) {
    for (const auto& f : frames)
        if (f.type() == BaseCommand::ERROR) return f;
    return {};
}

}  // namespace

TEST_CASE("a topic unloaded while a SUBSCRIBE continuation is pending stays alive, fenced",
          "[lifetime][scheduler]") {
    BrokerFixture f;
    TestClient c(f);
    REQUIRE(c.connect().type() == BaseCommand::CONNECTED);
    auto sent = c.deliverOnly(TestClient::subscribeCmd(kTopic, "sub", 1, c.takeRequestId(), avroUser()));
    REQUIRE(sent.empty());
    REQUIRE(f.scheduler.pending() == 1);  // "schema lookup", holding the topic

    f.broker.unload(*cnx::TopicName::parse(kTopic));
    REQUIRE(f.broker.findTopic(*cnx::TopicName::parse(kTopic)) == nullptr);

    auto frames = c.runPending();
    auto err = onlyError(frames);
    // PersistentTopic.internalSubscribe on a fenced topic: TopicFencedException -> ServiceNotReady.
    CHECK(err.type() == BaseCommand::ERROR);
    CHECK(err.error().error() == pulsar::proto::ServiceNotReady);
    CHECK(err.error().message() == "Topic is temporarily unavailable");
    // The client retries on a freshly loaded topic, which admits it.
    auto again = c.subscribe(kTopic, "sub", 2, avroUser());
    CHECK(again.type() == BaseCommand::SUCCESS);
}

TEST_CASE("a topic unloaded while a PRODUCER continuation is pending refuses the late attach",
          "[lifetime][scheduler]") {
    BrokerFixture f;
    TestClient c(f);
    REQUIRE(c.connect().type() == BaseCommand::CONNECTED);
    auto sent = c.deliverOnly(TestClient::producerCmd(kTopic, 1, c.takeRequestId(), "p1", avroUser()));
    REQUIRE(sent.empty());
    REQUIRE(f.scheduler.pending() >= 1);

    f.broker.unload(*cnx::TopicName::parse(kTopic));
    auto err = onlyError(c.runPending());
    CHECK(err.error().error() == pulsar::proto::ServiceNotReady);
    CHECK(err.error().message() ==
          "org.apache.pulsar.broker.service.BrokerServiceException$TopicFencedException: Topic is temporarily unavailable");
}

TEST_CASE("a producer without schema pending across a broker restart goes with its connection, never run on a freed topic",
          "[lifetime][scheduler]") {
    BrokerFixture f;
    TestClient c(f);
    REQUIRE(c.connect().type() == BaseCommand::CONNECTED);
    c.deliverOnly(TestClient::producerCmd(kTopic, 1, c.takeRequestId(), "p1"));
    REQUIRE(f.scheduler.pending() == 1);
    REQUIRE(f.broker.connections().size() == 1);
    f.broker.restart(f.profile);  // the broker drops every connection
    CHECK(c.cnx().closed());
    CHECK(f.broker.connections().size() == 0);
    CHECK(c.runPending().empty());  // the continuation ran and did nothing: no answer on a dropped connection
    CHECK(f.scheduler.pending() == 0);
}

TEST_CASE("continuations still pending when the broker goes away are dropped, never run", "[lifetime][scheduler]") {
    cnx::BehaviourProfile profile = cnx::newestProfile();
    cnx::sim::SimScheduler scheduler;
    auto broker = std::make_unique<cnx::Broker>(profile, scheduler);
    int frames = 0;
    {
        cnx::ServerCnx cnx(*broker, [&](std::string) { ++frames; });
        BaseCommand connect;
        connect.set_type(BaseCommand::CONNECT);
        connect.mutable_connect()->set_client_version("test");
        connect.mutable_connect()->set_protocol_version(21);
        REQUIRE_FALSE(cnx.receive(cnx::wire::encodeFrame(connect)));
        REQUIRE_FALSE(cnx.receive(
            cnx::wire::encodeFrame(TestClient::subscribeCmd(kTopic, "sub", 1, 1, avroUser()))));
    }
    REQUIRE(scheduler.pending() == 1);
    broker.reset();
    CHECK(scheduler.pending() == 0);
    CHECK(scheduler.runUntilIdle() == 0);
    CHECK(frames == 1);  // CONNECTED only
}
