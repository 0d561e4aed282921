// Policy resolution (reference §5.3 - §5.6, §7.3, §3.3): the effective
// compatibility strategy hierarchy, the admin strategy, auto-update, schema
// validation enforcement (with the broker flag read once per connection in
// ServerCnx), and the setters' error values.

#include <catch2/catch.hpp>

#include "broker_model/policy/advertised_listeners.h"
#include "broker_model/policy/policy_resolution.h"
#include "model_test_support.h"

namespace {

using cnx::AutoUpdateStrategy;
using cnx::CompatibilityStrategy;
using cnx::PolicyStore;
using cnx::TopicName;
using cnx::testing::BaseCommand;
using cnx::testing::BrokerFixture;
using cnx::testing::TestClient;

TopicName topicName(const char* text) {
    auto t = TopicName::parse(text);
    REQUIRE(t.has_value());
    return *t;
}

const TopicName kTopic = *TopicName::parse("persistent://public/default/orders");
const TopicName kSystemTopic = *TopicName::parse("persistent://public/default/__change_events");

CompatibilityStrategy effective(const PolicyStore& s, const TopicName& t = kTopic) {
    cnx::Trace trace;
    return cnx::effectiveStrategy(cnx::newestProfile(), s, t, &trace);
}
CompatibilityStrategy admin(const PolicyStore& s, const TopicName& t = kTopic) {
    return cnx::adminStrategy(cnx::newestProfile(), s, t, nullptr);
}
bool autoUpdate(const PolicyStore& s, const TopicName& t = kTopic) {
    return cnx::effectiveAutoUpdate(cnx::newestProfile(), s, t, nullptr);
}
bool enforced(const PolicyStore& s, const TopicName& t = kTopic) {
    return cnx::topicValidationEnforced(cnx::newestProfile(), s, t);
}

void setNs(PolicyStore& s, const char* field, std::optional<std::string_view> value) {
    REQUIRE_FALSE(s.namespaces["public/default"].set(field, value).has_value());
}
void setTopic(PolicyStore& s, const char* field, std::optional<std::string_view> value,
              const char* topic = "persistent://public/default/orders") {
    REQUIRE_FALSE(s.topics[topic].set(field, value).has_value());
}

}  // namespace

TEST_CASE("§5.3 effective strategy: topic -> namespace explicit -> namespace auto-update -> broker",
          "[policies][ref-5.3]") {
    PolicyStore s;
    SECTION("nothing set: broker schemaCompatibilityStrategy, default FULL (§5.6)") {
        CHECK(effective(s) == CompatibilityStrategy::FULL);
        REQUIRE_FALSE(s.broker.set("schemaCompatibilityStrategy", "BACKWARD").has_value());
        CHECK(effective(s) == CompatibilityStrategy::BACKWARD);
    }
    SECTION("converted namespace auto-update strategy beats the broker") {
        REQUIRE_FALSE(s.broker.set("schemaCompatibilityStrategy", "BACKWARD").has_value());
        setNs(s, "schema_auto_update_compatibility_strategy", "Forward");
        CHECK(effective(s) == CompatibilityStrategy::FORWARD);
        setNs(s, "schema_auto_update_compatibility_strategy", "AutoUpdateDisabled");
        CHECK(effective(s) == CompatibilityStrategy::ALWAYS_INCOMPATIBLE);  // §5.1 conversion
        setNs(s, "schema_auto_update_compatibility_strategy", "FullTransitive");
        CHECK(effective(s) == CompatibilityStrategy::FULL_TRANSITIVE);
        setNs(s, "schema_auto_update_compatibility_strategy", std::nullopt);  // null = unset (2.8.3+)
        CHECK(effective(s) == CompatibilityStrategy::BACKWARD);
    }
    SECTION("namespace explicit beats the converted auto-update value") {
        setNs(s, "schema_auto_update_compatibility_strategy", "Forward");
        setNs(s, "schema_compatibility_strategy", "BACKWARD_TRANSITIVE");
        CHECK(effective(s) == CompatibilityStrategy::BACKWARD_TRANSITIVE);
        setNs(s, "schema_compatibility_strategy", "UNDEFINED");  // UNDEFINED = not set at this level
        CHECK(effective(s) == CompatibilityStrategy::FORWARD);
    }
    SECTION("topic policy beats the namespace; UNDEFINED there means unset") {
        setNs(s, "schema_compatibility_strategy", "BACKWARD");
        setTopic(s, "schemaCompatibilityStrategy", "FULL_TRANSITIVE");
        CHECK(effective(s) == CompatibilityStrategy::FULL_TRANSITIVE);
        setTopic(s, "schema_compatibility_strategy", "UNDEFINED");
        CHECK(effective(s) == CompatibilityStrategy::BACKWARD);
        setTopic(s, "schemaCompatibilityStrategy", "ALWAYS_COMPATIBLE");
        setTopic(s, "schemaCompatibilityStrategy", std::nullopt);  // removed
        CHECK(effective(s) == CompatibilityStrategy::BACKWARD);
    }
    SECTION("a topic policy applies to every partition of the topic") {
        setTopic(s, "schemaCompatibilityStrategy", "FORWARD");
        CHECK(effective(s, topicName("persistent://public/default/orders-partition-3")) ==
              CompatibilityStrategy::FORWARD);
        CHECK(effective(s, topicName("persistent://public/default/other")) == CompatibilityStrategy::FULL);
    }
    SECTION("topic policies need topicLevelPoliciesEnabled and systemTopicEnabled") {
        setTopic(s, "schemaCompatibilityStrategy", "FORWARD");
        REQUIRE_FALSE(s.broker.set("topicLevelPoliciesEnabled", "false").has_value());
        CHECK(effective(s) == CompatibilityStrategy::FULL);
        REQUIRE_FALSE(s.broker.set("topicLevelPoliciesEnabled", "true").has_value());
        REQUIRE_FALSE(s.broker.set("systemTopicEnabled", "false").has_value());
        CHECK(effective(s) == CompatibilityStrategy::FULL);
    }
    SECTION("namespaces are separate") {
        setNs(s, "schema_compatibility_strategy", "FORWARD");
        CHECK(effective(s, topicName("persistent://other/ns/orders")) == CompatibilityStrategy::FULL);
        CHECK(effective(s, topicName("non-persistent://public/default/orders")) == CompatibilityStrategy::FORWARD);
    }
}

TEST_CASE("§5.3 system topics use systemTopicSchemaCompatibilityStrategy and ignore topic/namespace policies",
          "[policies][ref-5.3]") {
    PolicyStore s;
    CHECK(kSystemTopic.isSystemTopic());
    CHECK(effective(s, kSystemTopic) == CompatibilityStrategy::ALWAYS_COMPATIBLE);  // default (§5.6)
    setNs(s, "schema_compatibility_strategy", "BACKWARD");
    setTopic(s, "schemaCompatibilityStrategy", "FORWARD", "persistent://public/default/__change_events");
    REQUIRE_FALSE(s.broker.set("schemaCompatibilityStrategy", "FULL_TRANSITIVE").has_value());
    CHECK(effective(s, kSystemTopic) == CompatibilityStrategy::ALWAYS_COMPATIBLE);
    REQUIRE_FALSE(s.broker.set("systemTopicSchemaCompatibilityStrategy", "BACKWARD_TRANSITIVE").has_value());
    CHECK(effective(s, kSystemTopic) == CompatibilityStrategy::BACKWARD_TRANSITIVE);
    // An ordinary topic is unaffected by the system-topic key.
    CHECK(effective(s) == CompatibilityStrategy::BACKWARD);
}

TEST_CASE("§7.3 admin strategy: same hierarchy, no system-topic special case", "[policies][ref-7.3]") {
    PolicyStore s;
    CHECK(admin(s) == CompatibilityStrategy::FULL);
    CHECK(admin(s, kSystemTopic) == CompatibilityStrategy::FULL);  // not ALWAYS_COMPATIBLE
    setNs(s, "schema_auto_update_compatibility_strategy", "Backward");
    CHECK(admin(s, kSystemTopic) == CompatibilityStrategy::BACKWARD);
    setNs(s, "schema_compatibility_strategy", "FORWARD");
    CHECK(admin(s) == CompatibilityStrategy::FORWARD);
    CHECK(admin(s, kSystemTopic) == CompatibilityStrategy::FORWARD);
    setTopic(s, "schemaCompatibilityStrategy", "FULL_TRANSITIVE");
    CHECK(admin(s) == CompatibilityStrategy::FULL_TRANSITIVE);
    REQUIRE_FALSE(s.broker.set("systemTopicEnabled", "false").has_value());
    CHECK(admin(s) == CompatibilityStrategy::FORWARD);
}

TEST_CASE("§5.4 effective auto-update: namespace value, else broker, system topics always true",
          "[policies][ref-5.4][ref-3.3]") {
    PolicyStore s;
    CHECK(autoUpdate(s));  // broker default true
    REQUIRE_FALSE(s.broker.set("isAllowAutoUpdateSchemaEnabled", "false").has_value());
    CHECK_FALSE(autoUpdate(s));
    setNs(s, "is_allow_auto_update_schema", "true");
    CHECK(autoUpdate(s));  // namespace overrides the broker
    REQUIRE_FALSE(s.broker.set("isAllowAutoUpdateSchemaEnabled", "true").has_value());
    setNs(s, "is_allow_auto_update_schema", "false");
    CHECK_FALSE(autoUpdate(s));
    CHECK(autoUpdate(s, kSystemTopic));  // #14809
    setNs(s, "is_allow_auto_update_schema", std::nullopt);
    CHECK(autoUpdate(s));
    // There is no topic-level auto-update setting.
    cnx::TopicPolicies tp;
    CHECK(tp.set("is_allow_auto_update_schema", "false").has_value());
}

TEST_CASE("§5.5/§3.7 topic enforcement: topic policy overrides the namespace value", "[policies][ref-5.5]") {
    PolicyStore s;
    CHECK_FALSE(enforced(s));
    setNs(s, "schema_validation_enforced", "true");
    CHECK(enforced(s));
    setTopic(s, "schemaValidationEnforced", "false");
    CHECK_FALSE(enforced(s));  // a topic-level false overrides a namespace true (2.11+)
    setNs(s, "schema_validation_enforced", "false");
    setTopic(s, "schema_validation_enforced", "true");
    CHECK(enforced(s));
    setTopic(s, "schemaValidationEnforced", std::nullopt);
    CHECK_FALSE(enforced(s));
    // The broker flag is not part of the topic value: ServerCnx ORs it in.
    REQUIRE_FALSE(s.broker.set("isSchemaValidationEnforced", "true").has_value());
    CHECK_FALSE(enforced(s));
}

namespace {

/// Registers a STRING schema on `topic` so a later producer without schema meets `hasSchema`.
void registerString(BrokerFixture& f, const std::string& topic) {
    TestClient c(f);
    c.connect();
    auto p = c.producer(topic, 1, "typed", cnx::testing::wireSchema(pulsar::proto::Schema::String));
    REQUIRE(p.type() == BaseCommand::PRODUCER_SUCCESS);
    REQUIRE(c.closeProducer(1).type() == BaseCommand::SUCCESS);
}

const std::string kEnforcedText =
    "org.apache.pulsar.broker.service.schema.exceptions.IncompatibleSchemaException: Producers cannot connect or "
    "send message without a schema to topics with a schemawhen SchemaValidationEnforced is enabled";

}  // namespace

TEST_CASE("§1.3/§5.5 the broker enforcement flag is read once, when the connection is created",
          "[policies][ref-5.5][ref-1.3]") {
    const std::string topic = "persistent://public/default/enforced";
    BrokerFixture f;
    registerString(f, topic);

    SECTION("flag turned on after connecting: that connection still admits producers without schema") {
        TestClient early(f);
        early.connect();
        REQUIRE_FALSE(f.broker.policies().broker.set("isSchemaValidationEnforced", "true").has_value());
        auto ok = early.producer(topic, 1, "plain");
        CHECK(ok.type() == BaseCommand::PRODUCER_SUCCESS);
        CHECK(ok.producer_success().schema_version().empty());

        TestClient late(f);
        late.connect();
        auto refused = late.producer(topic, 1, "plain-2");
        REQUIRE(refused.type() == BaseCommand::ERROR);
        CHECK(refused.error().error() == pulsar::proto::IncompatibleSchema);
        CHECK_THAT(refused.error().message(), Catch::StartsWith(kEnforcedText));
        CHECK(refused.error().message() == kEnforcedText + " caused by " + kEnforcedText);  // §1.5 2.8+ format
    }
    SECTION("flag turned off after connecting: that connection keeps refusing") {
        REQUIRE_FALSE(f.broker.policies().broker.set("isSchemaValidationEnforced", "true").has_value());
        TestClient early(f);
        early.connect();
        REQUIRE_FALSE(f.broker.policies().broker.set("isSchemaValidationEnforced", "false").has_value());
        CHECK(early.producer(topic, 1, "plain").type() == BaseCommand::ERROR);
        TestClient late(f);
        late.connect();
        CHECK(late.producer(topic, 1, "plain").type() == BaseCommand::PRODUCER_SUCCESS);
    }
    SECTION("a topic-level false cannot override the broker flag") {
        REQUIRE_FALSE(f.broker.policies().topics[topic].set("schemaValidationEnforced", "false").has_value());
        REQUIRE_FALSE(f.broker.policies().broker.set("isSchemaValidationEnforced", "true").has_value());
        TestClient c(f);
        c.connect();
        CHECK(c.producer(topic, 1, "plain").type() == BaseCommand::ERROR);
    }
    SECTION("the topic value is read per request (not cached per connection)") {
        TestClient c(f);
        c.connect();
        CHECK(c.producer(topic, 1, "plain").type() == BaseCommand::PRODUCER_SUCCESS);
        REQUIRE_FALSE(
            f.broker.policies().namespaces["public/default"].set("schema_validation_enforced", "true").has_value());
        CHECK(c.producer(topic, 2, "plain-2").type() == BaseCommand::ERROR);
    }
    SECTION("without a schema on the topic, enforcement does not matter") {
        REQUIRE_FALSE(f.broker.policies().broker.set("isSchemaValidationEnforced", "true").has_value());
        TestClient c(f);
        c.connect();
        CHECK(c.producer("persistent://public/default/empty", 1, "plain").type() == BaseCommand::PRODUCER_SUCCESS);
    }
}

TEST_CASE("§5.6 BrokerConfig::set: values and errors", "[policies][ref-5.6]") {
    cnx::BrokerConfig b;
    CHECK(b.isSchemaValidationEnforced == false);
    CHECK(b.schemaCompatibilityStrategy == CompatibilityStrategy::FULL);
    CHECK(b.systemTopicSchemaCompatibilityStrategy == CompatibilityStrategy::ALWAYS_COMPATIBLE);
    CHECK(b.isAllowAutoUpdateSchemaEnabled == true);
    CHECK(b.replicatorPrefix == "pulsar.repl");

    CHECK(b.set("noSuchKey", "1") == std::optional<std::string>("unknown broker configuration key 'noSuchKey'"));
    CHECK(b.set("isSchemaValidationEnforced", "yes") ==
          std::optional<std::string>("isSchemaValidationEnforced expects true or false, got 'yes'"));
    CHECK(b.isSchemaValidationEnforced == false);  // unchanged on error
    CHECK(b.set("schemaCompatibilityStrategy", "FULLY") ==
          std::optional<std::string>("schemaCompatibilityStrategy expects a SchemaCompatibilityStrategy name, got 'FULLY'"));
    CHECK(b.schemaCompatibilityStrategy == CompatibilityStrategy::FULL);
    CHECK(b.set("replicatorPrefix", "").has_value());
    CHECK(b.replicatorPrefix == "pulsar.repl");
    CHECK(b.set("schemaCompatibilityStrategy", "full").has_value());  // Pulsar spelling only

    CHECK_FALSE(b.set("schemaCompatibilityStrategy", "FORWARD_TRANSITIVE").has_value());
    CHECK(b.schemaCompatibilityStrategy == CompatibilityStrategy::FORWARD_TRANSITIVE);
    for (auto key : cnx::BrokerConfig::keys()) {
        INFO(key);
        // Every listed key is accepted by set (with some value of the right form).
        auto e1 = b.set(key, "true");
        auto e2 = b.set(key, "FULL");
        auto e3 = b.set(key, "1024");
        auto e4 = b.set(key, "internal:pulsar://broker:6650");
        auto e5 = b.set(key, "RS256");  // tokenPublicAlg
        CHECK((!e1 || !e2 || !e3 || !e4 || !e5));
    }
    // maxMessageSize: an int a frame length can hold with the 10 KiB padding (issue 41 item 5).
    CHECK(b.set("maxMessageSize", "0").has_value());
    CHECK(b.set("maxMessageSize", "2147473408").has_value());
    CHECK_FALSE(b.set("maxMessageSize", "1024000").has_value());
    CHECK(b.maxMessageSize == 1024000);
    CHECK(cnx::BrokerConfig::isDynamic("isAllowAutoUpdateSchemaEnabled"));
    CHECK_FALSE(cnx::BrokerConfig::isDynamic("isSchemaValidationEnforced"));
}

TEST_CASE("§5.2 NamespacePolicies::set: values, null resets and errors", "[policies][ref-5.2]") {
    cnx::NamespacePolicies ns;
    CHECK(ns.schema_compatibility_strategy == CompatibilityStrategy::UNDEFINED);
    CHECK_FALSE(ns.schema_auto_update_compatibility_strategy.has_value());
    CHECK_FALSE(ns.is_allow_auto_update_schema.has_value());
    CHECK(ns.schema_validation_enforced == false);

    CHECK(ns.set("schema_compatibility", "FULL") ==
          std::optional<std::string>("unknown namespace policy 'schema_compatibility'"));
    CHECK(ns.set("schema_auto_update_compatibility_strategy", "BACKWARD") ==
          std::optional<std::string>(
              "schema_auto_update_compatibility_strategy expects a SchemaAutoUpdateCompatibilityStrategy name, got "
              "'BACKWARD'"));
    CHECK_FALSE(ns.schema_auto_update_compatibility_strategy.has_value());
    CHECK(ns.set("is_allow_auto_update_schema", "1").has_value());
    CHECK_FALSE(ns.is_allow_auto_update_schema.has_value());
    CHECK(ns.set("schema_compatibility_strategy", "Backward").has_value());

    CHECK_FALSE(ns.set("schema_auto_update_compatibility_strategy", "Backward").has_value());
    CHECK(ns.schema_auto_update_compatibility_strategy == AutoUpdateStrategy::Backward);
    CHECK_FALSE(ns.set("is_allow_auto_update_schema", "false").has_value());
    CHECK(ns.is_allow_auto_update_schema == std::optional<bool>(false));
    CHECK_FALSE(ns.set("schema_validation_enforced", "true").has_value());
    CHECK_FALSE(ns.set("schema_compatibility_strategy", "FORWARD").has_value());

    for (auto field : cnx::NamespacePolicies::fields()) CHECK_FALSE(ns.set(field, std::nullopt).has_value());
    CHECK(ns.schema_compatibility_strategy == CompatibilityStrategy::UNDEFINED);
    CHECK_FALSE(ns.schema_auto_update_compatibility_strategy.has_value());
    CHECK_FALSE(ns.is_allow_auto_update_schema.has_value());
    CHECK(ns.schema_validation_enforced == false);
}

TEST_CASE("§5.3/§5.5 TopicPolicies::set: both spellings, null resets and errors", "[policies][ref-5.3][ref-5.5]") {
    cnx::TopicPolicies tp;
    CHECK_FALSE(tp.schemaCompatibilityStrategy.has_value());
    CHECK_FALSE(tp.schemaValidationEnforced.has_value());
    CHECK(tp.set("compatibility", "FULL") == std::optional<std::string>("unknown topic policy 'compatibility'"));
    CHECK(tp.set("schemaCompatibilityStrategy", "SOMETIMES").has_value());
    CHECK_FALSE(tp.schemaCompatibilityStrategy.has_value());
    CHECK(tp.set("schemaValidationEnforced", "maybe").has_value());
    CHECK_FALSE(tp.schemaValidationEnforced.has_value());

    CHECK_FALSE(tp.set("schema_compatibility_strategy", "BACKWARD").has_value());
    CHECK(tp.schemaCompatibilityStrategy == std::optional<CompatibilityStrategy>(CompatibilityStrategy::BACKWARD));
    CHECK_FALSE(tp.set("schemaCompatibilityStrategy", "FORWARD").has_value());
    CHECK(tp.schemaCompatibilityStrategy == std::optional<CompatibilityStrategy>(CompatibilityStrategy::FORWARD));
    CHECK_FALSE(tp.set("schema_validation_enforced", "true").has_value());
    CHECK(tp.schemaValidationEnforced == std::optional<bool>(true));
    CHECK_FALSE(tp.set("schemaCompatibilityStrategy", std::nullopt).has_value());
    CHECK_FALSE(tp.set("schemaValidationEnforced", std::nullopt).has_value());
    CHECK_FALSE(tp.schemaCompatibilityStrategy.has_value());
    CHECK_FALSE(tp.schemaValidationEnforced.has_value());
}

TEST_CASE("advertisedListeners parsed as MultipleListenerValidator reads them", "[policies][issue41]") {
    auto ok = cnx::parseAdvertisedListeners("internal:pulsar://a:6650, external:pulsar://b:1,external:pulsar+ssl://b:2", "");
    REQUIRE(std::holds_alternative<cnx::AdvertisedListeners>(ok));
    const auto& l = std::get<cnx::AdvertisedListeners>(ok);
    CHECK(l.internal == "internal");  // the first name given, not the first in order
    CHECK(l.byName.at("internal").brokerUrl == std::optional<std::string>("pulsar://a:6650"));
    CHECK(l.byName.at("external").brokerUrlTls == std::optional<std::string>("pulsar+ssl://b:2"));
    CHECK(std::get<cnx::AdvertisedListeners>(cnx::parseAdvertisedListeners("z:pulsar://a:1,a:pulsar://b:2", "")).internal == "z");
    CHECK(cnx::advertisedListenersProblem("", "") == std::nullopt);
    CHECK(cnx::advertisedListenersProblem("pulsar", "").value_or("").find("do not contain listener name") != std::string::npos);
    CHECK(cnx::advertisedListenersProblem("a:pulsar://h:1,a:pulsar://h:2", "") ==
          std::optional<std::string>("there are redundant configure for listener `a`"));
    CHECK(cnx::advertisedListenersProblem("a:pulsar://h:1", "b") ==
          std::optional<std::string>("the `advertisedListeners` configure do not contain `internalListenerName` entry"));
}
