#pragma once
// The loopback side of bench_serve (bench/README.md): a bare TCP echo server
// (the baseline) and a small client used against both the echo server and
// `cnxsim serve`, so the client's own work is the same in both figures.
//
// The client is plain POSIX sockets with TCP_NODELAY: a blocking round trip
// for latency, and a non-blocking poll loop for a window of outstanding
// frames (it keeps reading while it writes, so neither side can stall the
// other on full socket buffers). Framing is written by hand as in
// tests/serve/serve_client.h; the checksum is Boost's table-driven CRC32C.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>

#include "proto/PulsarApi.pb.h"

namespace cnx::bench {

/// `[totalSize][commandSize][command]`.
std::string simpleFrame(const pulsar::proto::BaseCommand& cmd);
/// A payload frame with the CRC32C checksum block, as clients send SEND.
std::string payloadFrame(const pulsar::proto::BaseCommand& cmd, const pulsar::proto::MessageMetadata& meta,
                         std::string_view payload);
/// The size of the first whole frame in `bytes` (4 + its total size), or 0 when not all of it is there yet.
std::size_t wholeFrameSize(std::string_view bytes);

/// A TCP echo server on 127.0.0.1 (free port), in a child process of its own
/// (fork, no exec) as `cnxsim serve` is: Boost.Asio, one io_context thread,
/// async read -> async write of what was read -> read again, TCP_NODELAY on
/// every accepted socket.
/// `blocking`: instead, plain blocking recv/send, one connection at a time
/// (the barest echo there is, for comparison: bench_serve --echo=blocking).
class EchoServer {
public:
    enum class Kind { asio, blocking };
    explicit EchoServer(Kind kind = Kind::asio);
    ~EchoServer();
    EchoServer(const EchoServer&) = delete;
    EchoServer& operator=(const EchoServer&) = delete;
    /// 0 when the child did not start.
    std::uint16_t port() const { return port_; }

private:
    pid_t pid_ = -1;
    std::uint16_t port_ = 0;
};

/// Counts the responses in the bytes read so far: consumes whole responses
/// from the front of `in` and returns how many; nullopt for an unexpected one.
using ResponseCounter = std::function<std::optional<std::size_t>(std::string& in)>;
/// Frame number `i` of a stream, appended to `out`.
using FrameSource = std::function<void(std::size_t i, std::string& out)>;

class LoopbackClient {
public:
    explicit LoopbackClient(std::uint16_t port);
    ~LoopbackClient();
    LoopbackClient(const LoopbackClient&) = delete;
    LoopbackClient& operator=(const LoopbackClient&) = delete;
    bool connected() const { return fd_ >= 0; }

    bool writeAll(std::string_view bytes);
    /// Exactly `n` bytes into `out` (blocking, 10 s at most).
    bool readExact(std::size_t n, std::string& out);
    /// The next frame's command (blocking, 10 s at most).
    std::optional<pulsar::proto::BaseCommand> readCommand();
    /// Writes `cmd` and reads the answer.
    std::optional<pulsar::proto::BaseCommand> call(const pulsar::proto::BaseCommand& cmd);

    /// Sends frames 0..count-1 of `source`, never more than `window` of them
    /// unanswered, until `counter` has counted `count` responses. False on an
    /// error, an unexpected response or 10 s without progress.
    bool pump(std::size_t count, std::size_t window, const FrameSource& source, const ResponseCounter& counter);

private:
    int fd_ = -1;
    std::string pending_;  // bytes read past the last frame returned by readCommand
};

}  // namespace cnx::bench
