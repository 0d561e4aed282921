#include "sim/record/wire_proxy.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/write.hpp>
#include <array>

#include <spdlog/spdlog.h>

#include "broker_model/wire/frame.h"
#include "broker_model/wire/frame_stream.h"

namespace cnx::record {

namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

std::uint32_t sizeAt(const std::string& b) {
    return (std::uint32_t(static_cast<unsigned char>(b[0])) << 24) | (std::uint32_t(static_cast<unsigned char>(b[1])) << 16) |
           (std::uint32_t(static_cast<unsigned char>(b[2])) << 8) | std::uint32_t(static_cast<unsigned char>(b[3]));
}

}  // namespace

// One client connection and its upstream connection.
class WireProxy::Pair : public std::enable_shared_from_this<Pair> {
public:
    Pair(WireProxy& proxy, std::uint64_t id, tcp::socket client)
        : proxy_(proxy), id_(id), client_(std::move(client)), upstream_(proxy.io_), resolver_(proxy.io_) {}

    void start() {
        std::string peer = "?";
        boost::system::error_code ec;
        auto ep = client_.remote_endpoint(ec);
        if (!ec) peer = ep.address().to_string() + ":" + std::to_string(ep.port());
        // Lookups name the address this client reached the proxy at: it can reach it again
        // (with --listen 0.0.0.0 the listener's own address would not do).
        auto local = client_.local_endpoint(ec);
        lookupUrl_ = proxy_.ownUrl_;
        if (!ec) {
            auto host = local.address().to_string();
            lookupUrl_ = "pulsar://" + (local.address().is_v6() ? "[" + host + "]" : host) + ":" + std::to_string(local.port());
        }
        proxy_.tap_.opened(id_, peer);
        auto self = shared_from_this();
        resolver_.async_resolve(proxy_.upstreamHost_, std::to_string(proxy_.upstreamPort_),
                                [self](const boost::system::error_code& e, tcp::resolver::results_type results) {
                                    if (e) return self->close("upstream " + self->proxy_.upstreamHost_ + ": " + e.message());
                                    asio::async_connect(self->upstream_, results,
                                                        [self](const boost::system::error_code& c, const tcp::endpoint&) {
                                                            if (c) return self->close("upstream connect: " + c.message());
                                                            self->read(true);
                                                            self->read(false);
                                                        });
                                });
    }

    void close(const std::string& reason) {
        if (closed_) return;
        closed_ = true;
        boost::system::error_code ec;
        client_.close(ec);
        upstream_.close(ec);
        spdlog::info("connection {} closed: {}", id_, reason);
        proxy_.tap_.closed(id_, reason);
        proxy_.pairs_.erase(id_);
    }

private:
    struct Direction {
        std::string pending;  // bytes of the frame not yet complete
        std::array<char, 64 * 1024> buffer{};
    };

    // `fromClient`: client -> upstream, else upstream -> client.
    void read(bool fromClient) {
        auto self = shared_from_this();
        auto& from = fromClient ? client_ : upstream_;
        auto& d = fromClient ? toUpstream_ : toClient_;
        from.async_read_some(asio::buffer(d.buffer), [self, fromClient](const boost::system::error_code& e, std::size_t n) {
            if (e) return self->close(std::string(fromClient ? "client" : "upstream") + ": " + e.message());
            std::string out;
            if (auto problem = self->cut(fromClient, n, out)) return self->close(*problem);
            if (out.empty()) return self->read(fromClient);
            auto data = std::make_shared<std::string>(std::move(out));
            auto& to = fromClient ? self->upstream_ : self->client_;
            asio::async_write(to, asio::buffer(*data), [self, fromClient, data](const boost::system::error_code& w, std::size_t) {
                if (w) return self->close(std::string(fromClient ? "upstream" : "client") + " write: " + w.message());
                self->read(fromClient);
            });
        });
    }

    // The complete frames of what came in, as they go out; the problem that closes the pair otherwise.
    std::optional<std::string> cut(bool fromClient, std::size_t n, std::string& out) {
        auto& d = fromClient ? toUpstream_ : toClient_;
        d.pending.append(d.buffer.data(), n);
        std::size_t at = 0;
        while (d.pending.size() - at >= 4) {
            std::uint32_t total = sizeAt(d.pending.substr(at, 4));
            if (total > wire::kMaxFrameSize) return "frame of " + std::to_string(total) + " bytes is over the limit";
            if (d.pending.size() - at < 4 + std::size_t(total)) break;
            std::string_view raw(d.pending.data() + at, 4 + std::size_t(total));
            std::string error;
            auto frame = wire::parseFrameBody(raw.substr(4), &error);
            if (!frame) return std::string(fromClient ? "client" : "upstream") + " sent a malformed frame: " + error;
            if (fromClient) {
                proxy_.tap_.received(id_, frame->command);
                out.append(raw);
            } else if (frame->command.type() == pulsar::proto::BaseCommand::LOOKUP_RESPONSE &&
                       frame->command.lookuptopicresponse().has_brokerserviceurl()) {
                auto* lookup = frame->command.mutable_lookuptopicresponse();
                lookup->set_brokerserviceurl(lookupUrl_);
                lookup->clear_brokerserviceurltls();
                proxy_.tap_.sent(id_, frame->command, nullptr);
                out += wire::encodeFrame(frame->command);
            } else {
                proxy_.tap_.sent(id_, frame->command, nullptr);
                out.append(raw);
            }
            at += raw.size();
        }
        d.pending.erase(0, at);
        return std::nullopt;
    }

    WireProxy& proxy_;
    std::uint64_t id_;
    tcp::socket client_;
    tcp::socket upstream_;
    tcp::resolver resolver_;
    Direction toUpstream_, toClient_;
    std::string lookupUrl_;
    bool closed_ = false;
};

WireProxy::WireProxy(asio::io_context& io, serve::SessionTap& tap, std::string upstreamHost, std::uint16_t upstreamPort)
    : io_(io), tap_(tap), upstreamHost_(std::move(upstreamHost)), upstreamPort_(upstreamPort), acceptor_(io), retry_(io) {}

WireProxy::~WireProxy() { stop(); }

std::optional<std::string> WireProxy::listen(const std::string& address, std::uint16_t port) {
    boost::system::error_code ec;
    auto ip = asio::ip::make_address(address, ec);
    if (ec) return "--listen: '" + address + "' is not an IP address";
    tcp::endpoint ep(ip, port);
    acceptor_.open(ep.protocol(), ec);
    if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor_.bind(ep, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) return "--listen " + address + ":" + std::to_string(port) + ": " + ec.message();
    std::string host = ip.is_v6() ? "[" + address + "]" : address;
    ownUrl_ = "pulsar://" + host + ":" + std::to_string(this->port());
    accept();
    return std::nullopt;
}

std::uint16_t WireProxy::port() const {
    boost::system::error_code ec;
    auto ep = acceptor_.local_endpoint(ec);
    return ec ? 0 : ep.port();
}

void WireProxy::accept() {
    acceptor_.async_accept([this](const boost::system::error_code& ec, tcp::socket socket) {
        if (stopped_) return;
        if (ec) {  // out of descriptors, say: try again shortly instead of spinning
            retry_.expires_after(std::chrono::milliseconds(100));
            retry_.async_wait([this](const boost::system::error_code& e) {
                if (!e && !stopped_) accept();
            });
            return;
        }
        auto id = nextId_++;
        auto pair = std::make_shared<Pair>(*this, id, std::move(socket));
        pairs_[id] = pair;
        pair->start();
        accept();
    });
}

void WireProxy::stop() {
    if (stopped_) return;
    stopped_ = true;
    boost::system::error_code ec;
    acceptor_.close(ec);
    retry_.cancel();
    auto pairs = pairs_;
    for (auto& [_, p] : pairs) p->close("proxy stopping");
}

}  // namespace cnx::record
