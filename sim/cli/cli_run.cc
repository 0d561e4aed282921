#include "sim/cli/cli_commands.h"

#include <charconv>
#include <cstdint>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <set>

#include <spdlog/spdlog.h>

#include "broker_model/compat/avro/avro_quick_parse.h"
#include "broker_model/profile/profile.h"
#include "sim/cli/cli.h"
#include "sim/io/file_write.h"
#include "sim/live/against.h"
#include "sim/parallel/ordered_pool.h"
#include "sim/report/json_report.h"
#include "sim/report/reports.h"
#include "sim/run/expectation.h"
#include "sim/run/runner.h"
#include "sim/run/shard.h"
#include "sim/runtime/duration.h"
#include "sim/runtime/sim_scheduler.h"
#include "sim/accept/accept_outcomes.h"
#include "sim/accept/accept_writer.h"
#include "sim/scenario/did_you_mean.h"

namespace cnx::sim::cli {
namespace {

constexpr std::string_view kRunUsage =
    "usage: cnxsim run [PATH...] [options]\n"
    "\n"
    "Replays scenario files and folders (recursively, *.yaml / *.yml); with no PATH\n"
    "the bundled suite in scenarios/.\n"
    "\n"
    "options:\n"
    "  --tags T[,T...]          only scenarios carrying one of these tags\n"
    "  --exclude-tags T[,T...]  not the scenarios carrying one of these tags\n"
    "  --junit FILE             write JUnit XML\n"
    "  --report FILE            write a Markdown (.md) or HTML (.html) report;\n"
    "                           `--report -` writes the Markdown report to stdout\n"
    "                           (for $GITHUB_STEP_SUMMARY) and the run's own output\n"
    "                           to stderr\n"
    "  --json FILE              write one JSON object per run, one per line\n"
    "                           (doc/reports.md)\n"
    "  -q, --quiet              one line per failure and a one-line summary\n"
    "  -v                       full broker messages (embedded schemas) in failures\n"
    "  --accept                 write observed outcomes into steps without `expect`\n"
    "                           (and into versions a per-version map does not cover)\n"
    "  --accept=all             ... and over the versions whose expectation failed;\n"
    "                           versions that passed keep theirs\n"
    "  --seed N                 seed of the run's one random source (printed at the\n"
    "                           start and in every failure's replay line)\n"
    "  --schedule fifo|random   order in which the broker's ready continuations run\n"
    "                           within a step: first-in first-out (default), or\n"
    "                           chosen at random from --seed (shakes out order\n"
    "                           dependence; the same seed replays the same order)\n"
    "  --schedule [D/]S:CHOICES run the race at step S (of document D) along one\n"
    "                           schedule only, as a race failure's replay line\n"
    "                           prints it; combine with commas (random,3:0.1)\n"
    "  --max-interleavings N    stop an exhaustive race after N schedules and report\n"
    "                           it as not exhaustive (default 100000; --strict fails)\n"
    "  --max-explore-time D     stop an exhaustive race once it has explored for D\n"
    "                           (500ms, 30s; checked after each schedule, so 0s runs\n"
    "                           one): reported as not exhaustive, with how far it\n"
    "                           got (default: no time bound; --strict fails)\n"
    "  --explore-all            explore every interleaving of an exhaustive race, no\n"
    "                           partial-order reduction (to check the reduction)\n"
    "  --version V              run each scenario on release V only (a line, \"2.10\",\n"
    "                           or an exact release, \"2.10.2\"), whether or not its\n"
    "                           broker.version lists it\n"
    "  --shard K/N              run only shard K of N (1 <= K <= N <= 1000): of the\n"
    "                           (scenario, version) runs in file, document and\n"
    "                           version order, the K-th, (K+N)-th, (K+2N)-th, ...\n"
    "                           (doc/ci/sharding.md); --junit and --report cover\n"
    "                           the shard's runs\n"
    "  --shard-by runs|interleavings\n"
    "                           what --shard splits: the runs (default), or, for one\n"
    "                           large exhaustive race, its interleavings (every shard\n"
    "                           runs every scenario; `reachable` is not checked)\n"
    "  --strict                 a step with an outcome (every step but `check`;\n"
    "                           upgrade-broker, restart-broker and unload when they\n"
    "                           reconnect a client) fails without an expectation\n"
    "                           for the version\n"    "                           or when its answer is not modelled\n"
    "  --jobs N                 load and run on N threads (default: one per\n"
    "                           hardware thread; -vv: 1); the output is the same\n"
    "                           for every N, in file, document and version order\n"
    "  -v, -vv                  diagnostics on stderr (info, debug)\n"
    "  --no-fast-paths          take no fast path, only the reference each stands\n"
    "                           for (full Avro parser and resolver, nlohmann,\n"
    "                           yaml-cpp, every command encoded): the same results,\n"
    "                           slower; as CNXSIM_FAST_PATHS=off (bench/README.md)\n"
    "\n"
    "Against a real broker (doc/against.md):\n"
    "  --against pulsar://HOST:PORT --admin http://HOST:PORT\n"
    "                           run each scenario's steps on that broker too (its\n"
    "                           wire and admin API, each scenario in tenants of its\n"
    "                           own) and compare every step three ways: expected,\n"
    "                           real broker, model (of --version, else the release\n"
    "                           the broker names); exit 0 only when every executed\n"
    "                           step agrees. --json FILE writes every verdict;\n"
    "                           --strict fails steps that could not run there\n"
    "  --timeout D              the wait for each answer of the real broker (30s)\n"
    "  --explore N -o, --output DIR\n"
    "                           instead of the scenarios, N seeded random sessions\n"
    "                           (--seed) on the broker and the model; each\n"
    "                           disagreement seen twice is shrunk and written to\n"
    "                           DIR (seen once: listed as unconfirmed)\n"
    "\n"
    "Reports and --accept replace files atomically and never write through a\n"
    "symbolic link, fifo or device (a symlinked scenario is followed to its file\n"
    "by --accept); they refuse a read-only file, root included (exit 2): --junit,\n"
    "--report and --json check their targets before anything runs. --accept\n"
    "cannot be combined with --shard or --version (it rewrites a step from every\n"
    "version it runs on).\n"
    "\n"
    "Limits: only regular files are read; a scenario file is at most 8 MiB and\n"
    "1,000,000 YAML nodes (an alias counts as what it expands to), one scalar at\n"
    "most 1 MiB, nesting at most 256 levels; a schema file at most 16 MiB.\n"
    "A step whose answer meets a known gap of the model (cnxsim profiles --gaps)\n"
    "says `not modelled: #NNNN (...)`; --strict fails it.\n"
    "\n"
    "exit status: 0 all passed (a shard with no run passes), 1 some failed,\n"
    "2 invalid input, including a path or a --tags / --exclude-tags filter that\n"
    "selects no scenario, a bad --shard and an unknown --version\n";

// The longest --max-explore-time: a day (a bound past it is no bound).
constexpr std::chrono::milliseconds kMaxExploreTime = std::chrono::hours(24);

std::vector<std::string> splitTags(const std::string& text) {
    std::vector<std::string> tags;
    std::string cur;
    for (char c : text) {
        if (c == ',') {
            if (!cur.empty()) tags.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!cur.empty()) tags.push_back(cur);
    return tags;
}

std::string joinedTags(const std::vector<std::string>& tags) {
    std::string out;
    for (const auto& t : tags) out += (out.empty() ? "" : ",") + t;
    return out;
}

// "--tags 'idle-topik': no loaded scenario carries it; did you mean 'idle-topic'?"
// for each filter tag that no loaded scenario carries and that is close to one
// some scenario does (closestMatch, as for misspelt keys): a misspelling, which
// would otherwise select nothing or exclude nothing without a word.
std::vector<std::string> misspeltTags(const Loaded& loaded, const RunOptions& options) {
    std::set<std::string> carried;
    for (const auto& entry : loaded.scenarios) carried.insert(entry.second.tags.begin(), entry.second.tags.end());
    std::vector<std::string> known(carried.begin(), carried.end());
    std::vector<std::string> out;
    const std::pair<const char*, const std::vector<std::string>*> filters[] = {{"--tags", &options.tags},
                                                                               {"--exclude-tags", &options.excludeTags}};
    for (const auto& [name, tags] : filters) {
        for (const auto& tag : *tags) {
            if (carried.count(tag)) continue;
            if (auto match = closestMatch(tag, known))
                out.push_back(std::string(name) + " '" + tag + "': no loaded scenario carries it; did you mean '" +
                              *match + "'?");
        }
    }
    return out;
}

// The scenarios the tag filters select. A filter that leaves nothing is an
// input error naming it (a CI run must not pass having checked nothing), with
// the misspelt tags that explain it.
std::optional<std::string> selectScenarios(const Loaded& loaded, const RunOptions& options,
                                           std::vector<const std::pair<std::string, Scenario>*>& out) {
    if (loaded.scenarios.empty()) return "no scenario in the given paths; nothing would be checked";
    std::size_t tagged = 0;
    for (const auto& entry : loaded.scenarios) {
        if (!selectedByTags(entry.second, options.tags)) continue;
        ++tagged;
        if (!excludedByTags(entry.second, options.excludeTags)) out.push_back(&entry);
    }
    std::string of = " of the " + std::to_string(loaded.scenarios.size()) + " loaded";
    std::string hints;
    for (const auto& h : misspeltTags(loaded, options)) hints += "\n  " + h;
    if (tagged == 0) return "--tags " + joinedTags(options.tags) + " selected no scenario" + of + hints;
    if (out.empty())
        return "--exclude-tags " + joinedTags(options.excludeTags) + " left no scenario" +
               (options.tags.empty() ? of : " of the " + std::to_string(tagged) + " --tags selected") + hints;
    return std::nullopt;
}

int writeAccepted(const std::vector<ScenarioResult>& results, AcceptMode mode, std::ostream& out, std::ostream& err) {
    int status = kExitPassed;
    for (auto& [file, edits] : acceptEdits(results, mode)) {
        if (auto e = applyAcceptEdits(file, edits)) {
            err << "cnxsim run --accept: " << *e << "\n";
            status = kExitInvalid;
        } else {
            out << "accepted " << edits.size() << " outcome(s) into " << file << "\n";
        }
    }
    return status;
}

// --shard and --version, checked before anything is loaded.
std::optional<std::string> parseSelection(const Args& args, std::optional<Shard>& shard,
                                          std::optional<std::string>& onlyVersion) {
    if (auto it = args.options.find("--shard"); it != args.options.end()) {
        std::string error;
        shard = parseShard(it->second, &error);
        if (!shard) return error;
    }
    if (auto it = args.options.find("--version"); it != args.options.end()) {
        std::string error;
        if (!profileFor(it->second, &error)) return "--version: " + error;
        onlyVersion = it->second;
    }
    bool accept = args.options.count("--accept") || args.options.count("--accept=all");
    if (accept && (shard || onlyVersion))
        return std::string("--accept cannot be combined with ") + (shard ? "--shard" : "--version") +
               ": it rewrites a step from every version the scenario runs on";
    return std::nullopt;
}

// The --junit, --report and --json targets, each checked as its writer will
// check it (sim/io/file_write.h), before anything runs: a run must not end
// unable to write its report, nor replace a file its owner made read-only.
std::optional<std::string> checkReportTargets(const Args& args) {
    for (std::string_view name : {"--junit", "--report", "--json"}) {
        auto it = args.options.find(std::string(name));
        if (it == args.options.end() || (name == "--report" && it->second == "-")) continue;
        if (auto e = checkWriteTarget(it->second)) return std::string(name) + ": " + *e;
    }
    return std::nullopt;
}

// The 1-based document of each loaded scenario in its file when the file has
// several, else 0; indexed as loaded.scenarios (one pass: a file's documents
// are adjacent there).
std::vector<int> documentsOf(const Loaded& loaded) {
    std::vector<int> documents(loaded.scenarios.size(), 0);
    for (std::size_t first = 0; first < loaded.scenarios.size();) {
        std::size_t end = first;
        while (end < loaded.scenarios.size() && loaded.scenarios[end].first == loaded.scenarios[first].first) ++end;
        if (end - first > 1)
            for (std::size_t i = first; i < end; ++i) documents[i] = static_cast<int>(i - first + 1);
        first = end;
    }
    return documents;
}

// `run --against`: the options that only make sense there, and those that do not.
bool wantsAgainst(const Args& args) {
    for (const char* o : {"--against", "--admin", "--timeout", "--explore", "--output"})
        if (args.options.count(o)) return true;
    return false;
}

int commandRunAgainst(const Args& args, const RunOptions& options,
                      const std::vector<const std::pair<std::string, Scenario>*>& selected, std::ostream& out,
                      std::ostream& err) {
    auto fail = [&](const std::string& why) {
        err << "cnxsim run: " << why << "\n";
        return kExitInvalid;
    };
    if (!args.options.count("--against")) return fail("--admin, --timeout, --explore and -o need --against pulsar://HOST:PORT");
    if (!args.options.count("--admin")) return fail("--against needs --admin http://HOST:PORT (the broker's admin API)");
    for (const char* o : {"--accept", "--accept=all", "--shard", "--shard-by", "--junit", "--report", "--schedule",
                          "--max-interleavings", "--max-explore-time", "--explore-all"})
        if (args.options.count(o)) return fail(std::string(o) + " cannot be combined with --against");
    live::AgainstOptions a;
    auto broker = live::parseEndpoint(args.options.at("--against"), "pulsar");
    if (auto* why = std::get_if<std::string>(&broker)) return fail("--against: " + *why);
    auto admin = live::parseEndpoint(args.options.at("--admin"), "http");
    if (auto* why = std::get_if<std::string>(&admin)) return fail("--admin: " + *why);
    a.target.broker = std::get<live::Endpoint>(broker);
    a.target.admin = std::get<live::Endpoint>(admin);
    if (auto it = args.options.find("--timeout"); it != args.options.end()) {
        auto d = parseDuration(it->second, std::chrono::milliseconds(10 * 60 * 1000));
        if (!d || d->count() <= 0) return fail("--timeout expects a duration such as 500ms or 30s, at most 10 minutes, got '" + it->second + "'");
        a.target.timeout = *d;
    }
    if (auto it = args.options.find("--version"); it != args.options.end()) a.version = it->second;
    a.strict = options.strict;
    a.verbose = args.verbosity > 0;
    if (auto it = args.options.find("--json"); it != args.options.end()) a.json = it->second;
    a.seed = options.seed;
    if (auto it = args.options.find("--explore"); it != args.options.end()) {
        std::uint64_t n = 0;
        const auto& t = it->second;
        auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
        if (ec != std::errc() || p != t.data() + t.size() || n == 0 || n > 1000000)
            return fail("--explore expects a number of sessions from 1 to 1000000, got '" + t + "'");
        a.explore = n;
        if (!args.options.count("--output")) return fail("--explore needs -o DIR (where disagreements are written)");
        a.outDir = args.options.at("--output");
    } else if (args.options.count("--output")) {
        return fail("-o DIR goes with --explore N");
    }
    return live::runAgainst(selected, options, a, out, err);
}

// --seed, --schedule, --max-interleavings and --max-explore-time: the order
// in which each run takes the broker's concurrent work, and how far an
// exhaustive race is explored.
std::optional<std::string> parseScheduling(const Args& args, RunOptions& options) {
    if (auto it = args.options.find("--seed"); it != args.options.end()) {
        const auto& s = it->second;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), options.seed);
        if (ec != std::errc() || p != s.data() + s.size()) return "--seed expects a non-negative integer, got '" + s + "'";
    }
    if (auto it = args.options.find("--schedule"); it != args.options.end()) {
        if (auto e = parseScheduleOption(it->second, options)) return e;
    }
    if (auto it = args.options.find("--max-interleavings"); it != args.options.end()) {
        const auto& s = it->second;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), options.maxInterleavings);
        if (ec != std::errc() || p != s.data() + s.size() || options.maxInterleavings == 0)
            return "--max-interleavings expects a positive integer, got '" + s + "'";
    }
    if (auto it = args.options.find("--max-explore-time"); it != args.options.end()) {
        options.maxExploreTime = parseDuration(it->second, kMaxExploreTime);
        if (!options.maxExploreTime)
            return "--max-explore-time expects a duration such as 500ms or 30s, at most 24 hours, got '" + it->second +
                   "'";
    }
    return std::nullopt;
}

// --tags and --exclude-tags, each with at least one tag.
std::optional<std::string> parseTagFilters(const Args& args, RunOptions& options) {
    if (auto it = args.options.find("--tags"); it != args.options.end()) options.tags = splitTags(it->second);
    if (auto it = args.options.find("--exclude-tags"); it != args.options.end())
        options.excludeTags = splitTags(it->second);
    for (const char* name : {"--tags", "--exclude-tags"}) {
        auto it = args.options.find(name);
        if (it != args.options.end() && splitTags(it->second).empty())
            return std::string(name) + " needs at least one tag, got '" + it->second + "'";
    }
    return std::nullopt;
}

// --jobs: the threads the files are loaded and the runs run on.
std::optional<std::string> parseJobs(const Args& args, unsigned& jobs) {
    // -vv's debug lines come from the runs themselves: one thread keeps them in order.
    jobs = args.verbosity >= 2 ? 1 : defaultJobs();
    if (auto it = args.options.find("--jobs"); it != args.options.end()) {
        const auto& s = it->second;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), jobs);
        if (ec != std::errc() || p != s.data() + s.size() || jobs == 0 || jobs > 256)
            return "--jobs expects an integer from 1 to 256, got '" + s + "'";
    }
    return std::nullopt;
}

// --report's kind (by its extension), then every report's target.
std::optional<std::string> checkReportOptions(const Args& args) {
    if (auto it = args.options.find("--report"); it != args.options.end()) {
        auto ext = std::filesystem::path(it->second).extension().string();
        if (it->second != "-" && ext != ".md" && ext != ".markdown" && ext != ".html" && ext != ".htm")
            return "--report takes a .md or .html file, got '" + it->second + "'";
    }
    return checkReportTargets(args);
}

// Every option of `run` checked before anything is loaded, in the order their
// errors are reported.
std::optional<std::string> parseRunOptions(const Args& args, RunOptions& options, std::optional<Shard>& shard,
                                           std::optional<std::string>& onlyVersion, unsigned& jobs) {
    if (auto e = parseSelection(args, shard, onlyVersion)) return e;
    if (auto e = parseScheduling(args, options)) return e;
    if (auto e = parseTagFilters(args, options)) return e;
    if (auto e = parseJobs(args, jobs)) return e;
    options.strict = args.options.count("--strict") > 0;
    options.reduce = args.options.count("--explore-all") == 0;
    if (auto e = checkReportOptions(args)) return e;
    // The Markdown and HTML reports print every step of a failed scenario; the console and JUnit its failed steps.
    if (args.options.count("--report")) options.traces = RunOptions::Traces::failedScenarios;
    return std::nullopt;
}

// --shard-by runs|interleavings (with --shard): a shard of the runs, or of
// every exhaustive race's interleavings.
std::optional<std::string> parseShardBy(const Args& args, const std::optional<Shard>& shard, bool& byInterleavings) {
    if (auto it = args.options.find("--shard-by"); it != args.options.end()) {
        if (it->second != "runs" && it->second != "interleavings")
            return "--shard-by takes runs or interleavings, got '" + it->second + "'";
        if (!shard) return std::string("--shard-by needs --shard K/N");
        byInterleavings = it->second == "interleavings";
    }
    return std::nullopt;
}

// Where a run's own lines go (stderr when `--report -` owns stdout) and how
// much of them.
struct RunConsole {
    std::ostream& console;
    bool quiet = false;
    bool verbose = false;
};

struct RunTally {
    std::vector<ScenarioResult> results;
    int passed = 0, failed = 0;
};

// The runs go on `jobs` threads; each result is printed in run order, as on one thread.
RunTally runAndPrint(const std::vector<PlannedRun>& runs, const Loaded& loaded, const RunOptions& options,
                     unsigned jobs, const std::optional<std::string>& onlyVersion, const RunConsole& c) {
    RunTally tally;
    auto& console = c.console;
    const auto documents = documentsOf(loaded);
    std::vector<TopicNameCache> topicNames(std::max(1u, jobs));  // a worker's own, as loadFiles' imports
    auto runOne = [&](std::size_t i, unsigned worker) {
        const auto& [file, scenario] = *runs[i].entry;
        RunOptions own = options;
        own.topicNames = &topicNames[worker];
        own.document = documents[static_cast<std::size_t>(runs[i].entry - loaded.scenarios.data())];
        return runScenario(scenario, file, runs[i].version, own);
    };
    forEachOrdered(runs.size(), jobs, Deal::nextFree, runOne, [&](std::size_t, ScenarioResult r) {
        const auto& file = r.file;
        if (c.quiet) {
            if (!r.passed) console << "FAIL  " << file << ": " << r.scenario->name << " [" << r.version << "]: " << shortReason(r) << "\n";
        } else {
            console << consoleLine(r) << "\n";
        }
        if (!r.passed && !c.quiet)
            console << failureBlock(r, c.verbose) << "  (replay: cnxsim run " << file
                << (onlyVersion ? " --version " + *onlyVersion : "")
                << (options.schedule == ScheduleMode::random ? " --schedule random" : "") << " --seed "
                << options.seed << ")\n";
        (r.passed ? tally.passed : tally.failed)++;
        tally.results.push_back(std::move(r));
    });
    return tally;
}

// --junit, --json and --report (`--report -`: the Markdown report on `out`),
// written once every run is done. Returns `status`, or kExitInvalid when a
// report could not be written.
int writeRunReports(const Args& args, const std::vector<ScenarioResult>& results, std::uint64_t seed,
                    bool reportToStdout, int status, std::ostream& out, std::ostream& err) {
    if (auto it = args.options.find("--junit"); it != args.options.end()) {
        if (auto e = writeJUnit(it->second, results, seed)) {
            err << "cnxsim run: " << *e << "\n";
            status = kExitInvalid;
        }
    }
    if (auto it = args.options.find("--json"); it != args.options.end()) {
        if (auto e = writeJsonLines(it->second, results, seed)) {
            err << "cnxsim run: " << *e << "\n";
            status = kExitInvalid;
        }
    }
    if (reportToStdout) {
        out << markdownReport(results, seed);
    } else if (auto it = args.options.find("--report"); it != args.options.end()) {
        if (auto e = writeReport(it->second, results, seed)) {
            err << "cnxsim run: " << *e << "\n";
            status = kExitInvalid;
        }
    }
    return status;
}

// The last lines: the shard run (if any) and the counts; with --quiet one line with the seed.
void printSummary(const RunConsole& c, const RunTally& tally, std::uint64_t seed, const std::optional<Shard>& shard,
                  bool byInterleavings, std::size_t runs, std::size_t planned) {
    auto& console = c.console;
    if (c.quiet) {
        console << tally.passed << " passed, " << tally.failed << " failed (seed " << seed << ")\n";
        return;
    }
    if (shard && byInterleavings)
        console << "shard " << to_string(*shard) << " of every exhaustive race's interleavings: " << runs << " runs\n";
    else if (shard)
        console << "shard " << to_string(*shard) << ": " << runs << " of " << planned << " runs"
            << (runs == 0 ? " (nothing to run in this shard)" : "") << "\n";
    console << tally.passed << " passed, " << tally.failed << " failed\n";
}

// Where a user sees that a fast path disagreed with its reference (a cnxsim
// bug that the run survived with the reference's answer): a warning whenever
// it happened, and with -v the switch and the count either way.
void reportFastPaths(FastPaths fastPaths, std::ostream& err) {
    const std::uint64_t disagreed = compat::avro::quickParseDisagreements();
    spdlog::info("fast paths: {} (quick Avro parses the full parser disagreed with: {})", to_string_view(fastPaths), disagreed);
    if (disagreed > 0)
        err << "cnxsim run: warning: " << disagreed
            << " quick Avro parse(s) disagreed with the full parser (a cnxsim bug: the full parser's nodes were used;"
               " CNXSIM_FAST_PATHS=off or --no-fast-paths takes the full parser only)\n";
}

}  // namespace

std::string_view runUsage() { return kRunUsage; }

int commandRun(const Args& args, std::ostream& out, std::ostream& err, FastPaths environmentFastPaths) {
    auto invalid = [&](const std::string& why) {
        err << "cnxsim run: " << why << "\n";
        return kExitInvalid;
    };
    RunOptions options;
    options.fastPaths = fastPathsOf(args, environmentFastPaths);
    std::optional<Shard> shard;
    std::optional<std::string> onlyVersion;
    unsigned jobs = 1;
    if (auto e = parseRunOptions(args, options, shard, onlyVersion, jobs)) return invalid(*e);
    bool accept = args.options.count("--accept") || args.options.count("--accept=all");
    bool acceptAll = args.options.count("--accept=all") > 0;
    // `--report -`: the Markdown report owns stdout; the run's own lines go to stderr.
    bool reportToStdout = args.options.count("--report") && args.options.at("--report") == "-";
    const RunConsole c{reportToStdout ? err : out, args.options.count("--quiet") > 0, args.verbosity > 0};
    auto paths = args.positional.empty() ? defaultScenarioPaths() : args.positional;
    auto loaded = loadPaths(paths, options.fastPaths, jobs);
    if (!loaded.errors.empty()) return reportErrors(loaded.errors, err);
    std::vector<const std::pair<std::string, Scenario>*> selected;
    if (auto e = selectScenarios(loaded, options, selected)) return invalid(*e);
    // The run goes on (other tags selected something); the likely typo is said.
    for (const auto& h : misspeltTags(loaded, options)) err << "cnxsim run: warning: " << h << "\n";
    if (wantsAgainst(args)) return commandRunAgainst(args, options, selected, out, err);
    if (!c.quiet) c.console << "cnxsim " << CNXSIM_VERSION << ": seed " << options.seed << "\n";
    auto plan = planRuns(selected, onlyVersion);
    bool byInterleavings = false;
    if (auto e = parseShardBy(args, shard, byInterleavings)) return invalid(*e);
    if (shard && byInterleavings) {
        options.raceShardIndex = shard->index;
        options.raceShardCount = shard->count;
    }
    auto runs = shard && !byInterleavings ? selectShard(plan, *shard) : plan;
    auto tally = runAndPrint(runs, loaded, options, jobs, onlyVersion, c);
    reportFastPaths(options.fastPaths, err);
    int status = writeRunReports(args, tally.results, options.seed, reportToStdout,
                                 tally.failed ? kExitFailed : kExitPassed, out, err);
    if (accept &&
        writeAccepted(tally.results, acceptAll ? AcceptMode::mismatches : AcceptMode::missing, c.console, err) != 0)
        status = kExitInvalid;
    printSummary(c, tally, options.seed, shard, byInterleavings, runs.size(), plan.size());
    return status;
}

}  // namespace cnx::sim::cli
