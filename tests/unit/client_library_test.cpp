// What each modelled client library puts in the schema field (reference §1.7).
#include <catch2/catch.hpp>

#include "sim/clients/client_library.h"

namespace {

cnx::sim::ClientModel clientOf(const std::string& library) {
    cnx::sim::ClientDecl decl;
    decl.library = library;
    return cnx::sim::makeClientModel(decl, "3.0");
}

cnx::SchemaData bytesWithProperties() {
    cnx::SchemaData s;
    s.type = cnx::SchemaType::BYTES;
    s.properties["owner"] = "billing";
    return s;
}

}  // namespace

TEST_CASE("the Go client sends its bytes schema as proto None with its properties", "[client-library]") {
    auto go = clientOf("go");
    CHECK(go.library == cnx::sim::ClientLibrary::go);
    CHECK(go.protocolVersion == 20);
    CHECK(go.clientVersion == "Pulsar-Go-3.0");
    auto field = cnx::sim::producerSchemaField(go, bytesWithProperties());
    REQUIRE(field.has_value());
    CHECK(field->type() == pulsar::proto::Schema::None);
    REQUIRE(field->properties_size() == 1);
    CHECK(field->properties(0).key() == "owner");
    CHECK(field->properties(0).value() == "billing");
    cnx::SchemaData none;
    none.type = cnx::SchemaType::NONE;
    auto noneField = cnx::sim::producerSchemaField(go, none);
    REQUIRE(noneField.has_value());
    CHECK(noneField->type() == pulsar::proto::Schema::None);
}

TEST_CASE("the Java and C++ clients omit a bytes schema, the Go client sends typed schemas as Java does",
          "[client-library]") {
    CHECK_FALSE(cnx::sim::producerSchemaField(clientOf("java"), bytesWithProperties()).has_value());
    CHECK_FALSE(cnx::sim::producerSchemaField(clientOf("cpp"), bytesWithProperties()).has_value());
    cnx::SchemaData str;
    str.type = cnx::SchemaType::STRING;
    auto go = cnx::sim::producerSchemaField(clientOf("go"), str);
    auto java = cnx::sim::producerSchemaField(clientOf("java"), str);
    REQUIRE(go.has_value());
    REQUIRE(java.has_value());
    CHECK(go->type() == pulsar::proto::Schema::String);
    CHECK(go->SerializeAsString() == java->SerializeAsString());
    CHECK(cnx::sim::libraryName(cnx::sim::ClientLibrary::go) == "go");
}
