#include "bench/loopback.h"

#include <arpa/inet.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/crc.hpp>
#include <array>
#include <cerrno>
#include <chrono>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <csignal>
#include <unistd.h>

namespace cnx::bench {

namespace asio = boost::asio;
using pulsar::proto::BaseCommand;

namespace {

void putBe32(std::string& out, std::uint32_t v) {
    const char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                       static_cast<char>(v)};
    out.append(b, 4);
}
std::uint32_t getBe32(std::string_view s, std::size_t at) {
    auto b = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + i])); };
    return b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3);
}
std::uint32_t crc32c(std::string_view bytes) {
    boost::crc_optimal<32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, true, true> crc;
    crc.process_bytes(bytes.data(), bytes.size());
    return crc.checksum();
}

/// One echo session: read what comes, write it back, read again.
class EchoSession : public std::enable_shared_from_this<EchoSession> {
public:
    explicit EchoSession(asio::ip::tcp::socket socket) : socket_(std::move(socket)) {}
    void read() {
        socket_.async_read_some(asio::buffer(buffer_), [self = shared_from_this()](boost::system::error_code ec,
                                                                                   std::size_t n) {
            if (!ec) self->write(n);
        });
    }

private:
    void write(std::size_t n) {
        asio::async_write(socket_, asio::buffer(buffer_.data(), n),
                          [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                              if (!ec) self->read();
                          });
    }
    asio::ip::tcp::socket socket_;
    std::array<char, 64 * 1024> buffer_{};  // the size of cnxsim serve's read buffer
};

}  // namespace

std::string simpleFrame(const BaseCommand& cmd) {
    std::string body = cmd.SerializeAsString();
    std::string out;
    out.reserve(8 + body.size());
    putBe32(out, static_cast<std::uint32_t>(4 + body.size()));
    putBe32(out, static_cast<std::uint32_t>(body.size()));
    out += body;
    return out;
}

std::string payloadFrame(const BaseCommand& cmd, const pulsar::proto::MessageMetadata& meta, std::string_view payload) {
    std::string body = cmd.SerializeAsString();
    std::string m = meta.SerializeAsString();
    std::string checked;
    checked.reserve(4 + m.size() + payload.size());
    putBe32(checked, static_cast<std::uint32_t>(m.size()));
    checked += m;
    checked += payload;
    std::string out;
    out.reserve(8 + body.size() + 6 + checked.size());
    putBe32(out, static_cast<std::uint32_t>(4 + body.size() + 6 + checked.size()));
    putBe32(out, static_cast<std::uint32_t>(body.size()));
    out += body;
    out.append("\x0e\x01", 2);
    putBe32(out, crc32c(checked));
    out += checked;
    return out;
}

std::size_t wholeFrameSize(std::string_view bytes) {
    if (bytes.size() < 4) return 0;
    std::size_t size = 4 + static_cast<std::size_t>(getBe32(bytes, 0));
    return bytes.size() >= size ? size : 0;
}

// --- EchoServer --------------------------------------------------------------------

namespace {

void acceptEchoSessions(asio::ip::tcp::acceptor& acceptor) {
    acceptor.async_accept([&acceptor](boost::system::error_code ec, asio::ip::tcp::socket socket) {
        if (ec) return;
        boost::system::error_code ignored;
        socket.set_option(asio::ip::tcp::no_delay(true), ignored);
        std::make_shared<EchoSession>(std::move(socket))->read();
        acceptEchoSessions(acceptor);
    });
}

/// Echoes each connection in turn with blocking calls, until killed.
[[noreturn]] void blockingEcho(int listener) {
    std::array<char, 64 * 1024> buf;
    for (;;) {
        int fd = accept(listener, nullptr, nullptr);
        if (fd < 0) continue;
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        for (;;) {
            ssize_t n = recv(fd, buf.data(), buf.size(), 0);
            if (n <= 0) break;
            ssize_t off = 0;
            while (off < n) {
                ssize_t w = send(fd, buf.data() + off, static_cast<std::size_t>(n - off), MSG_NOSIGNAL);
                if (w <= 0) break;
                off += w;
            }
            if (off < n) break;
        }
        close(fd);
    }
}

/// The child's whole life: listen, tell the parent the port through `portFd`, echo until killed.
[[noreturn]] void runEchoChild(int portFd, EchoServer::Kind kind) {
    asio::io_context io;
    asio::ip::tcp::acceptor acceptor(io);
    asio::ip::tcp::endpoint endpoint(asio::ip::make_address("127.0.0.1"), 0);
    boost::system::error_code ec;
    acceptor.open(endpoint.protocol(), ec);
    if (!ec) acceptor.bind(endpoint, ec);
    if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
    std::uint16_t port = ec ? 0 : acceptor.local_endpoint().port();
    if (write(portFd, &port, sizeof port) != sizeof port || port == 0) _exit(1);
    close(portFd);
    if (kind == EchoServer::Kind::blocking) blockingEcho(acceptor.native_handle());
    acceptEchoSessions(acceptor);
    io.run();
    _exit(0);
}

}  // namespace

EchoServer::EchoServer(Kind kind) {
    int fds[2];
    if (pipe(fds) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
        close(fds[0]);
        runEchoChild(fds[1], kind);
    }
    close(fds[1]);
    pollfd p{fds[0], POLLIN, 0};
    std::uint16_t port = 0;
    if (pid_ > 0 && poll(&p, 1, 10'000) == 1 && read(fds[0], &port, sizeof port) == sizeof port) port_ = port;
    close(fds[0]);
}

EchoServer::~EchoServer() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
}

// --- LoopbackClient ----------------------------------------------------------------

LoopbackClient::LoopbackClient(std::uint16_t port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        close(fd);
        return;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    timeval timeout{10, 0};  // every blocking read and write is bounded
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
    fd_ = fd;
}

LoopbackClient::~LoopbackClient() {
    if (fd_ >= 0) close(fd_);
}

bool LoopbackClient::writeAll(std::string_view bytes) {
    while (!bytes.empty()) {
        ssize_t n = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
        if (n <= 0) {
            if (n < 0 && errno == EINTR) continue;
            return false;
        }
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

bool LoopbackClient::readExact(std::size_t n, std::string& out) {
    out = std::move(pending_);
    pending_.clear();
    std::array<char, 64 * 1024> buf;
    while (out.size() < n) {
        ssize_t got = recv(fd_, buf.data(), buf.size(), 0);
        if (got <= 0) {
            if (got < 0 && errno == EINTR) continue;
            return false;
        }
        out.append(buf.data(), static_cast<std::size_t>(got));
    }
    pending_ = out.substr(n);
    out.resize(n);
    return true;
}

std::optional<BaseCommand> LoopbackClient::readCommand() {
    std::string sizes;
    if (!readExact(8, sizes)) return std::nullopt;
    std::uint32_t total = getBe32(sizes, 0), cmdSize = getBe32(sizes, 4);
    if (total < 4 || cmdSize > total - 4) return std::nullopt;
    std::string rest;
    if (!readExact(total - 4, rest)) return std::nullopt;
    BaseCommand cmd;
    if (!cmd.ParseFromArray(rest.data(), static_cast<int>(cmdSize))) return std::nullopt;
    return cmd;
}

std::optional<BaseCommand> LoopbackClient::call(const BaseCommand& cmd) {
    if (!writeAll(simpleFrame(cmd))) return std::nullopt;
    return readCommand();
}

bool LoopbackClient::pump(std::size_t count, std::size_t window, const FrameSource& source,
                          const ResponseCounter& counter) {
    const int flags = fcntl(fd_, F_GETFL);
    fcntl(fd_, F_SETFL, flags | O_NONBLOCK);
    std::string out, in = std::move(pending_);
    pending_.clear();
    std::size_t written = 0;  // of out
    std::size_t sent = 0, answered = 0;
    std::array<char, 256 * 1024> buf;
    bool ok = true;
    while (ok && answered < count) {
        // Refill the write buffer up to the window, a bounded chunk at a time.
        if (written == out.size()) {
            out.clear();
            written = 0;
        }
        while (sent < count && sent - answered < window && out.size() - written < 256 * 1024) source(sent++, out);
        pollfd p{fd_, static_cast<short>(POLLIN | (written < out.size() ? POLLOUT : 0)), 0};
        int r = poll(&p, 1, 10'000);
        if (r == 0) ok = false;
        if (r <= 0) continue;
        if (p.revents & (POLLERR | POLLHUP)) ok = false;
        if (p.revents & POLLOUT) {
            ssize_t n = send(fd_, out.data() + written, out.size() - written, MSG_NOSIGNAL);
            if (n > 0) written += static_cast<std::size_t>(n);
            else if (n < 0 && errno != EAGAIN && errno != EINTR) ok = false;
        }
        if (p.revents & POLLIN) {
            ssize_t n = recv(fd_, buf.data(), buf.size(), 0);
            if (n > 0) {
                in.append(buf.data(), static_cast<std::size_t>(n));
                if (auto c = counter(in)) answered += *c;
                else ok = false;
            } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                ok = false;
            }
        }
    }
    pending_ = std::move(in);
    fcntl(fd_, F_SETFL, flags);
    return ok;
}

}  // namespace cnx::bench
