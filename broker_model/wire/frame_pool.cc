#include "broker_model/wire/frame_pool.h"

#include <vector>

namespace cnx::wire {
namespace {

// Set when this thread's pool is gone (thread exit): a frame released after
// that is deleted. A bool stays readable after the thread's other objects go.
thread_local bool tPoolGone = false;

struct Pool {
    std::vector<Frame*> frames;
    Pool() { frames.reserve(kPooledFrames); }  // release never allocates
    ~Pool() {
        tPoolGone = true;
        for (Frame* f : frames) delete f;
    }
    Pool(const Pool&) = delete;
    Pool& operator=(const Pool&) = delete;
};

Pool& pool() {
    thread_local Pool p;
    return p;
}

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
    if (!frame) return;
    if (reusable && !tPoolGone) {
        auto& frames = pool().frames;
        if (frames.size() < kPooledFrames) {
            frames.push_back(frame);
            return;
        }
    }
    delete frame;
}

std::size_t pooledFrames() { return tPoolGone ? 0 : pool().frames.size(); }

PooledFrame decodePooledFrame(std::string_view bytes, std::string* error) {
    Frame* frame = nullptr;
    if (!tPoolGone && !pool().frames.empty()) {
        frame = pool().frames.back();
        pool().frames.pop_back();
        clearForReuse(*frame);
    } else {
        frame = new Frame();
    }
    PooledFrame out(frame, FrameRecycle{bytes.size() <= kPooledFrameBytes});
    if (!decodeFrame(bytes, *out, error)) return nullptr;
    return out;
}

}  // namespace cnx::wire
