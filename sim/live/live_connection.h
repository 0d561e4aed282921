#pragma once
// One client connection to a real broker (`cnxsim run --against`): the same
// frames the modelled clients hand to ServerCnx, written on a TCP socket.
// Everything is synchronous and bounded: every wait has a deadline, a frame is
// at most wire::kMaxFrameSize (FrameStream checks the sizes), and what the
// broker sends unasked (MESSAGE, ACTIVE_CONSUMER_CHANGE, ...) is dropped, not
// kept. A PING is answered with PONG as it is read, as real clients do.

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "broker_model/wire/frame.h"
#include "broker_model/wire/frame_stream.h"
#include "proto/PulsarApi.pb.h"
#include "sim/clients/client_library.h"

namespace cnx::sim::live {

/// `pulsar://HOST:PORT` split; the error text otherwise.
struct Endpoint {
    std::string host;
    std::uint16_t port = 0;
    std::string text() const { return host + ":" + std::to_string(port); }
};
std::variant<Endpoint, std::string> parseEndpoint(const std::string& url, std::string_view scheme);

class LiveConnection {
public:
    using Clock = std::chrono::steady_clock;

    /// Connects and says CONNECT as `client` does (its client_version and
    /// protocol_version); waits for CONNECTED until `timeout`. The error text
    /// (refused, timed out, an ERROR answer) otherwise.
    static std::variant<std::unique_ptr<LiveConnection>, std::string> open(boost::asio::io_context& io,
                                                                          const Endpoint& broker,
                                                                          const ClientModel& client,
                                                                          std::chrono::milliseconds timeout);
    ~LiveConnection();
    LiveConnection(const LiveConnection&) = delete;
    LiveConnection& operator=(const LiveConnection&) = delete;

    int negotiatedProtocol() const { return negotiated_; }
    bool closed() const { return closed_; }
    /// Why the connection closed (empty while it is open).
    const std::string& closeReason() const { return closeReason_; }

    /// Writes one command frame; the error text when the connection is gone.
    std::optional<std::string> send(const pulsar::proto::BaseCommand& command);
    /// Writes a SEND with its metadata and payload (CRC32C block on).
    std::optional<std::string> sendPayload(const pulsar::proto::BaseCommand& command,
                                           const pulsar::proto::MessageMetadata& metadata, std::string_view payload);

    /// The first frame (kept or arriving) that `match` accepts, taken; the
    /// error text when the deadline passes or the connection closes first.
    std::variant<wire::Frame, std::string> waitFor(const std::function<bool(const pulsar::proto::BaseCommand&)>& match,
                                                  std::chrono::milliseconds timeout);
    /// The response to request `requestId` (any command carrying it).
    std::variant<wire::Frame, std::string> waitForRequest(std::uint64_t requestId, std::chrono::milliseconds timeout);
    /// Reads what has arrived without waiting more than `grace`.
    void drain(std::chrono::milliseconds grace);

    /// CLOSE_PRODUCER / CLOSE_CONSUMER frames the broker sent, in order, taken.
    struct BrokerClose {
        bool producer = true;
        std::uint64_t id = 0;
    };
    std::vector<BrokerClose> takeBrokerCloses();

    std::uint64_t nextRequestId() { return ++lastRequestId_; }
    std::uint64_t nextProducerId() { return ++lastProducerId_; }
    std::uint64_t nextConsumerId() { return ++lastConsumerId_; }

private:
    explicit LiveConnection(boost::asio::io_context& io);
    /// Keeps one read pending until the connection closes.
    void readLoop();
    /// Runs the shared io_context until `deadline` or until an event happened.
    void runUntil(Clock::time_point deadline);
    void take(wire::Frame frame);
    std::optional<std::string> write(const std::string& bytes);
    void close(std::string why);

    boost::asio::io_context& io_;
    boost::asio::ip::tcp::socket socket_;
    std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);  // read handlers check it after destruction
    wire::FrameStream stream_;
    std::deque<wire::Frame> kept_;  // responses and receipts not yet taken
    std::vector<BrokerClose> closes_;
    std::string buffer_;
    int negotiated_ = 0;
    bool closed_ = false;
    std::string closeReason_;
    std::uint64_t lastRequestId_ = 0;
    std::uint64_t lastProducerId_ = 0;
    std::uint64_t lastConsumerId_ = 0;
};

/// Kept frames are bounded: past this many, the oldest is dropped (a broker
/// that sends answers nobody asked for cannot grow the client's memory).
inline constexpr std::size_t kMaxKeptFrames = 4096;

}  // namespace cnx::sim::live
