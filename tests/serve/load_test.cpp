// `cnxsim serve` under load, through the real binary: a thousand connections
// at once (held by one thread with asynchronous Boost.Asio), and a peer
// flooding SENDs without reading its receipts. Nothing here asserts on speed:
// every wait is a generous timeout that only detects a hang, and the memory
// bound is a sanity check.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <sys/resource.h>

#include <atomic>
#include <memory>
#include <thread>

#include "serve_commands.h"

using namespace serve_test;
using namespace serve_test::cmd;
using pulsar::proto::BaseCommand;
namespace asio = boost::asio;

namespace {

#if defined(__SANITIZE_ADDRESS__)
// ASan's quarantine alone keeps up to 256 MiB of freed memory resident, besides its shadow.
constexpr long kRssBoundKb = 1024 * 1024;
#else
constexpr long kRssBoundKb = 300 * 1024;
#endif

std::string frameOf(const BaseCommand& c) {
    std::string body = c.SerializeAsString();
    return be32(static_cast<std::uint32_t>(4 + body.size())) + be32(static_cast<std::uint32_t>(body.size())) + body;
}

/// Many connections on one io_context: each step writes one frame on every
/// connection and reads one answer from each, all at once.
class Crowd {
public:
    Crowd(std::uint16_t port, std::size_t size) : endpoint_(asio::ip::make_address("127.0.0.1"), port) {
        for (std::size_t i = 0; i < size; ++i) peers_.push_back(std::make_unique<Peer>(io_));
    }

    /// Connects every peer; how many connected within `timeout`.
    std::size_t connect(std::chrono::milliseconds timeout) {
        std::size_t ok = 0;
        for (auto& p : peers_)
            p->socket.async_connect(endpoint_, [&ok, peer = p.get()](boost::system::error_code ec) {
                peer->failed = static_cast<bool>(ec);
                if (!ec) ++ok;
            });
        run(timeout);
        return ok;
    }

    /// Writes `request` on every connected peer and reads one frame back; how
    /// many answered with `expected` within `timeout`.
    std::size_t exchange(const BaseCommand& request, BaseCommand::Type expected, std::chrono::milliseconds timeout) {
        const std::string frame = frameOf(request);
        std::size_t ok = 0;
        for (auto& p : peers_) {
            if (p->failed) continue;
            Peer* peer = p.get();
            peer->out = frame;
            asio::async_write(peer->socket, asio::buffer(peer->out), [this, peer, expected, &ok](boost::system::error_code ec,
                                                                                                std::size_t) {
                if (ec) {
                    peer->failed = true;
                    return;
                }
                readOne(peer, [peer, expected, &ok](std::optional<BaseCommand> answer) {
                    if (answer && answer->type() == expected) ++ok;
                    else peer->failed = true;
                });
            });
        }
        run(timeout);
        return ok;
    }

private:
    struct Peer {
        explicit Peer(asio::io_context& io) : socket(io) {}
        asio::ip::tcp::socket socket;
        std::string out;
        std::string header = std::string(8, '\0');
        std::string body;
        bool failed = false;
    };

    template <typename Done>
    void readOne(Peer* peer, Done done) {
        asio::async_read(peer->socket, asio::buffer(peer->header), [peer, done](boost::system::error_code ec, std::size_t) {
            if (ec) return done(std::nullopt);
            std::uint32_t total = readBe32(peer->header), cmdSize = readBe32(peer->header, 4);
            if (total < 4 || cmdSize > total - 4 || total > 6 * 1024 * 1024) return done(std::nullopt);
            peer->body.assign(total - 4, '\0');
            asio::async_read(peer->socket, asio::buffer(peer->body), [peer, done, cmdSize](boost::system::error_code e,
                                                                                          std::size_t) {
                if (e) return done(std::nullopt);
                BaseCommand c;
                if (!c.ParseFromString(peer->body.substr(0, cmdSize))) return done(std::nullopt);
                done(std::move(c));
            });
        });
    }

    void run(std::chrono::milliseconds timeout) {
        io_.restart();
        io_.run_for(timeout);
        if (!io_.stopped()) {  // a hang: cancel what is still pending, so nothing outlives this step
            for (auto& p : peers_) {
                boost::system::error_code ec;
                p->socket.cancel(ec);
            }
            io_.restart();
            io_.run();
        }
    }

    asio::io_context io_;
    asio::ip::tcp::endpoint endpoint_;
    std::vector<std::unique_ptr<Peer>> peers_;
};

/// The soft limit on open files raised to `wanted` if the hard limit allows; false if it cannot be.
bool ensureOpenFiles(rlim_t wanted) {
    rlimit limit{};
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return false;
    if (limit.rlim_cur >= wanted) return true;
    if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < wanted) return false;
    limit.rlim_cur = wanted;
    return setrlimit(RLIMIT_NOFILE, &limit) == 0;
}

/// One SEND frame with its checksum, as Client::sendPayload writes it.
std::string sendFrame(std::uint64_t producerId, std::uint64_t sequenceId, const std::string& producerName) {
    std::string body = send(producerId, sequenceId).SerializeAsString();
    std::string m = metadata(producerName, sequenceId).SerializeAsString();
    std::string checked = be32(static_cast<std::uint32_t>(m.size())) + m + "flood";
    std::string tail = std::string("\x0e\x01", 2) + be32(crc32c(checked)) + checked;
    return be32(static_cast<std::uint32_t>(4 + body.size() + tail.size())) + be32(static_cast<std::uint32_t>(body.size())) +
           body + tail;
}

}  // namespace

TEST_CASE("1,000 connections at once are all served, and one more still produces", "[serve][load]") {
    constexpr std::size_t kPeers = 1000;
    // The test holds 1,000 sockets and so does the server (it inherits the limit).
    if (!ensureOpenFiles(kPeers + 200)) {
        WARN("skipped: RLIMIT_NOFILE cannot be raised to " << kPeers + 200 << " (hard limit too low)");
        return;
    }
    ServeProcess server;
    REQUIRE(server.port() != 0);
    Crowd crowd(server.port(), kPeers);
    REQUIRE(crowd.connect(30s) == kPeers);
    auto connect = command(BaseCommand::CONNECT);
    connect.mutable_connect()->set_client_version("load-test");
    connect.mutable_connect()->set_protocol_version(21);
    CHECK(crowd.exchange(connect, BaseCommand::CONNECTED, 30s) == kPeers);

    Client extra(server.port());
    REQUIRE(extra.connected());
    REQUIRE(extra.handshake().type() == BaseCommand::CONNECTED);
    auto ok = extra.call(producer("persistent://public/default/crowded", 1, 1));
    REQUIRE(ok.type() == BaseCommand::PRODUCER_SUCCESS);
    extra.sendPayload(send(1, 0), metadata(ok.producer_success().producer_name(), 0), "one more");
    auto receipt = extra.read();
    REQUIRE(receipt.has_value());
    CHECK(receipt->type() == BaseCommand::SEND_RECEIPT);

    CHECK(crowd.exchange(ping(), BaseCommand::PONG, 30s) == kPeers);
    CHECK(server.stop() == 0);
}

TEST_CASE("a peer flooding SENDs without reading receipts: others stay served, it is closed, memory bounded",
          "[serve][load]") {
    ServeProcess server({"--max-queued-bytes", "262144", "-v"});  // -v: the close reason in the test log
    REQUIRE(server.port() != 0);
    const std::string topic = "persistent://public/default/flooded";

    // A small receive window: the receipts back up in the server soon.
    Client flooder(server.port(), 4096);
    REQUIRE(flooder.handshake().type() == BaseCommand::CONNECTED);
    auto created = flooder.call(producer(topic, 1, 1));
    REQUIRE(created.type() == BaseCommand::PRODUCER_SUCCESS);
    const std::string name = created.producer_success().producer_name();

    constexpr std::size_t kMaxFrames = 200'000, kPerChunk = 1000;
    std::atomic<std::size_t> written{0};
    std::atomic<bool> refused{false}, done{false};
    std::thread flood([&] {
        std::uint64_t seq = 0;
        while (seq < kMaxFrames) {
            std::string chunk;
            for (std::size_t i = 0; i < kPerChunk; ++i) chunk += sendFrame(1, seq++, name);
            if (!flooder.rawChecked(chunk)) {
                refused = true;
                break;
            }
            written += kPerChunk;
        }
        done = true;
    });

    // Meanwhile another peer is served: CONNECT, PRODUCER, then SENDs each
    // answered (the first once the flood is under way), until the flood ends.
    long maxRssKb = server.residentKb();
    {
        Client other(server.port());
        REQUIRE(other.connected());
        CHECK(other.handshake().type() == BaseCommand::CONNECTED);
        auto p = other.call(producer(topic, 7, 2));
        REQUIRE(p.type() == BaseCommand::PRODUCER_SUCCESS);
        for (int i = 0; i < 1000 && written < 2 * kPerChunk && !done; ++i) std::this_thread::sleep_for(10ms);
        std::uint64_t seq = 0;
        do {
            other.sendPayload(send(7, seq), metadata(p.producer_success().producer_name(), seq), "served meanwhile");
            auto receipt = other.read(10s);
            REQUIRE(receipt.has_value());
            REQUIRE(receipt->type() == BaseCommand::SEND_RECEIPT);
            CHECK(receipt->send_receipt().producer_id() == 7);
            CHECK(receipt->send_receipt().sequence_id() == seq);
            maxRssKb = std::max(maxRssKb, server.residentKb());
        } while (!done && ++seq < 100'000);
    }
    for (int i = 0; i < 1200 && !done; ++i) {  // at most two minutes: a hang, not a speed bound
        maxRssKb = std::max(maxRssKb, server.residentKb());
        std::this_thread::sleep_for(100ms);
    }
    if (!done) flooder.shutdown();  // unblocks the writer; the CHECKs below then fail
    flood.join();
    maxRssKb = std::max(maxRssKb, server.residentKb());
    INFO("SEND frames written before the server stopped taking them: " << written.load());
    CHECK(refused);  // the server closed the connection before every frame was written...
    CHECK(written < kMaxFrames);
    CHECK(flooder.closedByServer(10s));
    INFO("server VmRSS peak: " << maxRssKb << " KiB");
    CHECK(maxRssKb > 0);
    CHECK(maxRssKb < kRssBoundKb);

    // And the server still takes new connections.
    Client late(server.port());
    CHECK(late.handshake().type() == BaseCommand::CONNECTED);
    CHECK(server.stop() == 0);
}

// Issue 40 item 5: what the server holds for its peers is bounded.
namespace {

/// A CONNECT frame whose client_version makes it `total` bytes long (its 4 size bytes included).
std::string connectFrameOf(std::size_t total) {
    auto c = command(BaseCommand::CONNECT);
    c.mutable_connect()->set_protocol_version(21);
    c.mutable_connect()->set_client_version(std::string(total, 'v'));
    std::string frame = frameOf(c);
    // The same version shortened by what the framing and fields add.
    c.mutable_connect()->set_client_version(std::string(total - (frame.size() - total), 'v'));
    return frameOf(c);
}

}  // namespace

TEST_CASE("incomplete frames past --max-incomplete-bytes close the peer that passes it, the others are served",
          "[serve][load][issue40]") {
    ServeProcess server({"--max-incomplete-bytes", std::to_string(4 * 1024 * 1024)});
    REQUIRE(server.port() != 0);
    // A holds 1 MiB of a 2 MiB CONNECT; B then sends 3.5 MiB of a 4 MiB one: together over 4 MiB.
    const std::string first = connectFrameOf(2 * 1024 * 1024), second = connectFrameOf(4 * 1024 * 1024);
    Client a(server.port()), b(server.port());
    REQUIRE(a.connected());
    REQUIRE(b.connected());
    a.raw(first.substr(0, 1024 * 1024));
    std::this_thread::sleep_for(1s);  // A's bytes are in before B's (an order, not a speed bound)
    b.raw(second.substr(0, 3584 * 1024));
    CHECK(b.closedByServer(10s));
    // A finishes its frame and is answered; a newcomer is served.
    a.raw(first.substr(1024 * 1024));
    auto connected = a.read(10s);
    REQUIRE(connected.has_value());
    CHECK(connected->type() == BaseCommand::CONNECTED);
    Client late(server.port());
    CHECK(late.handshake().type() == BaseCommand::CONNECTED);
    CHECK(server.stop() == 0);
}

TEST_CASE("acknowledged messages are let go, and a full --max-log-bytes answers SEND_ERROR PersistenceError",
          "[serve][load][issue40]") {
    ServeProcess server({"--max-log-bytes", std::to_string(3584 * 1024)});
    REQUIRE(server.port() != 0);
    const std::string topic = "persistent://public/default/bounded-log";
    Session consumer(server), producing(server);
    subscribeOk(consumer.client, subscribe(topic, "sub", 1, 1, pulsar::proto::CommandSubscribe::Exclusive));
    const std::string name = openProducer(producing.client, topic, 1, 2);
    const std::string payload(1024 * 1024, 'p');
    // 1 MiB messages: three fit in 3.5 MiB, the fourth does not while none is acknowledged.
    for (std::uint64_t seq = 0; seq < 3; ++seq) sendOne(producing.client, 1, metadata(name, seq), payload);
    producing.client.sendPayload(send(1, 3), metadata(name, 3), payload);
    auto refused = producing.client.read(10s);
    REQUIRE(refused.has_value());
    REQUIRE(refused->type() == BaseCommand::SEND_ERROR);
    CHECK(refused->send_error().error() == pulsar::proto::PersistenceError);
    CHECK(refused->send_error().sequence_id() == 3);
    // Taken and acknowledged, they are let go: twenty more pass, each acknowledged in turn.
    consumer.client.send(flow(1, 1000));
    auto take = [&] {
        auto message = consumer.client.readUntil(BaseCommand::MESSAGE, 10s);
        REQUIRE(message.has_value());
        return message->command.message().message_id();
    };
    auto ack = [&](const pulsar::proto::MessageIdData& id) {
        auto a = command(BaseCommand::ACK);
        a.mutable_ack()->set_consumer_id(1);
        a.mutable_ack()->set_ack_type(pulsar::proto::CommandAck::Individual);
        *a.mutable_ack()->add_message_id() = id;
        consumer.client.send(a);
        CHECK(consumer.client.call(ping()).type() == BaseCommand::PONG);  // the ACK is handled
    };
    std::vector<pulsar::proto::MessageIdData> first;
    for (int i = 0; i < 3; ++i) first.push_back(take());
    for (const auto& id : first) ack(id);
    for (std::uint64_t seq = 4; seq < 24; ++seq) {
        sendOne(producing.client, 1, metadata(name, seq), payload);
        ack(take());
    }
    CHECK(server.stop() == 0);
}
