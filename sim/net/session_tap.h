#pragma once
// What `cnxsim serve` shows its observers: every command a client sends, every
// command the broker sends back (with the decision trace of the request it
// answers), connections opening and closing, faults, lifecycle events, and
// every admin HTTP exchange. The trace log (trace_log.h), the decision ring
// behind /cnxsim/trace and the session recorder all watch through this one
// interface; `cnxsim record` feeds the same calls from a proxy, so a recording
// made in front of a real broker and one made by serve go through one code path.
//
// Calls arrive on the io_context thread, in the order things happen. Every
// method has an empty default: an observer overrides what it needs.

#include <cstdint>
#include <string>
#include <vector>

#include "broker_model/core/trace.h"
#include "proto/PulsarApi.pb.h"

namespace cnx::serve {

/// One admin HTTP request and the answer it got.
struct AdminExchange {
    std::string method;        // "GET", "POST", ...
    std::string target;        // path and query as sent (still %-encoded)
    std::string requestBody;
    int status = 0;
    std::string responseBody;
    const Trace* trace = nullptr;  // the decision trace, when the model answered (nullptr: none)
    std::string reason;            // the reason phrase (the only text of a bare 409/422)
};

class SessionTap {
public:
    virtual ~SessionTap() = default;
    virtual void opened(std::uint64_t /*connection*/, const std::string& /*peer*/) {}
    virtual void closed(std::uint64_t /*connection*/, const std::string& /*reason*/) {}
    /// A command from the client, before the broker (or a fault) handles it.
    virtual void received(std::uint64_t /*connection*/, const pulsar::proto::BaseCommand& /*command*/) {}
    /// A command the broker sends; `trace`: the decision trace of the request
    /// it answers (nullptr or empty: none).
    virtual void sent(std::uint64_t /*connection*/, const pulsar::proto::BaseCommand& /*command*/, const Trace* /*trace*/) {}
    /// A fault applied to a client's command (`what`: "delayed 200 ms", "dropped").
    virtual void fault(std::uint64_t /*connection*/, const pulsar::proto::BaseCommand& /*command*/, const std::string& /*what*/) {}
    /// A lifecycle event (upgrade, restart, unload, reset).
    virtual void event(const std::string& /*text*/) {}
    /// An admin HTTP call, once it is answered.
    virtual void admin(const AdminExchange& /*exchange*/) {}
};

/// Forwards every call to each tap added, in the order added.
class TapFanout final : public SessionTap {
public:
    /// `tap` outlives the fan-out.
    void add(SessionTap* tap) { taps_.push_back(tap); }
    bool empty() const { return taps_.empty(); }

    void opened(std::uint64_t c, const std::string& peer) override { for (auto* t : taps_) t->opened(c, peer); }
    void closed(std::uint64_t c, const std::string& reason) override { for (auto* t : taps_) t->closed(c, reason); }
    void received(std::uint64_t c, const pulsar::proto::BaseCommand& command) override {
        for (auto* t : taps_) t->received(c, command);
    }
    void sent(std::uint64_t c, const pulsar::proto::BaseCommand& command, const Trace* trace) override {
        for (auto* t : taps_) t->sent(c, command, trace);
    }
    void fault(std::uint64_t c, const pulsar::proto::BaseCommand& command, const std::string& what) override {
        for (auto* t : taps_) t->fault(c, command, what);
    }
    void event(const std::string& text) override { for (auto* t : taps_) t->event(text); }
    void admin(const AdminExchange& exchange) override { for (auto* t : taps_) t->admin(exchange); }

private:
    std::vector<SessionTap*> taps_;
};

}  // namespace cnx::serve
