#include "sim/serve/control_socket.h"

#include <boost/asio/read_until.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include <istream>

#include <spdlog/spdlog.h>

namespace cnx::serve {

namespace asio = boost::asio;
using local = asio::local::stream_protocol;

class ControlSocket::Session : public std::enable_shared_from_this<Session> {
public:
    Session(ControlSocket& owner, local::socket socket)
        : owner_(owner), socket_(std::move(socket)), in_(kMaxLine + 1) {}

    void start() { read(); }
    void refuse(const std::string& why) { answer("error: " + why, true); }
    void close() {
        boost::system::error_code ec;
        socket_.close(ec);
    }

private:
    void read() {
        asio::async_read_until(socket_, in_, '\n', [self = shared_from_this()](boost::system::error_code ec, std::size_t n) {
            if (self->owner_.stopped_) return;
            if (ec == asio::error::not_found) {  // the buffer is full without a newline
                self->refuse("a command line is at most " + std::to_string(kMaxLine) + " bytes");
                return;
            }
            if (ec) {
                self->end();
                return;
            }
            std::string line(asio::buffers_begin(self->in_.data()), asio::buffers_begin(self->in_.data()) + n - 1);
            self->in_.consume(n);
            if (!line.empty() && line.back() == '\r') line.pop_back();
            self->answer(self->owner_.lifecycle_.run(line), false);
        });
    }
    void answer(std::string text, bool thenClose) {
        out_ = std::move(text) + "\n";
        asio::async_write(socket_, asio::buffer(out_), [self = shared_from_this(), thenClose](boost::system::error_code ec,
                                                                                               std::size_t) {
            if (self->owner_.stopped_) return;
            if (ec || thenClose) {
                self->end();
                return;
            }
            self->read();
        });
    }
    void end() {
        close();
        owner_.sessions_.erase(shared_from_this());
    }

    ControlSocket& owner_;
    local::socket socket_;
    asio::streambuf in_;
    std::string out_;
};

ControlSocket::ControlSocket(asio::io_context& io, Lifecycle& lifecycle) : io_(io), lifecycle_(lifecycle), acceptor_(io), retry_(io) {}

ControlSocket::~ControlSocket() { stop(); }

std::optional<std::string> ControlSocket::listen(const std::string& path) {
    if (path.empty()) return "--control needs a path";
    if (path.size() >= sizeof(sockaddr_un::sun_path))
        return "--control " + path + ": a socket path is at most " + std::to_string(sizeof(sockaddr_un::sun_path) - 1) +
               " bytes";
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) return "--control " + path + ": the file exists and is not a socket";
        local::socket probe(io_);
        boost::system::error_code ec;
        probe.connect(local::endpoint(path), ec);
        if (!ec) return "--control " + path + ": another server is listening on it";
        ::unlink(path.c_str());  // stale: left by a server that was killed
    }
    boost::system::error_code ec;
    acceptor_.open(local(), ec);
    if (!ec) acceptor_.bind(local::endpoint(path), ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
        acceptor_.close();
        return "--control " + path + ": " + ec.message();
    }
    path_ = path;
    accept();
    return std::nullopt;
}

void ControlSocket::accept() {
    acceptor_.async_accept([this](boost::system::error_code ec, local::socket socket) {
        if (stopped_) return;
        if (ec) {
            if (ec == asio::error::operation_aborted) return;
            spdlog::warn("control socket accept: {}; retrying in 100 ms", ec.message());
            retry_.expires_after(std::chrono::milliseconds(100));
            retry_.async_wait([this](boost::system::error_code e) {
                if (!e && !stopped_) accept();
            });
            return;
        }
        {
            auto session = std::make_shared<Session>(*this, std::move(socket));
            sessions_.insert(session);
            if (sessions_.size() > kMaxSessions) session->refuse("too many control sessions open");
            else session->start();
        }
        accept();
    });
}

void ControlSocket::stop() {
    if (stopped_) return;
    stopped_ = true;
    boost::system::error_code ec;
    acceptor_.close(ec);
    retry_.cancel();
    for (const auto& s : sessions_) s->close();
    sessions_.clear();
    if (!path_.empty()) ::unlink(path_.c_str());
}

}  // namespace cnx::serve
