#pragma once
// The control channel of `cnxsim serve --control PATH`: a Unix-domain socket
// (local to the machine, its file's permissions guard it) on which each line
// is a Lifecycle command (lifecycle.h) and each answer one line. `cnxsim ctl`
// is its client; `socat - UNIX-CONNECT:PATH` works too. Lines are at most
// 4 KiB and at most 8 sessions are open at once: a session over either is told
// so and closed.

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/steady_timer.hpp>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "sim/serve/lifecycle.h"

namespace cnx::serve {

class ControlSocket {
public:
    static constexpr std::size_t kMaxLine = 4096;
    static constexpr std::size_t kMaxSessions = 8;

    ControlSocket(boost::asio::io_context& io, Lifecycle& lifecycle);
    ~ControlSocket();
    ControlSocket(const ControlSocket&) = delete;
    ControlSocket& operator=(const ControlSocket&) = delete;

    /// Listens on `path`; a stale socket file (nobody listening) is replaced.
    /// The error text when it cannot.
    std::optional<std::string> listen(const std::string& path);
    /// Stops accepting, closes the sessions and removes the socket file.
    void stop();

private:
    class Session;
    void accept();

    boost::asio::io_context& io_;
    Lifecycle& lifecycle_;
    boost::asio::local::stream_protocol::acceptor acceptor_;
    boost::asio::steady_timer retry_;  // accept again after an accept error
    std::string path_;
    std::set<std::shared_ptr<Session>> sessions_;
    bool stopped_ = false;
};

}  // namespace cnx::serve
