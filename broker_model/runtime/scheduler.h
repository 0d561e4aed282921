#pragma once
// The seam between the model and time. Every asynchronous stage of the real
// broker is a continuation posted here with its Stage, never run inline; the
// scheduler decides when it runs. Two implementations: the simulator's
// (sim/runtime/sim_scheduler.h: a chooser picks among ready continuations,
// first-in first-out, seeded random or driven by a race explorer) and an
// io_context for a network server (asio_scheduler.h).
//
// Origin propagation: while a client request is handled (OriginScope) or a
// continuation runs, stages posted without an origin take that request's, so
// the registry's stages name the connection and request they serve without
// every call passing them down.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "broker_model/runtime/continuation.h"
#include "broker_model/runtime/stage.h"

namespace cnx {

class Scheduler {
public:
    using Continuation = cnx::Continuation;

    virtual ~Scheduler() = default;

    /// Queues `fn` as the stage `ref` names, with the origin of the request
    /// being handled. Never runs it inline. The names are copied only when
    /// keepsStageNames() (otherwise the kept Stage has empty names).
    /// A callable that does not fit in place fails the build (Continuation::inPlace).
    template <class F>
    void post(const StageRef& ref, F&& fn) {
        enqueue(ref, current_, Continuation::inPlace(std::forward<F>(fn)));
    }
    /// The model's clock, in ms since the epoch: the wall clock in a network
    /// server, a simulated one (moved on only to the next timer when nothing
    /// else is ready) in the simulator, so runs stay deterministic.
    virtual std::int64_t nowMs() const = 0;
    /// Queues `fn` as stage `ref` once nowMs() has reached `dueMs` (at once when
    /// it has), with the origin of the request being handled: the broker's timers
    /// (a delayed message's delivery time).
    template <class F>
    void postAt(std::int64_t dueMs, const StageRef& ref, F&& fn) {
        enqueueAt(dueMs, ref, current_, Continuation::inPlace(std::forward<F>(fn)));
    }
    /// Whether the topic and schema id of posted stages are read by anyone
    /// (a race explorer, a recorded schedule, a log). True unless an
    /// implementation knows better.
    virtual bool keepsStageNames() const { return true; }
    /// Drops every continuation not yet run, without running it (their owner
    /// is going away). Returns how many were dropped.
    virtual std::size_t discardPending() = 0;

    /// Declares that the running code reads (or writes) a piece of the broker's
    /// shared state: `what` names the kind ("schema" for a registry entry,
    /// "topic" for a loaded topic's attachments), `key` which one. A race
    /// explorer uses it to know which continuations commute; others ignore it.
    virtual void touch(std::string_view what, std::string_view key, bool write) {
        (void)what;
        (void)key;
        (void)write;
    }

    /// The request being handled (connection 0: none).
    const Origin& currentOrigin() const { return current_; }

    /// Marks the synchronous handling of one request: stages posted meanwhile
    /// belong to it. Scopes nest; the outer origin comes back at the end.
    class OriginScope {
    public:
        OriginScope(Scheduler& s, Origin o) : s_(s), saved_(s.current_) { s.current_ = o; }
        ~OriginScope() { s_.current_ = saved_; }
        OriginScope(const OriginScope&) = delete;
        OriginScope& operator=(const OriginScope&) = delete;

    private:
        Scheduler& s_;
        Origin saved_;
    };

protected:
    /// Keeps `fn` to run as the stage `ref` names, posted with `origin`. The
    /// names are views valid during the call: keptStage copies them when
    /// keepsStageNames(). `fn` is the post's own, moved once, into place.
    virtual void enqueue(const StageRef& ref, const Origin& origin, Continuation&& fn) = 0;
    /// The same, once nowMs() reaches `dueMs`.
    virtual void enqueueAt(std::int64_t dueMs, const StageRef& ref, const Origin& origin, Continuation&& fn) = 0;
    /// The Stage kept for `ref`, built in place by an implementation that keeps one.
    void keptStage(Stage& into, const StageRef& ref, const Origin& origin) const {
        into.kind = ref.kind;
        into.origin = origin;
        if (keepsStageNames()) {
            into.topic = ref.topic;
            into.schemaId = ref.schemaId;
        }
    }
    /// Implementations run every continuation through here.
    void runContinuation(const Origin& origin, Continuation& fn) {
        OriginScope scope(*this, origin);
        fn();
    }

private:
    Origin current_;
};

}  // namespace cnx
