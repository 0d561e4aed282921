#include "broker_model/wire/frame_pool.h"

#include "broker_model/wire/recycling_pool.h"

namespace cnx::wire {
namespace {

using Pool = RecyclingPool<Frame, kPooledFrames>;

// A pooled frame as decodeFrame expects it: what the last decode set beyond
// the command (which ParsePartialFromArray clears itself) is cleared.
void clearForReuse(Frame& f) {
    f.metadata.reset();
    f.payload.clear();
    f.checksumPresent = false;
    f.checksumValid = false;
    f.brokerEntryMetadata.reset();
}

// A frame from the pool, cleared, or a new one, recycled on the terms of a
// frame of `bytes` bytes.
PooledFrame takeFrame(std::size_t bytes) {
    Frame* frame = Pool::take();
    if (frame) clearForReuse(*frame);
    else frame = new Frame();
    return PooledFrame(frame, FrameRecycle{bytes <= kPooledFrameBytes});
}

}  // namespace

void FrameRecycle::operator()(Frame* frame) const noexcept {
    if (reusable) Pool::give(frame);
    else delete frame;
}

std::size_t pooledFrames() { return Pool::size(); }

PooledFrame decodePooledFrame(std::string_view bytes, std::string* error) {
    auto out = takeFrame(bytes.size());
    if (!decodeFrame(bytes, *out, error)) return nullptr;
    return out;
}

PooledFrame pooledPayloadFrame(const pulsar::proto::BaseCommand& command, const pulsar::proto::MessageMetadata& metadata,
                               std::string_view payload) {
    // Back to the pool on the terms of the frame it stands for (its sizes
    // cached by payloadFrameDecodesToItself).
    auto out = takeFrame(command.GetCachedSize() + metadata.GetCachedSize() + payload.size() + 18);
    out->command = command;
    out->metadata.emplace(metadata);
    out->payload.assign(payload);
    out->checksumPresent = true;
    out->checksumValid = true;
    return out;
}

}  // namespace cnx::wire
