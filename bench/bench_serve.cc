// `cnxsim serve` over loopback TCP (issue 10's figures, bench/README.md): the
// real binary as a child process (tests/serve/serve_client.h's ServeProcess),
// driven by the client of bench/loopback.h.
//
// 1. Producer creation: one connection, CONNECT once, then PRODUCER (AVRO
//    record schema, a new producer each time) -> PRODUCER_SUCCESS, timed;
//    CLOSE_PRODUCER -> SUCCESS timed separately. p50 and p99.
// 2. SEND throughput: 1 KB messages, one producer, a window of outstanding
//    receipts.
// 3. Process start (fork/exec) to the `ready:` line, median and max.
//
// Baselines, measured in the same process (DEVELOPERS rule): a bare Boost.Asio
// echo server on an in-process thread, with frames of the same sizes and the
// same window; for the start, `cnxsim serve --help` (same binary, same
// loader, exits after its first line).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "bench/loopback.h"
#include "tests/serve/serve_client.h"

namespace {

using Clock = std::chrono::steady_clock;
using pulsar::proto::BaseCommand;
using cnx::bench::LoopbackClient;

struct Settings {
    std::size_t roundTrips = 5000;  // timed round trips per latency benchmark
    std::size_t warmUp = 200;       // untimed round trips before them
    std::size_t messages = 20000;   // SEND frames per throughput iteration
    std::size_t window = 1000;      // outstanding SEND frames
    std::size_t payloadBytes = 1024;
    std::size_t throughputIterations = 5;
    std::size_t starts = 20;
};
Settings gSettings;

constexpr double kProducerTarget = 2.0;  // p50(producer) / p50(echo), issue 10
constexpr double kStartTargetMs = 50.0;  // median start to ready line, issue 10

std::map<std::string, std::vector<double>> gSamples;  // seconds, per figure
std::map<std::string, double> gRates;                 // frames per second, per figure
std::size_t gProducerFrameBytes = 0;
std::size_t gSendFrameBytes = 0;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

/// Nearest-rank percentile of `samples` (0 < p <= 100); 0 for none.
double percentile(std::vector<double> samples, double p) {
    if (samples.empty()) return 0;
    std::sort(samples.begin(), samples.end());
    auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(samples.size())));
    return samples[std::clamp<std::size_t>(rank, 1, samples.size()) - 1];
}

BaseCommand command(BaseCommand::Type type) {
    BaseCommand c;
    c.set_type(type);
    return c;
}

const char* kAvroRecord =
    R"({"type":"record","name":"Reading","namespace":"bench","fields":[)"
    R"({"name":"sensor","type":"string"},{"name":"value","type":"double"}]})";

/// PRODUCER number `n` (n >= 1): ids and a fixed-width name, so every frame has nearly the same size.
BaseCommand producerCommand(const std::string& topic, std::uint64_t n) {
    auto c = command(BaseCommand::PRODUCER);
    auto* p = c.mutable_producer();
    p->set_topic(topic);
    p->set_producer_id(n);
    p->set_request_id(2 * n);
    char name[32];
    std::snprintf(name, sizeof name, "bench-producer-%08llu", static_cast<unsigned long long>(n));
    p->set_producer_name(name);
    p->mutable_schema()->set_name("Reading");
    p->mutable_schema()->set_schema_data(kAvroRecord);
    p->mutable_schema()->set_type(pulsar::proto::Schema::Avro);
    return c;
}

BaseCommand closeProducerCommand(std::uint64_t n) {
    auto c = command(BaseCommand::CLOSE_PRODUCER);
    c.mutable_close_producer()->set_producer_id(n);
    c.mutable_close_producer()->set_request_id(2 * n + 1);
    return c;
}

bool handshake(LoopbackClient& client) {
    auto c = command(BaseCommand::CONNECT);
    c.mutable_connect()->set_client_version("bench-serve");
    c.mutable_connect()->set_protocol_version(21);
    auto r = client.call(c);
    return r && r->type() == BaseCommand::CONNECTED;
}

void latencyCounters(benchmark::State& state, const std::vector<double>& s) {
    state.counters["p50_us"] = percentile(s, 50) * 1e6;
    state.counters["p99_us"] = percentile(s, 99) * 1e6;
}

// --- 1. producer creation ------------------------------------------------------------

void BM_Baseline_EchoRoundTrip(benchmark::State& state) {
    cnx::bench::EchoServer echo;
    LoopbackClient client(echo.port());
    if (!client.connected()) return state.SkipWithError("no connection to the echo server");
    // A PRODUCER frame of the benchmark below, as bytes of the same size.
    const std::string frame = cnx::bench::simpleFrame(
        producerCommand("persistent://public/default/bench-producers", gSettings.warmUp + gSettings.roundTrips / 2));
    gProducerFrameBytes = frame.size();
    std::string back;
    for (std::size_t i = 0; i < gSettings.warmUp; ++i)
        if (!client.writeAll(frame) || !client.readExact(frame.size(), back)) return state.SkipWithError("echo failed");
    auto& samples = gSamples["echo"];
    for (auto _ : state) {
        auto t0 = Clock::now();
        bool ok = client.writeAll(frame) && client.readExact(frame.size(), back);
        double s = since(t0);
        if (!ok) return state.SkipWithError("echo failed");
        state.SetIterationTime(s);
        samples.push_back(s);
    }
    latencyCounters(state, samples);
}

/// PRODUCER -> PRODUCER_SUCCESS timed into `createKey`, CLOSE_PRODUCER -> SUCCESS into `closeKey`.
/// `newTopicEach`: every producer on a topic of its own (a schema registered each time).
void producerRoundTrips(benchmark::State& state, bool newTopicEach, const std::string& createKey,
                        const std::string& closeKey) {
    serve_test::ServeProcess server;
    if (server.port() == 0) return state.SkipWithError(("cnxsim serve did not start: " + server.readyLine()).c_str());
    LoopbackClient client(server.port());
    if (!client.connected() || !handshake(client)) return state.SkipWithError("no CONNECTED from cnxsim serve");
    std::uint64_t n = 0;
    auto topicOf = [&](std::uint64_t k) {
        return "persistent://public/default/bench-producers" + (newTopicEach ? "-" + std::to_string(k) : "");
    };
    // One create and close; the create alone is timed when `timed`.
    auto once = [&](bool timed) -> bool {
        ++n;
        const std::string create = cnx::bench::simpleFrame(producerCommand(topicOf(n), n));
        const std::string close = cnx::bench::simpleFrame(closeProducerCommand(n));
        auto t0 = Clock::now();
        if (!client.writeAll(create)) return false;
        auto r = client.readCommand();
        double s = since(t0);
        if (!r || r->type() != BaseCommand::PRODUCER_SUCCESS) return false;
        if (timed) {
            state.SetIterationTime(s);
            gSamples[createKey].push_back(s);
        }
        t0 = Clock::now();
        if (!client.writeAll(close)) return false;
        auto closed = client.readCommand();
        s = since(t0);
        if (!closed || closed->type() != BaseCommand::SUCCESS) return false;
        if (timed) gSamples[closeKey].push_back(s);
        return true;
    };
    for (std::size_t i = 0; i < gSettings.warmUp; ++i)
        if (!once(false)) return state.SkipWithError("a warm-up producer was not created and closed");
    for (auto _ : state)
        if (!once(true)) return state.SkipWithError("a producer was not created and closed");
    latencyCounters(state, gSamples[createKey]);
    state.counters["close_p50_us"] = percentile(gSamples[closeKey], 50) * 1e6;
}

void BM_Serve_ProducerCreate(benchmark::State& state) { producerRoundTrips(state, false, "create", "close"); }
void BM_Serve_ProducerCreateNewTopic(benchmark::State& state) {
    producerRoundTrips(state, true, "create-new-topic", "close-new-topic");
}

// --- 2. SEND throughput ----------------------------------------------------------------

/// SEND frames of one producer, 1 KB payloads, sequence ids continuing from `firstSequence`.
cnx::bench::FrameSource sendFrames(std::uint64_t producerId, std::string producerName, std::uint64_t firstSequence) {
    auto payload = std::make_shared<std::string>(gSettings.payloadBytes, 'x');
    return [=](std::size_t i, std::string& out) {
        auto send = command(BaseCommand::SEND);
        send.mutable_send()->set_producer_id(producerId);
        send.mutable_send()->set_sequence_id(firstSequence + i);
        pulsar::proto::MessageMetadata meta;
        meta.set_producer_name(producerName);
        meta.set_sequence_id(firstSequence + i);
        meta.set_publish_time(1700000000000);
        out += cnx::bench::payloadFrame(send, meta, *payload);
    };
}

/// Runs the throughput iterations: `pumpOnce(first sequence id)` sends gSettings.messages frames.
template <typename Pump>
void throughput(benchmark::State& state, const std::string& key, Pump pumpOnce) {
    std::uint64_t sequence = 0;
    if (!pumpOnce(sequence, gSettings.window)) return state.SkipWithError("warm-up failed");  // untimed
    sequence += gSettings.messages;
    double seconds = 0;
    for (auto _ : state) {
        auto t0 = Clock::now();
        bool ok = pumpOnce(sequence, gSettings.window);
        double s = since(t0);
        if (!ok) return state.SkipWithError("the stream stalled or got an unexpected answer");
        sequence += gSettings.messages;
        state.SetIterationTime(s);
        seconds += s;
    }
    const double messages = static_cast<double>(gSettings.messages * state.iterations());
    gRates[key] = messages / seconds;
    state.counters["msg/s"] = gRates[key];
    state.counters["MB/s"] = gRates[key] * static_cast<double>(gSettings.payloadBytes) / 1e6;
}

void BM_Baseline_EchoThroughput(benchmark::State& state) {
    cnx::bench::EchoServer echo;
    LoopbackClient client(echo.port());
    if (!client.connected()) return state.SkipWithError("no connection to the echo server");
    std::string sample;
    sendFrames(1, "bench-sender", 0)(0, sample);
    gSendFrameBytes = sample.size();
    // Counts echoed frames: the same bytes that went out.
    auto counter = [](std::string& in) -> std::optional<std::size_t> {
        std::size_t at = 0, n = 0;
        while (auto size = cnx::bench::wholeFrameSize(std::string_view(in).substr(at))) {
            at += size;
            ++n;
        }
        in.erase(0, at);
        return n;
    };
    throughput(state, "echo", [&](std::uint64_t first, std::size_t window) {
        return client.pump(gSettings.messages, window, sendFrames(1, "bench-sender", first), counter);
    });
}

void BM_Serve_SendThroughput(benchmark::State& state) {
    serve_test::ServeProcess server;
    if (server.port() == 0) return state.SkipWithError(("cnxsim serve did not start: " + server.readyLine()).c_str());
    LoopbackClient client(server.port());
    if (!client.connected() || !handshake(client)) return state.SkipWithError("no CONNECTED from cnxsim serve");
    auto p = command(BaseCommand::PRODUCER);
    p.mutable_producer()->set_topic("persistent://public/default/bench-send");
    p.mutable_producer()->set_producer_id(1);
    p.mutable_producer()->set_request_id(1);
    p.mutable_producer()->set_producer_name("bench-sender");
    auto created = client.call(p);
    if (!created || created->type() != BaseCommand::PRODUCER_SUCCESS) return state.SkipWithError("no producer");
    // Counts SEND_RECEIPTs; anything else (SEND_ERROR, say) stops the run.
    auto counter = [](std::string& in) -> std::optional<std::size_t> {
        std::size_t at = 0, n = 0;
        BaseCommand cmd;
        while (auto size = cnx::bench::wholeFrameSize(std::string_view(in).substr(at))) {
            if (size < 8) return std::nullopt;
            auto cmdSize = static_cast<int>(static_cast<unsigned char>(in[at + 4]) << 24 |
                                            static_cast<unsigned char>(in[at + 5]) << 16 |
                                            static_cast<unsigned char>(in[at + 6]) << 8 |
                                            static_cast<unsigned char>(in[at + 7]));
            if (!cmd.ParseFromArray(in.data() + at + 8, cmdSize) || cmd.type() != BaseCommand::SEND_RECEIPT)
                return std::nullopt;
            at += size;
            ++n;
        }
        in.erase(0, at);
        return n;
    };
    throughput(state, "send", [&](std::uint64_t first, std::size_t window) {
        return client.pump(gSettings.messages, window, sendFrames(1, "bench-sender", first), counter);
    });
}

// --- 3. process start ------------------------------------------------------------------

/// fork/exec of `cnxsim serve --port 0 <extra>` until its first line on stdout.
void starts(benchmark::State& state, const std::vector<std::string>& extra, std::string_view linePrefix,
            const std::string& key) {
    for (auto _ : state) {
        auto t0 = Clock::now();
        serve_test::ServeProcess process(extra);
        double s = since(t0);
        if (process.readyLine().rfind(linePrefix, 0) != 0)
            return state.SkipWithError(("unexpected first line: " + process.readyLine()).c_str());
        state.SetIterationTime(s);
        gSamples[key].push_back(s);
    }  // the child is killed and reaped outside the timed part
    state.counters["median_ms"] = percentile(gSamples[key], 50) * 1e3;
    state.counters["max_ms"] = percentile(gSamples[key], 100) * 1e3;
}

void BM_Baseline_StartHelp(benchmark::State& state) { starts(state, {"--help"}, "usage: cnxsim serve", "start-help"); }
void BM_Serve_StartToReady(benchmark::State& state) { starts(state, {}, "ready: pulsar://", "start"); }

// --- summary ---------------------------------------------------------------------------

const char* verdict(bool met) { return met ? "met" : "MISSED"; }

void printSummary() {
    auto has = [](const std::string& k) { return gSamples.count(k) && !gSamples[k].empty(); };
    auto us = [](const std::string& k, double p) { return percentile(gSamples[k], p) * 1e6; };
    std::printf("\n== cnxsim serve benchmark: loopback TCP, cnxsim serve as a child process, the echo baseline on a thread\n");
    std::printf("%-60s %14s %10s  %s\n", "figure", "absolute", "x baseline", "target");
    if (has("echo")) {
        const double e50 = us("echo", 50), e99 = us("echo", 99);
        std::printf("%-60s %11.1f us %10.2f\n",
                    ("baseline: echo round trip, " + std::to_string(gProducerFrameBytes) + "-byte frame, p50").c_str(), e50,
                    1.0);
        std::printf("%-60s %11.1f us %10.2f\n", "baseline: echo round trip, p99", e99, 1.0);
        if (has("create")) {
            const double r = us("create", 50) / e50;
            std::printf("%-60s %11.1f us %10.2f  p50 <= %.1fx echo: %s\n", "PRODUCER -> PRODUCER_SUCCESS (AVRO), p50",
                        us("create", 50), r, kProducerTarget, verdict(r <= kProducerTarget));
            std::printf("%-60s %11.1f us %10.2f  (x echo p99)\n", "PRODUCER -> PRODUCER_SUCCESS (AVRO), p99",
                        us("create", 99), us("create", 99) / e99);
            std::printf("%-60s %11.1f us %10.2f\n", "CLOSE_PRODUCER -> SUCCESS, p50 (not in the above)", us("close", 50),
                        us("close", 50) / e50);
        }
        if (has("create-new-topic")) {
            std::printf("%-60s %11.1f us %10.2f\n", "PRODUCER on a new topic each time (schema added), p50",
                        us("create-new-topic", 50), us("create-new-topic", 50) / e50);
            std::printf("%-60s %11.1f us %10.2f  (x echo p99)\n", "PRODUCER on a new topic each time, p99",
                        us("create-new-topic", 99), us("create-new-topic", 99) / e99);
        }
    }
    if (gRates.count("echo")) {
        const double echo = gRates["echo"], mb = static_cast<double>(gSettings.payloadBytes) / 1e6;
        std::string shape = std::to_string(gSendFrameBytes) + "-byte frames, window " + std::to_string(gSettings.window);
        std::printf("%-60s %10.0f /s %10.2f\n", ("baseline: echo throughput, " + shape).c_str(), echo, 1.0);
        std::printf("%-60s %9.1f MB/s %10.2f\n", "baseline: echo throughput, payload bytes", echo * mb, 1.0);
        if (gRates.count("send")) {
            const double send = gRates["send"];
            std::printf("%-60s %10.0f /s %10.2f  no target\n", "SEND -> SEND_RECEIPT throughput, 1 KB payloads", send,
                        send / echo);
            std::printf("%-60s %9.1f MB/s %10.2f\n", "SEND throughput, payload bytes", send * mb, send / echo);
        }
    }
    if (has("start-help")) {
        const double h50 = percentile(gSamples["start-help"], 50) * 1e3;
        std::printf("%-60s %11.1f ms %10.2f\n", "baseline: fork/exec to first line of `serve --help`, median", h50, 1.0);
        if (has("start")) {
            const double s50 = percentile(gSamples["start"], 50) * 1e3, smax = percentile(gSamples["start"], 100) * 1e3;
            std::printf("%-60s %11.1f ms %10.2f  median < %.0f ms: %s\n",
                        ("fork/exec to `ready:` line, median of " + std::to_string(gSamples["start"].size())).c_str(), s50,
                        s50 / h50, kStartTargetMs, verdict(s50 < kStartTargetMs));
            std::printf("%-60s %11.1f ms %10.2f\n", "fork/exec to `ready:` line, max", smax, smax / h50);
        }
    }
    std::printf("(ratios are against the same-process baselines above; throughput ratios are fractions of the echo's)\n");
}

/// Takes this program's own `--name=N` flags out of argv before Google Benchmark parses it.
bool takeOwnFlags(int& argc, char** argv) {
    const std::vector<std::pair<std::string_view, std::size_t*>> flags{
        {"--round-trips=", &gSettings.roundTrips}, {"--warm-up=", &gSettings.warmUp},
        {"--messages=", &gSettings.messages},       {"--window=", &gSettings.window},
        {"--starts=", &gSettings.starts},           {"--throughput-iterations=", &gSettings.throughputIterations}};
    int out = 1;
    for (int i = 1; i < argc; ++i) {
        std::string_view a = argv[i];
        bool own = false;
        for (const auto& [prefix, value] : flags) {
            if (!a.starts_with(prefix)) continue;
            *value = std::strtoull(argv[i] + prefix.size(), nullptr, 10);
            own = true;
        }
        if (!own) argv[out++] = argv[i];
    }
    argc = out;
    return gSettings.roundTrips > 0 && gSettings.messages > 0 && gSettings.window > 0 && gSettings.starts > 0 &&
           gSettings.throughputIterations > 0;
}

void registerBenchmarks() {
    using Fn = void (*)(benchmark::State&);
    struct Entry {
        const char* name;
        Fn fn;
        benchmark::TimeUnit unit;
        std::size_t iterations;
    };
    const Entry entries[] = {
        {"BM_Baseline_EchoRoundTrip", BM_Baseline_EchoRoundTrip, benchmark::kMicrosecond, gSettings.roundTrips},
        {"BM_Serve_ProducerCreate", BM_Serve_ProducerCreate, benchmark::kMicrosecond, gSettings.roundTrips},
        {"BM_Serve_ProducerCreateNewTopic", BM_Serve_ProducerCreateNewTopic, benchmark::kMicrosecond, gSettings.roundTrips},
        {"BM_Baseline_EchoThroughput", BM_Baseline_EchoThroughput, benchmark::kMillisecond, gSettings.throughputIterations},
        {"BM_Serve_SendThroughput", BM_Serve_SendThroughput, benchmark::kMillisecond, gSettings.throughputIterations},
        {"BM_Baseline_StartHelp", BM_Baseline_StartHelp, benchmark::kMillisecond, gSettings.starts},
        {"BM_Serve_StartToReady", BM_Serve_StartToReady, benchmark::kMillisecond, gSettings.starts},
    };
    for (const auto& e : entries)
        benchmark::RegisterBenchmark(e.name, e.fn)
            ->UseManualTime()
            ->Unit(e.unit)
            ->Iterations(static_cast<benchmark::IterationCount>(e.iterations));
}

}  // namespace

int main(int argc, char** argv) {
    if (!takeOwnFlags(argc, argv)) {
        std::fprintf(stderr, "bench_serve: --round-trips, --messages, --window, --starts and "
                             "--throughput-iterations take numbers above 0\n");
        return 2;
    }
    std::printf("cnxsim bench_serve: %s\n%zu round trips (after %zu untimed), %zu x %zu SEND frames of %zu-byte payloads, "
                "window %zu, %zu starts\n",
                CNXSIM_BINARY, gSettings.roundTrips, gSettings.warmUp, gSettings.throughputIterations, gSettings.messages,
                gSettings.payloadBytes, gSettings.window, gSettings.starts);
    registerBenchmarks();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    printSummary();
    benchmark::Shutdown();
    return 0;
}
