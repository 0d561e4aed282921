// perVersionYaml and rootMessage (issue 7 item 1): the per-version map
// `--accept` writes has one key per run of equal outcomes, bounds written as
// the line where that still separates the runs; messages are cut to a short
// stable root.

#include <catch2/catch.hpp>

#include "sim/accept/accept_outcomes.h"

namespace {

using namespace cnx::sim;
using cnx::ReleaseVersion;

VersionOutcome at(const std::string& release, const std::string& written, const std::string& yaml) {
    return {*ReleaseVersion::parse(release), written, yaml};
}

}  // namespace

TEST_CASE("equal outcomes on every version are one value", "[accept][issue7]") {
    CHECK(perVersionYaml({at("2.10.6", "2.10", "ok"), at("4.2.0", "4.2", "ok")}) == "ok");
}

TEST_CASE("ranges follow release order whatever the order of the runs", "[accept][issue7]") {
    CHECK(perVersionYaml({at("4.2.0", "4.2", "B"), at("2.10.6", "2.10", "A"), at("3.0.12", "3.0", "B")}) ==
          "{ \"<3.0\": A, \">=3.0\": B }");
}

TEST_CASE("a bound is the exact release when the line would not separate the runs", "[accept][issue7]") {
    // 3.0.5 (A) and 3.0.12 (B, written "3.0"): "<3.0" would not cover 3.0.5.
    CHECK(perVersionYaml({at("3.0.5", "3.0.5", "A"), at("3.0.12", "3.0", "B")}) == "{ \"<3.0.12\": A, \">=3.0.12\": B }");
    CHECK(perVersionYaml({at("3.0.5", "3.0.5", "A"), at("3.0.6", "3.0.6", "B")}) == "{ \"<3.0.6\": A, \">=3.0.6\": B }");
}

TEST_CASE("a release listed twice counts once", "[accept][issue7]") {
    CHECK(perVersionYaml({at("2.10.6", "2.10", "A"), at("2.10.6", "2.10.6", "A"), at("4.2.0", "4.2", "B")}) ==
          "{ \"<4.2\": A, \">=4.2\": B }");
}

TEST_CASE("root messages drop wrapping and exception classes and embedded schemas", "[accept][issue7]") {
    CHECK(rootMessage("org.apache.pulsar.broker.service.schema.exceptions.IncompatibleSchemaException: "
                      "Incompatible primitive schema: exists schema type STRING, new schema type INT32 caused by "
                      "org.apache.pulsar.broker.service.schema.exceptions.IncompatibleSchemaException: Incompatible") ==
          "Incompatible primitive schema: exists schema type STRING, new schema type INT32");
    CHECK(rootMessage("x.y.IncompatibleSchemaException: Error during check: org.apache.avro.SchemaValidationException: "
                      "Unable to read schema: \n{\n \"type\": \"record\"}") == "Unable to read schema:");
    CHECK(rootMessage("Topic does not have schema to check") == "Topic does not have schema to check");
    CHECK(rootMessage("") == "");
    CHECK(rootMessage("{\"type\":\"record\"}").empty());
    std::string longText(200, 'a');
    for (std::size_t i = 10; i < longText.size(); i += 11) longText[i] = ' ';
    auto cut = rootMessage(longText);
    CHECK(cut.size() <= 120);
    CHECK(cut.size() > 100);
    CHECK(longText.find(cut) == 0);
}
