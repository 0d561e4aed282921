#pragma once
// `cnxsim serve --trace`: every command on the side, one line per command
// with its connection, request id and outcome, followed by the decision trace
// of that request indented as `cnxsim explain` prints it. A request's line is
// written when its answer goes out (answers are asynchronous); a command that
// gets no answer (FLOW, an ACK without receipt) is written when it arrives,
// and what the broker sends on its own (MESSAGE, CLOSE_PRODUCER, PING) as
// `<-` lines.
//
//   conn 2 PRODUCER request 1 producer 0 persistent://public/default/t schema AVRO -> PRODUCER_SUCCESS cnxsim-2-0 schema_version 0
//     §1.1 ...: ...

#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <tuple>

#include "broker_model/core/trace.h"
#include "proto/PulsarApi.pb.h"
#include "sim/net/session_tap.h"

namespace cnx::serve {

class TraceLog final : public SessionTap {
public:
    /// Where each command's text goes (whole lines): `serve` hands them to an
    /// OutputQueue (output_queue.h), so a reader that does not keep up never
    /// blocks the event loop.
    using Sink = std::function<void(std::string text)>;
    explicit TraceLog(Sink sink) : sink_(std::move(sink)) {}
    /// Writes to `out` as it goes (a test, or a caller with its own stream).
    explicit TraceLog(std::ostream& out)
        : sink_([&out](std::string text) { out << text << std::flush; }) {}

    void opened(std::uint64_t connection, const std::string& peer) override;
    void closed(std::uint64_t connection, const std::string& reason) override;
    /// A command from the client, before the broker (or a fault) handles it.
    void received(std::uint64_t connection, const pulsar::proto::BaseCommand& command) override;
    /// A command the broker sends; `trace` is the decision trace of the request
    /// it answers (nullptr or empty: none).
    void sent(std::uint64_t connection, const pulsar::proto::BaseCommand& command, const Trace* trace) override;
    /// A fault applied to a client's command (`what`: "delayed 200 ms", "dropped").
    void fault(std::uint64_t connection, const pulsar::proto::BaseCommand& command, const std::string& what) override;
    /// A lifecycle event (upgrade, restart, unload) from the control channel.
    void event(const std::string& text) override;

    /// A command's text and its decision trace, at most (the rest is cut, saying so).
    static constexpr std::size_t kMaxTextBytes = 64 * 1024;
    /// Requests awaiting their answer kept per connection; older ones are written unanswered.
    static constexpr std::size_t kPendingPerConnection = 4096;

private:
    // (connection, 0 request / 1 send, id, sequence)
    using Key = std::tuple<std::uint64_t, int, std::uint64_t, std::uint64_t>;
    void write(const std::string& line, const Trace* trace = nullptr);

    Sink sink_;
    std::map<Key, std::string> pending_;  // the request's own text
    std::map<std::uint64_t, std::size_t> pendingCount_;
};

/// The command's type and the fields a reader of the trace needs, on one line.
std::string describeCommand(const pulsar::proto::BaseCommand& command);

}  // namespace cnx::serve
