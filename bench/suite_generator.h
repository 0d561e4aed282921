#pragma once
// A seeded generator of scenario files for the admission benchmark: realistic
// mixes of producers and consumers with primitive schemas (STRING, INT32,
// BYTES, none, AUTO_CONSUME), closes, publishes, admin uploads and deletes,
// policy and dynamic-config changes, on persistent and non-persistent topics.
// The output is scenario-format YAML text, so the benchmark exercises the
// loader and the runner exactly as `cnxsim run` does.

#include <cstddef>
#include <cstdint>
#include <string>

namespace cnx::bench {

struct SuiteShape {
    std::size_t scenarios = 10'000;
    std::size_t minSteps = 6;
    std::size_t maxSteps = 16;
    std::uint64_t seed = 20240601;
};

/// Every scenario of the suite as one multi-document YAML text (`---` between
/// documents). Same shape and seed, same text.
std::string generateSuiteYaml(const SuiteShape& shape);

}  // namespace cnx::bench
