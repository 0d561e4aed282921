// The official Pulsar C++ client (libpulsar, built outside this repository)
// against `cnxsim serve`, while the broker is rolled under it through the
// admin port: a producer and a consumer on an AVRO topic, the broker upgraded
// to another release (POST /cnxsim/upgrade), the topic unloaded (PUT …/unload), and
// both keep working after the client's own reconnects; then SEEK back to the
// earliest message. Prints one line per check; exit 0 when every check holds.
//
// usage: lifecycle_program pulsar://HOST:PORT http://HOST:ADMINPORT

#include <pulsar/Client.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string>
#include <variant>
#include <vector>

namespace {

const char* kUser =
    R"({"type":"record","name":"User","namespace":"cnxsim.test","fields":[{"name":"name","type":"string"}]})";
const char* kTopic = "persistent://public/default/cpp-client-lifecycle";

int failures = 0;

void check(bool ok, const std::string& what, const std::string& detail = "") {
    std::cout << (ok ? "ok    " : "FAIL  ") << what << (detail.empty() ? "" : " (" + detail + ")") << "\n";
    if (!ok) ++failures;
}

/// `METHOD PATH` to the admin URL `http://127.0.0.1:PORT` (HTTP/1.0, no body):
/// true when the status is 2xx. A test's own few lines, not the server's code.
bool admin(const std::string& url, const std::string& method, const std::string& path) {
    auto colon = url.rfind(':');
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || colon == std::string::npos) return false;
    timeval limit{10, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<std::uint16_t>(std::stoi(url.substr(colon + 1))));
    ::inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    std::string answer;
    if (::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) == 0) {
        std::string request = method + " " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n";
        if (::send(fd, request.data(), request.size(), 0) == static_cast<ssize_t>(request.size())) {
            char buf[4096];
            for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) answer.append(buf, static_cast<std::size_t>(n));
        }
    }
    ::close(fd);
    std::cout << method << " " << path << " -> " << answer.substr(0, answer.find('\r')) << "\n";
    return answer.rfind("HTTP/1.1 2", 0) == 0 || answer.rfind("HTTP/1.0 2", 0) == 0;
}

/// Sends `count` messages named from `first`; true when every send is acknowledged.
bool sendSome(pulsar::Producer& producer, int first, int count) {
    for (int i = first; i < first + count; ++i) {
        auto r = producer.send(pulsar::MessageBuilder().setContent("m" + std::to_string(i)).build());
        if (r != pulsar::ResultOk) {
            std::cout << "send m" << i << ": " << pulsar::strResult(r) << "\n";
            return false;
        }
    }
    return true;
}

/// Receives (and acknowledges) until every one of `expected` has come, in
/// order; a redelivery of an earlier message (one whose acknowledgement the
/// restart overtook: delivery is at least once) is skipped. "" when so, else
/// what came.
std::string receiveExpected(pulsar::Consumer& consumer, const std::vector<std::string>& expected,
                            const std::vector<std::string>& earlier) {
    std::string seen;
    std::size_t next = 0;
    for (int budget = 0; next < expected.size() && budget < 100; ++budget) {
        pulsar::Message m;
        auto r = consumer.receive(m, 10000);
        if (r != pulsar::ResultOk) return seen + "then " + pulsar::strResult(r);
        auto content = m.getDataAsString();
        seen += content + " ";
        consumer.acknowledge(m);
        if (content == expected[next]) ++next;
        else if (std::find(earlier.begin(), earlier.end(), content) == earlier.end()) return seen + "(unexpected)";
    }
    return next == expected.size() ? "" : seen;
}

/// Receives (and acknowledges) up to `count` messages; their contents.
std::vector<std::string> receiveSome(pulsar::Consumer& consumer, int count) {
    std::vector<std::string> out;
    for (int i = 0; i < count; ++i) {
        pulsar::Message m;
        if (consumer.receive(m, 10000) != pulsar::ResultOk) break;
        out.push_back(m.getDataAsString());
        consumer.acknowledge(m);
    }
    return out;
}

std::vector<std::string> names(int first, int count) {
    std::vector<std::string> out;
    for (int i = first; i < first + count; ++i) out.push_back("m" + std::to_string(i));
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::cerr << "usage: lifecycle_program pulsar://HOST:PORT http://HOST:ADMINPORT\n";
        return 2;
    }
    const std::string adminUrl = argv[2];
    pulsar::ClientConfiguration config;
    config.setOperationTimeoutSeconds(20);
    pulsar::Client client(argv[1], config);
    pulsar::SchemaInfo schema(pulsar::AVRO, "User", kUser);

    pulsar::ConsumerConfiguration cc;
    cc.setSchema(schema);
    cc.setSubscriptionInitialPosition(pulsar::InitialPositionEarliest);
    cc.setAckGroupingTimeMs(0);  // acknowledgements go out at once, so few are overtaken by a restart
    pulsar::Consumer consumer;
    auto r = client.subscribe(kTopic, "lifecycle", cc, consumer);
    check(r == pulsar::ResultOk, "AVRO consumer subscribes", pulsar::strResult(r));
    pulsar::ProducerConfiguration pc;
    pc.setSchema(schema);
    pc.setBatchingEnabled(false);
    pulsar::Producer producer;
    auto made = client.createProducerV2(kTopic, pc);
    if (auto* error = std::get_if<pulsar::Error>(&made)) r = error->result;
    else producer = std::get<pulsar::Producer>(made), r = pulsar::ResultOk;
    check(r == pulsar::ResultOk, "AVRO producer is admitted", pulsar::strResult(r));
    if (failures) return 1;

    check(sendSome(producer, 0, 5), "5 messages sent");
    check(receiveSome(consumer, 5) == names(0, 5), "the consumer receives them");

    check(admin(adminUrl, "POST", "/cnxsim/upgrade?version=2.10"), "the broker is upgraded under the client (to 2.10)");
    check(sendSome(producer, 5, 5), "the producer reconnects by itself and sends 5 more");
    auto problem = receiveExpected(consumer, names(5, 5), names(0, 5));
    check(problem.empty(), "the consumer reconnects by itself and receives them", problem);

    check(admin(adminUrl, "PUT", "/admin/v2/persistent/public/default/cpp-client-lifecycle/unload"), "the topic is unloaded");
    check(sendSome(producer, 10, 5), "the producer reconnects after the unload and sends 5 more");
    problem = receiveExpected(consumer, names(10, 5), names(0, 10));
    check(problem.empty(), "the consumer receives them", problem);

    r = consumer.seek(pulsar::MessageId::earliest());
    check(r == pulsar::ResultOk, "SEEK to the earliest message", pulsar::strResult(r));
    auto again = receiveSome(consumer, 1);
    check(again == names(0, 1), "the consumer receives the first message again", again.empty() ? "" : again[0]);

    client.close();
    std::cout << (failures ? std::to_string(failures) + " check(s) failed\n" : "all checks passed\n");
    return failures ? 1 : 0;
}
