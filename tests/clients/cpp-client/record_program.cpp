// The official Pulsar C++ client (libpulsar) in a session that
// tests/clients/record_session.py records: an AVRO consumer and a
// broker-named, batching AVRO producer, the broker upgraded under them
// (POST /cnxsim/upgrade) and the topic unloaded (PUT .../unload), both
// reconnecting on their own, then both closed. The recording must replay green
// with the reconnects as the upgrade's and the unload's per-client outcomes.
// No partitioned producer: libpulsar 4.2 can deadlock when a partition's
// PRODUCER_SUCCESS comes back within microseconds (see the upstream tests).
// Prints one line per check; exit 0 when every check holds.
//
// usage: record_program pulsar://HOST:PORT http://ADMIN-HOST:PORT

#include <pulsar/Client.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>
#include <variant>

namespace {

const char* kUser = R"({"type":"record","name":"User","namespace":"cnxsim.rec","fields":[{"name":"name","type":"string"}]})";
const char* kTopic = "persistent://public/default/cpp-client-recorded";

int failures = 0;

void check(bool ok, const std::string& what, const std::string& detail = "") {
    std::cout << (ok ? "ok    " : "FAIL  ") << what << (detail.empty() ? "" : " (" + detail + ")") << "\n";
    if (!ok) ++failures;
}

/// One admin call with curl; true when it answered 2xx.
bool admin(const std::string& method, const std::string& url) {
    std::string line = "curl -sS -f -o /dev/null -m 10 -X " + method + " '" + url + "'";
    return std::system(line.c_str()) == 0;
}

bool sendOne(pulsar::Producer& producer, const std::string& content) {
    return producer.send(pulsar::MessageBuilder().setContent(content).build()) == pulsar::ResultOk;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::cerr << "usage: record_program pulsar://HOST:PORT http://ADMIN-HOST:PORT\n";
        return 2;
    }
    const std::string adminUrl = argv[2];
    pulsar::ClientConfiguration config;
    config.setOperationTimeoutSeconds(20);
    pulsar::Client client(argv[1], config);
    pulsar::SchemaInfo schema(pulsar::AVRO, "User", kUser);

    pulsar::ConsumerConfiguration cc;
    cc.setSchema(schema);
    pulsar::Consumer consumer;
    auto r = client.subscribe(kTopic, "recorded", cc, consumer);
    check(r == pulsar::ResultOk, "AVRO consumer subscribes", pulsar::strResult(r));
    pulsar::ProducerConfiguration pc;
    pc.setSchema(schema);
    pc.setBatchingEnabled(true);
    pulsar::Producer producer;
    auto made = client.createProducerV2(kTopic, pc);
    if (auto* error = std::get_if<pulsar::Error>(&made)) r = error->result;
    else producer = std::get<pulsar::Producer>(made), r = pulsar::ResultOk;
    check(r == pulsar::ResultOk, "AVRO producer is admitted", pulsar::strResult(r));
    if (failures) return 1;

    for (int i = 0; i < 5; ++i) producer.sendAsync(pulsar::MessageBuilder().setContent("m").build(), nullptr);
    check(producer.flush() == pulsar::ResultOk, "5 messages sent in a batch");
    check(admin("POST", adminUrl + "/cnxsim/upgrade?version=4.0"), "the broker is upgraded to 4.0");
    check(sendOne(producer, "after-upgrade"), "a send after the upgrade (the producer reconnected)");
    check(admin("PUT", adminUrl + "/admin/v2/persistent/public/default/cpp-client-recorded/unload"), "the topic is unloaded");
    check(sendOne(producer, "after-unload"), "a send after the unload (the producer reconnected)");
    // The consumer's reconnects are asynchronous: give them time before closing.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    check(producer.close() == pulsar::ResultOk, "the producer closes");
    check(consumer.close() == pulsar::ResultOk, "the consumer closes");
    client.close();
    return failures ? 1 : 0;
}
