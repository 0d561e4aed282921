// TopicName: the parts of a parsed name, its partitions, its schema-id and its
// order, which sorted lists of topics follow (reference §3.1).

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "broker_model/core/topic_name.h"
#include "sim/run/topic_name_cache.h"

using cnx::TopicName;

namespace {

TopicName name(const std::string& text) {
    auto t = TopicName::parse(text);
    REQUIRE(t);
    return *t;
}

}  // namespace

TEST_CASE("topic name: the parts, the short forms and the names derived from them", "[topic-name]") {
    auto t = name("persistent://acme/orders/o-partition-12");
    CHECK(t.persistent());
    CHECK(t.tenant() == "acme");
    CHECK(t.namespacePortion() == "orders");
    CHECK(t.localName() == "o-partition-12");
    CHECK(t.namespaceName() == "acme/orders");
    CHECK(t.withoutDomain() == "acme/orders/o-partition-12");
    CHECK(t.partitionIndex() == 12);
    CHECK(t.schemaId() == "acme/orders/o");
    CHECK(t.partitionedBase().toString() == "persistent://acme/orders/o");
    CHECK(t.partitionedBase().partitionIndex() == -1);
    CHECK(t.partition(3).toString() == "persistent://acme/orders/o-partition-3");
    CHECK(t.partition(3).partitionIndex() == 3);

    auto shortName = name("orders");
    CHECK(shortName.toString() == "persistent://public/default/orders");
    CHECK(shortName.tenant() == "public");
    CHECK(shortName.namespacePortion() == "default");
    CHECK(shortName.localName() == "orders");
    CHECK(name("t/n/x").toString() == "persistent://t/n/x");

    auto np = name("non-persistent://t/n/x-partition-0");
    CHECK_FALSE(np.persistent());
    CHECK(np.tenant() == "t");
    CHECK(np.schemaId() == "t/n/x");
    CHECK(np.partitionedBase().toString() == "non-persistent://t/n/x");
    CHECK(np.partition(1).toString() == "non-persistent://t/n/x-partition-1");

    // A suffix without a number is part of the local name, not a partition.
    auto odd = name("t/n/x-partition-y");
    CHECK(odd.partitionIndex() == -1);
    CHECK(odd.schemaId() == "t/n/x-partition-y");
    CHECK(odd.partition(2).toString() == "persistent://t/n/x-partition-y-partition-2");
    CHECK(name("t/n/a/b").localName() == "a/b");

    CHECK(name("__change_events").isSystemTopic());
    CHECK(name("t/__system/x").isSystemTopic());
    CHECK(name("t/n/__transaction_log-partition-2").isSystemTopic());
    CHECK_FALSE(name("t/n/events").isSystemTopic());
}

TEST_CASE("topic name: refused texts carry the broker's wording", "[topic-name]") {
    for (const char* bad : {"", "http://t/n/x", "t/n", "t//x", "t/n/", "t!/n/x", "or ders"}) {
        std::string error;
        CAPTURE(bad);
        CHECK_FALSE(TopicName::parse(bad, &error));
        CHECK(error.starts_with("Invalid topic name: "));
    }
}

TEST_CASE("topic name: equal texts are equal names, ordered by domain, tenant, namespace, local name",
          "[topic-name]") {
    CHECK(name("x") == name("persistent://public/default/x"));
    CHECK(name("x") != name("non-persistent://public/default/x"));
    // Part by part, not by the full text: "a" sorts before "a-b" although
    // "a/" sorts after "a-" ('/' > '-').
    std::vector<TopicName> names;
    for (const char* t : {"persistent://a-b/n/x", "persistent://a/n/x", "non-persistent://z/z/z",
                          "persistent://a/n-1/x", "persistent://a/n/x-partition-1", "persistent://a/n/x-partition-0",
                          "persistent://a/n/w"})
        names.push_back(name(t));
    std::sort(names.begin(), names.end());
    std::vector<std::string> sorted;
    for (const auto& n : names) sorted.push_back(n.toString());
    CHECK(sorted == std::vector<std::string>{"non-persistent://z/z/z", "persistent://a/n/w", "persistent://a/n/x",
                                             "persistent://a/n/x-partition-0", "persistent://a/n/x-partition-1",
                                             "persistent://a/n-1/x", "persistent://a-b/n/x"});
    auto tuple = [](const TopicName& n) {
        return std::tuple(n.persistent(), n.tenant(), n.namespacePortion(), n.localName());
    };
    for (const auto& a : names)
        for (const auto& b : names) CHECK((a < b) == (tuple(a) < tuple(b)));
}

// ServerCnx takes a loaded topic's own name for a command naming it by its
// full text (topicNameOf): that holds because a full name parses to itself.
TEST_CASE("topic name: a name's full text parses back to the same name, part for part", "[topic-name]") {
    for (const char* text : {"orders", "t/n/x", "persistent://acme/orders/o-partition-12", "non-persistent://t/n/x",
                             "t/n/x-partition-y", "t/n/a/b", "persistent://t/n/x-partition-007", "__change_events"}) {
        INFO(text);
        auto first = name(text);
        auto again = name(first.toString());
        CHECK(again == first);
        CHECK(again.toString() == first.toString());
        CHECK(again.persistent() == first.persistent());
        CHECK(again.tenant() == first.tenant());
        CHECK(again.namespacePortion() == first.namespacePortion());
        CHECK(again.localName() == first.localName());
        CHECK(again.partitionIndex() == first.partitionIndex());
        CHECK(again.schemaId() == first.schemaId());
        CHECK(again.isSystemTopic() == first.isSystemTopic());
    }
}

TEST_CASE("a topic-name cache parses a name once, and its owner trims it between runs", "[topic-name]") {
    cnx::sim::TopicNameCache cache;
    const auto& first = cache.parsed("persistent://public/default/orders");
    CHECK(first.toString() == "persistent://public/default/orders");
    CHECK(&cache.parsed("persistent://public/default/orders") == &first);  // one parse, one place
    for (std::size_t i = 0; i < cnx::sim::TopicNameCache::kKept; ++i) cache.parsed("t-" + std::to_string(i));
    CHECK(&cache.parsed("persistent://public/default/orders") == &first);  // no growth moves a name
    cache.trim();
    CHECK(cache.size() == 0);  // past kKept: emptied
    cache.parsed("t");
    cache.trim();
    CHECK(cache.size() == 1);  // under it: kept
}
