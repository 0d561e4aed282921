#include "sim/net/http_server.h"

#include <boost/beast/core.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <spdlog/spdlog.h>

#include <array>
#include <cctype>
#include <string_view>
#include <utility>

#include "sim/net/tls_context.h"

namespace cnx::serve::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;

Response makeResponse(unsigned version, bool keepAlive, int status, std::string body, std::string contentType,
                      std::string reason) {
    Response res{static_cast<beast_http::status>(status), version};
    res.set(beast_http::field::server, "cnxsim");
    if (!body.empty() || contentType != "application/json") res.set(beast_http::field::content_type, contentType);
    if (!reason.empty()) res.reason(reason);
    res.keep_alive(keepAlive);
    res.body() = std::move(body);
    res.prepare_payload();
    return res;
}

namespace {

std::string reasonJson(const std::string& reason) {
    std::string out = "{\"reason\":\"";
    for (char c : reason) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
            continue;
        }
        out += c;
    }
    return out + "\"}";
}

// Case-insensitive ASCII equality (header values).
bool equalsNoCase(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
    return true;
}

/// A header's value without the spaces around it.
std::string_view trimmed(boost::beast::string_view value) {
    std::string_view v(value.data(), value.size());
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
    while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
    return v;
}

/// Why a request's framing is refused (RFC 9112 §6.1, §6.3: a request with
/// both headers, an unknown transfer coding, or several lengths cannot be
/// delimited the same way by every hop), or empty when it is sound.
std::string framingRefusal(const beast_http::fields& h) {
    auto te = h.count(beast_http::field::transfer_encoding);
    auto cl = h.count(beast_http::field::content_length);
    if (te > 0 && cl > 0) return "Bad request: both Transfer-Encoding and Content-Length";
    if (cl > 1) return "Bad request: more than one Content-Length";
    if (cl == 1) {
        auto v = trimmed(h[beast_http::field::content_length]);
        if (v.empty()) return "Bad request: Content-Length is not a number";
        for (char c : v)
            if (c < '0' || c > '9') return "Bad request: Content-Length is not a number";
    }
    if (te > 1) return "Bad request: more than one Transfer-Encoding";
    if (te == 1 && !equalsNoCase(trimmed(h[beast_http::field::transfer_encoding]), "chunked"))
        return "Bad request: unsupported Transfer-Encoding (only chunked is)";
    return {};
}

}  // namespace

class HttpServer::Session : public std::enable_shared_from_this<Session> {
public:
    Session(HttpServer& owner, tcp::socket socket, asio::ip::address client, asio::ssl::context* tls)
        : owner_(owner), client_(std::move(client)) {
        if (tls) tls_.emplace(beast::tcp_stream(std::move(socket)), *tls);
        else plain_.emplace(std::move(socket));
        context_.remoteAddress = client_.to_string();
        context_.tls = tls != nullptr;
    }

    /// Reads the first request (TLS: after the handshake); `refuse503`: answers 503 and closes instead.
    void start(bool refuse503) {
        // A new connection has kHeaderTimeout for its handshake and headers together (slowloris).
        headerDeadline_ = std::chrono::steady_clock::now() + kHeaderTimeout;
        if (!tls_) {
            if (refuse503) refuse(503, "Too many admin connections");
            else read();
            return;
        }
        waiting_ = true;
        waitSerial_ = owner_.nextSerial_++;
        tcp().expires_at(headerDeadline_);
        tls_->async_handshake(asio::ssl::stream_base::server, [self = shared_from_this(), refuse503](beast::error_code ec) {
            if (self->closed_ || self->owner_.stopped_) return;
            if (ec) {  // plain bytes on the TLS port, a refused client certificate, the deadline
                spdlog::info("admin TLS handshake from {}: {}", self->context_.remoteAddress, ec.message());
                self->end();
                return;
            }
            self->context_.peer = peerCertificateOf(self->tls_->native_handle());
            if (refuse503) self->refuse(503, "Too many admin connections");
            else self->read();
        });
    }
    const asio::ip::address& client() const { return client_; }
    /// Waiting for a request's headers (new, or idle between keep-alive requests).
    bool waiting() const { return waiting_ && !closed_; }
    /// Has answered a request (an idle keep-alive connection when waiting).
    bool served() const { return served_; }
    /// When its wait began, in the server's order of waits.
    std::uint64_t waitSerial() const { return waitSerial_; }
    /// Closes the connection and forgets it (to make room for another).
    void evict() { end(); }
    void close() {
        closed_ = true;
        beast::error_code ec;
        tcp().socket().shutdown(tcp::socket::shutdown_both, ec);
        tcp().close();
    }
    /// Answers once and closes. What the peer is still sending (the rest of an
    /// oversized body) is read and dropped for a while first, so that closing
    /// with unread bytes does not reset the connection before the peer has
    /// read the answer (a lingering close, as HTTP servers do).
    void refuse(int status, const std::string& reason) {
        auto res = std::make_shared<Response>(makeResponse(11, false, status, reasonJson(reason)));
        tcp().expires_after(kIdle);
        withStream([&](auto& stream) {
            beast_http::async_write(stream, *res, [self = shared_from_this(), res](beast::error_code ec, std::size_t) {
                if (self->closed_ || self->owner_.stopped_) return;
                if (ec) {
                    self->end();
                    return;
                }
                beast::error_code ignored;
                self->tcp().socket().shutdown(tcp::socket::shutdown_send, ignored);
                self->tcp().expires_after(std::chrono::seconds(2));
                self->drain();
            });
        });
    }

private:
    using TlsStream = beast::ssl_stream<beast::tcp_stream>;

    /// The TCP layer, whose expiry bounds every read and write.
    beast::tcp_stream& tcp() { return tls_ ? beast::get_lowest_layer(*tls_) : *plain_; }
    /// Calls `f` with the stream requests are read from (TLS or plain).
    template <typename F>
    void withStream(F&& f) {
        if (tls_) f(*tls_);
        else f(*plain_);
    }

    void read() {
        parser_.emplace();
        parser_->body_limit(kMaxBody);
        parser_->header_limit(static_cast<std::uint32_t>(kMaxHeader));
        waiting_ = true;
        waitSerial_ = owner_.nextSerial_++;
        // A new connection has kHeaderTimeout for its headers (slowloris); an
        // idle keep-alive one kIdle for its next request's.
        if (served_) tcp().expires_after(kIdle);
        else tcp().expires_at(headerDeadline_);
        withStream([&](auto& stream) {
            beast_http::async_read_header(stream, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec,
                                                                                                  std::size_t) {
                self->onHeader(ec);
            });
        });
    }

    void onHeader(beast::error_code ec) {
        waiting_ = false;
        if (failed(ec)) return;
        if (auto why = framingRefusal(parser_->get()); !why.empty()) {
            refuse(400, why);
            return;
        }
        tcp().expires_after(kIdle);
        withStream([&](auto& stream) {
            beast_http::async_read(stream, buffer_, *parser_, [self = shared_from_this()](beast::error_code e, std::size_t) {
                self->onRead(e);
            });
        });
    }

    /// Ends or refuses the session on a read error; false when there is none.
    bool failed(beast::error_code ec) {
        if (closed_ || owner_.stopped_) return true;
        if (ec == beast_http::error::end_of_stream || ec == asio::error::eof || ec == beast::error::timeout ||
            ec == asio::error::operation_aborted || ec == asio::error::connection_reset ||
            ec == asio::ssl::error::stream_truncated) {
            end();
            return true;
        }
        if (ec == beast_http::error::body_limit) {
            refuse(413, "Request body is over " + std::to_string(kMaxBody) + " bytes");
            return true;
        }
        if (ec == beast_http::error::header_limit) {
            refuse(431, "Request headers are over " + std::to_string(kMaxHeader) + " bytes");
            return true;
        }
        if (ec) {
            refuse(400, "Bad request: " + ec.message());
            return true;
        }
        return false;
    }

    void onRead(beast::error_code ec) {
        if (failed(ec)) return;
        served_ = true;
        auto request = std::make_shared<Request>(parser_->release());
        tcp().expires_never();  // the handler may answer later (the registry is asynchronous)
        auto self = shared_from_this();
        owner_.handler_(*request, context_, [self, request](Response res) {
            if (self->closed_ || self->owner_.stopped_) return;
            res.version(request->version());
            res.keep_alive(request->keep_alive() && res.keep_alive());
            self->write(std::make_shared<Response>(std::move(res)));
        });
    }

    void write(std::shared_ptr<Response> res) {
        tcp().expires_after(kIdle);
        withStream([&](auto& stream) {
            beast_http::async_write(stream, *res, [self = shared_from_this(), res](beast::error_code ec, std::size_t) {
                if (self->closed_ || self->owner_.stopped_) return;
                if (ec || !res->keep_alive()) {
                    self->end();
                    return;
                }
                self->read();
            });
        });
    }

    void drain() {
        withStream([&](auto& stream) {
            stream.async_read_some(asio::buffer(drainBuffer_), [self = shared_from_this()](beast::error_code ec,
                                                                                            std::size_t n) {
                if (self->closed_ || self->owner_.stopped_) return;
                self->drained_ += n;
                if (ec || self->drained_ > 2 * kMaxBody) {
                    self->end();
                    return;
                }
                self->drain();
            });
        });
    }

    void end() {
        close();
        owner_.sessions_.erase(shared_from_this());
    }

    HttpServer& owner_;
    std::optional<beast::tcp_stream> plain_;
    std::optional<TlsStream> tls_;
    asio::ip::address client_;
    RequestContext context_;
    std::chrono::steady_clock::time_point headerDeadline_;
    bool waiting_ = false;
    bool served_ = false;
    std::uint64_t waitSerial_ = 0;
    beast::flat_buffer buffer_{kMaxHeader};
    std::optional<beast_http::request_parser<beast_http::string_body>> parser_;
    std::array<char, 16 * 1024> drainBuffer_{};
    std::size_t drained_ = 0;
    bool closed_ = false;
};

HttpServer::HttpServer(asio::io_context& io, Handler handler) : io_(io), handler_(std::move(handler)) {}

HttpServer::~HttpServer() { stop(); }

std::optional<std::string> HttpServer::listen(const std::string& address, std::uint16_t port) {
    return open(address, port, nullptr);
}

std::optional<std::string> HttpServer::listenTls(const std::string& address, std::uint16_t port,
                                                 std::shared_ptr<asio::ssl::context> tls) {
    return open(address, port, std::move(tls));
}

std::optional<std::string> HttpServer::open(const std::string& address, std::uint16_t port,
                                            std::shared_ptr<asio::ssl::context> tls) {
    boost::system::error_code ec;
    auto ip = asio::ip::make_address(address, ec);
    if (ec) return "'" + address + "' is not an IP address";
    auto listener = std::make_unique<Listener>(io_);
    bool secure = static_cast<bool>(tls);
    listener->tls = std::move(tls);
    auto& acceptor = listener->acceptor;
    tcp::endpoint endpoint(ip, port);
    acceptor.open(endpoint.protocol(), ec);
    if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor.bind(endpoint, ec);
    if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
        acceptor.close();
        return "cannot listen on " + address + ":" + std::to_string(port) + (secure ? " (admin TLS): " : " (admin): ") +
               ec.message();
    }
    listeners_.push_back(std::move(listener));
    accept(*listeners_.back());
    return std::nullopt;
}

std::uint16_t HttpServer::portOf(bool tls) const {
    for (const auto& l : listeners_) {
        if (static_cast<bool>(l->tls) != tls) continue;
        boost::system::error_code ec;
        auto ep = l->acceptor.local_endpoint(ec);
        return ec ? 0 : ep.port();
    }
    return 0;
}

std::uint16_t HttpServer::port() const { return portOf(false); }
std::uint16_t HttpServer::tlsPort() const { return portOf(true); }

void HttpServer::accept(Listener& listener) {
    listener.acceptor.async_accept([this, &listener](boost::system::error_code ec, tcp::socket socket) {
        if (stopped_) return;
        if (ec) {
            if (ec == asio::error::operation_aborted) return;
            spdlog::warn("admin accept: {}; retrying in 100 ms", ec.message());
            listener.retry.expires_after(std::chrono::milliseconds(100));
            listener.retry.async_wait([this, &listener](boost::system::error_code e) {
                if (!e && !stopped_) accept(listener);
            });
            return;
        }
        boost::system::error_code peerError;
        auto peer = socket.remote_endpoint(peerError);
        auto client = peerError ? asio::ip::address() : peer.address();
        bool room = makeRoom(client);
        auto session = std::make_shared<Session>(*this, std::move(socket), client, listener.tls.get());
        sessions_.insert(session);
        session->start(!room);
        accept(listener);
    });
}

std::shared_ptr<HttpServer::Session> HttpServer::oldestWaiting(const asio::ip::address* client) const {
    std::shared_ptr<Session> best;
    for (const auto& s : sessions_) {
        if (!s->waiting() || (client && s->client() != *client)) continue;
        // Idle keep-alive connections go before new ones; then the oldest wait.
        if (!best || std::pair(!s->served(), s->waitSerial()) < std::pair(!best->served(), best->waitSerial())) best = s;
    }
    return best;
}

bool HttpServer::makeRoom(const asio::ip::address& client) {
    std::size_t waitingOfClient = 0;
    for (const auto& s : sessions_)
        if (s->waiting() && s->client() == client) ++waitingOfClient;
    if (waitingOfClient >= kMaxWaitingPerClient) {
        if (auto victim = oldestWaiting(&client)) victim->evict();
    }
    if (sessions_.size() < kMaxSessions) return true;
    auto victim = oldestWaiting(nullptr);
    if (!victim) return false;
    victim->evict();
    return true;
}

void HttpServer::stop() {
    if (stopped_) return;
    stopped_ = true;
    for (auto& l : listeners_) {
        boost::system::error_code ec;
        l->acceptor.close(ec);
        l->retry.cancel();
    }
    for (const auto& s : sessions_) s->close();
    sessions_.clear();
}

}  // namespace cnx::serve::http
