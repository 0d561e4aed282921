#pragma once
// The HTTP side of `cnxsim serve` (`--admin-port`): Boost.Beast HTTP/1.1 on
// the same io_context as the binary protocol, so admin calls and client
// commands meet the broker model on one thread. It only carries requests to a
// handler (admin_routes.h) and answers back; it knows no Pulsar path.
//
// Bad peers are answered and closed, never served forever: a body over
// kMaxBody gets 413, headers over kMaxHeader 431, unparsable bytes 400, a
// request whose framing is ambiguous (Transfer-Encoding with Content-Length,
// a transfer coding other than `chunked`, two Content-Length values: the
// request smuggling of issue 40 item 3) 400 and the connection closed. A
// request's headers must arrive within kHeaderTimeout of the connection
// (slowloris), a keep-alive connection waiting for its next request is
// closed after kIdle.
//
// Connections are bounded per client and in total (issue 40 item 4): a
// connection that is waiting for a request (a new one that has not sent its
// headers yet, or an idle keep-alive one) may be closed to make room. When a
// client (a remote address) has kMaxWaitingPerClient such connections, its
// oldest one is closed for its new one; when kMaxSessions are open, the
// oldest waiting connection of any client is closed (idle keep-alive ones
// first). Only when every open connection is busy with a request is a new one
// answered 503. So slow or idle connections, from one client or many, never
// lock a client that sends its request out.
//
// With listenTls (webServicePortTls) the same sessions run over TLS: the
// handshake counts as waiting for the headers (kHeaderTimeout covers both),
// and the handler is told the client certificate the handshake accepted.
// Plain and TLS sessions share the bounds above.

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "broker_model/auth/peer_certificate.h"

namespace cnx::serve::http {

namespace beast_http = boost::beast::http;
using Request = beast_http::request<beast_http::string_body>;
using Response = beast_http::response<beast_http::string_body>;

/// Where a request came from: the client's IP address, and over TLS the
/// client certificate the handshake accepted (AuthenticationProviderTls).
struct RequestContext {
    std::string remoteAddress;
    bool tls = false;
    auth::PeerCertificate peer;
};

/// Answers one request; calls `reply` exactly once, now or later (on the io_context).
/// `request` and `context` live until `reply` has been called.
using Handler =
    std::function<void(const Request& request, const RequestContext& context, std::function<void(Response)> reply)>;

class HttpServer {
public:
    static constexpr std::size_t kMaxBody = 8u << 20;
    static constexpr std::size_t kMaxHeader = 16u << 10;
    static constexpr std::size_t kMaxSessions = 256;
    static constexpr std::size_t kMaxWaitingPerClient = 16;
    static constexpr std::chrono::seconds kHeaderTimeout{10};
    static constexpr std::chrono::seconds kIdle{60};

    HttpServer(boost::asio::io_context& io, Handler handler);
    ~HttpServer();
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    /// Listens on `address:port` (0: a free port); the error text otherwise.
    std::optional<std::string> listen(const std::string& address, std::uint16_t port);
    /// The same over TLS (webServicePortTls).
    std::optional<std::string> listenTls(const std::string& address, std::uint16_t port,
                                         std::shared_ptr<boost::asio::ssl::context> tls);
    /// The plain port (0: none), the TLS port (0: none).
    std::uint16_t port() const;
    std::uint16_t tlsPort() const;
    /// Stops accepting and closes every session.
    void stop();

    std::size_t sessionCount() const { return sessions_.size(); }

private:
    class Session;
    struct Listener {
        explicit Listener(boost::asio::io_context& io) : acceptor(io), retry(io) {}
        boost::asio::ip::tcp::acceptor acceptor;
        boost::asio::steady_timer retry;
        std::shared_ptr<boost::asio::ssl::context> tls;  // null: plain
    };
    std::optional<std::string> open(const std::string& address, std::uint16_t port,
                                    std::shared_ptr<boost::asio::ssl::context> tls);
    std::uint16_t portOf(bool tls) const;
    void accept(Listener& listener);
    /// Makes room for a new connection from `client` by closing a waiting one,
    /// as the class comment says; false when every connection is busy.
    bool makeRoom(const boost::asio::ip::address& client);
    /// The oldest waiting session (of `client` only, when given), idle keep-alive ones first.
    std::shared_ptr<Session> oldestWaiting(const boost::asio::ip::address* client) const;

    boost::asio::io_context& io_;
    Handler handler_;
    std::vector<std::unique_ptr<Listener>> listeners_;
    std::set<std::shared_ptr<Session>> sessions_;
    std::uint64_t nextSerial_ = 0;  // orders the sessions' waits, oldest first
    bool stopped_ = false;
};

/// A response with `status`, a JSON or text body and the usual headers.
Response makeResponse(unsigned version, bool keepAlive, int status, std::string body,
                      std::string contentType = "application/json", std::string reason = {});

}  // namespace cnx::serve::http
