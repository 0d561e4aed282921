#pragma once
// One accepted TCP connection of `cnxsim serve` (server.h): reads feed a
// wire::FrameStream, each decoded frame goes to the connection's ServerCnx,
// and what the ServerCnx sends is queued and written in order. A stream
// error, a refusal by the ServerCnx, a full write queue or two keep-alive
// intervals of silence close this connection only.

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <array>
#include <cstddef>
#include <deque>
#include <memory>
#include <string>

#include "broker_model/protocol/server_cnx.h"
#include "broker_model/wire/frame_stream.h"
#include "sim/serve/server.h"

namespace cnx::serve {

class Connection : public std::enable_shared_from_this<Connection> {
public:
    Connection(Server& server, boost::asio::ip::tcp::socket socket);
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    /// Creates the ServerCnx and starts reading and the keep-alive timer; the id of the ServerCnx.
    std::uint64_t start();
    /// Closes now: the ServerCnx detaches, the socket closes, the server forgets it.
    /// Never called from inside the ServerCnx (see queue()).
    void close(const std::string& reason);

private:
    void read();
    void onRead(std::size_t bytes);
    /// The ServerCnx's Sender: appends a frame to the write queue.
    void queue(std::string frame);
    void write();
    void armKeepAlive();
    void onKeepAlive();

    Server& server_;
    boost::asio::ip::tcp::socket socket_;
    boost::asio::steady_timer keepAlive_;
    std::string peer_;
    wire::FrameStream stream_;
    std::unique_ptr<ServerCnx> cnx_;
    std::uint64_t id_ = 0;
    std::array<char, 64 * 1024> readBuffer_{};
    std::deque<std::string> writeQueue_;
    std::size_t queuedBytes_ = 0;
    bool writing_ = false;
    bool closed_ = false;
    bool closing_ = false;     // a close is posted
    bool heard_ = false;       // bytes came in since the last keep-alive tick
    int silentIntervals_ = 0;  // keep-alive ticks without a byte in
};

}  // namespace cnx::serve
