// The known-gap table (broker_model/profile/gaps.h, issue 8 item 6): every gap a
// decision can meet has one row, affects the releases its row names, and a
// decision passing through it says `not modelled: #NNNN (...)` instead of
// answering confidently.

#include <catch2/catch.hpp>

#include <set>

#include "broker_model/profile/gaps.h"
#include "broker_model/profile/profile.h"
#include "model_test_support.h"

namespace {

using cnx::Gap;
using cnx::gapAffects;
using cnx::gapInfo;
using cnx::ReleaseVersion;
using cnx::testing::BaseCommand;
using cnx::testing::BrokerFixture;
using cnx::testing::TestClient;

bool affects(Gap g, const char* release) { return gapAffects(gapInfo(g), *ReleaseVersion::parse(release)); }

}  // namespace

TEST_CASE("every triggered gap has exactly one row, and each row names its PR, section and releases", "[gaps]") {
    std::set<Gap> seen;
    for (const auto& g : cnx::knownGaps()) {
        CHECK_FALSE(g.pr.empty());
        CHECK(g.section.starts_with("§"));
        CHECK_FALSE(g.change.empty());
        CHECK_FALSE(g.paths.empty());
        CHECK_FALSE(g.releases.empty());
        if (g.id != Gap::unreachable) CHECK(seen.insert(g.id).second);
    }
    for (auto g : {Gap::replicatorValidationEnforced, Gap::replicatorAutoUpdateDisabled,
                   Gap::getSchemaNotFoundRecycledField, Gap::topicDeleteKeepsTopicPolicies,
                   Gap::partitionedTopicSchemaDeletion, Gap::nonPersistentTopicPoliciesLoad,
                   Gap::keyValueAdminPayloadBeforePip44})
        CHECK(seen.count(g) == 1);
}

TEST_CASE("a gap affects exactly the releases of its row", "[gaps]") {
    // #25012: 3.0.16, 4.0.9, 4.1.3, 4.2.0 carry the change; 3.3 never got it.
    CHECK_FALSE(affects(Gap::replicatorValidationEnforced, "3.0.15"));
    CHECK(affects(Gap::replicatorValidationEnforced, "3.0.16"));
    CHECK_FALSE(affects(Gap::replicatorValidationEnforced, "3.3.9"));
    CHECK_FALSE(affects(Gap::replicatorValidationEnforced, "4.1.2"));
    CHECK(affects(Gap::replicatorValidationEnforced, "4.1.3"));
    CHECK(affects(Gap::replicatorValidationEnforced, "5.0.0"));
    // #22377: only between #20932 and its fix.
    CHECK_FALSE(affects(Gap::getSchemaNotFoundRecycledField, "2.10.5"));
    CHECK(affects(Gap::getSchemaNotFoundRecycledField, "2.10.6"));
    CHECK(affects(Gap::getSchemaNotFoundRecycledField, "3.0.4"));
    CHECK_FALSE(affects(Gap::getSchemaNotFoundRecycledField, "3.0.5"));
    CHECK_FALSE(affects(Gap::getSchemaNotFoundRecycledField, "3.1.1"));
    CHECK(affects(Gap::getSchemaNotFoundRecycledField, "3.1.2"));
    CHECK_FALSE(affects(Gap::getSchemaNotFoundRecycledField, "3.3.0"));
    CHECK_FALSE(affects(Gap::getSchemaNotFoundRecycledField, "4.2.5"));
    // #25461: 5.0 only.
    CHECK_FALSE(affects(Gap::replicatorAutoUpdateDisabled, "4.2.5"));
    CHECK(affects(Gap::replicatorAutoUpdateDisabled, "5.0.0"));
    // The profile carries the triggered gaps of its release.
    const auto& p = *cnx::profileFor("4.0.9");
    CHECK(std::find(p.gaps.begin(), p.gaps.end(), Gap::replicatorValidationEnforced) != p.gaps.end());
}

TEST_CASE("a decision through a gap says not modelled in its trace, the same decision elsewhere does not",
          "[gaps][ref-1.3]") {
    auto run = [](const char* release) {
        BrokerFixture f(*cnx::profileFor(release));
        REQUIRE_FALSE(f.broker.setConfig("isSchemaValidationEnforced", "true"));
        TestClient c(f);
        REQUIRE(c.connect().type() == BaseCommand::CONNECTED);
        const std::string topic = "persistent://public/default/replicated";
        REQUIRE(c.producer(topic, 1, "p", cnx::testing::wireSchema(pulsar::proto::Schema::String)).type() ==
                BaseCommand::PRODUCER_SUCCESS);
        auto rid = c.nextRequestId();
        auto refused = c.producer(topic, 2, "pulsar.repl.cluster-b");
        CHECK(refused.type() == BaseCommand::ERROR);
        return c.cnx().trace(rid)->gaps();
    };
    CHECK(run("4.0.8").empty());
    auto gaps = run("4.0.9");
    REQUIRE(gaps.size() == 1);
    CHECK(gaps.front().starts_with("not modelled: #25012 ("));
}
