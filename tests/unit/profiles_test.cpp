// Behaviour profiles (reference §9.1 timeline, §10): a release carries a fix
// from the first release of its line that lists it, or from an earlier line's
// .0 release; versions resolve to exact releases; switches remember their PR.

#include <catch2/catch.hpp>

#include <thread>

#include "broker_model/core/release_version.h"
#include "broker_model/profile/profile.h"
#include "broker_model/profile/protocol.h"
#include "sim/clients/client_library.h"

using namespace cnx;

namespace {

const BehaviourProfile& at(const char* version) {
    std::string error;
    const auto* p = profileFor(version, &error);
    INFO(error);
    REQUIRE(p != nullptr);
    return *p;
}

}  // namespace

TEST_CASE("§10 a release line resolves to its newest real release", "[profiles]") {
    // Issue 8 item 5: the newest patch of each line in the release notes.
    CHECK(at("2.10").release.toString() == "2.10.6");
    CHECK(at("3.0").release.toString() == "3.0.17");
    CHECK(at("3.3").release.toString() == "3.3.9");
    CHECK(at("4.0").release.toString() == "4.0.14");
    CHECK(at("4.1").release.toString() == "4.1.3");
    CHECK(at("4.2").release.toString() == "4.2.5");
    CHECK(at("5.0").release.toString() == "5.0.0");  // the line after 4.2; there is no 4.3
    CHECK(at("2.10.4").release.toString() == "2.10.4");
    CHECK(&newestProfile() == &at("5.0"));
    CHECK(&at("2.10") == &at("2.10.6"));  // built once, shared
}

TEST_CASE("§10 unknown or malformed versions are refused with the modelled range", "[profiles]") {
    std::string error;
    CHECK(profileFor("2.10.7", &error) == nullptr);
    CHECK_THAT(error, Catch::Contains("no behaviour profile models Pulsar 2.10.7"));
    CHECK_THAT(error, Catch::Contains("2.10.0 - 2.10.6"));
    CHECK(profileFor("1.22", &error) == nullptr);
    CHECK(profileFor("4.3", &error) == nullptr);
    CHECK(profileFor("ten", &error) == nullptr);
    CHECK_THAT(error, Catch::Contains("is not a Pulsar release number"));
}

TEST_CASE("issue 40 item 4: a release name is digits and dots only, no sign", "[profiles][issue40]") {
    for (const char* bad : {"3.0.-1", "3.-0", "-3.0", "+3.0", "3.+0", "3.0.+1", "3.0. 1", "3.0.1x", "3..0", "3.0."}) {
        INFO(bad);
        CHECK_FALSE(ReleaseVersion::parse(bad).has_value());
        std::string error;
        CHECK(profileFor(bad, &error) == nullptr);
        CHECK_THAT(error, Catch::Contains("is not a Pulsar release number"));
    }
    CHECK(ReleaseVersion::parse("3.0.17").has_value());
    CHECK(ReleaseVersion::parse("3.0")->patch == -1);
}

TEST_CASE("§9.1 patch-level fixes: a line carries a fix from the patch that lists it", "[profiles]") {
    // #20888 (2.10.6, 2.11.3, 3.0.2, 3.1.0): persistent idle rule ignores replicators.
    CHECK_FALSE(at("2.10.5").idleIgnoresReplicatorProducersPersistent);
    CHECK(at("2.10.6").idleIgnoresReplicatorProducersPersistent);
    CHECK_FALSE(at("2.11.2").idleIgnoresReplicatorProducersPersistent);
    CHECK(at("2.11.3").idleIgnoresReplicatorProducersPersistent);
    CHECK_FALSE(at("3.0.1").idleIgnoresReplicatorProducersPersistent);
    CHECK(at("3.0.2").idleIgnoresReplicatorProducersPersistent);
    CHECK(at("3.1.0").idleIgnoresReplicatorProducersPersistent);
    CHECK(at("3.3.0").idleIgnoresReplicatorProducersPersistent);  // later lines inherit 3.1.0
    CHECK_FALSE(at("2.9.5").idleIgnoresReplicatorProducersPersistent);  // never backported to 2.9
}

TEST_CASE("§9.1 a fix listed only on some lines skips the others (#22720 not in 3.2.x or 3.3.x)", "[profiles]") {
    // #22720: 3.0.6, 4.0.0 (the 3.2.4 notes list #22974 only).
    CHECK_FALSE(at("3.0.5").checkWithLatestPassesWithoutSchema);
    CHECK(at("3.0.6").checkWithLatestPassesWithoutSchema);
    CHECK_FALSE(at("3.1.3").checkWithLatestPassesWithoutSchema);
    CHECK_FALSE(at("3.2.3").checkWithLatestPassesWithoutSchema);
    CHECK_FALSE(at("3.2.4").checkWithLatestPassesWithoutSchema);
    CHECK_FALSE(at("3.3.9").checkWithLatestPassesWithoutSchema);
    CHECK(at("4.0.0").checkWithLatestPassesWithoutSchema);
    // #22974 did reach 3.3.1.
    CHECK_FALSE(at("3.3.0").activeTopicEmptySchemaMessage);
    CHECK(at("3.3.1").activeTopicEmptySchemaMessage);
}

TEST_CASE("§9.1 release placements settled from the release notes (issue 8 item 4)", "[profiles]") {
    // #14809: 2.7.5 through #15754, 2.8.4 through #15759.
    CHECK_FALSE(at("2.7.4").systemTopicsAlwaysAutoUpdate);
    CHECK(at("2.7.5").systemTopicsAlwaysAutoUpdate);
    CHECK_FALSE(at("2.8.3").systemTopicsAlwaysAutoUpdate);
    CHECK(at("2.8.4").systemTopicsAlwaysAutoUpdate);
    // #20932: 3.1.2 (pulsar-3.1.2.md), not 3.1.3.
    CHECK_FALSE(at("3.1.1").getSchemaNotFoundIncludesTopic);
    CHECK(at("3.1.2").getSchemaNotFoundIncludesTopic);
    // #12598: 2.9.0 (pulsar-2.9.0.md), not 2.9.2.
    CHECK(at("2.9.0").systemTopicStrategy);
    // #12786: 2.8.3, not 2.8.2.
    CHECK(at("2.8.2").autoUpdateResolution == cnx::AutoUpdateResolution::namespaceOnly);
    CHECK(at("2.8.3").autoUpdateResolution == cnx::AutoUpdateResolution::namespaceThenBroker);
    // Avro 1.11.3 (#21341) also on 2.10.6, 2.11.4 and 3.0.2.
    CHECK(at("2.10.5").checkOptions.avro == cnx::compat::AvroVersion::v1_10_2);
    CHECK(at("2.10.6").checkOptions.avro == cnx::compat::AvroVersion::v1_11_3);
    CHECK(at("3.0.2").checkOptions.avro == cnx::compat::AvroVersion::v1_11_3);
}

TEST_CASE("§3.5 §2.3 PIP-236 starts at 3.0.0, the idle rule change at 2.7.2", "[profiles]") {
    CHECK_FALSE(at("2.11").autoConsumeSkipsSchema);
    CHECK(at("2.11").maxProtocolVersion == 19);
    CHECK(at("3.0.0").autoConsumeSkipsSchema);
    CHECK(at("3.0.0").idleIgnoresAutoConsumeConsumers);
    CHECK(at("3.0.0").maxProtocolVersion == 21);
    CHECK(at("2.7.1").idleRule == IdleRule::activeUsageOrSubscriptions);
    CHECK(at("2.7.2").idleRule == IdleRule::producersOrConnectedConsumers);
    CHECK(at("2.8.0").idleRule == IdleRule::producersOrConnectedConsumers);
}

TEST_CASE("§5.3 strategy resolution orders per release", "[profiles]") {
    CHECK(at("2.4").strategyResolution == StrategyResolution::namespaceAutoUpdateOnly);
    CHECK(at("2.5").strategyResolution == StrategyResolution::namespaceThenAutoUpdate);
    CHECK(at("2.8.1").strategyResolution == StrategyResolution::namespaceThenAutoUpdate);
    CHECK(at("2.8.2").strategyResolution == StrategyResolution::namespaceBrokerAutoUpdate);
    CHECK(at("2.8.2").brokerStrategyDefault == CompatibilityStrategy::UNDEFINED);
    CHECK(at("2.8.3").strategyResolution == StrategyResolution::namespaceAutoUpdateBroker);
    CHECK(at("2.8.3").brokerStrategyDefault == CompatibilityStrategy::FULL);
    CHECK(at("2.9.1").strategyResolution == StrategyResolution::namespaceBrokerAutoUpdate);
    CHECK(at("2.9.2").strategyResolution == StrategyResolution::namespaceAutoUpdateBroker);
    CHECK(at("2.10.0").strategyResolution == StrategyResolution::hierarchy);
}

TEST_CASE("§1.3 producer-without-schema texts across 2.4, 2.5 and 4.0", "[profiles]") {
    CHECK(at("2.4").producerWithoutSchemaMessage == "Producers cannot connect without a schema to topics with a schema");
    CHECK(at("3.3").producerWithoutSchemaMessage ==
          "Producers cannot connect or send message without a schema to topics with a schema");
    CHECK(at("4.0").producerWithoutSchemaMessage ==
          "Producers cannot connect or send message without a schema to topics with a schemawhen "
          "SchemaValidationEnforced is enabled");
}

TEST_CASE("§6.3 Avro library per release", "[profiles]") {
    using compat::AvroVersion;
    CHECK(at("2.5").checkOptions.avro == AvroVersion::v1_8_2);
    CHECK(at("2.6").checkOptions.avro == AvroVersion::v1_9_1);
    CHECK(at("2.10.5").checkOptions.avro == AvroVersion::v1_10_2);
    CHECK(at("2.10").checkOptions.avro == AvroVersion::v1_11_3);  // #21341 on 2.10.6
    CHECK(at("3.1").checkOptions.avro == AvroVersion::v1_10_2);   // 3.1 line: UNCONFIRMED, kept at 1.10.2
    CHECK(at("3.0.1").checkOptions.avro == AvroVersion::v1_10_2);
    CHECK(at("3.0.6").checkOptions.avro == AvroVersion::v1_11_3);  // #21341 on 3.0.2
    CHECK(at("3.0.7").checkOptions.avro == AvroVersion::v1_11_4);
    CHECK(at("3.2").checkOptions.avro == AvroVersion::v1_11_3);
    CHECK(at("3.3.1").checkOptions.avro == AvroVersion::v1_11_3);
    CHECK(at("3.3.2").checkOptions.avro == AvroVersion::v1_11_4);
    CHECK(at("4.1").checkOptions.avro == AvroVersion::v1_12_0);
    // PIP-464 (4.2.0): JSON definitions must be Avro-format by default.
    CHECK(at("4.1").checkOptions.jsonAllowLegacyJacksonFormat);
    CHECK_FALSE(at("4.2").checkOptions.jsonAllowLegacyJacksonFormat);
}

TEST_CASE("§10 every switch remembers the PR that set it", "[profiles]") {
    const auto& p = at("3.0");
    CHECK_THAT(p.provenance.at("autoConsumeSkipsSchema"), Catch::Contains("#17449"));
    CHECK_THAT(p.provenance.at("idleRule"), Catch::Contains("#9853"));
    CHECK(at("2.4.0").provenance.count("idleRule") == 0);  // the 2.4.0 baseline
    auto a = switchesOf(at("2.10")), b = switchesOf(at("3.0"));
    REQUIRE(a.size() == b.size());
    int differing = 0;
    for (std::size_t i = 0; i < a.size(); ++i) differing += a[i].value != b[i].value ? 1 : 0;
    CHECK(differing >= 8);
}

TEST_CASE("§6.7 #24103: the validator refuses top-level AVRO unions from 3.0.12, 3.3.7, 4.0.5, 4.1.0", "[profiles][ref-6.7]") {
    CHECK_FALSE(at("3.0.11").validatorRefusesAvroTopLevelUnion);
    CHECK(at("3.0.12").validatorRefusesAvroTopLevelUnion);
    CHECK_FALSE(at("3.1").validatorRefusesAvroTopLevelUnion);  // never backported to 3.1 or 3.2
    CHECK_FALSE(at("3.2").validatorRefusesAvroTopLevelUnion);
    CHECK_FALSE(at("3.3.6").validatorRefusesAvroTopLevelUnion);
    CHECK(at("3.3.7").validatorRefusesAvroTopLevelUnion);
    CHECK_FALSE(at("4.0.4").validatorRefusesAvroTopLevelUnion);
    CHECK(at("4.0.5").validatorRefusesAvroTopLevelUnion);
    CHECK(at("4.1.0").validatorRefusesAvroTopLevelUnion);
    CHECK(at("5.0").validatorRefusesAvroTopLevelUnion);  // later lines inherit 4.1.0
    CHECK(at("4.0.5").provenance.at("validatorRefusesAvroTopLevelUnion") == "#24103 §6.7 §7.4");
}

TEST_CASE("§6.3 §6.5 #22720's message texts sit on 3.0.6 and 4.0.0, not 4.2.0 (#25193)", "[profiles][ref-6.3][ref-6.5]") {
    for (const char* before : {"3.0.5", "3.1.3", "3.2.4", "3.3.9", "2.11.4"}) {
        INFO(before);
        CHECK_FALSE(at(before).checkOptions.avroValidationMessageWithStrategy);
        CHECK_FALSE(at(before).checkOptions.protobufNativeRootMessageWithStrategy);
    }
    for (const char* after : {"3.0.6", "3.0", "4.0.0", "4.1", "4.2", "5.0"}) {
        INFO(after);
        CHECK(at(after).checkOptions.avroValidationMessageWithStrategy);
        CHECK(at(after).checkOptions.protobufNativeRootMessageWithStrategy);
        CHECK(at(after).provenance.at("checkOptions.avroValidationMessageWithStrategy").starts_with("#22720 "));
        CHECK(at(after).provenance.at("checkOptions.protobufNativeRootMessageWithStrategy").starts_with("#22720 "));
    }
    // #25193 keeps only the name validator.
    CHECK_FALSE(at("4.1").checkOptions.avroNamesAllowDollar);
    CHECK(at("4.2.0").checkOptions.avroNamesAllowDollar);
}

TEST_CASE("§7.2 #21645/#21632: admin /compatibility and /version convert KEY_VALUE payloads", "[profiles][ref-7.2]") {
    CHECK_FALSE(at("2.9").adminConvertsKeyValuePayload);  // never backported to 2.9
    CHECK_FALSE(at("2.10.5").adminConvertsKeyValuePayload);
    CHECK(at("2.10.6").adminConvertsKeyValuePayload);
    CHECK_FALSE(at("2.11.3").adminConvertsKeyValuePayload);
    CHECK(at("2.11.4").adminConvertsKeyValuePayload);
    CHECK_FALSE(at("3.0.2").adminConvertsKeyValuePayload);
    CHECK(at("3.0.3").adminConvertsKeyValuePayload);
    CHECK_FALSE(at("3.1.2").adminConvertsKeyValuePayload);
    CHECK(at("3.1.3").adminConvertsKeyValuePayload);
    CHECK(at("3.2.0").adminConvertsKeyValuePayload);
    CHECK(at("3.3.0").adminConvertsKeyValuePayload);  // inherits 3.2.0
    CHECK(at("3.0.3").provenance.at("adminConvertsKeyValuePayload") == "#21645, #21632 §7.2 §7.4");
}

TEST_CASE("the client models read the release -> protocol table from the profile fixes", "[profiles][protocol]") {
    // Every modelled broker release speaks what a Java client of the same release advertises.
    for (const auto& p : cnx::allProfiles()) {
        INFO(p.release.toString());
        CHECK(cnx::protocol::protocolVersionOfRelease(p.release) == p.maxProtocolVersion);
    }
    CHECK(cnx::sim::protocolVersionOfRelease("2.3.0") == 14);  // before the first fix
    CHECK(cnx::sim::protocolVersionOfRelease("2.4") == 14);
    CHECK(cnx::sim::protocolVersionOfRelease("2.7.5") == 15);
    CHECK(cnx::sim::protocolVersionOfRelease("2.8") == 17);
    CHECK(cnx::sim::protocolVersionOfRelease("2.11.4") == 19);
    CHECK(cnx::sim::protocolVersionOfRelease("3.0") == 21);
    CHECK(cnx::sim::protocolVersionOfRelease("9.0.0") == cnx::protocol::kNewest);
    CHECK(cnx::sim::protocolVersionOfRelease("not-a-version") == cnx::protocol::kNewest);
    CHECK_FALSE(cnx::protocol::supportsGetOrCreateSchema(14));
    CHECK(cnx::protocol::supportsGetOrCreateSchema(15));
    CHECK_FALSE(cnx::protocol::supportsAutoConsumeSchemaType(19));
    CHECK(cnx::protocol::supportsAutoConsumeSchemaType(21));
}

TEST_CASE("§5.3 #17979: system topics are checked under FULL on 2.9.2 and 2.9.3 only (#13557 on branch-2.9, #17986)",
          "[profiles][ref-5.3]") {
    for (const char* fine : {"2.8.4", "2.9.0", "2.9.1", "2.9.4", "2.9.5", "2.10.0", "2.10", "4.2"}) {
        INFO(fine);
        CHECK_FALSE(at(fine).systemTopicsCheckedUnderFull);
    }
    CHECK(at("2.9.2").systemTopicsCheckedUnderFull);
    CHECK(at("2.9.3").systemTopicsCheckedUnderFull);
    CHECK(at("2.9.2").provenance.at("systemTopicsCheckedUnderFull") == "#13557 (branch-2.9) §5.3");
    CHECK(at("2.9.4").provenance.at("systemTopicsCheckedUnderFull") == "#17986 §5.3");
    // The gap it replaces is gone from every release (it was shown on 2.9.0 and 2.9.1 as well).
    for (const auto& g : knownGaps()) CHECK(g.pr.find("#17986") == std::string_view::npos);
}

TEST_CASE("§3.6 #21075 / #21093: deleting a topic that is not loaded, by release", "[profiles][ref-3.6]") {
    // The schema stays on 3.0.1 and 3.1.0 only.
    for (const char* keeps : {"3.0.1", "3.1.0"}) {
        INFO(keeps);
        CHECK(at(keeps).topicDeleteUnloadedKeepsSchema);
    }
    for (const char* deletes : {"2.11.4", "3.0.0", "3.0.2", "3.0.17", "3.1.1", "3.1.3", "3.2.0", "3.3", "4.2", "5.0"}) {
        INFO(deletes);
        CHECK_FALSE(at(deletes).topicDeleteUnloadedKeepsSchema);
    }
    // Its topic-level policies go from #21093 on (3.0.2, 3.1.1, 3.2.0 and later lines).
    for (const char* keeps : {"2.10", "2.11", "3.0.0", "3.0.1", "3.1.0"}) {
        INFO(keeps);
        CHECK_FALSE(at(keeps).topicDeleteUnloadedDeletesPolicies);
    }
    for (const char* deletes : {"3.0.2", "3.1.1", "3.2.0", "3.3.0", "4.0", "5.0"}) {
        INFO(deletes);
        CHECK(at(deletes).topicDeleteUnloadedDeletesPolicies);
    }
    CHECK(at("3.1.1").provenance.at("topicDeleteUnloadedDeletesPolicies") == "#21093 §3.6");
}

TEST_CASE("§10 every modelled release is in one table, the same from every thread", "[profiles]") {
    for (const auto& line : allProfiles()) {
        const auto& newest = line.release;
        for (int patch = 0; patch <= newest.patch; ++patch) {
            ReleaseVersion r{newest.major, newest.minor, patch};
            const auto* p = profileFor(r.toString());
            REQUIRE(p != nullptr);
            CHECK(p->release == r);
            CHECK(protocol::protocolVersionOfRelease(r) == p->maxProtocolVersion);
            const BehaviourProfile* elsewhere = nullptr;
            std::thread([&] { elsewhere = profileFor(r.toString()); }).join();
            CHECK(elsewhere == p);
        }
        ReleaseVersion past{newest.major, newest.minor, newest.patch + 1};
        CHECK(profileFor(past.toString()) == nullptr);
    }
}
