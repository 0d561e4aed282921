#pragma once
// One accepted TCP connection of `cnxsim serve` (server.h): reads feed a
// wire::FrameStream, each decoded frame goes to the connection's ServerCnx
// (after the server's faults, fault.h, have had their say), and what the
// ServerCnx sends is queued and written in order. Past a high-water mark of
// queued bytes the ServerCnx is told it is not writable (dispatch to its
// consumers pauses) until the queue drains below the low-water mark. A stream
// error, a refusal by the ServerCnx, a full write queue (--max-queued-bytes,
// far above the mark), two keep-alive intervals with frames queued and none
// written, or two of silence close this connection only; when the broker drops it (a restart) it closes
// once what was queued has been written.
//
// On a TLS listener (brokerServicePortTls) the same connection runs over an
// ssl::stream: the handshake comes first and must finish within
// ServerOptions::handshakeTimeout (a peer that opens and never finishes it,
// or sends plain bytes, is closed alone); the client certificate it accepted
// goes to the ServerCnx (AuthenticationProviderTls's role). Reads, writes and
// every bound above are then the same on both.

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <array>
#include <chrono>
#include <cstddef>
#include <deque>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <utility>

#include "broker_model/auth/peer_certificate.h"
#include "broker_model/protocol/server_cnx.h"
#include "broker_model/wire/frame_stream.h"
#include "sim/serve/fault.h"
#include "sim/serve/server.h"

namespace cnx::serve {

class Connection : public std::enable_shared_from_this<Connection> {
public:
    /// A plain connection, or a TLS one when `tls` is given (the handshake runs in start()).
    Connection(Server& server, boost::asio::ip::tcp::socket socket, boost::asio::ssl::context* tls = nullptr);
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    /// Creates the ServerCnx and starts reading and the keep-alive timer; the id of the ServerCnx.
    std::uint64_t start();
    /// Closes now: the ServerCnx detaches, the socket closes, the server forgets it.
    /// Never called from inside the ServerCnx (see queue()).
    void close(const std::string& reason);
    /// Stops reading and closes once every queued frame has been written.
    void closeAfterFlush(const std::string& reason);

private:
    using Clock = std::chrono::steady_clock;
    using TlsStream = boost::asio::ssl::stream<boost::asio::ip::tcp::socket>;

    /// Calls `f` with the stream reads and writes go through (TLS or plain).
    template <typename F>
    void withStream(F&& f) {
        if (tls_) f(*tls_);
        else f(*plain_);
    }
    boost::asio::ip::tcp::socket& socket() { return tls_ ? tls_->next_layer() : *plain_; }
    /// TLS: the handshake, bounded in time; then reading starts.
    void handshake();
    void onHandshake(const boost::system::error_code& ec);
    void read();
    void onRead(std::size_t bytes);
    /// A decoded frame from the client: faults first, then the ServerCnx.
    /// False once the connection is closing.
    bool handle(wire::Frame frame);
    /// What a fault does once its delay (if any) is over.
    bool apply(wire::Frame frame, const Fault& fault);
    bool toBroker(const wire::Frame& frame);
    /// Delayed frames, handled in due order (ties in arrival order).
    void hold(wire::Frame frame, Fault fault);
    void armHeld();
    void onHeld();
    /// The ServerCnx's Sender: appends a frame to the write queue.
    void queue(std::string frame);
    void write();
    /// Below the low-water mark after a pause: the ServerCnx is writable again.
    void resumeIfDrained();
    /// Counts the stream's buffer in the server's incomplete-frame total; false
    /// (the connection is closed) when this connection takes it over the bound.
    bool accountIncomplete();
    void armKeepAlive();
    void onKeepAlive();

    Server& server_;
    std::optional<boost::asio::ip::tcp::socket> plain_;
    std::optional<TlsStream> tls_;
    boost::asio::steady_timer keepAlive_;
    boost::asio::steady_timer handshakeTimer_;
    bool established_ = false;  // plain, or the TLS handshake finished: reads and writes may run
    auth::PeerCertificate peerCertificate_;
    boost::asio::steady_timer heldTimer_;
    std::string peer_;
    wire::FrameStream stream_;
    std::unique_ptr<ServerCnx> cnx_;
    std::uint64_t id_ = 0;
    std::array<char, 64 * 1024> readBuffer_{};
    std::deque<std::string> writeQueue_;
    std::size_t queuedBytes_ = 0;
    std::map<std::pair<Clock::time_point, std::uint64_t>, std::pair<wire::Frame, Fault>> held_;
    std::uint64_t heldSeq_ = 0;
    std::size_t heldBytes_ = 0;
    std::size_t incompleteAccounted_ = 0;  // this connection's part of Server::incompleteBytes_
    bool writing_ = false;
    bool closed_ = false;
    bool closing_ = false;     // a close is posted
    bool draining_ = false;    // closeAfterFlush: no more reads, close when the queue is empty
    std::string drainReason_;
    bool heard_ = false;       // bytes came in since the last keep-alive tick
    int silentIntervals_ = 0;  // keep-alive ticks without a byte in
    bool paused_ = false;      // over the high-water mark: the ServerCnx is not writable
    bool wrote_ = false;       // a write completed since the last keep-alive tick
    int stalledIntervals_ = 0; // keep-alive ticks with frames queued and none written
};

}  // namespace cnx::serve
