#pragma once
// `cnxsim serve`: the model behind a real TCP listener, so real Pulsar
// clients connect to it. An adapter only: each accepted connection is one
// ServerCnx of the same Broker that `cnxsim run` drives; bytes are cut into
// frames by wire::FrameStream and the ServerCnx's answers go out through a
// per-connection write queue. Everything runs on one io_context thread, the
// one the broker's AsioScheduler posts to.

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "broker_model/broker/broker.h"
#include "sim/serve/fault.h"
#include "sim/net/session_tap.h"

namespace cnx::serve {

struct ServerOptions {
    /// PING after this much silence from a peer; a peer silent for two intervals is closed.
    std::chrono::milliseconds keepAlive{std::chrono::seconds(30)};
    /// Bytes queued for a peer that does not read them before the connection is closed.
    std::size_t maxQueuedBytes = 16 * 1024 * 1024;
    /// Bytes held for frames not yet complete, by all connections together; the
    /// connection whose read takes the total over it is closed (issue 40 item 5).
    std::size_t maxIncompleteBytes = 64 * 1024 * 1024;
    /// A TLS connection's handshake must finish within this (at most the keep-alive interval).
    std::chrono::milliseconds handshakeTimeout{std::chrono::seconds(10)};
};

class Connection;

class Server {
public:
    /// `io` and `broker` must outlive the server; `broker` runs on `io` (AsioScheduler).
    Server(boost::asio::io_context& io, Broker& broker, ServerOptions options);
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    /// Listens on `address:port` (port 0: a free one) and starts accepting.
    /// The error text when the address is not valid or cannot be bound.
    std::optional<std::string> listen(const std::string& address, std::uint16_t port);
    /// The same for TLS connections (brokerServicePortTls), over `tls`.
    std::optional<std::string> listenTls(const std::string& address, std::uint16_t port,
                                         std::shared_ptr<boost::asio::ssl::context> tls);
    /// The plain port listened on (after listen); 0 when there is none.
    std::uint16_t port() const;
    /// The TLS port listened on (after listenTls); 0 when there is none.
    std::uint16_t tlsPort() const;
    /// Stops accepting and closes every connection; io.run() then returns
    /// once the last handler has run.
    void stop();

    std::size_t connectionCount() const { return connections_.size(); }
    /// Bytes held for incomplete frames by every connection (ServerOptions::maxIncompleteBytes).
    std::size_t incompleteBytes() const { return incompleteBytes_; }
    /// Faults to inject (fault.h); set before listen().
    void setFaults(FaultPlan faults) { faults_ = std::move(faults); }
    /// Adds an observer of every command and connection (session_tap.h); it outlives the server.
    void addTap(SessionTap* tap) { taps_.add(tap); }
    /// The observers, to tell them about admin calls and lifecycle events too.
    SessionTap& taps() { return taps_; }
    /// The observers, or nullptr when there are none (nothing to describe).
    SessionTap* tap() { return taps_.empty() ? nullptr : &taps_; }

private:
    friend class Connection;
    struct Listener {
        explicit Listener(boost::asio::io_context& io) : acceptor(io), retry(io) {}
        boost::asio::ip::tcp::acceptor acceptor;
        boost::asio::steady_timer retry;  // accept again after an accept error
        std::shared_ptr<boost::asio::ssl::context> tls;  // null: plain
    };
    std::optional<std::string> open(const std::string& address, std::uint16_t port,
                                    std::shared_ptr<boost::asio::ssl::context> tls);
    std::uint16_t portOf(bool tls) const;
    void accept(Listener& listener);
    void forget(std::uint64_t id) { connections_.erase(id); }

    boost::asio::io_context& io_;
    Broker& broker_;
    ServerOptions options_;
    std::vector<std::unique_ptr<Listener>> listeners_;
    std::map<std::uint64_t, std::shared_ptr<Connection>> connections_;  // by ServerCnx id
    FaultPlan faults_;
    TapFanout taps_;
    bool stopped_ = false;
    std::size_t incompleteBytes_ = 0;  // the connections' FrameStream::reserved(), summed
};

}  // namespace cnx::serve
