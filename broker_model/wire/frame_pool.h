#pragma once
// Decoded frames kept for reuse on the thread that decoded them. Decoding into
// a frame that held a command before reuses its protobuf messages and the
// capacity of their strings (protobuf's Clear keeps both), where a fresh
// BaseCommand (528 bytes) allocates every message and string of the frame and
// frees them all again when it goes. ServerCnx::receive of bytes decodes here,
// and so does a modelled client (sim/clients/client_session.h): in `cnxsim run`
// every SEND and MESSAGE (other commands go across as they are, see
// wire::decodesToItself).
//
// A frame goes back to its thread's pool when its PooledFrame goes, unless the
// bytes it was decoded from passed kPooledFrameBytes (its strings would keep
// that capacity) or the pool is full: the pool holds at most
// kPooledFrames * kPooledFrameBytes of frame content.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "broker_model/wire/frame.h"

namespace cnx::wire {

inline constexpr std::size_t kPooledFrames = 32;
inline constexpr std::size_t kPooledFrameBytes = 64 * 1024;

/// Gives a frame back to the pool of the thread it is released on, or deletes it.
struct FrameRecycle {
    bool reusable = false;  // decoded from at most kPooledFrameBytes
    void operator()(Frame* frame) const noexcept;
};
using PooledFrame = std::unique_ptr<Frame, FrameRecycle>;

/// How many frames this thread's pool holds now.
std::size_t pooledFrames();

/// decodeFrame into a frame from this thread's pool: null with `error` set when
/// the frame is malformed.
PooledFrame decodePooledFrame(std::string_view frame, std::string* error);

}  // namespace cnx::wire
