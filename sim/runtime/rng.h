#pragma once
// The run's one seeded random source: every random choice cnxsim makes (the
// order of ready continuations under `--schedule random`, race exploration)
// draws from it, so `--seed N` replays a run exactly. xoshiro256** seeded
// through splitmix64: the same numbers on every platform and compiler,
// unlike std::uniform_int_distribution.

#include <cstdint>

namespace cnx::sim {

class Rng {
public:
    explicit Rng(std::uint64_t seed);

    std::uint64_t seed() const { return seed_; }
    std::uint64_t next();
    /// Uniform in [0, n); n > 0. Unbiased (rejection sampling).
    std::uint64_t below(std::uint64_t n);
    /// A seed for a sub-run (a race step at `position`) derived from this
    /// source's seed, independent of how many numbers were drawn so far.
    std::uint64_t derive(std::uint64_t position) const;

private:
    std::uint64_t seed_;
    std::uint64_t s_[4];
};

}  // namespace cnx::sim
