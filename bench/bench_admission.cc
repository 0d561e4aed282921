// Admission throughput of cnxsim on a generated suite of 10,000 scenarios with
// primitive schemas (see suite_generator.h and bench/README.md).
//
// Figures are printed as ratios against a baseline measured in the same
// process (DEVELOPERS rule): the bare wire round trip, i.e. encoding and
// decoding the very PRODUCER / SUBSCRIBE frames the suite's admission steps
// send, without the model. Absolute figures are printed beside the ratios.
//
// The run figures are on one thread. Loading and the whole-suite wall time are
// measured on one thread and on `--jobs` threads (default: one per hardware
// thread, as `cnxsim run` loads and runs), with the same ordered pool.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "bench/suite_generator.h"
#include "broker_model/wire/frame.h"
#include "broker_model/wire/schema_wire.h"
#include "broker_model/compat/avro/avro_quick_parse.h"
#include "broker_model/core/fast_paths.h"
#include "sim/parallel/ordered_pool.h"
#include "sim/scenario/loader.h"
#include "sim/run/runner.h"

namespace {

using Clock = std::chrono::steady_clock;
using pulsar::proto::BaseCommand;

cnx::bench::SuiteShape gShape;
unsigned gJobs = cnx::sim::defaultJobs();
/// `--no-fast-paths` (or CNXSIM_FAST_PATHS=off): load and run with no fast path
/// (broker_model/core/fast_paths.h), to measure what they save.
cnx::FastPaths gFastPaths = cnx::FastPaths::on;

/// Per-benchmark totals measured around the timed work (manual time).
struct Figure {
    double seconds = 0;     // summed over iterations
    double items = 0;       // summed over iterations
    std::size_t iterations = 0;
    double perItemNs() const { return items > 0 ? seconds * 1e9 / items : 0; }
    double perIterationSeconds() const { return iterations ? seconds / static_cast<double>(iterations) : 0; }
};
std::map<std::string, Figure> gFigures;

struct SuiteCounts {
    std::size_t steps = 0;
    std::size_t admissions = 0;          // producer + subscribe steps
    std::size_t admissionsRefused = 0;   // of those, answered with an error
    std::size_t stepsRun = 0;
};
SuiteCounts gCounts;

const std::vector<std::string>& suiteFiles() {
    static const std::vector<std::string> files = cnx::bench::generateSuiteFiles(gShape);
    return files;
}

/// A suite loaded as `cnxsim run` loads a folder: file by file on `jobs`
/// threads, the scenarios taken in file order.
cnx::sim::LoadResult loadSuite(const std::vector<std::string>& files, unsigned jobs = 1) {
    cnx::sim::LoadResult all;
    cnx::sim::forEachOrdered(
        files.size(), jobs, cnx::sim::Deal::striped,
        [&](std::size_t i, unsigned) {
            return cnx::sim::loadScenarioText(files[i], "bench-suite-" + std::to_string(i + 1) + ".yaml", ".", gFastPaths);
        },
        [&](std::size_t, cnx::sim::LoadResult r) {
            std::move(r.scenarios.begin(), r.scenarios.end(), std::back_inserter(all.scenarios));
            std::move(r.errors.begin(), r.errors.end(), std::back_inserter(all.errors));
        });
    return all;
}

cnx::sim::LoadResult loadSuite(unsigned jobs = 1) { return loadSuite(suiteFiles(), jobs); }

const cnx::sim::LoadResult& loadedSuite() {
    static const cnx::sim::LoadResult loaded = [] {
        auto r = loadSuite();
        if (!r.ok()) {
            std::fprintf(stderr, "the generated suite does not load (%zu errors), first: %s\n", r.errors.size(),
                         r.errors.front().format().c_str());
            std::exit(2);
        }
        return r;
    }();
    return loaded;
}

bool isAdmission(const cnx::sim::Step& s) {
    return std::holds_alternative<cnx::sim::ProducerStep>(s.body) || std::holds_alternative<cnx::sim::SubscribeStep>(s.body);
}

std::optional<pulsar::proto::Schema> wireSchemaOf(const cnx::sim::SchemaRef& ref) {
    using Kind = cnx::sim::SchemaRef::Kind;
    switch (ref.kind) {
        case Kind::none:
        case Kind::autoProduceBytes: return std::nullopt;
        case Kind::autoConsume: return cnx::wire::toProto(cnx::SchemaData{cnx::SchemaType::AUTO_CONSUME, "", {}}, "AutoConsume");
        case Kind::definition: return cnx::wire::toProto(ref.data, ref.alias);
    }
    return std::nullopt;
}

/// The PRODUCER / SUBSCRIBE commands of every admission step of the suite.
std::vector<BaseCommand> admissionCommands() {
    std::vector<BaseCommand> out;
    std::uint64_t id = 0;
    for (const auto& sc : loadedSuite().scenarios) {
        for (const auto& step : sc.steps) {
            BaseCommand c;
            if (const auto* p = std::get_if<cnx::sim::ProducerStep>(&step.body)) {
                c.set_type(BaseCommand::PRODUCER);
                auto* m = c.mutable_producer();
                m->set_topic(p->topic);
                m->set_producer_id(++id);
                m->set_request_id(id);
                m->set_producer_name(p->name);
                if (auto s = wireSchemaOf(p->schema)) *m->mutable_schema() = *s;
            } else if (const auto* s = std::get_if<cnx::sim::SubscribeStep>(&step.body)) {
                c.set_type(BaseCommand::SUBSCRIBE);
                auto* m = c.mutable_subscribe();
                m->set_topic(s->topic);
                m->set_subscription(s->subscription);
                m->set_subtype(pulsar::proto::CommandSubscribe::Shared);
                m->set_consumer_id(++id);
                m->set_request_id(id);
                m->set_consumer_name(s->consumer);
                if (auto w = wireSchemaOf(s->schema)) *m->mutable_schema() = *w;
            } else {
                continue;
            }
            out.push_back(std::move(c));
        }
    }
    return out;
}

void record(const std::string& name, double seconds, double items) {
    auto& f = gFigures[name];
    f.seconds += seconds;
    f.items += items;
    ++f.iterations;
}

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// --- baseline -------------------------------------------------------------------

// Timed in two windows, before and after the suite benchmarks: the summary
// divides by the faster one, so a slow moment during one window makes no ratio
// look better than it is (one window only, when a filter leaves the other out).
void BM_Baseline_WireRoundTrip(benchmark::State& state, const char* window) {
    const auto commands = admissionCommands();
    std::size_t decoded = 0;
    for (auto _ : state) {
        auto t0 = Clock::now();
        for (const auto& c : commands) {
            auto bytes = cnx::wire::encodeFrame(c);
            std::string error;
            auto f = cnx::wire::decodeFrame(bytes, &error);
            decoded += f.has_value();
            benchmark::DoNotOptimize(f);
        }
        double s = since(t0);
        state.SetIterationTime(s);
        record(window, s, static_cast<double>(commands.size()));
    }
    if (decoded == 0) state.SkipWithError("no frame decoded");
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * commands.size()));
    state.counters["frames"] = static_cast<double>(commands.size());
}
BENCHMARK_CAPTURE(BM_Baseline_WireRoundTrip, before, "baseline-before")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.5);

// --- suite ----------------------------------------------------------------------------

void count(SuiteCounts& c, const cnx::sim::ScenarioResult& r) {
    for (const auto& step : r.steps) {
        ++c.stepsRun;
        if (!step.step || !isAdmission(*step.step)) continue;
        ++c.admissions;
        c.admissionsRefused += !step.observed.ok;
    }
    c.steps += r.scenario->steps.size();
}

/// Runs every scenario once, on `jobs` threads as `cnxsim run` does (results
/// taken in order); returns the counts of what ran.
SuiteCounts runSuite(const cnx::sim::LoadResult& suite, unsigned jobs = 1) {
    SuiteCounts c;
    cnx::sim::RunOptions options;
    options.fastPaths = gFastPaths;
    std::vector<std::pair<const cnx::sim::Scenario*, std::string>> runs;
    for (const auto& sc : suite.scenarios)
        for (auto& version : cnx::sim::versionsOf(sc)) runs.emplace_back(&sc, std::move(version));
    std::vector<cnx::sim::TopicNameCache> topicNames(std::max(1u, jobs));  // a worker's own, as `cnxsim run`'s
    cnx::sim::forEachOrdered(
        runs.size(), jobs, cnx::sim::Deal::nextFree,
        [&](std::size_t i, unsigned worker) {
            auto own = options;
            own.topicNames = &topicNames[worker];
            return cnx::sim::runScenario(*runs[i].first, "bench-suite.yaml", runs[i].second, own);
        },
        [&](std::size_t, cnx::sim::ScenarioResult r) { count(c, r); });
    return c;
}

/// The suite benchmarks run on one thread, and again on `--jobs` threads (the
/// figure's name then ends in "-jobs"; gJobs is known only once the flags are read).
enum class Threads { one, jobs };
unsigned threadsOf(Threads t) { return t == Threads::one ? 1 : gJobs; }
std::string figure(const char* name, Threads t) { return t == Threads::one ? name : std::string(name) + "-jobs"; }

void BM_Suite_Load(benchmark::State& state, Threads threads) {
    std::size_t scenarios = 0;
    for (auto _ : state) {
        auto t0 = Clock::now();
        auto r = loadSuite(threadsOf(threads));
        double s = since(t0);
        scenarios = r.scenarios.size();
        state.SetIterationTime(s);
        record(figure("load", threads), s, 0);
        benchmark::DoNotOptimize(r);
    }
    state.counters["scenarios"] = static_cast<double>(scenarios);
    state.counters["threads"] = threadsOf(threads);
}

void BM_Suite_Run(benchmark::State& state, Threads threads) {
    const auto& suite = loadedSuite();
    SuiteCounts counts;
    for (auto _ : state) {
        auto t0 = Clock::now();
        counts = runSuite(suite, threadsOf(threads));
        double s = since(t0);
        state.SetIterationTime(s);
        record(figure("run", threads), s, 0);
    }
    if (threads == Threads::one) gCounts = counts;
    state.counters["steps/s"] = benchmark::Counter(static_cast<double>(counts.stepsRun) * state.iterations(),
                                                   benchmark::Counter::kIsRate);
    state.counters["admissions/s"] = benchmark::Counter(static_cast<double>(counts.admissions) * state.iterations(),
                                                        benchmark::Counter::kIsRate);
    state.counters["threads"] = threadsOf(threads);
}

void BM_Suite_WallTime(benchmark::State& state, Threads threads) {
    for (auto _ : state) {
        auto t0 = Clock::now();
        auto suite = loadSuite(threadsOf(threads));
        auto counts = runSuite(suite, threadsOf(threads));
        double s = since(t0);
        state.SetIterationTime(s);
        record(figure("wall", threads), s, static_cast<double>(counts.admissions));
    }
    state.counters["threads"] = threadsOf(threads);
}

BENCHMARK_CAPTURE(BM_Suite_Load, one_thread, Threads::one)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK_CAPTURE(BM_Suite_Load, jobs, Threads::jobs)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK_CAPTURE(BM_Suite_Run, one_thread, Threads::one)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK_CAPTURE(BM_Suite_Run, jobs, Threads::jobs)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK_CAPTURE(BM_Suite_WallTime, one_thread, Threads::one)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_Suite_WallTime, jobs, Threads::jobs)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(1);
// The baseline's second window (BM_Baseline_WireRoundTrip above).
BENCHMARK_CAPTURE(BM_Baseline_WireRoundTrip, after, "baseline-after")
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.5);

// --- growth ---------------------------------------------------------------------------

/// One size of the growth table: the same generator, one dimension scaled.
struct GrowthRow {
    std::string dimension;
    std::string size;
    std::size_t steps = 0;
    double loadNs = 0;  // per step, best of the runs
    double runNs = 0;   // per step, best of the runs
};

GrowthRow measureGrowth(std::string dimension, std::string size, const cnx::bench::SuiteShape& shape) {
    // A text stays well under the loader's 8 MiB file limit however long the scenarios are.
    const std::size_t perFile = std::max<std::size_t>(1, 500 * 11 / ((shape.minSteps + shape.maxSteps) / 2));
    const auto files = cnx::bench::generateSuiteFiles(shape, perFile);
    GrowthRow row{std::move(dimension), std::move(size)};
    double bestLoad = 0, bestRun = 0;
    for (int i = 0; i < 2; ++i) {
        auto t0 = Clock::now();
        auto suite = loadSuite(files);
        double load = since(t0);
        if (!suite.ok()) {
            std::fprintf(stderr, "growth suite %s %s does not load: %s\n", row.dimension.c_str(), row.size.c_str(),
                         suite.errors.front().format().c_str());
            std::exit(2);
        }
        t0 = Clock::now();
        auto counts = runSuite(suite);
        double run = since(t0);
        row.steps = counts.stepsRun;
        bestLoad = i == 0 ? load : std::min(bestLoad, load);
        bestRun = i == 0 ? run : std::min(bestRun, run);
    }
    row.loadNs = bestLoad * 1e9 / static_cast<double>(row.steps);
    row.runNs = bestRun * 1e9 / static_cast<double>(row.steps);
    return row;
}

/// Scenarios per suite and steps per scenario at 1x, 10x and 100x; the growth
/// factor is the per-step time over the 1x per-step time (1.00 = linear).
std::vector<GrowthRow> gGrowth;
bool gSkipGrowth = false;

void measureGrowthTable() {
    cnx::bench::SuiteShape base = gShape;
    for (std::size_t m : {1, 10, 100}) {
        auto shape = base;
        shape.scenarios = 100 * m;
        gGrowth.push_back(measureGrowth("scenarios per suite", std::to_string(shape.scenarios) + " (" +
                                                                    std::to_string(m) + "x)", shape));
    }
    for (std::size_t m : {1, 10, 100}) {
        auto shape = base;
        shape.scenarios = 100;
        shape.minSteps = base.minSteps * m;
        shape.maxSteps = base.maxSteps * m;
        gGrowth.push_back(measureGrowth("steps per scenario", std::to_string(shape.minSteps) + "-" +
                                                                   std::to_string(shape.maxSteps) + " (" +
                                                                   std::to_string(m) + "x)", shape));
    }
}

void printGrowth(double baseNs) {
    if (gGrowth.empty()) return;
    std::printf("\n== growth: per-step time at 1x, 10x and 100x the size (best of 2 runs each)\n");
    std::printf("(growth = per-step time / per-step time at 1x: 1.00 is linear growth of the total)\n");
    std::printf("%-20s %-16s %9s %12s %8s %8s %12s %8s %8s\n", "dimension", "size", "steps", "load/step",
                "x base", "growth", "run/step", "x base", "growth");
    const GrowthRow* first = nullptr;
    for (const auto& r : gGrowth) {
        if (!first || first->dimension != r.dimension) first = &r;
        std::printf("%-20s %-16s %9zu %9.0f ns %8.2f %8.2f %9.0f ns %8.2f %8.2f\n", r.dimension.c_str(), r.size.c_str(),
                    r.steps, r.loadNs, r.loadNs / baseNs, r.loadNs / first->loadNs, r.runNs, r.runNs / baseNs,
                    r.runNs / first->runNs);
    }
}

// --- summary --------------------------------------------------------------------------

/// The baseline per frame: the faster of its windows that ran (0: none ran).
double baselineNs() {
    double best = 0;
    for (const char* window : {"baseline-before", "baseline-after"}) {
        const auto& f = gFigures[window];
        if (f.items > 0 && (best == 0 || f.perItemNs() < best)) best = f.perItemNs();
    }
    return best;
}

void printSummary() {
    const auto& load = gFigures["load"];
    const auto& run = gFigures["run"];
    const auto& wall = gFigures["wall"];
    const auto& loadJobs = gFigures["load-jobs"];
    const auto& wallJobs = gFigures["wall-jobs"];
    const double baseNs = baselineNs();
    if (baseNs == 0 || run.iterations == 0 || gCounts.stepsRun == 0) return;
    const double runS = run.perIterationSeconds();
    const double stepNs = runS * 1e9 / static_cast<double>(gCounts.stepsRun);
    const double admissionNs = runS * 1e9 / static_cast<double>(gCounts.admissions);
    const double loadStepNs = load.perIterationSeconds() * 1e9 / static_cast<double>(gCounts.steps);
    auto ratio = [&](double ns) { return ns / baseNs; };

    std::printf("\n== cnxsim admission benchmark: seed %llu, %zu scenarios, %zu steps (%zu admissions, %.1f%% refused)\n",
                static_cast<unsigned long long>(gShape.seed), loadedSuite().scenarios.size(), gCounts.stepsRun,
                gCounts.admissions, 100.0 * static_cast<double>(gCounts.admissionsRefused) / static_cast<double>(gCounts.admissions));
    // Which build measured: the figures of a plain and a CNXSIM_PGO build differ (bench/README.md).
    std::printf("build: %s\n", CNXSIM_PGO_BUILD ? "profile-guided (CNXSIM_PGO=ON, trained on scenarios/)"
                                                 : "without a profile (CNXSIM_PGO=OFF)");
    std::printf("%-58s %14s %10s\n", "figure", "absolute", "x baseline");
    std::printf("%-58s %11.0f ns %10.2f\n", "baseline: wire round trip of one admission frame (no model)", baseNs, 1.0);
    if (const auto &before = gFigures["baseline-before"], &after = gFigures["baseline-after"]; before.items && after.items)
        std::printf("%-58s %8.0f / %.0f ns\n", "  its two windows, before / after the suite (faster kept)",
                    before.perItemNs(), after.perItemNs());
    std::printf("%-58s %11.0f ns %10.2f\n", "load: YAML -> scenario model, per step (1 thread)", loadStepNs, ratio(loadStepNs));
    if (loadJobs.iterations) {
        const double ns = loadJobs.perIterationSeconds() * 1e9 / static_cast<double>(gCounts.steps);
        std::printf("%-58s %11.0f ns %10.2f\n", ("load: the same on " + std::to_string(gJobs) + " threads (cnxsim run)").c_str(), ns,
                    ratio(ns));
    }
    std::printf("%-58s %11.0f ns %10.2f\n", "run: one step through ServerCnx / admin API (mean)", stepNs, ratio(stepNs));
    std::printf("%-58s %11.0f ns %10.2f\n", "run: suite run time per admission step", admissionNs, ratio(admissionNs));
    std::printf("%-58s %14.0f\n", "admission steps per second (run only)", static_cast<double>(gCounts.admissions) / runS);
    std::printf("%-58s %14.0f\n", "steps per second (run only)", static_cast<double>(gCounts.stepsRun) / runS);
    if (const auto& rj = gFigures["run-jobs"]; rj.iterations)
        std::printf("%-58s %14.0f\n", ("steps per second (run only, " + std::to_string(gJobs) + " threads: cnxsim run)").c_str(),
                    static_cast<double>(gCounts.stepsRun) / rj.perIterationSeconds());
    std::printf("%-58s %12.2f s %10.0f\n", "whole-suite wall time (load + run, 1 thread)", wall.perIterationSeconds(),
                wall.perIterationSeconds() * 1e9 / baseNs);
    if (wallJobs.iterations)
        std::printf("%-58s %12.2f s %10.0f\n",
                    ("whole-suite wall time (load + run, " + std::to_string(gJobs) + " threads: cnxsim run)").c_str(),
                    wallJobs.perIterationSeconds(), wallJobs.perIterationSeconds() * 1e9 / baseNs);
    std::printf("(the last ratio: the wall time in wire round trips; every ratio is relative to the same-process baseline)\n");
    std::printf("fast paths: %s; quick Avro parses the full parser disagreed with: %llu\n",
                std::string(cnx::to_string_view(gFastPaths)).c_str(),
                static_cast<unsigned long long>(cnx::compat::avro::quickParseDisagreements()));
    printGrowth(baseNs);
}

/// Takes `--scenarios=N`, `--seed=N`, `--jobs=N`, `--no-growth` and `--no-fast-paths` out of argv before
/// Google Benchmark parses it.
void takeOwnFlags(int& argc, char** argv) {
    int out = 1;
    for (int i = 1; i < argc; ++i) {
        std::string_view a = argv[i];
        if (a.starts_with("--scenarios=")) {
            gShape.scenarios = std::strtoull(argv[i] + 12, nullptr, 10);
        } else if (a.starts_with("--seed=")) {
            gShape.seed = std::strtoull(argv[i] + 7, nullptr, 10);
        } else if (a.starts_with("--jobs=")) {
            gJobs = static_cast<unsigned>(std::strtoul(argv[i] + 7, nullptr, 10));
        } else if (a == "--no-growth") {
            gSkipGrowth = true;
        } else if (a == "--no-fast-paths") {
            gFastPaths = cnx::FastPaths::off;
        } else {
            argv[out++] = argv[i];
        }
    }
    argc = out;
}

}  // namespace

int main(int argc, char** argv) {
    if (const char* f = std::getenv("CNXSIM_FAST_PATHS"); f && cnx::fastPathsFromText(f) == cnx::FastPaths::off)
        gFastPaths = cnx::FastPaths::off;
    takeOwnFlags(argc, argv);
    if (gShape.scenarios == 0) gShape.scenarios = 1;
    if (gJobs == 0) gJobs = 1;
    std::printf("cnxsim bench_admission: %zu generated scenarios, seed %llu, %u thread(s) for the --jobs figures\n",
                gShape.scenarios, static_cast<unsigned long long>(gShape.seed), gJobs);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    loadedSuite();  // generate and load once, outside every timed region
    benchmark::RunSpecifiedBenchmarks();
    if (!gSkipGrowth) measureGrowthTable();
    printSummary();
    benchmark::Shutdown();
    return 0;
}
