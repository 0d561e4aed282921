#pragma once
// What `cnxsim serve` writes beside serving (the --trace lines, the -v log)
// goes through a bounded queue to a writer thread, so that a reader that does
// not keep up, or has gone, never stops the event loop (issue 40 item 7): the
// loop only appends to the queue; when the queue is full a line is dropped and
// counted; when the output is closed (EPIPE, any write error) everything after
// is dropped and counted. SIGPIPE must be ignored by the process (serve does).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

namespace cnx::serve {

class OutputQueue {
public:
    /// Writes to `fd` (not closed by the queue unless `ownsFd`), holding at most `maxBytes` not yet written.
    OutputQueue(int fd, bool ownsFd, std::size_t maxBytes = kDefaultMaxBytes);
    /// Waits a moment for what is queued to be written, then leaves a writer
    /// still blocked in write() behind (it holds its own state; the process exits).
    ~OutputQueue();
    OutputQueue(const OutputQueue&) = delete;
    OutputQueue& operator=(const OutputQueue&) = delete;

    /// Queues `text` (whole lines); never blocks. False when it was dropped.
    bool push(std::string text);
    /// Pieces of text dropped so far (queue full, or the output closed).
    std::uint64_t dropped() const;
    /// Whether a write failed (the reader is gone): nothing is written any more.
    bool closed() const;
    /// Waits at most `timeout` for the queue to be written out; whether it was.
    bool drain(std::chrono::milliseconds timeout);

    static constexpr std::size_t kDefaultMaxBytes = 4 * 1024 * 1024;

private:
    struct State;
    std::shared_ptr<State> state_;
    std::thread writer_;
};

}  // namespace cnx::serve
