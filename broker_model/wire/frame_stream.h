#pragma once
// A connection's byte stream cut into frames (reference §8.1): feed it chunks
// of any size, as a socket delivers them (part of a frame, several frames),
// and take whole decoded frames out. Memory is bounded: a declared frame size
// above the maximum fails the stream as soon as its 4 size bytes are in,
// before any of the frame is buffered. Errors are values; after one the stream
// stays failed (the broker closes such a connection).

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include "broker_model/wire/frame.h"

namespace cnx::wire {

/// Commands.MESSAGE_SIZE_FRAME_PADDING: what a frame may carry beyond maxMessageSize.
inline constexpr std::uint32_t kFramePadding = 10 * 1024;
/// The largest frame a broker with `maxMessageSize` decodes (PulsarChannelInitializer:
/// LengthFieldBasedFrameDecoder(maxMessageSize + MESSAGE_SIZE_FRAME_PADDING)); a
/// larger one fails the decoder (TooLongFrameException) and the connection closes.
constexpr std::uint32_t frameLimit(int maxMessageSize) {
    return static_cast<std::uint32_t>(maxMessageSize) + kFramePadding;
}

class FrameStream {
public:
    explicit FrameStream(std::uint32_t maxFrameSize = kMaxFrameSize) : maxFrameSize_(maxFrameSize) {}

    /// Appends `bytes` and decodes every frame they complete. False once the
    /// stream has failed (now or before); the bytes of a failed stream are dropped.
    bool feed(std::string_view bytes);
    /// The next decoded frame, oldest first; nullopt when none is complete.
    /// Frames decoded before an error can still be taken.
    std::optional<Frame> next();

    bool failed() const { return failed_; }
    /// Why the stream failed (empty while it has not).
    const std::string& error() const { return error_; }
    /// Bytes held of the frame not yet complete.
    std::size_t buffered() const { return pending_.size(); }
    /// Memory held for it (at least buffered()); a frame's buffer is let go
    /// once it is complete, when it is over kKeptCapacity.
    std::size_t reserved() const { return pending_.capacity(); }
    static constexpr std::size_t kKeptCapacity = 64 * 1024;
    /// Decoded frames not yet taken.
    std::size_t ready() const { return ready_.size(); }

private:
    bool fail(std::string message);
    // Parses one whole frame body onto the ready frames; fails the stream if it is malformed.
    bool parseReady(std::string_view body);

    std::uint32_t maxFrameSize_;
    std::string pending_;      // the incomplete frame: its 4 size bytes, then what has come of it
    std::size_t need_ = 0;     // 4 + totalSize once the size is known, else 0
    std::deque<Frame> ready_;
    bool failed_ = false;
    std::string error_;
};

/// Decodes one frame's bytes after its totalSize (exactly totalSize bytes):
/// `[commandSize][BaseCommand][payload part]`. The one frame parser of the wire layer.
std::optional<Frame> parseFrameBody(std::string_view body, std::string* error);
/// The same into `out`, a default-constructed Frame (whose content is
/// unspecified after a failure). False with `error` set when it is malformed.
bool parseFrameBody(std::string_view body, Frame& out, std::string* error);

/// Why a declared totalSize is refused before any of its frame is read (over
/// `maxFrameSize`, or too small for the commandSize); nullopt when it is not.
std::optional<std::string> frameSizeProblem(std::uint32_t total, std::uint32_t maxFrameSize);

}  // namespace cnx::wire
