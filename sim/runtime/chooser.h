#pragma once
// Which ready continuation the simulated scheduler runs next. FIFO is the
// order the broker's single-threaded happy path takes and the default; a
// seeded random chooser shakes out order dependence; a scripted chooser
// replays a recorded schedule (and lets a race explorer drive the choices).

#include <cstddef>
#include <string>
#include <vector>

#include "broker_model/runtime/stage.h"
#include "sim/runtime/rng.h"

namespace cnx::sim {

class Chooser {
public:
    virtual ~Chooser() = default;
    /// Index into `ready` (oldest first, never empty) of the continuation to run.
    virtual std::size_t choose(const std::vector<const Stage*>& ready) = 0;
};

class FifoChooser final : public Chooser {
public:
    std::size_t choose(const std::vector<const Stage*>&) override { return 0; }
};

class RandomChooser final : public Chooser {
public:
    /// `rng` must outlive the chooser.
    explicit RandomChooser(Rng& rng) : rng_(rng) {}
    std::size_t choose(const std::vector<const Stage*>& ready) override {
        return static_cast<std::size_t>(rng_.below(ready.size()));
    }

private:
    Rng& rng_;
};

/// Makes the choices of `script` in order (each clamped to the ready count),
/// then FIFO. A schedule recorded by SimScheduler replays exactly.
class ScriptedChooser final : public Chooser {
public:
    explicit ScriptedChooser(std::vector<std::size_t> script) : script_(std::move(script)) {}
    std::size_t choose(const std::vector<const Stage*>& ready) override {
        if (next_ >= script_.size()) return 0;
        auto c = script_[next_++];
        return c < ready.size() ? c : ready.size() - 1;
    }
    bool exhausted() const { return next_ >= script_.size(); }

private:
    std::vector<std::size_t> script_;
    std::size_t next_ = 0;
};

/// "fifo", "random"; the names `--schedule` takes.
enum class ScheduleMode { fifo, random };

}  // namespace cnx::sim
