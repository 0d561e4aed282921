// `cnxsim run --shard K/N` (issue 12): the "K/N" parser, the round-robin
// selection over the run list (every run in exactly one shard, shards within
// one run of each other), the run list's order, and the CLI's closing line,
// --version and the combinations it refuses.

#include <catch2/catch.hpp>

#include <algorithm>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "broker_model/profile/profile.h"
#include "issue7_test_support.h"
#include "sim/run/runner.h"
#include "sim/run/shard.h"

namespace {

using cnx::sim::Shard;

std::string parseError(const std::string& text) {
    std::string error;
    auto shard = cnx::sim::parseShard(text, &error);
    CHECK_FALSE(shard.has_value());
    return error;
}

// Two documents: the first on two versions, the second on one.
const char* const kThreeRuns =
    "name: first doc\n"
    "broker:\n"
    "  version: [\"3.0\", \"2.10\"]\n"
    "steps:\n"
    "  - producer: { topic: a, name: p1, schema: STRING }\n"
    "    expect: ok\n"
    "---\n"
    "name: second doc\n"
    "broker:\n"
    "  version: [\"4.0\"]\n"
    "steps:\n"
    "  - producer: { topic: b, name: p1, schema: STRING }\n"
    "    expect: ok\n";

// The PASS/FAIL lines of a run's output, in order.
std::vector<std::string> runLines(const std::string& out) {
    std::vector<std::string> lines;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);)
        if (line.starts_with("PASS") || line.starts_with("FAIL")) lines.push_back(line);
    return lines;
}

// The last two lines of a run's output.
std::pair<std::string, std::string> closingLines(const std::string& out) {
    std::vector<std::string> lines;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    REQUIRE(lines.size() >= 2);
    return {lines[lines.size() - 2], lines.back()};
}

}  // namespace

TEST_CASE("parseShard reads K/N with 1 <= K <= N <= 1000", "[shard]") {
    auto s = cnx::sim::parseShard("2/3");
    REQUIRE(s.has_value());
    CHECK(s->index == 2);
    CHECK(s->count == 3);
    auto one = cnx::sim::parseShard("1/1");
    REQUIRE(one.has_value());
    CHECK((one->index == 1 && one->count == 1));
    auto last = cnx::sim::parseShard("1000/1000");
    REQUIRE(last.has_value());
    CHECK(last->index == 1000);
    CHECK(cnx::sim::to_string(*s) == "2/3");
}

TEST_CASE("parseShard refuses K out of 1..N, N out of 1..1000 and text that is not K/N", "[shard]") {
    CHECK_THAT(parseError("0/3"), Catch::Contains("needs 1 <= K <= N") && Catch::Contains("(got '0/3')"));
    CHECK_THAT(parseError("4/3"), Catch::Contains("needs 1 <= K <= N"));
    CHECK_THAT(parseError("1/0"), Catch::Contains("needs 1 <= N <= 1000"));
    CHECK_THAT(parseError("0/0"), Catch::Contains("needs 1 <= N <= 1000"));
    CHECK_THAT(parseError("1/1001"), Catch::Contains("needs 1 <= N <= 1000"));
    CHECK_THAT(parseError("1/99999999999999999999"), Catch::Contains("needs 1 <= N <= 1000"));
    CHECK_THAT(parseError("3"), Catch::Contains("--shard takes K/N, e.g. 2/3"));
    CHECK_THAT(parseError(""), Catch::Contains("--shard takes K/N"));
    for (const char* bad : {"a/b", "1/b", "a/3", "-1/3", "+1/3", "1/+3", " 1/3", "1/3 ", "1.0/3", "1/3/3", "/3", "1/"})
        CHECK_THAT(parseError(bad), Catch::Contains("two whole numbers"));
    CHECK(cnx::sim::parseShard("1/3", nullptr).has_value());
    CHECK_FALSE(cnx::sim::parseShard("4/3", nullptr).has_value());
}

TEST_CASE("the shards of a list take every entry exactly once, round-robin and balanced", "[shard]") {
    for (int n = 1; n <= 7; ++n) {
        for (std::size_t total = 0; total <= 30; ++total) {
            std::vector<std::size_t> all(total);
            for (std::size_t i = 0; i < total; ++i) all[i] = i;
            std::vector<int> times(total, 0);
            std::size_t smallest = total, largest = 0;
            for (int k = 1; k <= n; ++k) {
                Shard shard{k, n};
                auto part = cnx::sim::selectShard(all, shard);
                CHECK(part.size() == cnx::sim::shardSize(total, shard));
                smallest = std::min(smallest, part.size());
                largest = std::max(largest, part.size());
                for (std::size_t j = 0; j < part.size(); ++j) {
                    // Round-robin: the j-th entry of shard k is entry (k-1) + j*n.
                    CHECK(part[j] == static_cast<std::size_t>(k - 1) + j * static_cast<std::size_t>(n));
                    ++times[part[j]];
                }
            }
            INFO("total " << total << ", " << n << " shards");
            CHECK(largest - smallest <= 1);
            CHECK(std::all_of(times.begin(), times.end(), [](int t) { return t == 1; }));
        }
    }
}

TEST_CASE("a shard past the list's end is empty", "[shard]") {
    std::vector<int> three{10, 20, 30};
    CHECK(cnx::sim::selectShard(three, Shard{4, 5}).empty());
    CHECK(cnx::sim::shardSize(3, Shard{5, 5}) == 0);
    CHECK(cnx::sim::selectShard(three, Shard{3, 5}) == std::vector<int>{30});
    CHECK(cnx::sim::selectShard(three, Shard{1, 1}) == three);
}

TEST_CASE("planRuns lists each scenario's versions in list order, or only --version", "[shard]") {
    std::pair<std::string, cnx::sim::Scenario> a{"a.yaml", {}}, b{"b.yaml", {}}, c{"c.yaml", {}};
    a.second.brokerVersions = {"3.0", "2.10"};
    b.second.brokerVersions = {"4.0"};  // c: no list, the newest profile's line
    std::vector<const std::pair<std::string, cnx::sim::Scenario>*> selected{&a, &b, &c};
    auto plan = cnx::sim::planRuns(selected, std::nullopt);
    REQUIRE(plan.size() == 4);
    CHECK((plan[0].entry == &a && plan[0].version == "3.0"));
    CHECK((plan[1].entry == &a && plan[1].version == "2.10"));
    CHECK((plan[2].entry == &b && plan[2].version == "4.0"));
    CHECK((plan[3].entry == &c && plan[3].version == cnx::sim::versionsOf(c.second).front()));
    auto only = cnx::sim::planRuns(selected, std::string("2.9"));
    REQUIRE(only.size() == 3);
    for (std::size_t i = 0; i < only.size(); ++i) {
        CHECK(only[i].entry == selected[i]);
        CHECK(only[i].version == "2.9");
    }
}

TEST_CASE("run --shard runs its part of the run list and says which shard ran", "[shard][cli]") {
    issue7::TempDir dir;
    auto file = (dir / "runs.yaml").string();
    issue7::writeText(file, kThreeRuns);
    auto whole = issue7::cli({"run", file});
    REQUIRE(whole.status == 0);
    auto all = runLines(whole.out);
    REQUIRE(all.size() == 3);
    CHECK_THAT(all[0], Catch::EndsWith("first doc [3.0]"));
    CHECK_THAT(all[1], Catch::EndsWith("first doc [2.10]"));
    CHECK_THAT(all[2], Catch::EndsWith("second doc [4.0]"));
    CHECK(closingLines(whole.out).first.find("shard") == std::string::npos);

    auto first = issue7::cli({"run", file, "--shard", "1/2"});
    INFO(first.out << first.err);
    CHECK(first.status == 0);
    CHECK(runLines(first.out) == std::vector<std::string>{all[0], all[2]});
    CHECK(closingLines(first.out) == std::pair<std::string, std::string>{"shard 1/2: 2 of 3 runs", "2 passed, 0 failed"});

    auto second = issue7::cli({"run", file, "--shard=2/2"});
    CHECK(second.status == 0);
    CHECK(runLines(second.out) == std::vector<std::string>{all[1]});
    CHECK(closingLines(second.out) == std::pair<std::string, std::string>{"shard 2/2: 1 of 3 runs", "1 passed, 0 failed"});
}

TEST_CASE("a shard with no run passes and says so", "[shard][cli]") {
    issue7::TempDir dir;
    auto file = (dir / "runs.yaml").string();
    issue7::writeText(file, kThreeRuns);
    auto r = issue7::cli({"run", file, "--shard", "4/5", "--junit", (dir / "j.xml").string()});
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    CHECK(runLines(r.out).empty());
    CHECK(closingLines(r.out) ==
          std::pair<std::string, std::string>{"shard 4/5: 0 of 3 runs (nothing to run in this shard)", "0 passed, 0 failed"});
    CHECK_THAT(issue7::readText(dir / "j.xml"), Catch::Contains("tests=\"0\""));
}

TEST_CASE("run --version runs each scenario on that release only", "[shard][cli]") {
    issue7::TempDir dir;
    auto file = (dir / "runs.yaml").string();
    issue7::writeText(file, kThreeRuns);
    auto r = issue7::cli({"run", file, "--version", "2.11"});
    INFO(r.out << r.err);
    CHECK(r.status == 0);
    auto lines = runLines(r.out);
    REQUIRE(lines.size() == 2);
    CHECK_THAT(lines[0], Catch::EndsWith("first doc [2.11]"));
    CHECK_THAT(lines[1], Catch::EndsWith("second doc [2.11]"));
    // With --shard the split is over the --version runs.
    auto sharded = issue7::cli({"run", file, "--version", "2.11", "--shard", "2/2"});
    CHECK(runLines(sharded.out) == std::vector<std::string>{lines[1]});
    CHECK(closingLines(sharded.out).first == "shard 2/2: 1 of 2 runs");
}

TEST_CASE("run --version refuses a release no profile models, with the profile lookup's message", "[shard][cli]") {
    std::string error;
    REQUIRE(cnx::profileFor("9.9", &error) == nullptr);
    auto r = issue7::cli({"run", "--version", "9.9"});
    CHECK(r.status == 2);
    CHECK(r.err == "cnxsim run: --version: " + error + "\n");
    auto bad = issue7::cli({"run", "--version", "latest"});
    CHECK(bad.status == 2);
    CHECK_THAT(bad.err, Catch::Contains("'latest' is not a Pulsar release number"));
}

TEST_CASE("run --shard with a bad value and --accept with --shard or --version exit 2", "[shard][cli]") {
    for (const char* bad : {"0/3", "4/3", "a/b", "3"}) {
        auto r = issue7::cli({"run", "--shard", bad});
        INFO(bad);
        CHECK(r.status == 2);
        CHECK_THAT(r.err, Catch::StartsWith("cnxsim run: --shard") && Catch::Contains(std::string("(got '") + bad + "')"));
        CHECK(r.out.empty());
    }
    issue7::TempDir dir;
    auto file = (dir / "runs.yaml").string();
    issue7::writeText(file, kThreeRuns);
    auto a = issue7::cli({"run", file, "--accept", "--shard", "1/2"});
    CHECK(a.status == 2);
    CHECK_THAT(a.err, Catch::Contains("--accept cannot be combined with --shard"));
    auto b = issue7::cli({"run", file, "--accept=all", "--version", "3.0"});
    CHECK(b.status == 2);
    CHECK_THAT(b.err, Catch::Contains("--accept cannot be combined with --version"));
    CHECK(issue7::readText(file) == kThreeRuns);
}
