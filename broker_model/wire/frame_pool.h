#pragma once
// Decoded frames kept for reuse on the thread that decoded them. Decoding into
// a frame that held a command before reuses its protobuf messages and the
// capacity of their strings (protobuf's Clear keeps both), where a fresh
// BaseCommand (528 bytes) allocates every message and string of the frame and
// frees them all again when it goes. ServerCnx::receive of bytes decodes here,
// and so does a modelled client (sim/clients/client_session.h). In `cnxsim run`
// a modelled client's SEND is built here without bytes (ServerCnx::receive of
// a payload command: pooledPayloadFrame, when wire::payloadFrameDecodesToItself)
// and other commands go across as they are (wire::decodesToItself); what is
// decoded is the rest: a MESSAGE, and anything a decode would refuse.
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
/// What decodePooledFrame(encodePayloadFrame(command, metadata, payload)) gives
/// (CRC32C, no broker entry), built without the bytes. Only for what
/// payloadFrameDecodesToItself accepts.
PooledFrame pooledPayloadFrame(const pulsar::proto::BaseCommand& command, const pulsar::proto::MessageMetadata& metadata,
                               std::string_view payload);

}  // namespace cnx::wire
