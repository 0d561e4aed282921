#include "sim/serve/output_queue.h"

#include <cerrno>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <unistd.h>

namespace cnx::serve {

struct OutputQueue::State {
    int fd = -1;
    bool ownsFd = false;
    std::size_t maxBytes = 0;
    mutable std::mutex mutex;
    std::condition_variable wake;     // text queued, or stop
    std::condition_variable written;  // the queue emptied, or the writer ended
    std::deque<std::string> queue;
    std::size_t queuedBytes = 0;
    bool writing = false;  // the writer holds text taken from the queue
    std::uint64_t dropped = 0;
    bool closed = false;
    bool stop = false;
    bool ended = false;

    ~State() {
        if (ownsFd && fd >= 0) ::close(fd);
    }

    /// Writes all of `text`; false on an error (EPIPE: the reader is gone).
    bool writeAll(const std::string& text) const {
        std::size_t at = 0;
        while (at < text.size()) {
            auto n = ::write(fd, text.data() + at, text.size() - at);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return false;
            at += static_cast<std::size_t>(n);
        }
        return true;
    }

    void run() {
        std::unique_lock lock(mutex);
        while (true) {
            wake.wait(lock, [&] { return stop || !queue.empty(); });
            if (queue.empty()) break;  // stopping, everything written
            // Everything queued in one write.
            std::string chunk;
            std::size_t pieces = queue.size();
            chunk.reserve(queuedBytes);
            for (auto& s : queue) chunk += s;
            queue.clear();
            queuedBytes = 0;
            writing = true;
            lock.unlock();
            bool ok = writeAll(chunk);
            lock.lock();
            writing = false;
            if (!ok) {
                closed = true;
                dropped += pieces + queue.size();
                queue.clear();
                queuedBytes = 0;
            }
            written.notify_all();
            if (closed) break;
        }
        ended = true;
        written.notify_all();
    }
};

OutputQueue::OutputQueue(int fd, bool ownsFd, std::size_t maxBytes) : state_(std::make_shared<State>()) {
    state_->fd = fd;
    state_->ownsFd = ownsFd;
    state_->maxBytes = maxBytes;
    writer_ = std::thread([state = state_] { state->run(); });
}

OutputQueue::~OutputQueue() {
    bool ended = false;
    {
        std::unique_lock lock(state_->mutex);
        state_->stop = true;
        state_->wake.notify_all();
        ended = state_->written.wait_for(lock, std::chrono::seconds(1), [&] { return state_->ended; });
    }
    if (ended) writer_.join();
    else writer_.detach();  // blocked in write() on an output nobody reads: it keeps its state
}

bool OutputQueue::push(std::string text) {
    std::lock_guard lock(state_->mutex);
    if (state_->closed || state_->stop || state_->queuedBytes + text.size() > state_->maxBytes) {
        ++state_->dropped;
        return false;
    }
    state_->queuedBytes += text.size();
    state_->queue.push_back(std::move(text));
    state_->wake.notify_one();
    return true;
}

std::uint64_t OutputQueue::dropped() const {
    std::lock_guard lock(state_->mutex);
    return state_->dropped;
}

bool OutputQueue::closed() const {
    std::lock_guard lock(state_->mutex);
    return state_->closed;
}

bool OutputQueue::drain(std::chrono::milliseconds timeout) {
    std::unique_lock lock(state_->mutex);
    return state_->written.wait_for(lock, timeout, [&] {
        return state_->ended || state_->closed || (state_->queue.empty() && !state_->writing);
    });
}

}  // namespace cnx::serve
