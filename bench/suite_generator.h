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
#include <vector>

namespace cnx::bench {

struct SuiteShape {
    std::size_t scenarios = 10'000;
    std::size_t minSteps = 6;
    std::size_t maxSteps = 16;
    std::uint64_t seed = 20240601;
};

/// Every scenario of the suite as multi-document YAML texts (`---` between
/// documents), `perFile` scenarios to a text, as a suite folder holds them
/// (one text would pass the loader's 8 MiB file limit at 10,000 scenarios).
/// Same shape and seed, same texts, and the same scenarios whatever `perFile`.
std::vector<std::string> generateSuiteFiles(const SuiteShape& shape, std::size_t perFile = 500);

}  // namespace cnx::bench
