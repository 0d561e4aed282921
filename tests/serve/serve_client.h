#pragma once
// The test side of `cnxsim serve`: the real binary as a child process, and a
// client of its own over Boost.Asio. Nothing here shares the server's code:
// the framing (sizes, checksum) is written and read by hand, only the
// generated protobuf classes are common.

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <cstdint>
#include <fstream>
#include <optional>
#include <poll.h>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "proto/PulsarApi.pb.h"

namespace serve_test {

using pulsar::proto::BaseCommand;
using namespace std::chrono_literals;

/// Where a served child's standard error goes.
struct ServeStderr {
    enum class To { inherited, file, unreadPipe } to = To::inherited;
    std::string file;  // To::file
};

/// `cnxsim serve --port 0 ...` as a child; the port from its ready line.
class ServeProcess {
public:
    /// `portZero` false: no `--port 0` (the extra arguments say what listens).
    explicit ServeProcess(std::vector<std::string> extra = {}, ServeStderr stderrTo = {}, bool portZero = true) {
        std::vector<std::string> args{CNXSIM_BINARY, "serve", "--port", "0"};
        if (!portZero) args.resize(2);
        // Another build's binary (CNXSIM_SERVE_BINARY), to check that a test fails on an older one.
        if (const char* other = std::getenv("CNXSIM_SERVE_BINARY"); other && *other) args[0] = other;
        args.insert(args.end(), extra.begin(), extra.end());
        int fds[2];
        if (pipe(fds) != 0) throw std::runtime_error("pipe");
        int errFds[2] = {-1, -1};
        if (stderrTo.to == ServeStderr::To::unreadPipe && pipe(errFds) != 0) throw std::runtime_error("pipe");
        pid_ = fork();
        if (pid_ < 0) throw std::runtime_error("fork");
        if (pid_ == 0) {
            dup2(fds[1], STDOUT_FILENO);
            close(fds[0]);
            close(fds[1]);
            if (stderrTo.to == ServeStderr::To::unreadPipe) {
                dup2(errFds[1], STDERR_FILENO);
                close(errFds[0]);
                close(errFds[1]);
            } else if (stderrTo.to == ServeStderr::To::file) {
                int fd = ::open(stderrTo.file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
                if (fd >= 0) dup2(fd, STDERR_FILENO);
            }
            std::vector<char*> argv;
            for (auto& a : args) argv.push_back(a.data());
            argv.push_back(nullptr);
            execv(argv[0], argv.data());
            _exit(127);
        }
        close(fds[1]);
        out_ = fds[0];
        if (errFds[1] >= 0) close(errFds[1]);
        err_ = errFds[0];  // held open and never read: a stderr nobody reads
        readyLine_ = readLine(10s);
        const std::string prefix = "ready: pulsar://127.0.0.1:";
        if (readyLine_.rfind(prefix, 0) == 0) port_ = static_cast<std::uint16_t>(std::stoi(readyLine_.substr(prefix.size())));
        const std::string admin = ", admin http://127.0.0.1:";
        if (auto at = readyLine_.find(admin); at != std::string::npos)
            adminPort_ = static_cast<std::uint16_t>(std::stoi(readyLine_.substr(at + admin.size())));
        // The TLS listeners, by scheme (the ready line names each scheme at most once).
        tlsPort_ = portAfter("pulsar+ssl://127.0.0.1:");
        adminTlsPort_ = portAfter("https://127.0.0.1:");
    }
    ~ServeProcess() {
        if (pid_ > 0) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
        if (out_ >= 0) close(out_);
        if (err_ >= 0) close(err_);
    }
    /// Closes the read end of the child's standard output, as `serve | head -1` does after its line.
    void closeStdout() {
        if (out_ >= 0) close(out_);
        out_ = -1;
    }
    ServeProcess(const ServeProcess&) = delete;
    ServeProcess& operator=(const ServeProcess&) = delete;

    std::uint16_t port() const { return port_; }
    const std::string& readyLine() const { return readyLine_; }
    /// The admin REST port from the ready line (0 when it names none).
    std::uint16_t adminPort() const { return adminPort_; }
    /// The pulsar+ssl:// and admin https:// ports from the ready line (0 when it names none).
    std::uint16_t tlsPort() const { return tlsPort_; }
    std::uint16_t adminTlsPort() const { return adminTlsPort_; }
    pid_t pid() const { return pid_; }
    /// The child's resident set (VmRSS of /proc/PID/status) in KiB; -1 if unreadable.
    long residentKb() const {
        std::ifstream in("/proc/" + std::to_string(pid_) + "/status");
        std::string line;
        while (std::getline(in, line))
            if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
        return -1;
    }

    /// Sends `signal` and waits (up to 10 s) for the exit: the exit status, or
    /// -1 when it died of a signal or did not exit.
    int stop(int signal = SIGTERM) {
        if (pid_ <= 0) return -1;
        kill(pid_, signal);
        for (int i = 0; i < 1000; ++i) {
            int status = 0;
            if (waitpid(pid_, &status, WNOHANG) == pid_) {
                pid_ = -1;
                return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            }
            usleep(10'000);
        }
        return -1;
    }

private:
    std::uint16_t portAfter(const std::string& prefix) const {
        auto at = readyLine_.find(prefix);
        if (at == std::string::npos) return 0;
        return static_cast<std::uint16_t>(std::stoi(readyLine_.substr(at + prefix.size())));
    }
    std::string readLine(std::chrono::milliseconds timeout) {
        std::string line;
        auto deadline = std::chrono::steady_clock::now() + timeout;
        while (std::chrono::steady_clock::now() < deadline) {
            pollfd p{out_, POLLIN, 0};
            if (poll(&p, 1, 100) <= 0) continue;
            char c;
            if (read(out_, &c, 1) != 1) break;
            if (c == '\n') return line;
            line += c;
        }
        return line;
    }

    pid_t pid_ = -1;
    int out_ = -1;
    int err_ = -1;
    std::uint16_t port_ = 0;
    std::string readyLine_;
    std::uint16_t adminPort_ = 0;
    std::uint16_t tlsPort_ = 0;
    std::uint16_t adminTlsPort_ = 0;
};

inline std::string be32(std::uint32_t v) {
    return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}
inline std::uint32_t readBe32(const std::string& s, std::size_t at = 0) {
    auto b = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(s[at + i])); };
    return b(0) << 24 | b(1) << 16 | b(2) << 8 | b(3);
}
/// CRC32C (Castagnoli, reflected polynomial 0x82F63B78), bit by bit.
inline std::uint32_t crc32c(const std::string& bytes) {
    std::uint32_t crc = 0xFFFFFFFFu;
    for (unsigned char c : bytes) {
        crc ^= c;
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
    }
    return ~crc;
}

/// A frame as read by Client::readFrame: the command, and for a payload command
/// (MESSAGE) what follows it, each part checked by hand.
struct ServeFrame {
    BaseCommand command;
    bool hasPayloadPart = false;         // bytes followed the command
    bool checksumPresent = false;        // a 0x0e01 block
    bool checksumValid = false;          // its CRC32C matches [metadataSize][metadata][payload]
    std::string metadataBytes;           // the MessageMetadata as sent on the wire
    pulsar::proto::MessageMetadata metadata;
    std::string payload;
};

/// One client connection, synchronous, every wait bounded.
class Client {
public:
    /// `receiveBuffer` > 0: SO_RCVBUF set before connecting (a small window for a peer that does not read).
    explicit Client(std::uint16_t port, int receiveBuffer = 0) {
        boost::asio::ip::tcp::endpoint ep(boost::asio::ip::make_address("127.0.0.1"), port);
        boost::system::error_code ec;
        if (receiveBuffer > 0) {
            socket_.open(ep.protocol(), ec);
            if (!ec) socket_.set_option(boost::asio::socket_base::receive_buffer_size(receiveBuffer), ec);
        }
        socket_.connect(ep, ec);
        connected_ = !ec;
    }
    bool connected() const { return connected_; }

    void raw(const std::string& bytes) {
        boost::system::error_code ec;
        boost::asio::write(socket_, boost::asio::buffer(bytes), ec);
    }
    /// Writes `bytes`; false once the connection is closed or reset.
    bool rawChecked(const std::string& bytes) {
        boost::system::error_code ec;
        boost::asio::write(socket_, boost::asio::buffer(bytes), ec);
        return !ec;
    }
    void send(const BaseCommand& cmd) {
        std::string body = cmd.SerializeAsString();
        raw(be32(static_cast<std::uint32_t>(4 + body.size())) + be32(static_cast<std::uint32_t>(body.size())) + body);
    }
    /// A payload command: the checksum block over `[metadataSize][metadata][payload]`.
    void sendPayload(const BaseCommand& cmd, const pulsar::proto::MessageMetadata& meta, const std::string& payload) {
        std::string body = cmd.SerializeAsString();
        std::string m = meta.SerializeAsString();
        std::string checked = be32(static_cast<std::uint32_t>(m.size())) + m + payload;
        std::string tail = std::string("\x0e\x01", 2) + be32(crc32c(checked)) + checked;
        raw(be32(static_cast<std::uint32_t>(4 + body.size() + tail.size())) + be32(static_cast<std::uint32_t>(body.size())) +
            body + tail);
    }
    void shutdown() {
        boost::system::error_code ec;
        socket_.close(ec);
    }

    /// The next frame's command; nullopt on timeout, a closed connection or bytes that do not parse.
    std::optional<BaseCommand> read(std::chrono::milliseconds timeout = 5s) {
        auto f = readFrame(timeout);
        if (!f) return std::nullopt;
        return std::move(f->command);
    }
    /// The next frame that is not the server's keep-alive PING; each PING on the
    /// way is answered with PONG, as a real client does.
    std::optional<BaseCommand> readSkippingPings(std::chrono::milliseconds timeout = 5s) {
        while (auto f = read(timeout)) {
            if (f->type() != BaseCommand::PING) return f;
            BaseCommand pong;
            pong.set_type(BaseCommand::PONG);
            send(pong);
        }
        return std::nullopt;
    }
    /// The next frame with its payload part split and checked; nullopt on
    /// timeout, a closed connection, or a frame whose parts do not add up.
    std::optional<ServeFrame> readFrame(std::chrono::milliseconds timeout = 5s) {
        std::string sizes;
        if (!readExact(8, sizes, timeout)) return std::nullopt;
        std::uint32_t total = readBe32(sizes), cmdSize = readBe32(sizes, 4);
        if (total < 4 || cmdSize > total - 4 || total > 6 * 1024 * 1024) return std::nullopt;
        std::string rest;
        if (!readExact(total - 4, rest, timeout)) return std::nullopt;
        ServeFrame f;
        if (!f.command.ParseFromString(rest.substr(0, cmdSize))) return std::nullopt;
        std::size_t at = cmdSize;
        if (at == rest.size()) return f;
        f.hasPayloadPart = true;
        auto magic = [&](char second) { return rest.size() >= at + 2 && rest[at] == '\x0e' && rest[at + 1] == second; };
        if (magic('\x02')) {  // broker-entry metadata: skipped
            if (rest.size() < at + 6) return std::nullopt;
            at += 6 + readBe32(rest, at + 2);
        }
        if (magic('\x01')) {
            if (rest.size() < at + 6) return std::nullopt;
            f.checksumPresent = true;
            std::uint32_t crc = readBe32(rest, at + 2);
            at += 6;
            f.checksumValid = crc32c(rest.substr(at)) == crc;
        }
        if (rest.size() < at + 4) return std::nullopt;
        std::uint32_t metaSize = readBe32(rest, at);
        at += 4;
        if (rest.size() < at + metaSize) return std::nullopt;
        f.metadataBytes = rest.substr(at, metaSize);
        if (!f.metadata.ParseFromString(f.metadataBytes)) return std::nullopt;
        f.payload = rest.substr(at + metaSize);
        return f;
    }
    /// Frames until one of `type` (the others are dropped); nullopt if none comes within `timeout` of each read.
    std::optional<ServeFrame> readUntil(BaseCommand::Type type, std::chrono::milliseconds timeout = 5s) {
        for (int i = 0; i < 10000; ++i) {
            auto f = readFrame(timeout);
            if (!f) return std::nullopt;
            if (f->command.type() == type) return f;
        }
        return std::nullopt;
    }
    /// The server closed the connection (EOF or reset) within `timeout`; frames before that are skipped.
    /// True at once when an earlier read already met the close: Asio's
    /// edge-triggered reactor would not report that end a second time.
    bool closedByServer(std::chrono::milliseconds timeout = 5s) {
        if (closed_) return true;
        auto deadline = std::chrono::steady_clock::now() + timeout;
        std::string byte;
        while (std::chrono::steady_clock::now() < deadline) {
            auto r = readSome(std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()));
            if (r == ReadResult::closed) return true;
            if (r == ReadResult::timeout) return false;
        }
        return false;
    }
    BaseCommand call(const BaseCommand& cmd) {
        send(cmd);
        auto r = read();
        if (!r) {
            BaseCommand none;
            none.set_type(BaseCommand::CONNECT);  // never an answer
            return none;
        }
        return *r;
    }
    BaseCommand handshake(int protocolVersion = 21) {
        BaseCommand c;
        c.set_type(BaseCommand::CONNECT);
        c.mutable_connect()->set_client_version("serve-test-client");
        c.mutable_connect()->set_protocol_version(protocolVersion);
        return call(c);
    }

private:
    enum class ReadResult { data, closed, timeout };
    /// Runs the io_context until the operation started sets `done`, for at most
    /// `timeout`; one still running then is cancelled (and its handler run). Whether it finished.
    bool await(const bool& done, std::chrono::milliseconds timeout) {
        io_.restart();
        io_.run_for(timeout);
        if (done) return true;
        socket_.cancel();
        io_.restart();
        io_.run();
        return false;
    }
    ReadResult readSome(std::chrono::milliseconds timeout) {
        char buf[4096];
        bool done = false;
        boost::system::error_code ec;
        socket_.async_read_some(boost::asio::buffer(buf), [&](boost::system::error_code e, std::size_t) {
            ec = e;
            done = true;
        });
        if (!await(done, timeout)) return ReadResult::timeout;
        noteClose(ec);
        return ec ? ReadResult::closed : ReadResult::data;
    }
    bool readExact(std::size_t n, std::string& out, std::chrono::milliseconds timeout) {
        out.assign(n, '\0');
        bool done = false;
        boost::system::error_code ec;
        boost::asio::async_read(socket_, boost::asio::buffer(out), [&](boost::system::error_code e, std::size_t) {
            ec = e;
            done = true;
        });
        if (!await(done, timeout)) return false;
        noteClose(ec);
        return !ec;
    }
    void noteClose(const boost::system::error_code& ec) {
        if (ec == boost::asio::error::eof || ec == boost::asio::error::connection_reset) closed_ = true;
    }

    boost::asio::io_context io_;
    boost::asio::ip::tcp::socket socket_{io_};
    bool connected_ = false;
    bool closed_ = false;  // a read met the server's close (EOF or reset)
};

}  // namespace serve_test
