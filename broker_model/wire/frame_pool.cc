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

}  // namespace cnx::wire
