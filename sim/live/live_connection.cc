#include "sim/live/live_connection.h"

#include <charconv>
#include <thread>

#include <boost/asio/connect.hpp>
#include <boost/asio/write.hpp>

#include "broker_model/wire/commands.h"
#include "broker_model/wire/enum_names.h"

namespace cnx::sim::live {

namespace asio = boost::asio;
using asio::ip::tcp;
using pulsar::proto::BaseCommand;

std::variant<Endpoint, std::string> parseEndpoint(const std::string& url, std::string_view scheme) {
    const std::string prefix = std::string(scheme) + "://";
    if (url.rfind(prefix, 0) != 0) return "expected " + prefix + "HOST:PORT, got '" + url + "'";
    std::string rest = url.substr(prefix.size());
    while (!rest.empty() && rest.back() == '/') rest.pop_back();
    auto colon = rest.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == rest.size())
        return "expected " + prefix + "HOST:PORT, got '" + url + "'";
    Endpoint e;
    e.host = rest.substr(0, colon);
    if (e.host.size() > 2 && e.host.front() == '[' && e.host.back() == ']') e.host = e.host.substr(1, e.host.size() - 2);
    unsigned port = 0;
    const auto p = rest.substr(colon + 1);
    auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), port);
    if (ec != std::errc() || end != p.data() + p.size() || port == 0 || port > 65535)
        return "the port of '" + url + "' is not a number from 1 to 65535";
    e.port = static_cast<std::uint16_t>(port);
    return e;
}

LiveConnection::LiveConnection(asio::io_context& io) : io_(io), socket_(io) {}

LiveConnection::~LiveConnection() {
    *alive_ = false;
    boost::system::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
}

std::variant<std::unique_ptr<LiveConnection>, std::string> LiveConnection::open(asio::io_context& io,
                                                                               const Endpoint& broker,
                                                                               const ClientModel& client,
                                                                               std::chrono::milliseconds timeout) {
    std::unique_ptr<LiveConnection> c(new LiveConnection(io));
    boost::system::error_code ec;
    tcp::resolver resolver(c->io_);
    auto results = resolver.resolve(broker.host, std::to_string(broker.port), ec);
    if (ec) return "cannot resolve " + broker.text() + ": " + ec.message();
    bool done = false;
    asio::async_connect(c->socket_, results, [&](const boost::system::error_code& e, const tcp::endpoint&) {
        ec = e;
        done = true;
    });
    const auto deadline = Clock::now() + timeout;
    while (!done && Clock::now() < deadline) c->runUntil(deadline);
    if (!done) {
        c->socket_.close(ec);
        while (!done) c->runUntil(Clock::now() + std::chrono::seconds(1));
        return "connecting to " + broker.text() + " timed out after " + std::to_string(timeout.count()) + " ms";
    }
    if (ec) return "cannot connect to " + broker.text() + ": " + ec.message();
    c->socket_.set_option(tcp::no_delay(true), ec);
    c->readLoop();
    BaseCommand connect;
    connect.set_type(BaseCommand::CONNECT);
    connect.mutable_connect()->set_client_version(client.clientVersion.empty() ? "cnxsim" : client.clientVersion);
    connect.mutable_connect()->set_protocol_version(client.protocolVersion);
    if (auto e = c->send(connect)) return *e;
    auto answer = c->waitFor(
        [](const BaseCommand& b) { return b.type() == BaseCommand::CONNECTED || b.type() == BaseCommand::ERROR; },
        timeout);
    if (auto* why = std::get_if<std::string>(&answer)) return "CONNECT to " + broker.text() + ": " + *why;
    auto& frame = std::get<wire::Frame>(answer);
    if (frame.command.type() == BaseCommand::ERROR)
        return "CONNECT refused: " + std::string(wire::serverErrorName(frame.command.error().error())) + " " +
               frame.command.error().message();
    c->negotiated_ = frame.command.connected().has_protocol_version() ? frame.command.connected().protocol_version() : 0;
    return c;
}

std::optional<std::string> LiveConnection::write(const std::string& bytes) {
    if (closed_) return "the connection is closed: " + closeReason_;
    boost::system::error_code ec;
    asio::write(socket_, asio::buffer(bytes), ec);
    if (ec) {
        close("write failed: " + ec.message());
        return closeReason_;
    }
    return std::nullopt;
}

std::optional<std::string> LiveConnection::send(const BaseCommand& command) { return write(wire::encodeFrame(command)); }

std::optional<std::string> LiveConnection::sendPayload(const BaseCommand& command,
                                                       const pulsar::proto::MessageMetadata& metadata,
                                                       std::string_view payload) {
    return write(wire::encodePayloadFrame(command, metadata, payload));
}

void LiveConnection::close(std::string why) {
    if (closed_) return;
    closed_ = true;
    closeReason_ = std::move(why);
    boost::system::error_code ignored;
    socket_.close(ignored);
}

void LiveConnection::take(wire::Frame frame) {
    auto& c = frame.command;
    switch (c.type()) {
        case BaseCommand::PING: {
            BaseCommand pong;
            pong.set_type(BaseCommand::PONG);
            pong.mutable_pong();
            send(pong);
            return;
        }
        case BaseCommand::CLOSE_PRODUCER: closes_.push_back({true, c.close_producer().producer_id()}); return;
        case BaseCommand::CLOSE_CONSUMER: closes_.push_back({false, c.close_consumer().consumer_id()}); return;
        case BaseCommand::MESSAGE:
        case BaseCommand::ACTIVE_CONSUMER_CHANGE:
        case BaseCommand::PONG:
        case BaseCommand::REACHED_END_OF_TOPIC:
        case BaseCommand::TOPIC_MIGRATED: return;  // nobody asked: not kept
        default: break;
    }
    if (kept_.size() >= kMaxKeptFrames) kept_.pop_front();
    kept_.push_back(std::move(frame));
}

void LiveConnection::readLoop() {
    if (closed_) return;
    buffer_.resize(64 * 1024);
    socket_.async_read_some(asio::buffer(buffer_), [this, alive = alive_](const boost::system::error_code& ec,
                                                                           std::size_t n) {
        if (!*alive) return;
        if (ec) {
            if (ec != asio::error::operation_aborted)
                close(ec == asio::error::eof ? "the broker closed the connection" : "read failed: " + ec.message());
            return;
        }
        if (!stream_.feed(std::string_view(buffer_.data(), n))) {
            close("the broker sent a malformed frame: " + stream_.error());
            return;
        }
        while (auto f = stream_.next()) take(std::move(*f));
        readLoop();
    });
}

void LiveConnection::runUntil(Clock::time_point deadline) {
    if (io_.stopped()) io_.restart();
    // Nothing pending (every connection closed): wait without spinning.
    if (io_.run_one_until(deadline) == 0 && io_.stopped()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

std::variant<wire::Frame, std::string> LiveConnection::waitFor(
    const std::function<bool(const BaseCommand&)>& match, std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    for (;;) {
        for (auto it = kept_.begin(); it != kept_.end(); ++it) {
            if (match(it->command)) {
                wire::Frame f = std::move(*it);
                kept_.erase(it);
                return f;
            }
        }
        if (closed_) return "the connection closed before the answer came (" + closeReason_ + ")";
        if (Clock::now() >= deadline)
            return "no answer within " + std::to_string(timeout.count()) + " ms";
        runUntil(deadline);
    }
}

std::variant<wire::Frame, std::string> LiveConnection::waitForRequest(std::uint64_t requestId,
                                                                     std::chrono::milliseconds timeout) {
    return waitFor([requestId](const BaseCommand& c) { return wire::requestIdOf(c) == requestId; }, timeout);
}

void LiveConnection::drain(std::chrono::milliseconds grace) {
    const auto deadline = Clock::now() + grace;
    while (Clock::now() < deadline) runUntil(deadline);
}

std::vector<LiveConnection::BrokerClose> LiveConnection::takeBrokerCloses() {
    std::vector<BrokerClose> out;
    out.swap(closes_);
    return out;
}

}  // namespace cnx::sim::live
