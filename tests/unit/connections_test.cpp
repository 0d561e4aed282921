// The broker owns its connections (broker_model/broker/connection_registry.h):
// a topic unload, a forced topic deletion and a broker restart close producers
// and consumers through the broker, which sends CLOSE_PRODUCER / CLOSE_CONSUMER
// to the clients concerned, and the modelled clients reconnect on those frames.

#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "broker_model/admin/admin_api.h"
#include "broker_model/profile/profile.h"
#include "sim/clients/client_session.h"
#include "sim/run/scenario_run.h"
#include "sim/runtime/sim_scheduler.h"
#include "sim/scenario/loader.h"

namespace {

using cnx::sim::ClientSession;
using pulsar::proto::BaseCommand;

const std::string kOrders = "persistent://public/default/orders";
const std::string kOther = "persistent://public/default/other";

cnx::sim::ClientModel javaClient() {
    cnx::sim::ClientDecl decl;
    return cnx::sim::makeClientModel(decl, "4.2");
}

BaseCommand producerCmd(const std::string& topic, std::uint64_t producerId, std::uint64_t requestId) {
    BaseCommand c;
    c.set_type(BaseCommand::PRODUCER);
    c.mutable_producer()->set_topic(topic);
    c.mutable_producer()->set_producer_id(producerId);
    c.mutable_producer()->set_request_id(requestId);
    c.mutable_producer()->set_producer_name("p-" + std::to_string(producerId));
    auto* schema = c.mutable_producer()->mutable_schema();
    schema->set_name("s");
    schema->set_type(pulsar::proto::Schema::String);
    schema->set_schema_data("");
    return c;
}

BaseCommand subscribeCmd(const std::string& topic, std::uint64_t consumerId, std::uint64_t requestId) {
    BaseCommand c;
    c.set_type(BaseCommand::SUBSCRIBE);
    auto* s = c.mutable_subscribe();
    s->set_topic(topic);
    s->set_subscription("sub");
    s->set_subtype(pulsar::proto::CommandSubscribe::Shared);
    s->set_consumer_id(consumerId);
    s->set_request_id(requestId);
    s->set_consumer_name("c-" + std::to_string(consumerId));
    return c;
}

struct Fixture {
    cnx::sim::SimScheduler scheduler;
    cnx::Broker broker{cnx::newestProfile(), scheduler};
    cnx::AdminApi admin{broker};
};

}  // namespace

TEST_CASE("unload sends CLOSE_PRODUCER / CLOSE_CONSUMER to the topic's clients only, and their reconnects are admitted",
          "[connections]") {
    Fixture f;
    ClientSession a(f.broker, javaClient()), b(f.broker, javaClient());
    CHECK(f.broker.connections().size() == 2);
    a.send(producerCmd(kOrders, 1, 10));
    a.send(producerCmd(kOther, 2, 11));
    b.send(subscribeCmd(kOrders, 5, 20));
    f.scheduler.runUntilIdle();
    REQUIRE(a.takeResponse(10)->type() == BaseCommand::PRODUCER_SUCCESS);
    REQUIRE(a.takeResponse(11)->type() == BaseCommand::PRODUCER_SUCCESS);
    REQUIRE(b.takeResponse(20)->type() == BaseCommand::SUCCESS);

    auto r = f.admin.unloadTopic(*cnx::TopicName::parse(kOrders));
    CHECK(r.status == 204);
    auto closedA = a.takeBrokerCloses();
    auto closedB = b.takeBrokerCloses();
    REQUIRE(closedA.size() == 1);  // producer 1 on orders, not producer 2 on other
    CHECK(closedA[0].producer);
    CHECK(closedA[0].id == 1);
    REQUIRE(closedB.size() == 1);
    CHECK_FALSE(closedB[0].producer);
    CHECK(closedB[0].id == 5);
    CHECK_FALSE(a.disconnected());  // the connections stay
    CHECK(f.broker.findTopic(*cnx::TopicName::parse(kOrders)) == nullptr);

    // The clients reconnect with the same ids on the same connections.
    a.send(producerCmd(kOrders, 1, 12));
    b.send(subscribeCmd(kOrders, 5, 21));
    f.scheduler.runUntilIdle();
    auto again = a.takeResponse(12);
    REQUIRE(again);
    CHECK(again->type() == BaseCommand::PRODUCER_SUCCESS);
    CHECK(again->producer_success().schema_version() == cnx::wire::encodeSchemaVersion(0));
    auto sub = b.takeResponse(21);
    REQUIRE(sub);
    CHECK(sub->type() == BaseCommand::SUCCESS);
    const auto* orders = f.broker.findTopic(*cnx::TopicName::parse(kOrders));
    REQUIRE(orders);
    CHECK(orders->producers().size() == 1);
    CHECK(orders->consumerCount() == 1);
}

TEST_CASE("a restart closes every producer and consumer, then drops every connection", "[connections]") {
    Fixture f;
    ClientSession a(f.broker, javaClient());
    a.send(producerCmd(kOrders, 1, 10));
    a.send(subscribeCmd(kOther, 3, 11));
    f.scheduler.runUntilIdle();
    f.broker.restart(cnx::newestProfile());
    auto closed = a.takeBrokerCloses();
    REQUIRE(closed.size() == 2);
    CHECK(closed[0].producer);
    CHECK_FALSE(closed[1].producer);
    CHECK(a.disconnected());
    CHECK(f.broker.connections().size() == 0);
}

TEST_CASE("a forced topic deletion closes the topic's producers through the broker", "[connections]") {
    Fixture f;
    ClientSession a(f.broker, javaClient());
    a.send(producerCmd(kOrders, 1, 10));
    f.scheduler.runUntilIdle();
    auto refused = f.admin.deleteTopic(*cnx::TopicName::parse(kOrders), /*force=*/false, false);
    CHECK(refused.status == 412);
    CHECK(a.takeBrokerCloses().empty());
    auto r = f.admin.deleteTopic(*cnx::TopicName::parse(kOrders), /*force=*/true, false);
    CHECK(r.status == 204);
    auto closed = a.takeBrokerCloses();
    REQUIRE(closed.size() == 1);
    CHECK(closed[0].id == 1);
}

TEST_CASE("an unload step reconnects exactly the handles the CLOSE frames named", "[connections]") {
    auto loaded = cnx::sim::loadScenarioText(R"(
name: unload reconnects
steps:
  - producer: { topic: orders, name: p1, schema: STRING }
  - subscribe: { topic: orders, subscription: s, consumer: c1, schema: STRING }
  - producer: { topic: other, name: p2, schema: STRING }
  - unload: orders
)",
                                             "u.yaml", ".");
    REQUIRE(loaded.errors.empty());
    const auto& scenario = loaded.scenarios.at(0);
    cnx::sim::TopicNameCache topicNames;
    cnx::sim::ScenarioRun run(scenario, cnx::newestProfile(), "4.2", topicNames);
    REQUIRE_FALSE(run.setUp());
    for (std::size_t i = 0; i < 3; ++i) REQUIRE(run.run(scenario.steps[i]).ok);
    auto o = run.run(scenario.steps[3]);
    CHECK(o.ok);
    CHECK(o.perClient.size() == 2);  // p1 and c1; p2 is on another topic
    CHECK(o.perClient.count("p1") == 1);
    CHECK(o.perClient.count("c1") == 1);
    CHECK(o.perClient.at("p1").ok);
    CHECK(o.perClient.at("c1").ok);
    const auto& loaded_ = run.broker().loadedTopics();
    REQUIRE(loaded_.count(kOrders) == 1);
    CHECK(loaded_.at(kOrders)->producers().size() == 1);
    CHECK(loaded_.at(kOrders)->consumerCount() == 1);
}

TEST_CASE("a broker destroyed with connections open lets go of them, and they close after it without reaching it",
          "[connections]") {
    cnx::sim::SimScheduler scheduler;
    auto broker = std::make_unique<cnx::Broker>(cnx::newestProfile(), scheduler);
    ClientSession a(*broker, javaClient()), b(*broker, javaClient());
    a.send(producerCmd(kOrders, 1, 10));
    b.send(subscribeCmd(kOrders, 5, 20));
    scheduler.runUntilIdle();
    REQUIRE(a.takeResponse(10)->type() == BaseCommand::PRODUCER_SUCCESS);
    REQUIRE(b.takeResponse(20)->type() == BaseCommand::SUCCESS);
    a.send(producerCmd(kOther, 2, 11));  // still pending: dropped with the broker
    broker.reset();
    CHECK(a.takeBrokerCloses().empty());  // a broker going away tells its clients nothing
    CHECK(b.takeBrokerCloses().empty());
    CHECK_FALSE(a.takeResponse(11));
}  // the sessions and their connections go after the broker: ASan reports any use of it
