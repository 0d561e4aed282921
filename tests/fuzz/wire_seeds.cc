// Writes the seed corpus of the wire fuzz target: one file per kind of
// client request, and a few sessions of several frames (the target reads its
// input as a byte stream, cut into chunks), all as a real client would encode them.
//
//   fuzz_wire_seeds FOLDER [REGRESSIONS]
//
// The files checked in under tests/fuzz/corpus/wire/ were made by this tool,
// and so were the crashers of issue 7 under tests/fuzz/regressions/wire/
// (written to REGRESSIONS when it is given).

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "broker_model/compat/key_value/key_value_check.h"
#include "broker_model/wire/frame.h"
#include "broker_model/wire/schema_wire.h"
#include "model_test_support.h"

namespace {

using pulsar::proto::BaseCommand;
using pulsar::proto::Schema;

const char* const kTopic = "persistent://public/default/fuzz";
const char* const kAvro =
    R"({"type":"record","name":"User","namespace":"cnx.fuzz","fields":[{"name":"id","type":"long"}]})";

Schema schemaOf(Schema::Type type, std::string data = "") {
    Schema s;
    s.set_name("fuzz");
    s.set_type(type);
    s.set_schema_data(std::move(data));
    return s;
}

Schema keyValueSchema() {
    auto kv = cnx::compat::encodeKeyValue(cnx::SchemaData{cnx::SchemaType::STRING, "", {}},
                                          cnx::SchemaData{cnx::SchemaType::AVRO, kAvro, {}}, "SEPARATED");
    return cnx::wire::toProto(kv, "fuzz");
}

std::string producer(std::uint64_t id, std::optional<Schema> schema) {
    return cnx::wire::encodeFrame(cnx::testing::TestClient::producerCmd(kTopic, id, id, "", std::move(schema)));
}

std::string subscribe(std::uint64_t id, std::optional<Schema> schema) {
    return cnx::wire::encodeFrame(
        cnx::testing::TestClient::subscribeCmd(kTopic, "sub", id, 100 + id, std::move(schema)));
}

std::string send(std::uint64_t producerId) {
    BaseCommand c;
    c.set_type(BaseCommand::SEND);
    c.mutable_send()->set_producer_id(producerId);
    c.mutable_send()->set_sequence_id(0);
    pulsar::proto::MessageMetadata meta;
    meta.set_producer_name("p");
    meta.set_sequence_id(0);
    meta.set_publish_time(1);
    return cnx::wire::encodePayloadFrame(c, meta, "payload");
}

std::string getSchema() {
    BaseCommand c;
    c.set_type(BaseCommand::GET_SCHEMA);
    c.mutable_getschema()->set_request_id(7);
    c.mutable_getschema()->set_topic(kTopic);
    return cnx::wire::encodeFrame(c);
}

std::string getOrCreate(Schema schema) {
    BaseCommand c;
    c.set_type(BaseCommand::GET_OR_CREATE_SCHEMA);
    c.mutable_getorcreateschema()->set_request_id(8);
    c.mutable_getorcreateschema()->set_topic(kTopic);
    *c.mutable_getorcreateschema()->mutable_schema() = std::move(schema);
    return cnx::wire::encodeFrame(c);
}

std::string closeProducer(std::uint64_t id) {
    BaseCommand c;
    c.set_type(BaseCommand::CLOSE_PRODUCER);
    c.mutable_close_producer()->set_producer_id(id);
    c.mutable_close_producer()->set_request_id(9);
    return cnx::wire::encodeFrame(c);
}

/// LOOKUP and PARTITIONED_METADATA, as a client sends them before PRODUCER
/// (refused by this model: not implemented).
std::string lookupAndPartitionedMetadata() {
    BaseCommand l;
    l.set_type(BaseCommand::LOOKUP);
    l.mutable_lookuptopic()->set_topic(kTopic);
    l.mutable_lookuptopic()->set_request_id(10);
    l.mutable_lookuptopic()->set_authoritative(false);
    BaseCommand p;
    p.set_type(BaseCommand::PARTITIONED_METADATA);
    p.mutable_partitionmetadata()->set_topic(kTopic);
    p.mutable_partitionmetadata()->set_request_id(11);
    return cnx::wire::encodeFrame(p) + cnx::wire::encodeFrame(l);
}

/// Issue 7 item 6: a KEY_VALUE schema whose key properties nest 100,000
/// arrays crashed the KEY_VALUE check, `gsonAsString` and the admin rendering.
std::string deepKeyValueProducer() {
    auto schema = keyValueSchema();
    for (auto& p : *schema.mutable_properties()) {
        if (p.key() == "key.schema.properties") p.set_value(std::string(100000, '[') + std::string(100000, ']'));
    }
    return producer(1, schema) + subscribe(2, schema) + getSchema();
}

bool writeAll(const std::filesystem::path& folder, const std::vector<std::pair<std::string, std::string>>& files) {
    std::filesystem::create_directories(folder);
    for (const auto& [name, bytes] : files) {
        std::ofstream out(folder / name, std::ios::binary);
        out << bytes;
        if (!out) return false;
    }
    std::printf("%zu files written to %s\n", files.size(), folder.c_str());
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2 && argc != 3) {
        std::fprintf(stderr, "usage: fuzz_wire_seeds FOLDER [REGRESSIONS]\n");
        return 2;
    }
    const std::vector<std::pair<std::string, std::string>> seeds = {
        {"producer-no-schema", producer(1, std::nullopt)},
        {"producer-string", producer(1, schemaOf(Schema::String))},
        {"producer-avro", producer(1, schemaOf(Schema::Avro, kAvro))},
        {"producer-key-value", producer(1, keyValueSchema())},
        {"subscribe-avro", subscribe(1, schemaOf(Schema::Avro, kAvro))},
        {"subscribe-auto-consume", subscribe(1, schemaOf(Schema::AutoConsume))},
        {"get-or-create-json", getOrCreate(schemaOf(Schema::Json, kAvro))},
        {"session-produce-send-close", producer(1, schemaOf(Schema::Avro, kAvro)) + send(1) + closeProducer(1)},
        {"session-subscribe-then-produce",
         subscribe(1, schemaOf(Schema::Avro, kAvro)) + producer(2, schemaOf(Schema::String)) + getSchema()},
        {"session-key-value-twice", producer(1, keyValueSchema()) + subscribe(2, keyValueSchema())},
        {"session-produce-then-lookup", producer(1, schemaOf(Schema::String)) + lookupAndPartitionedMetadata()},
    };
    if (!writeAll(argv[1], seeds)) return 1;
    if (argc == 3 && !writeAll(argv[2], {{"issue7-6-key-value-properties-nested-100000", deepKeyValueProducer()}}))
        return 1;
    return 0;
}
