// Race exploration (issue 12, bench/README.md): N concurrent connects, explored
// exhaustively with partial-order reduction, for N = 2, 3, 4 and 6.
//
// Two shapes of race, each a generated scenario:
// - same:  N producers bring the same new Avro schema to one loaded topic
//          (the #18292 shape; every registration conflicts with every other);
// - apart: N producers on N topics (nothing conflicts: one trace).
// For each: the schedules explored, the naive interleavings (every order of the
// broker's ready stages and the clients' turns, counted exactly from the
// explored traces), their ratio, the seconds, schedules per second and the
// cost of one explored schedule in units of the baseline: the same N connects
// run once one after the other, measured in the same process.
// `--quick` leaves out N = 6 of the same shape (about a minute in Release).

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/run/runner.h"
#include "sim/scenario/loader.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kSchema = R"({"type":"record","name":"User","fields":[{"name":"id","type":"long"}]})";

std::string scenarioYaml(int n, bool apart, bool race) {
    std::string y = "name: bench race\nbroker:\n  version: [\"3.0\"]\nschemas:\n  user-v1: { type: AVRO, schema: '" +
                    std::string(kSchema) + "' }\nclients:\n";
    for (int i = 0; i < n; ++i) y += "  c" + std::to_string(i) + ": { library: java }\n";
    y += "steps:\n";
    // Load the topics first (a warm-up producer), so the race is about the schema.
    for (int i = 0; i < (apart ? n : 1); ++i) {
        y += "  - producer: { topic: t" + std::to_string(i) + ", name: warm" + std::to_string(i) + ", schema: none }\n";
        y += "  - close: warm" + std::to_string(i) + "\n";
    }
    if (race) y += "  - concurrently:\n";
    for (int i = 0; i < n; ++i) {
        y += std::string(race ? "      " : "  ") + "- producer: { topic: t" + std::to_string(apart ? i : 0) + ", name: p" +
             std::to_string(i) + ", schema: user-v1, client: c" + std::to_string(i) + " }\n";
    }
    if (race) y += "    explore: exhaustive\n";
    return y;
}

struct Row {
    std::string shape;
    int n = 0;
    double seconds = 0;
    std::size_t schedules = 0;
    double naive = 0;
    bool exact = true;
    double baselineSeconds = 0;  // one sequential run of the same connects
};
std::vector<Row> gRows;
bool gQuick = false;

const cnx::sim::ScenarioResult runOnce(const std::string& yaml) {
    static std::map<std::string, cnx::sim::LoadResult> loaded;
    auto& l = loaded.try_emplace(yaml, cnx::sim::loadScenarioText(yaml, "bench-race.yaml", ".")).first->second;
    if (!l.ok()) {
        std::fprintf(stderr, "bench scenario does not load: %s\n", l.errors.front().format().c_str());
        std::exit(2);
    }
    cnx::sim::RunOptions options;
    options.maxInterleavings = 10'000'000;  // exhaustive, whatever it takes
    return cnx::sim::runScenario(l.scenarios.front(), "bench-race.yaml", "3.0", options);
}

double baselineOf(int n, bool apart) {
    auto yaml = scenarioYaml(n, apart, false);
    runOnce(yaml);  // warm
    const int reps = 200;
    auto t0 = Clock::now();
    for (int r = 0; r < reps; ++r) benchmark::DoNotOptimize(runOnce(yaml));
    return std::chrono::duration<double>(Clock::now() - t0).count() / reps;
}

void BM_Race(benchmark::State& state) {
    int n = static_cast<int>(state.range(0));
    bool apart = state.range(1) != 0;
    auto yaml = scenarioYaml(n, apart, true);
    Row row{apart ? "apart" : "same", n};
    row.baselineSeconds = baselineOf(n, apart);
    for (auto _ : state) {
        auto t0 = Clock::now();
        auto r = runOnce(yaml);
        double s = std::chrono::duration<double>(Clock::now() - t0).count();
        state.SetIterationTime(s);
        for (const auto& step : r.steps) {
            if (!step.race) continue;
            row.schedules = step.race->stats.explored;
            row.naive = step.race->stats.naive;
            row.exact = step.race->stats.naiveExact && step.race->stats.exhaustive;
        }
        row.seconds = s;
    }
    state.counters["schedules"] = static_cast<double>(row.schedules);
    state.counters["schedules/s"] = row.seconds > 0 ? static_cast<double>(row.schedules) / row.seconds : 0;
    gRows.push_back(row);
}

void registerAll() {
    for (int n : {2, 3, 4, 6}) {
        for (int apart : {0, 1}) {
            if (gQuick && n == 6 && apart == 0) continue;
            benchmark::RegisterBenchmark(("BM_Race/" + std::string(apart ? "apart" : "same") + "/" + std::to_string(n)).c_str(),
                                         BM_Race)
                ->Args({n, apart})
                ->UseManualTime()
                ->Unit(benchmark::kMillisecond)
                ->Iterations(1);
        }
    }
}

void printSummary() {
    std::printf("\n== cnxsim race exploration (exhaustive, source-DPOR + sleep sets, Pulsar 3.0 profile)\n");
    std::printf("baseline: the same N connects run once one after the other, in this process\n");
    std::printf("%-6s %2s %10s %22s %14s %10s %13s %12s %14s\n", "shape", "N", "schedules", "naive interleavings",
                "explored/naive", "seconds", "schedules/s", "baseline", "per schedule");
    for (const auto& r : gRows) {
        std::printf("%-6s %2d %10zu %22.6g %14.3g %10.3f %13.0f %9.1f us %11.1f x\n", r.shape.c_str(), r.n, r.schedules,
                    r.naive, r.naive > 0 ? static_cast<double>(r.schedules) / r.naive : 0, r.seconds,
                    r.seconds > 0 ? static_cast<double>(r.schedules) / r.seconds : 0, r.baselineSeconds * 1e6,
                    r.schedules ? r.seconds / static_cast<double>(r.schedules) / r.baselineSeconds : 0);
        if (!r.exact) std::printf("       (naive count is a lower bound)\n");
    }
    std::printf("(per schedule: seconds per explored schedule / baseline seconds; a schedule replays the\n"
                " steps before the race and runs every branch, so 1 x would be no exploration overhead)\n");
}

}  // namespace

int main(int argc, char** argv) {
    int out = 1;
    for (int i = 1; i < argc; ++i) {
        if (std::string_view(argv[i]) == "--quick") gQuick = true;
        else argv[out++] = argv[i];
    }
    argc = out;
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    registerAll();
    benchmark::RunSpecifiedBenchmarks();
    printSummary();
    benchmark::Shutdown();
    return 0;
}
