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
// Baselines, measured in the same run (DEVELOPERS rule): a bare Boost.Asio
// echo server, forked into a child process as cnxsim serve is one, sent
// frames of the same sizes with the same window; for the start, `cnxsim serve
// --help` (same binary, same loader, exits after its first line).

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
cnx::bench::EchoServer::Kind gEchoKind = cnx::bench::EchoServer::Kind::asio;

constexpr double kProducerTarget = 2.0;  // p50(producer) / p50(echo), issue 10
constexpr double kStartTargetMs = 50.0;  // median start to ready line, issue 10

std::map<std::string, std::vector<double>> gSamples;  // seconds, per figure
std::map<std::string, double> gRates;                 // frames per second, per figure
std::map<std::string, std::size_t> gFrameBytes;      // the frame size, per figure

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

void latencyCounters(benchmark::State& state, const std::string& key) {
    state.counters["p50_us"] = percentile(gSamples[key], 50) * 1e6;
    state.counters["p99_us"] = percentile(gSamples[key], 99) * 1e6;
    state.counters["echo_p50_us"] = percentile(gSamples[key + "/echo"], 50) * 1e6;
}

/// The echo baseline, connected: the server (a child process) and one client.
struct Echo {
    cnx::bench::EchoServer server{gEchoKind};
    LoopbackClient client{server.port()};
};

// --- 1. producer creation ------------------------------------------------------------
//
// Each iteration first does one echo round trip with a frame the size of this
// iteration's PRODUCER frame (timed into key/echo), then PRODUCER ->
// PRODUCER_SUCCESS (timed into key), then CLOSE_PRODUCER -> SUCCESS (timed
// into key/close). Interleaving the baseline with the figure means both see
// the same load on a shared machine.

/// `newTopicEach`: every producer on a topic of its own (a schema registered each time).
void producerRoundTrips(benchmark::State& state, bool newTopicEach, const std::string& key) {
    serve_test::ServeProcess server;
    if (server.port() == 0) return state.SkipWithError(("cnxsim serve did not start: " + server.readyLine()).c_str());
    LoopbackClient client(server.port());
    if (!client.connected() || !handshake(client)) return state.SkipWithError("no CONNECTED from cnxsim serve");
    Echo echo;
    if (!echo.client.connected()) return state.SkipWithError("no connection to the echo server");
    std::uint64_t n = 0;
    auto topicOf = [&](std::uint64_t k) {
        return "persistent://public/default/bench-producers" + (newTopicEach ? "-" + std::to_string(k) : "");
    };
    std::string back;
    // One echo, create and close; recorded when `timed`.
    auto once = [&](bool timed) -> bool {
        ++n;
        const std::string create = cnx::bench::simpleFrame(producerCommand(topicOf(n), n));
        const std::string close = cnx::bench::simpleFrame(closeProducerCommand(n));
        gFrameBytes[key] = create.size();
        auto t0 = Clock::now();
        if (!echo.client.writeAll(create) || !echo.client.readExact(create.size(), back) || back != create) return false;
        double e = since(t0);
        t0 = Clock::now();
        if (!client.writeAll(create)) return false;
        auto r = client.readCommand();
        double s = since(t0);
        if (!r || r->type() != BaseCommand::PRODUCER_SUCCESS) return false;
        t0 = Clock::now();
        if (!client.writeAll(close)) return false;
        auto closed = client.readCommand();
        double c = since(t0);
        if (!closed || closed->type() != BaseCommand::SUCCESS) return false;
        if (timed) {
            state.SetIterationTime(s);
            gSamples[key].push_back(s);
            gSamples[key + "/echo"].push_back(e);
            gSamples[key + "/close"].push_back(c);
        }
        return true;
    };
    for (std::size_t i = 0; i < gSettings.warmUp; ++i)
        if (!once(false)) return state.SkipWithError("a warm-up producer was not created and closed");
    for (auto _ : state)
        if (!once(true)) return state.SkipWithError("a producer was not created and closed");
    latencyCounters(state, key);
}

void BM_Serve_ProducerCreate(benchmark::State& state) { producerRoundTrips(state, false, "create"); }
void BM_Serve_ProducerCreateNewTopic(benchmark::State& state) { producerRoundTrips(state, true, "create-new-topic"); }

// --- 2. SEND throughput ----------------------------------------------------------------
//
// Each iteration streams gSettings.messages frames through the echo server
// (timed into "echo"), then the same frames as SENDs of one producer (timed
// into "send"), each with at most gSettings.window unanswered.

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

/// Counts echoed frames: the same bytes that went out.
std::optional<std::size_t> countEchoed(std::string& in) {
    std::size_t at = 0, n = 0;
    while (auto size = cnx::bench::wholeFrameSize(std::string_view(in).substr(at))) {
        at += size;
        ++n;
    }
    in.erase(0, at);
    return n;
}

/// Counts SEND_RECEIPTs; anything else (SEND_ERROR, say) stops the run.
std::optional<std::size_t> countReceipts(std::string& in) {
    std::size_t at = 0, n = 0;
    BaseCommand cmd;
    while (auto size = cnx::bench::wholeFrameSize(std::string_view(in).substr(at))) {
        if (size < 8) return std::nullopt;
        auto byte = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(in[at + i])); };
        auto cmdSize = static_cast<int>(byte(4) << 24 | byte(5) << 16 | byte(6) << 8 | byte(7));
        if (!cmd.ParseFromArray(in.data() + at + 8, cmdSize) || cmd.type() != BaseCommand::SEND_RECEIPT)
            return std::nullopt;
        at += size;
        ++n;
    }
    in.erase(0, at);
    return n;
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
    Echo echo;
    if (!echo.client.connected()) return state.SkipWithError("no connection to the echo server");
    std::string sample;
    sendFrames(1, "bench-sender", 0)(0, sample);
    gFrameBytes["send"] = sample.size();

    std::uint64_t sequence = 0;
    double echoSeconds = 0, sendSeconds = 0;
    auto both = [&](bool timed) -> bool {
        auto t0 = Clock::now();
        if (!echo.client.pump(gSettings.messages, gSettings.window, sendFrames(1, "bench-sender", sequence), countEchoed))
            return false;
        double e = since(t0);
        t0 = Clock::now();
        if (!client.pump(gSettings.messages, gSettings.window, sendFrames(1, "bench-sender", sequence), countReceipts))
            return false;
        double s = since(t0);
        sequence += gSettings.messages;
        if (timed) {
            state.SetIterationTime(s);
            echoSeconds += e;
            sendSeconds += s;
        }
        return true;
    };
    if (!both(false)) return state.SkipWithError("the warm-up stream stalled or got an unexpected answer");
    for (auto _ : state)
        if (!both(true)) return state.SkipWithError("a stream stalled or got an unexpected answer");
    const double messages = static_cast<double>(gSettings.messages * state.iterations());
    gRates["echo"] = messages / echoSeconds;
    gRates["send"] = messages / sendSeconds;
    state.counters["msg/s"] = gRates["send"];
    state.counters["MB/s"] = gRates["send"] * static_cast<double>(gSettings.payloadBytes) / 1e6;
    state.counters["echo_msg/s"] = gRates["echo"];
}

// --- 3. process start ------------------------------------------------------------------
//
// Each iteration: fork/exec of `cnxsim serve --port 0 --help` until its first
// line (timed into "start-help": the same binary and loader, no broker, and
// as the usage text is not flushed early, up to its exit), then of `cnxsim
// serve --port 0` until its `ready:` line (timed into "start").

/// The time until the child's first line; nullopt when it does not start with `prefix`.
std::optional<double> startOnce(const std::vector<std::string>& extra, std::string_view prefix) {
    auto t0 = Clock::now();
    serve_test::ServeProcess process(extra);
    double s = since(t0);
    if (process.readyLine().rfind(prefix, 0) != 0) return std::nullopt;
    return s;
}  // the child is killed and reaped outside the timed part

void BM_Serve_StartToReady(benchmark::State& state) {
    for (auto _ : state) {
        auto help = startOnce({"--help"}, "usage: cnxsim serve");
        auto ready = startOnce({}, "ready: pulsar://");
        if (!help || !ready) return state.SkipWithError("a child's first line was not the expected one");
        state.SetIterationTime(*ready);
        gSamples["start-help"].push_back(*help);
        gSamples["start"].push_back(*ready);
    }
    state.counters["median_ms"] = percentile(gSamples["start"], 50) * 1e3;
    state.counters["max_ms"] = percentile(gSamples["start"], 100) * 1e3;
    state.counters["help_median_ms"] = percentile(gSamples["start-help"], 50) * 1e3;
}

// --- summary ---------------------------------------------------------------------------

const char* verdict(bool met) { return met ? "met" : "MISSED"; }

bool hasSamples(const std::string& key) { return gSamples.count(key) && !gSamples[key].empty(); }
double micros(const std::string& key, double p) { return percentile(gSamples[key], p) * 1e6; }
double millis(const std::string& key, double p) { return percentile(gSamples[key], p) * 1e3; }

void row(const std::string& what, double value, const char* unit, double ratio, const std::string& target = "") {
    std::printf("%-62s %9.1f %-4s %10.2f  %s\n", what.c_str(), value, unit, ratio, target.c_str());
}

/// The rows of one producer figure (`key`), against the echo round trips interleaved with it.
void printLatency(const std::string& key, const std::string& what, bool withTarget) {
    if (!hasSamples(key)) return;
    const std::string echo = key + "/echo", close = key + "/close";
    const double e50 = micros(echo, 50), e99 = micros(echo, 99), r50 = micros(key, 50) / e50;
    row("baseline: echo round trip, " + std::to_string(gFrameBytes[key]) + "-byte frame, p50", e50, "us", 1.0);
    row("baseline: echo round trip, p99", e99, "us", 1.0);
    char target[64];
    std::snprintf(target, sizeof target, "p50 <= %.1fx echo: %s", kProducerTarget, verdict(r50 <= kProducerTarget));
    row(what + ", p50", micros(key, 50), "us", r50, withTarget ? target : "");
    row(what + ", p99", micros(key, 99), "us", micros(key, 99) / e99, "(x echo p99)");
    row("  then CLOSE_PRODUCER -> SUCCESS (not in the above), p50", micros(close, 50), "us", micros(close, 50) / e50);
}

void printThroughput() {
    if (!gRates.count("echo") || !gRates.count("send")) return;
    const double echo = gRates["echo"], send = gRates["send"];
    const double mb = static_cast<double>(gSettings.payloadBytes) / 1e6;
    row("baseline: echo, " + std::to_string(gFrameBytes["send"]) + "-byte frames, window " +
            std::to_string(gSettings.window) + ", frames/s",
        echo / 1e3, "k/s", 1.0);
    row("baseline: echo, payload MB/s", echo * mb, "MB/s", 1.0);
    row("SEND -> SEND_RECEIPT, 1 KB payloads, messages/s", send / 1e3, "k/s", send / echo, "no target");
    row("SEND -> SEND_RECEIPT, payload MB/s", send * mb, "MB/s", send / echo);
}

void printStart() {
    if (!hasSamples("start-help") || !hasSamples("start")) return;
    const double h50 = millis("start-help", 50), s50 = millis("start", 50), smax = millis("start", 100);
    char target[64];
    std::snprintf(target, sizeof target, "median < %.0f ms: %s", kStartTargetMs, verdict(s50 < kStartTargetMs));
    row("baseline: fork/exec to `serve --help`'s first line, median", h50, "ms", 1.0);
    row("fork/exec to the `ready:` line, median of " + std::to_string(gSamples["start"].size()), s50, "ms",
        s50 / h50, target);
    row("fork/exec to the `ready:` line, max", smax, "ms", smax / h50);
}

void printSummary() {
    std::printf("\n== cnxsim serve benchmark: loopback TCP; cnxsim serve and the echo server each a child process;\n"
                "   each baseline interleaved with its figure, iteration by iteration\n");
    std::printf("%-62s %14s %10s  %s\n", "figure", "absolute", "x baseline", "target");
    printLatency("create", "PRODUCER -> PRODUCER_SUCCESS (AVRO), same topic", true);
    printLatency("create-new-topic", "PRODUCER -> PRODUCER_SUCCESS (AVRO), a new topic each", false);
    printThroughput();
    printStart();
    std::printf("(every ratio is against the baseline row above it, measured in the same run; for throughput it is\n"
                " the fraction of the echo's rate)\n");
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
        using Kind = cnx::bench::EchoServer::Kind;
        bool own = a == "--echo=blocking" || a == "--echo=asio";
        if (own) gEchoKind = a == "--echo=blocking" ? Kind::blocking : Kind::asio;
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
        {"BM_Serve_ProducerCreate", BM_Serve_ProducerCreate, benchmark::kMicrosecond, gSettings.roundTrips},
        {"BM_Serve_ProducerCreateNewTopic", BM_Serve_ProducerCreateNewTopic, benchmark::kMicrosecond,
         gSettings.roundTrips},
        {"BM_Serve_SendThroughput", BM_Serve_SendThroughput, benchmark::kMillisecond, gSettings.throughputIterations},
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
    std::printf("cnxsim bench_serve: %s, %s echo server\n", CNXSIM_BINARY,
                gEchoKind == cnx::bench::EchoServer::Kind::asio ? "Asio" : "blocking");
    std::printf("%zu round trips (after %zu untimed), %zu x %zu SEND frames of %zu-byte payloads, window %zu, "
                "%zu starts\n",
                gSettings.roundTrips, gSettings.warmUp, gSettings.throughputIterations, gSettings.messages,
                gSettings.payloadBytes, gSettings.window, gSettings.starts);
    registerBenchmarks();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    printSummary();
    benchmark::Shutdown();
    return 0;
}
