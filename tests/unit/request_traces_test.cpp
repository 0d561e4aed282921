// The decision traces a connection keeps (ServerCnx::trace / takeTrace): the
// newest kKeptTraces requests', so a long-lived connection's memory stays
// bounded, and a trace handed over is no longer kept.

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "model_test_support.h"

using cnx::ServerCnx;
using cnx::testing::BaseCommand;
using cnx::testing::BrokerFixture;
using cnx::testing::TestClient;

TEST_CASE("a connection keeps the traces of its newest requests, and a taken trace is gone", "[traces]") {
    BrokerFixture f;
    TestClient c(f);
    REQUIRE(c.connect().type() == BaseCommand::CONNECTED);
    std::vector<std::uint64_t> rids;
    auto open = [&](std::uint64_t producerId) {
        rids.push_back(c.nextRequestId());
        REQUIRE(c.producer("persistent://public/default/t" + std::to_string(producerId % 3), producerId).type() ==
                BaseCommand::PRODUCER_SUCCESS);
    };
    for (std::uint64_t id = 1; id <= ServerCnx::kKeptTraces + 5; ++id) open(id);
    for (std::size_t k = 0; k < rids.size(); ++k) {
        CAPTURE(k);
        CHECK(c.cnx().trace(rids[k])->entries().empty() == (k < 5));  // the five oldest are dropped
    }

    const auto last = rids.back();
    auto taken = c.cnx().takeTrace(last);
    CHECK_FALSE(taken->entries().empty());
    CHECK(c.cnx().trace(last)->entries().empty());
    CHECK(c.cnx().takeTrace(last)->entries().empty());
    CHECK_FALSE(c.cnx().trace(rids[rids.size() - 2])->entries().empty());

    // A taken trace still holds its place among the kept ones until it is the
    // oldest: one more request drops exactly one more of the oldest.
    open(ServerCnx::kKeptTraces + 6);
    CHECK(c.cnx().trace(rids[5])->entries().empty());
    CHECK_FALSE(c.cnx().trace(rids[6])->entries().empty());
    CHECK_FALSE(c.cnx().trace(rids.back())->entries().empty());
}
