// The idle-topic rule (reference §3.5, `addSchemaIfIdleOrCheckCompatible`)
// on persistent and non-persistent topics, driven the way the runner drives
// it: encoded CONNECT / PRODUCER / SUBSCRIBE / SEND / CLOSE_* frames into
// ServerCnx, decoded answers out. A few cases call Topic directly.

#include <catch2/catch.hpp>

#include <string>

#include "model_test_support.h"

namespace {

using cnx::SchemaType;
using cnx::testing::BaseCommand;
using cnx::testing::BrokerFixture;
using cnx::testing::TestClient;
using cnx::testing::wireSchema;
using pulsar::proto::Schema;

Schema avroUser() { return wireSchema(Schema::Avro, cnx::testing::kUserV1Avro); }
Schema autoConsume() { return wireSchema(Schema::AutoConsume, "", "AutoConsume"); }

const char* const kActiveTopicAvro =
    "Failed to add schema to an active topic with empty(BYTES) schema: new schema type AVRO";

bool isSuccess(const BaseCommand& c) { return c.type() == BaseCommand::SUCCESS; }

std::string describe(const BaseCommand& c) {
    if (c.type() == BaseCommand::ERROR)
        return "ERROR " + pulsar::proto::ServerError_Name(c.error().error()) + ": " + c.error().message();
    return BaseCommand::Type_Name(c.type());
}

/// Both topic domains of §3.5 (they share one schema id, so each test uses a fresh broker).
#define ANY_DOMAIN_TOPIC() \
    GENERATE(as<std::string>{}, "persistent://public/default/idle", "non-persistent://public/default/idle")

std::size_t versionsOf(BrokerFixture& f, const std::string& topic) {
    return f.broker.registry().history(cnx::TopicName::parse(topic)->schemaId()).size();
}

bool idleNow(BrokerFixture& f, const std::string& topic, std::string* why = nullptr) {
    auto* t = f.broker.findTopic(*cnx::TopicName::parse(topic));
    REQUIRE(t != nullptr);
    return t->isIdleForSchema(why);
}

}  // namespace

TEST_CASE("§3.5 idle topic: no schema, producers, consumers or data -> the consumer's schema is registered",
          "[idle][ref-3.5]") {
    auto topic = ANY_DOMAIN_TOPIC();
    BrokerFixture f;
    TestClient c(f);
    REQUIRE(c.connect().type() == BaseCommand::CONNECTED);
    auto r = c.subscribe(topic, "sub", 1, avroUser());
    INFO(describe(r));
    REQUIRE(isSuccess(r));
    CHECK(versionsOf(f, topic) == 1);
    auto latest = f.broker.registry().latest(cnx::TopicName::parse(topic)->schemaId());
    REQUIRE(latest.has_value());
    CHECK(latest->schema.type == SchemaType::AVRO);
    // The trace records the inputs of the decision.
    bool sawIdle = false;
    for (const auto& e : c.cnx().trace(r.success().request_id())->entries())
        sawIdle |= e.section == "§3.5" && e.detail.find("hasSchema=false") != std::string::npos;
    CHECK(sawIdle);
}

TEST_CASE("§3.5 a producer without schema makes the topic not idle", "[idle][ref-3.5]") {
    auto topic = ANY_DOMAIN_TOPIC();
    BrokerFixture f;
    TestClient c(f);
    c.connect();
    auto p = c.producer(topic, 1, "app-producer");
    REQUIRE(p.type() == BaseCommand::PRODUCER_SUCCESS);
    CHECK(p.producer_success().schema_version().empty());  // §1.3 empty version
    CHECK_FALSE(idleNow(f, topic));

    auto r = c.subscribe(topic, "sub", 1, avroUser());
    REQUIRE(r.type() == BaseCommand::ERROR);
    CHECK(r.error().error() == pulsar::proto::IncompatibleSchema);
    CHECK(r.error().message() == kActiveTopicAvro);  // §3.5 #22974 wording, root message only (§2.1)
    CHECK(versionsOf(f, topic) == 0);

    SECTION("closing the producer makes the topic idle again") {
        REQUIRE(isSuccess(c.closeProducer(1)));
        CHECK(idleNow(f, topic));
        CHECK(isSuccess(c.subscribe(topic, "sub", 2, avroUser())));
        CHECK(versionsOf(f, topic) == 1);
    }
    SECTION("dropping the connection detaches the producer") {
        c.cnx().close();
        TestClient other(f);
        other.connect();
        CHECK(isSuccess(other.subscribe(topic, "sub", 1, avroUser())));
    }
}

TEST_CASE("§3.5/§2.2 a consumer without schema (recorded NONE) makes the topic not idle", "[idle][ref-3.5][ref-2.2]") {
    auto topic = ANY_DOMAIN_TOPIC();
    BrokerFixture f;
    TestClient c(f);
    c.connect();
    REQUIRE(isSuccess(c.subscribe(topic, "plain", 1)));
    const auto& subs = f.broker.findTopic(*cnx::TopicName::parse(topic))->subscriptions();
    REQUIRE(subs.count("plain") == 1);
    REQUIRE(subs.at("plain").consumers.size() == 1);
    CHECK(subs.at("plain").consumers[0].schemaType == SchemaType::NONE);

    std::string why;
    CHECK_FALSE(idleNow(f, topic, &why));
    CHECK_THAT(why, Catch::Contains("consumers(non-AUTO_CONSUME)=1"));
    auto r = c.subscribe(topic, "typed", 2, avroUser());
    REQUIRE(r.type() == BaseCommand::ERROR);
    CHECK(r.error().error() == pulsar::proto::IncompatibleSchema);
    CHECK(r.error().message() == kActiveTopicAvro);
}

TEST_CASE("§3.5/§2.3 an AUTO_CONSUME consumer does not block the idle rule (PIP-236, 3.0+)", "[idle][ref-3.5][ref-2.3]") {
    auto topic = ANY_DOMAIN_TOPIC();
    BrokerFixture f;
    TestClient c(f);
    REQUIRE(c.connect(21).connected().protocol_version() == 21);
    REQUIRE(isSuccess(c.subscribe(topic, "auto", 1, autoConsume())));
    const auto& subs = f.broker.findTopic(*cnx::TopicName::parse(topic))->subscriptions();
    REQUIRE(subs.at("auto").consumers.size() == 1);
    CHECK(subs.at("auto").consumers[0].schemaType == SchemaType::AUTO_CONSUME);
    CHECK(versionsOf(f, topic) == 0);  // AUTO_CONSUME skips the schema step entirely
    CHECK(idleNow(f, topic));
    CHECK(isSuccess(c.subscribe(topic, "typed", 2, avroUser())));  // #17354 / #19113 fixed
    CHECK(versionsOf(f, topic) == 1);
}

TEST_CASE("§3.5 with idleIgnoresAutoConsumeConsumers off, an AUTO_CONSUME consumer counts (#17354)",
          "[idle][ref-3.5][ref-2.3]") {
    auto topic = ANY_DOMAIN_TOPIC();
    auto profile = cnx::newestProfile();
    profile.idleIgnoresAutoConsumeConsumers = false;
    BrokerFixture f(profile);
    TestClient c(f);
    c.connect();
    REQUIRE(isSuccess(c.subscribe(topic, "auto", 1, autoConsume())));
    CHECK_FALSE(idleNow(f, topic));
    auto r = c.subscribe(topic, "typed", 2, avroUser());
    REQUIRE(r.type() == BaseCommand::ERROR);
    CHECK(r.error().error() == pulsar::proto::IncompatibleSchema);
    CHECK(r.error().message() == kActiveTopicAvro);
}

TEST_CASE("§3.5 replicator producers (`pulsar.repl.` prefix) are ignored on persistent topics only (#20888)",
          "[idle][ref-3.5]") {
    BrokerFixture f;
    TestClient c(f);
    c.connect();

    SECTION("persistent: idle, the typed consumer registers") {
        const std::string topic = "persistent://public/default/geo";
        REQUIRE(c.producer(topic, 1, "pulsar.repl.cluster-b").type() == BaseCommand::PRODUCER_SUCCESS);
        std::string why;
        CHECK(idleNow(f, topic, &why));
        CHECK_THAT(why, Catch::Contains("userProducers=0"));
        CHECK(isSuccess(c.subscribe(topic, "sub", 1, avroUser())));
        CHECK(versionsOf(f, topic) == 1);
    }
    SECTION("persistent: a name that merely resembles the prefix is a user producer") {
        const std::string topic = "persistent://public/default/geo";
        REQUIRE(c.producer(topic, 1, "pulsar.replicator").type() == BaseCommand::PRODUCER_SUCCESS);
        CHECK_FALSE(idleNow(f, topic));
    }
    SECTION("persistent: the prefix and its dot alone make a replicator; the prefix without it, a user producer") {
        const std::pair<const char*, bool> names[] = {{"pulsar.repl.", true}, {"pulsar.repl", false}};
        std::uint64_t id = 0;
        for (const auto& [name, replicator] : names) {
            INFO(name);
            const std::string topic = "persistent://public/default/geo-" + std::to_string(++id);
            REQUIRE(c.producer(topic, id, name).type() == BaseCommand::PRODUCER_SUCCESS);
            CHECK(idleNow(f, topic) == replicator);
        }
    }
    SECTION("persistent: the prefix comes from broker config replicatorPrefix") {
        REQUIRE_FALSE(f.broker.policies().broker.set("replicatorPrefix", "geo").has_value());
        const std::string topic = "persistent://public/default/geo";
        REQUIRE(c.producer(topic, 1, "geo.cluster-b").type() == BaseCommand::PRODUCER_SUCCESS);
        CHECK(idleNow(f, topic));
    }
    SECTION("non-persistent: any producer counts") {
        const std::string topic = "non-persistent://public/default/geo";
        REQUIRE(c.producer(topic, 1, "pulsar.repl.cluster-b").type() == BaseCommand::PRODUCER_SUCCESS);
        CHECK_FALSE(idleNow(f, topic));
        auto r = c.subscribe(topic, "sub", 1, avroUser());
        REQUIRE(r.type() == BaseCommand::ERROR);
        CHECK(r.error().message() == kActiveTopicAvro);
    }
}

TEST_CASE("§3.5 published data makes the topic not idle (ledger size / messages added)", "[idle][ref-3.5]") {
    auto topic = ANY_DOMAIN_TOPIC();
    BrokerFixture f;
    TestClient c(f);
    c.connect();
    REQUIRE(c.producer(topic, 1, "writer").type() == BaseCommand::PRODUCER_SUCCESS);
    auto receipt = c.publish(1, 0, 32);
    REQUIRE(receipt.type() == BaseCommand::SEND_RECEIPT);
    REQUIRE(isSuccess(c.closeProducer(1)));

    std::string why;
    CHECK_FALSE(idleNow(f, topic, &why));
    bool persistent = topic.starts_with("persistent://");
    CHECK_THAT(why, Catch::Contains(persistent ? "ledgerSize=" : "messagesAdded=1"));
    CHECK_THAT(why, !Catch::Contains(persistent ? "ledgerSize=0" : "messagesAdded=0"));
    if (persistent) {
        const auto* ledger = f.broker.findLedger(*cnx::TopicName::parse(topic));
        REQUIRE(ledger != nullptr);
        CHECK(ledger->retainedBytes > 0);
    }
    auto r = c.subscribe(topic, "sub", 1, avroUser());
    REQUIRE(r.type() == BaseCommand::ERROR);
    CHECK(r.error().error() == pulsar::proto::IncompatibleSchema);
    CHECK(r.error().message() == kActiveTopicAvro);
}

TEST_CASE("§3.5 a topic with a schema is not idle: the consumer is checked, nothing is registered",
          "[idle][ref-3.5][ref-4.7]") {
    auto topic = ANY_DOMAIN_TOPIC();
    BrokerFixture f;
    TestClient c(f);
    c.connect();
    auto p = c.producer(topic, 1, "typed", avroUser());
    REQUIRE(p.type() == BaseCommand::PRODUCER_SUCCESS);
    REQUIRE(isSuccess(c.closeProducer(1)));
    std::string why;
    CHECK_FALSE(idleNow(f, topic, &why));
    CHECK_THAT(why, Catch::Contains("hasSchema=true"));
    CHECK(isSuccess(c.subscribe(topic, "sub", 1, avroUser())));
    CHECK(versionsOf(f, topic) == 1);
    auto r = c.subscribe(topic, "sub2", 2, wireSchema(Schema::String));
    REQUIRE(r.type() == BaseCommand::ERROR);
    CHECK(r.error().message() == "Incompatible schema: exists schema type AVRO, new schema type STRING");
}

TEST_CASE("§3.5/§4.8 idle topic with auto-update disabled: the consumer's schema cannot be created",
          "[idle][ref-3.5][ref-4.8]") {
    BrokerFixture f;
    REQUIRE_FALSE(f.broker.policies().broker.set("isAllowAutoUpdateSchemaEnabled", "false").has_value());
    TestClient c(f);
    c.connect();
    auto r = c.subscribe("persistent://public/default/locked", "sub", 1, avroUser());
    REQUIRE(r.type() == BaseCommand::ERROR);
    CHECK(r.error().error() == pulsar::proto::IncompatibleSchema);
    CHECK(r.error().message() == "Schema not found and schema auto updating is disabled.");
}

TEST_CASE("§3.5 (2.4.0-2.7.1 rule) a durable subscription without consumers makes the topic not idle (#7728)",
          "[idle][ref-3.5]") {
    const std::string topic = "persistent://public/default/orders";
    auto scenario = [&](const cnx::BehaviourProfile& profile) {
        BrokerFixture f(profile);
        TestClient c(f);
        c.connect();
        REQUIRE(isSuccess(c.subscribe(topic, "durable-sub", 1)));
        REQUIRE(isSuccess(c.closeConsumer(1)));
        REQUIRE(f.broker.findTopic(*cnx::TopicName::parse(topic))->hasSubscription("durable-sub"));
        return c.subscribe(topic, "typed", 2, avroUser());
    };
    SECTION("activeUsageOrSubscriptions: not idle -> refused") {
        auto old = cnx::newestProfile();
        old.idleRule = cnx::IdleRule::activeUsageOrSubscriptions;
        auto r = scenario(old);
        REQUIRE(r.type() == BaseCommand::ERROR);
        CHECK(r.error().error() == pulsar::proto::IncompatibleSchema);
        CHECK(r.error().message() == kActiveTopicAvro);
    }
    SECTION("newest (producersOrConnectedConsumers, #9853): idle -> registered") {
        auto r = scenario(cnx::newestProfile());
        INFO(describe(r));
        CHECK(isSuccess(r));
    }
}

TEST_CASE("§3.5 activeUsageOrSubscriptions: a non-durable subscription goes with its consumer", "[idle][ref-3.5]") {
    auto old = cnx::newestProfile();
    old.idleRule = cnx::IdleRule::activeUsageOrSubscriptions;
    BrokerFixture f(old);
    TestClient c(f);
    c.connect();
    const std::string topic = "persistent://public/default/readers";
    REQUIRE(isSuccess(c.subscribe(topic, "reader-1", 1, std::nullopt, /*durable=*/false)));
    CHECK_FALSE(idleNow(f, topic));  // usage count 1
    REQUIRE(isSuccess(c.closeConsumer(1)));
    CHECK(idleNow(f, topic));
}

TEST_CASE("§3.5 Topic::addSchemaIfIdleOrCheckCompatible called directly", "[idle][ref-3.5]") {
    auto topicText = ANY_DOMAIN_TOPIC();
    BrokerFixture f;
    auto name = *cnx::TopicName::parse(topicText);
    auto topic = f.broker.loadTopic(name, true);
    REQUIRE(topic != nullptr);
    const cnx::SchemaData avro{SchemaType::AVRO, cnx::testing::kUserV1Avro, {}};

    auto run = [&](const cnx::SchemaData& s) {
        bool called = false;
        std::optional<cnx::BrokerError> out;
        topic->addSchemaIfIdleOrCheckCompatible(s, std::make_shared<cnx::Trace>(), [&](std::optional<cnx::BrokerError> e) {
            called = true;
            out = std::move(e);
        });
        CHECK_FALSE(called);  // posted, never inline (scheduler seam)
        f.scheduler.runUntilIdle();
        REQUIRE(called);
        return out;
    };

    SECTION("idle -> registers") {
        CHECK_FALSE(run(avro).has_value());
        CHECK(topic->hasSchema());
    }
    SECTION("a user producer attached -> NotExistSchema converted to the active-topic text") {
        cnx::AttachedProducer p;
        p.name = "app";
        p.connectionId = 77;
        p.producerId = 1;
        REQUIRE_FALSE(topic->addProducer(p).has_value());
        auto e = run(avro);
        REQUIRE(e.has_value());
        CHECK(e->code() == pulsar::proto::IncompatibleSchema);
        CHECK(e->message == kActiveTopicAvro);
        CHECK(e->exceptionClass() == cnx::compat::exception_class::kIncompatibleSchema);
        CHECK_FALSE(topic->hasSchema());
    }
    SECTION("ALWAYS_COMPATIBLE on a non-idle topic without schema accepts without registering (§4.7 #12721)") {
        cnx::AttachedProducer p;
        p.name = "app";
        p.connectionId = 77;
        p.producerId = 1;
        REQUIRE_FALSE(topic->addProducer(p).has_value());
        REQUIRE_FALSE(f.broker.policies().broker.set("schemaCompatibilityStrategy", "ALWAYS_COMPATIBLE").has_value());
        CHECK_FALSE(run(avro).has_value());
        CHECK_FALSE(topic->hasSchema());
    }
}
