// Speed of the AVRO compatibility checker (issue 3 "Speed"), on the broker's
// path: `makeAvroCheck()` as the registry calls it (the pair entry point for
// BACKWARD / FULL, the list entry point for FULL_TRANSITIVE), every case a
// compatible change so the whole schema is resolved.
//
// Steady state: the checker caches parsed schemas per definition text
// (avro::parseCached). The broker re-parses every stored version on every
// check; we need not, and the BM_Check figures are the cached steady state.
// BM_Cold is the same check with the cache emptied before each call (every
// schema parsed: first sight, the comparison with the broker's re-parse);
// BM_Parse is parsing every schema of a case once, uncached, on its own.
//
// Usage:
//   bench_compat [--inputs=DIR] [google benchmark flags]
//   bench_compat --write-inputs=DIR   write the generated cases and exit
// Without --inputs the cases are generated in memory (the same texts).

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench/compat/compat_inputs.h"
#include "broker_model/compat/avro/avro_schema.h"
#include "broker_model/compat/avro/avro_check.h"
#include "broker_model/profile/profile.h"

namespace {

using cnx::CompatibilityStrategy;
using cnx::SchemaData;
using cnx::SchemaType;
using cnx::bench::CompatCase;
namespace compat = cnx::compat;

struct Variant {
    const char* label;
    compat::AvroVersion avro;
};

// The newest broker's grammar (Avro 1.12.0) and the 1.8.2 rules of the Avro
// Java release the harness runs.
constexpr Variant kVariants[] = {{"avro1.12", compat::AvroVersion::v1_12_0}, {"avro1.8.2", compat::AvroVersion::v1_8_2}};

struct Prepared {
    std::vector<SchemaData> existing;
    SchemaData candidate;
    CompatibilityStrategy strategy;
    compat::CheckOptions options;
};

Prepared prepare(const CompatCase& c, compat::AvroVersion avro) {
    Prepared p;
    for (const auto& text : c.existing) p.existing.push_back({SchemaType::AVRO, text, {}});
    p.candidate = {SchemaType::AVRO, c.candidate, {}};
    p.strategy = *cnx::compatibilityStrategyFromName(c.strategy);
    p.options = cnx::newestProfile().checkOptions;
    p.options.avro = avro;
    return p;
}

// SchemaRegistry::checkWithLatest / checkWithAll call the checker like this (§4.6).
compat::CheckResult runCheck(const compat::SchemaCompatibilityCheck& check, const Prepared& p) {
    if (cnx::isTransitive(p.strategy)) {
        return check.checkCompatible(std::span<const SchemaData>(p.existing), p.candidate, p.strategy, p.options);
    }
    return check.checkCompatible(p.existing.back(), p.candidate, p.strategy, p.options);
}

void checkBenchmark(benchmark::State& state, const CompatCase& c, compat::AvroVersion avro) {
    auto check = compat::makeAvroCheck();
    Prepared p = prepare(c, avro);
    compat::CheckResult first = runCheck(*check, p);  // fills the parse cache: the steady state
    if (!first.ok()) {
        state.SkipWithError(("case is not compatible: " + first.message.substr(0, 200)).c_str());
        return;
    }
    for (auto _ : state) {
        compat::CheckResult r = runCheck(*check, p);
        benchmark::DoNotOptimize(r.verdict);
    }
    state.counters["versions"] = static_cast<double>(c.existing.size());
    // Schemas whose full node model the check needed (the quick parse defers
    // it): 0 means BM_Parse + BM_Check is the whole cold cost of the check.
    auto options = compat::avro::parseOptionsFor(p.options);
    double built = 0;
    for (const auto& e : p.existing) built += compat::avro::parseCached(e.data, options).schema->nodesDeferred() ? 0 : 1;
    built += compat::avro::parseCached(p.candidate.data, options).schema->nodesDeferred() ? 0 : 1;
    state.counters["full_models"] = built;
}

// Parsing every schema of the case once, uncached (what the broker adds per
// check). A definition the quick path takes gets its compact tables only; the
// full node model waits until something needs it (BM_Check's full_models
// counter says whether the check did).
void parseBenchmark(benchmark::State& state, const CompatCase& c, compat::AvroVersion avro) {
    compat::CheckOptions o = cnx::newestProfile().checkOptions;
    o.avro = avro;
    auto options = compat::avro::parseOptionsFor(o);
    for (auto _ : state) {
        for (const auto& text : c.existing) benchmark::DoNotOptimize(compat::avro::parse(text, options).schema.get());
        benchmark::DoNotOptimize(compat::avro::parse(c.candidate, options).schema.get());
    }
}

// The check on first sight of every schema of the case: the parse cache is
// emptied before each call (and the last call's schemas freed, as BM_Parse
// frees them), so the check parses them all, as the broker does on every check.
void coldBenchmark(benchmark::State& state, const CompatCase& c, compat::AvroVersion avro) {
    auto check = compat::makeAvroCheck();
    Prepared p = prepare(c, avro);
    compat::avro::clearParseCache();
    for (auto _ : state) {
        compat::avro::clearParseCache();
        compat::CheckResult r = runCheck(*check, p);
        benchmark::DoNotOptimize(r.verdict);
    }
    compat::avro::clearParseCache();
}

std::vector<CompatCase>& cases() {
    static std::vector<CompatCase> all;
    return all;
}

// Our flags, removed from argv before Google Benchmark sees it.
std::string takeFlag(int& argc, char** argv, const char* name) {
    std::string prefix = std::string(name) + "=";
    std::string value;
    int out = 1;
    for (int i = 1; i < argc; ++i) {
        if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) {
            value = argv[i] + prefix.size();
        } else {
            argv[out++] = argv[i];
        }
    }
    argc = out;
    return value;
}

void registerAll() {
    for (const auto& c : cases()) {
        for (const auto& v : kVariants) {
            std::string name = std::string("BM_Check/") + v.label + "/" + c.name;
            benchmark::RegisterBenchmark(name.c_str(), [&c, v](benchmark::State& s) { checkBenchmark(s, c, v.avro); });
        }
        std::string name = std::string("BM_Parse/") + kVariants[0].label + "/" + c.name;
        benchmark::RegisterBenchmark(name.c_str(), [&c](benchmark::State& s) { parseBenchmark(s, c, kVariants[0].avro); });
        name = std::string("BM_Cold/") + kVariants[0].label + "/" + c.name;
        benchmark::RegisterBenchmark(name.c_str(), [&c](benchmark::State& s) { coldBenchmark(s, c, kVariants[0].avro); });
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::string writeDir = takeFlag(argc, argv, "--write-inputs");
    std::string inputDir = takeFlag(argc, argv, "--inputs");
    if (!writeDir.empty()) {
        if (auto e = cnx::bench::writeCompatCases(cnx::bench::generateCompatCases(), writeDir)) {
            std::fprintf(stderr, "bench_compat: %s\n", e->c_str());
            return 2;
        }
        return 0;
    }
    if (inputDir.empty()) {
        cases() = cnx::bench::generateCompatCases();
    } else {
        std::string error;
        auto read = cnx::bench::readCompatCases(inputDir, &error);
        if (!read) {
            std::fprintf(stderr, "bench_compat: %s\n", error.c_str());
            return 2;
        }
        cases() = std::move(*read);
    }
    registerAll();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
