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

}  // namespace

void FrameRecycle::operator()(Frame* frame) const noexcept {
    if (reusable) Pool::give(frame);
    else delete frame;
}

std::size_t pooledFrames() { return Pool::size(); }

PooledFrame decodePooledFrame(std::string_view bytes, std::string* error) {
    Frame* frame = Pool::take();
    if (frame) clearForReuse(*frame);
    else frame = new Frame();
    PooledFrame out(frame, FrameRecycle{bytes.size() <= kPooledFrameBytes});
    if (!decodeFrame(bytes, *out, error)) return nullptr;
    return out;
}

PooledFrame pooledPayloadFrame(const pulsar::proto::BaseCommand& command, const pulsar::proto::MessageMetadata& metadata,
                               std::string_view payload) {
    Frame* frame = Pool::take();
    if (frame) clearForReuse(*frame);
    else frame = new Frame();
    // The frame's size is bounded by payloadFrameDecodesToItself's limit; it
    // goes back to the pool on the same terms as a decoded one.
    const std::size_t bytes = command.GetCachedSize() + metadata.GetCachedSize() + payload.size() + 18;
    PooledFrame out(frame, FrameRecycle{bytes <= kPooledFrameBytes});
    out->command = command;
    out->metadata.emplace(metadata);
    out->payload.assign(payload);
    out->checksumPresent = true;
    out->checksumValid = true;
    return out;
}

}  // namespace cnx::wire
