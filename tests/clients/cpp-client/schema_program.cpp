// The official Pulsar C++ client (libpulsar, built outside this repository)
// against `cnxsim serve`: an AVRO producer is admitted and sends, a producer
// with an incompatible AVRO schema is refused with ResultIncompatibleSchema, a
// consumer with the same AVRO schema subscribes and receives the message, and
// an AUTO_CONSUME consumer subscribes. Prints one line per check; exit 0 when
// every check holds.
//
// usage: schema_program pulsar://HOST:PORT

#include <pulsar/Client.h>

#include <iostream>
#include <string>
#include <variant>

namespace {

const char* kUserV1 =
    R"({"type":"record","name":"User","namespace":"cnxsim.test","fields":[{"name":"name","type":"string"}]})";
// A new field without a default: old data cannot be read with it, so FULL (the default) refuses it.
const char* kUserV2Required =
    R"({"type":"record","name":"User","namespace":"cnxsim.test","fields":[{"name":"name","type":"string"},{"name":"age","type":"int"}]})";

int failures = 0;

/// createProducerV2's answer as the Result the check compares (the V1 call is deprecated).
pulsar::Result create(pulsar::Client& client, const std::string& topic, const pulsar::ProducerConfiguration& conf,
                      pulsar::Producer& out) {
    auto made = client.createProducerV2(topic, conf);
    if (auto* error = std::get_if<pulsar::Error>(&made)) return error->result;
    out = std::get<pulsar::Producer>(made);
    return pulsar::ResultOk;
}

void check(bool ok, const std::string& what, pulsar::Result result) {
    std::cout << (ok ? "ok    " : "FAIL  ") << what << " (" << pulsar::strResult(result) << ")\n";
    if (!ok) ++failures;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: schema_program pulsar://HOST:PORT\n";
        return 2;
    }
    const std::string topic = "persistent://public/default/cpp-client-schema";
    pulsar::ClientConfiguration config;
    config.setOperationTimeoutSeconds(10);
    pulsar::Client client(argv[1], config);

    pulsar::ConsumerConfiguration typedConf;
    typedConf.setSchema(pulsar::SchemaInfo(pulsar::AVRO, "User", kUserV1));
    pulsar::Consumer typed;
    // On an idle topic a consumer with a schema registers it (§3.5).
    auto r = client.subscribe(topic, "typed", typedConf, typed);
    check(r == pulsar::ResultOk, "AVRO consumer subscribes", r);

    pulsar::ProducerConfiguration producerConf;
    producerConf.setSchema(pulsar::SchemaInfo(pulsar::AVRO, "User", kUserV1));
    pulsar::Producer producer;
    r = create(client, topic, producerConf, producer);
    check(r == pulsar::ResultOk, "AVRO producer with the same schema is admitted", r);
    if (r == pulsar::ResultOk) {
        // Avro binary of {"name": "ada"}: string length 3 (zig-zag 6), then the bytes.
        std::string avro = std::string("\x06", 1) + "ada";
        r = producer.send(pulsar::MessageBuilder().setContent(avro).build());
        check(r == pulsar::ResultOk, "the producer sends a message", r);
    }

    pulsar::ProducerConfiguration badConf;
    badConf.setSchema(pulsar::SchemaInfo(pulsar::AVRO, "User", kUserV2Required));
    pulsar::Producer bad;
    r = create(client, topic, badConf, bad);
    check(r == pulsar::ResultIncompatibleSchema, "AVRO producer adding a required field is refused", r);

    pulsar::Message msg;
    r = typed.receive(msg, 5000);
    check(r == pulsar::ResultOk && msg.getDataAsString() == std::string("\x06", 1) + "ada",
          "the AVRO consumer receives the message as sent", r);
    if (r == pulsar::ResultOk) typed.acknowledge(msg);

    pulsar::ConsumerConfiguration autoConf;
    autoConf.setSchema(pulsar::SchemaInfo(pulsar::AUTO_CONSUME, "", ""));
    pulsar::Consumer autoConsumer;
    r = client.subscribe(topic, "auto", autoConf, autoConsumer);
    check(r == pulsar::ResultOk, "AUTO_CONSUME consumer subscribes", r);

    client.close();
    std::cout << (failures == 0 ? "all checks passed\n" : std::to_string(failures) + " check(s) failed\n");
    return failures == 0 ? 0 : 1;
}
