#include "sim/cli/cli.h"

#include <charconv>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "broker_model/profile/profile.h"
#include "sim/scenario/accept_outcomes.h"
#include "sim/scenario/accept_writer.h"
#include "sim/cli/cli_args.h"
#include "sim/cli/compat_command.h"
#include "sim/cli/version.h"
#include "sim/scenario/did_you_mean.h"
#include "sim/run/expectation.h"
#include "sim/scenario/load/json_schema.h"
#include "sim/scenario/loader.h"
#include "sim/parallel/ordered_pool.h"
#include "sim/io/file_write.h"
#include "sim/report/json_report.h"
#include "sim/report/reports.h"
#include "sim/run/runner.h"
#include "sim/run/shard.h"
#include "sim/runtime/duration.h"
#include "sim/runtime/sim_scheduler.h"
#include "sim/serve/serve_command.h"
#include "sim/record/record_command.h"
#include "sim/live/against.h"

namespace cnx::sim {
namespace {

constexpr std::string_view kUsage =
    "usage: cnxsim <command> [options]\n"
    "\n"
    "commands:\n"
    "  run [PATH...]      replay scenarios (default: the bundled scenarios/)\n"
    "  explain FILE       print the decision trace of every step of FILE\n"
    "  lint [PATH...]     check scenario files without running them (default: the bundled suite)\n"
    "  profiles           list the broker behaviour profiles\n"
    "  compat             check a schema against a schema history, as the broker would\n"
    "  serve              serve the model to real Pulsar clients on a TCP port\n"
    "  record             a proxy in front of a real broker that records the session\n"
    "  schema             print the JSON Schema of the scenario format (doc/scenario.schema.json)\n"
    "  completion bash    print a bash completion script\n"
    "  help [COMMAND]     this text, or a command's options\n"
    "\n"
    "Every command takes -h/--help (as `cnxsim help COMMAND`); run, explain, lint,\n"
    "profiles, compat, serve and record also -v/-vv/--verbose (diagnostics on\n"
    "stderr: info, debug).\n"
    "\n"
    "exit status: 0 all passed, 1 some failed, 2 invalid input\n";

constexpr std::string_view kSchemaUsage =
    "usage: cnxsim schema\n"
    "\n"
    "Prints the JSON Schema (draft 2020-12) of the scenario format, generated from\n"
    "the loader's own tables; doc/scenario.schema.json is this output. Editors\n"
    "that speak the yaml-language-server modeline use it (doc/scenario-format.md,\n"
    "\"Editor support\").\n";

constexpr std::string_view kCompletionUsage =
    "usage: cnxsim completion bash\n"
    "\n"
    "Prints a bash completion script: commands, their options and the values\n"
    "known for them (--schedule fifo|random, --shard-by runs|interleavings),\n"
    "files for paths. Install it with\n"
    "  cnxsim completion bash > ~/.local/share/bash-completion/completions/cnxsim\n"
    "or, for the current shell, `source <(cnxsim completion bash)`.\n";

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

constexpr std::string_view kExplainUsage =
    "usage: cnxsim explain FILE [--version V] [--step ID] [-v]\n"
    "\n"
    "Runs every scenario of FILE and prints, for each step, the observed outcome,\n"
    "the expectation and the model's decision trace with reference sections.\n"
    "A refusal shows the broker's message as one line and the checker's problem\n"
    "paths; -v prints the full message with the schemas it embeds.\n"
    "\n"
    "options:\n"
    "  --version V   on release V only (a line, \"2.10\", or an exact release,\n"
    "                \"2.10.2\"), as `run --version`: whether or not its\n"
    "                broker.version lists it\n"
    "  --step ID     only that step: its `id`, or its 1-based number among the\n"
    "                steps of its document (\"3\" or \"step 3\"), as the trace labels\n"
    "                it; a document without that step is left out\n"
    "\n"
    "exit status: 0 all passed, 1 some failed, 2 invalid input (an unknown\n"
    "--version or --step)\n";

constexpr std::string_view kLintUsage =
    "usage: cnxsim lint [PATH...]\n"
    "\n"
    "Loads scenario files and folders and reports every problem as\n"
    "file:line:column: message, without running anything; with no PATH the\n"
    "bundled suite, as run finds it. Exit 2 on any problem.\n";

constexpr std::string_view kProfilesUsage =
    "usage: cnxsim profiles [VERSION] [--diff A B]\n"
    "       cnxsim profiles --gaps [VERSION]\n"
    "\n"
    "Lists the broker behaviour profiles (one per release line); with VERSION,\n"
    "every switch of that release and the PR that set it; with --diff A B, the\n"
    "switches that differ between two releases and the PR behind each.\n"
    "\n"
    "--gaps lists the known changes of real Pulsar that the model does not\n"
    "implement (with VERSION: those affecting that release), the paths each\n"
    "touches and the releases it affects. A step whose decision meets one says\n"
    "`not modelled: #NNNN (...)` beside its outcome; `run --strict` fails it.\n";

// The longest --max-explore-time: a day (a bound past it is no bound).
constexpr std::chrono::milliseconds kMaxExploreTime = std::chrono::hours(24);

void setVerbosity(int v) {
    static auto logger = [] {
        auto l = spdlog::stderr_color_mt("cnxsim");
        spdlog::set_default_logger(l);
        return l;
    }();
    (void)logger;
    spdlog::set_level(v >= 2 ? spdlog::level::debug : v == 1 ? spdlog::level::info : spdlog::level::warn);
}

struct Loaded {
    std::vector<std::pair<std::string, Scenario>> scenarios;  // (file, scenario)
    std::vector<LoadError> errors;
    std::vector<std::pair<std::string, std::size_t>> schemasFiles;  // (file, definitions): no scenario
};

Loaded loadFiles(const std::vector<std::filesystem::path>& files, unsigned jobs) {
    Loaded loaded;
    // Each imported schemas file is read once per thread: the cache is the
    // thread's own, and which files a thread loads is fixed (Deal::striped).
    std::vector<ImportCache> imports(std::max(1u, jobs));
    forEachOrdered(
        files.size(), jobs, Deal::striped,
        [&](std::size_t i, unsigned worker) {
            spdlog::info("loading {}", files[i].string());
            return loadScenarioFile(files[i], imports[worker]);
        },
        [&](std::size_t i, LoadResult r) {
            if (r.schemasFile) loaded.schemasFiles.emplace_back(files[i].string(), r.schemaCount);
            for (auto& e : r.errors) loaded.errors.push_back(std::move(e));
            for (auto& s : r.scenarios) loaded.scenarios.emplace_back(files[i].string(), std::move(s));
        });
    return loaded;
}

// The files are loaded on `jobs` threads and taken in file order. A schemas
// file loaded directly and also imported is reported under whichever spelling
// of its path read it first; that order is the files' on one thread only, so
// when anything failed to load the files are loaded again on one thread and
// the errors are exactly those of a one-thread run.
Loaded loadPaths(const std::vector<std::string>& paths, unsigned jobs = defaultJobs()) {
    std::vector<LoadError> collectErrors;
    auto files = collectScenarioFiles(paths, collectErrors);
    auto loaded = loadFiles(files, jobs);
    if (jobs > 1 && !loaded.errors.empty()) loaded = loadFiles(files, 1);
    loaded.errors.insert(loaded.errors.begin(), collectErrors.begin(), collectErrors.end());
    return loaded;
}

int reportErrors(const std::vector<LoadError>& errors, std::ostream& err) {
    for (const auto& e : errors) err << e.format() << "\n";
    err << errors.size() << " problem(s) in the input; nothing was run\n";
    return kExitInvalid;
}

std::vector<std::string> defaultScenarioPaths() {
    if (std::filesystem::is_directory("scenarios")) return {"scenarios"};
    if (auto installed = installedScenarios()) return {*installed};  // PREFIX/share/cnxsim/scenarios
    return {CNXSIM_DEFAULT_SCENARIOS};
}

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

int commandRun(const Args& args, std::ostream& out, std::ostream& err) {
    RunOptions options;
    std::optional<Shard> shard;
    std::optional<std::string> onlyVersion;
    if (auto e = parseSelection(args, shard, onlyVersion)) {
        err << "cnxsim run: " << *e << "\n";
        return kExitInvalid;
    }
    if (auto it = args.options.find("--seed"); it != args.options.end()) {
        const auto& s = it->second;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), options.seed);
        if (ec != std::errc() || p != s.data() + s.size()) {
            err << "cnxsim run: --seed expects a non-negative integer, got '" << s << "'\n";
            return kExitInvalid;
        }
    }
    if (auto it = args.options.find("--schedule"); it != args.options.end()) {
        if (auto e = parseScheduleOption(it->second, options)) {
            err << "cnxsim run: " << *e << "\n";
            return kExitInvalid;
        }
    }
    if (auto it = args.options.find("--max-interleavings"); it != args.options.end()) {
        const auto& s = it->second;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), options.maxInterleavings);
        if (ec != std::errc() || p != s.data() + s.size() || options.maxInterleavings == 0) {
            err << "cnxsim run: --max-interleavings expects a positive integer, got '" << s << "'\n";
            return kExitInvalid;
        }
    }
    if (auto it = args.options.find("--max-explore-time"); it != args.options.end()) {
        options.maxExploreTime = parseDuration(it->second, kMaxExploreTime);
        if (!options.maxExploreTime) {
            err << "cnxsim run: --max-explore-time expects a duration such as 500ms or 30s, at most 24 hours, got '"
                << it->second << "'\n";
            return kExitInvalid;
        }
    }
    if (auto it = args.options.find("--tags"); it != args.options.end()) options.tags = splitTags(it->second);
    if (auto it = args.options.find("--exclude-tags"); it != args.options.end())
        options.excludeTags = splitTags(it->second);
    for (const char* name : {"--tags", "--exclude-tags"}) {
        auto it = args.options.find(name);
        if (it != args.options.end() && splitTags(it->second).empty()) {
            err << "cnxsim run: " << name << " needs at least one tag, got '" << it->second << "'\n";
            return kExitInvalid;
        }
    }
    // -vv's debug lines come from the runs themselves: one thread keeps them in order.
    unsigned jobs = args.verbosity >= 2 ? 1 : defaultJobs();
    if (auto it = args.options.find("--jobs"); it != args.options.end()) {
        const auto& s = it->second;
        auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), jobs);
        if (ec != std::errc() || p != s.data() + s.size() || jobs == 0 || jobs > 256) {
            err << "cnxsim run: --jobs expects an integer from 1 to 256, got '" << s << "'\n";
            return kExitInvalid;
        }
    }
    options.strict = args.options.count("--strict") > 0;
    options.reduce = args.options.count("--explore-all") == 0;
    bool accept = args.options.count("--accept") || args.options.count("--accept=all");
    bool acceptAll = args.options.count("--accept=all") > 0;
    if (auto it = args.options.find("--report"); it != args.options.end()) {
        auto ext = std::filesystem::path(it->second).extension().string();
        if (it->second != "-" && ext != ".md" && ext != ".markdown" && ext != ".html" && ext != ".htm") {
            err << "cnxsim run: --report takes a .md or .html file, got '" << it->second << "'\n";
            return kExitInvalid;
        }
    }
    if (auto e = checkReportTargets(args)) {
        err << "cnxsim run: " << *e << "\n";
        return kExitInvalid;
    }
    // `--report -`: the Markdown report owns stdout; the run's own lines go to stderr.
    bool reportToStdout = args.options.count("--report") && args.options.at("--report") == "-";
    // The Markdown and HTML reports print every step of a failed scenario; the console and JUnit its failed steps.
    if (args.options.count("--report")) options.traces = RunOptions::Traces::failedScenarios;
    bool quiet = args.options.count("--quiet") > 0;
    bool verbose = args.verbosity > 0;
    std::ostream& console = reportToStdout ? err : out;
    auto paths = args.positional.empty() ? defaultScenarioPaths() : args.positional;
    auto loaded = loadPaths(paths, jobs);
    if (!loaded.errors.empty()) return reportErrors(loaded.errors, err);
    std::vector<const std::pair<std::string, Scenario>*> selected;
    if (auto e = selectScenarios(loaded, options, selected)) {
        err << "cnxsim run: " << *e << "\n";
        return kExitInvalid;
    }
    // The run goes on (other tags selected something); the likely typo is said.
    for (const auto& h : misspeltTags(loaded, options)) err << "cnxsim run: warning: " << h << "\n";
    if (wantsAgainst(args)) return commandRunAgainst(args, options, selected, out, err);
    if (!quiet) console << "cnxsim " << CNXSIM_VERSION << ": seed " << options.seed << "\n";
    auto plan = planRuns(selected, onlyVersion);
    bool byInterleavings = false;
    if (auto it = args.options.find("--shard-by"); it != args.options.end()) {
        if (it->second != "runs" && it->second != "interleavings") {
            err << "cnxsim run: --shard-by takes runs or interleavings, got '" << it->second << "'\n";
            return kExitInvalid;
        }
        if (!shard) {
            err << "cnxsim run: --shard-by needs --shard K/N\n";
            return kExitInvalid;
        }
        byInterleavings = it->second == "interleavings";
    }
    if (shard && byInterleavings) {
        options.raceShardIndex = shard->index;
        options.raceShardCount = shard->count;
    }
    auto runs = shard && !byInterleavings ? selectShard(plan, *shard) : plan;
    std::vector<ScenarioResult> results;
    int passed = 0, failed = 0;
    // The runs go on `jobs` threads; each result is printed in run order, as on one thread.
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
        if (quiet) {
            if (!r.passed) console << "FAIL  " << file << ": " << r.scenario->name << " [" << r.version << "]: " << shortReason(r) << "\n";
        } else {
            console << consoleLine(r) << "\n";
        }
        if (!r.passed && !quiet)
            console << failureBlock(r, verbose) << "  (replay: cnxsim run " << file
                << (onlyVersion ? " --version " + *onlyVersion : "")
                << (options.schedule == ScheduleMode::random ? " --schedule random" : "") << " --seed "
                << options.seed << ")\n";
        (r.passed ? passed : failed)++;
        results.push_back(std::move(r));
    });
    int status = failed ? kExitFailed : kExitPassed;
    if (auto it = args.options.find("--junit"); it != args.options.end()) {
        if (auto e = writeJUnit(it->second, results, options.seed)) {
            err << "cnxsim run: " << *e << "\n";
            status = kExitInvalid;
        }
    }
    if (auto it = args.options.find("--json"); it != args.options.end()) {
        if (auto e = writeJsonLines(it->second, results, options.seed)) {
            err << "cnxsim run: " << *e << "\n";
            status = kExitInvalid;
        }
    }
    if (reportToStdout) {
        out << markdownReport(results, options.seed);
    } else if (auto it = args.options.find("--report"); it != args.options.end()) {
        if (auto e = writeReport(it->second, results, options.seed)) {
            err << "cnxsim run: " << *e << "\n";
            status = kExitInvalid;
        }
    }
    if (accept && writeAccepted(results, acceptAll ? AcceptMode::mismatches : AcceptMode::missing, console, err) != 0)
        status = kExitInvalid;
    if (quiet) {
        console << passed << " passed, " << failed << " failed (seed " << options.seed << ")\n";
        return status;
    }
    if (shard && byInterleavings)
        console << "shard " << to_string(*shard) << " of every exhaustive race's interleavings: " << runs.size() << " runs\n";
    else if (shard)
        console << "shard " << to_string(*shard) << ": " << runs.size() << " of " << plan.size() << " runs"
            << (runs.empty() ? " (nothing to run in this shard)" : "") << "\n";
    console << passed << " passed, " << failed << " failed\n";
    return status;
}

// `explain --step ID`: the 0-based index of the step of `scenario` that ID names
// (its `id`, or its number "3" / "step 3"), if it has one.
std::optional<std::size_t> stepNamed(const Scenario& scenario, const std::string& id) {
    for (std::size_t i = 0; i < scenario.steps.size(); ++i)
        if (!scenario.steps[i].id.empty() && scenario.steps[i].id == id) return i;
    std::string number = id.starts_with("step ") ? id.substr(5) : id;
    std::size_t n = 0;
    auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), n);
    if (ec == std::errc() && p == number.data() + number.size() && n >= 1 && n <= scenario.steps.size()) return n - 1;
    return std::nullopt;
}

int commandExplain(const Args& args, std::ostream& out, std::ostream& err) {
    if (args.positional.size() != 1) {
        err << "cnxsim explain: expected exactly one FILE\n" << kExplainUsage;
        return kExitInvalid;
    }
    std::optional<std::string> onlyVersion;
    if (auto it = args.options.find("--version"); it != args.options.end()) {
        std::string error;
        if (!profileFor(it->second, &error)) {
            err << "cnxsim explain: --version: " << error << "\n";
            return kExitInvalid;
        }
        onlyVersion = it->second;
    }
    auto loaded = loadPaths(args.positional);
    if (!loaded.errors.empty()) return reportErrors(loaded.errors, err);
    for (const auto& [file, count] : loaded.schemasFiles)
        out << file << ": a schemas file (" << count << " schema definition(s)), nothing to explain\n";
    auto stepIt = args.options.find("--step");
    if (stepIt != args.options.end()) {
        bool found = false;
        std::vector<std::string> ids;
        for (const auto& entry : loaded.scenarios) {
            found = found || stepNamed(entry.second, stepIt->second).has_value();
            for (const auto& step : entry.second.steps)
                if (!step.id.empty()) ids.push_back(step.id);
        }
        if (!found) {
            auto hint = closestMatch(stepIt->second, ids);
            err << "cnxsim explain: --step: no step '" << stepIt->second << "' in " << args.positional[0]
                << (hint ? " (did you mean '" + *hint + "'?)" : "") << "; a step is named by its id or its number\n";
            return kExitInvalid;
        }
    }
    int failed = 0;
    for (const auto& [file, scenario] : loaded.scenarios) {
        std::optional<std::size_t> only;
        if (stepIt != args.options.end()) {
            only = stepNamed(scenario, stepIt->second);
            if (!only) continue;
        }
        auto versions = onlyVersion ? std::vector<std::string>{*onlyVersion} : versionsOf(scenario);
        for (const auto& version : versions) {
            RunOptions options;
            options.traces = RunOptions::Traces::always;  // every step's trace is printed
            auto r = runScenario(scenario, file, version, options);
            if (only) {
                // The steps before it still ran (they set the state it meets); only its block is shown.
                std::vector<StepResult> kept;
                for (auto& s : r.steps)
                    if (s.step == &scenario.steps[*only]) kept.push_back(std::move(s));
                r.steps = std::move(kept);
            }
            out << explainBlock(r, args.verbosity > 0) << "\n";
            failed += r.passed ? 0 : 1;
        }
    }
    return failed ? kExitFailed : kExitPassed;
}

int commandLint(const Args& args, std::ostream& out, std::ostream& err) {
    auto loaded = loadPaths(args.positional.empty() ? defaultScenarioPaths() : args.positional);
    if (!loaded.errors.empty()) return reportErrors(loaded.errors, err);
    for (const auto& [file, count] : loaded.schemasFiles)
        out << file << ": a schemas file (" << count << " schema definition(s)), not a scenario: OK\n";
    out << loaded.scenarios.size() << " scenario(s) OK\n";
    return kExitPassed;
}

/// "3.0.16, 4.0.9, 4.1.3, 4.2.0 and later" / "before 2.9.4 (2.9 line)".
std::string gapReleases(const GapInfo& g) {
    std::string list;
    for (const auto& r : g.releases) list += (list.empty() ? "" : ", ") + r.toString();
    std::string lines;
    for (const auto& l : g.onlyLines) lines += (lines.empty() ? "" : ", ") + l.toString();
    std::string text = g.affects == GapAffects::carrying ? "from " + list : "before " + list;
    if (!g.since.empty()) {
        std::string since;
        for (const auto& r : g.since) since += (since.empty() ? "" : ", ") + r.toString();
        text = "from " + since + ", " + text;
    }
    return lines.empty() ? text : text + " (" + lines + " line)";
}

int commandGaps(const Args& args, std::ostream& out, std::ostream& err) {
    const BehaviourProfile* only = nullptr;
    if (!args.positional.empty()) {
        std::string error;
        only = profileFor(args.positional[0], &error);
        if (!only) {
            err << "cnxsim profiles: " << error << "\n";
            return kExitInvalid;
        }
        out << "Known gaps affecting Pulsar " << only->release.toString() << ":\n";
    } else {
        out << "Known changes of real Pulsar the model does not implement:\n";
    }
    int listed = 0;
    for (const auto& g : knownGaps()) {
        if (only && !gapAffects(g, only->release)) continue;
        ++listed;
        out << "  " << g.pr << " " << g.section << ": " << g.change << "\n"
            << "      releases: " << gapReleases(g) << "\n"
            << "      " << (g.id == Gap::unreachable ? "never reached: " : "marked on: ") << g.paths << "\n";
    }
    out << listed << " gap(s)\n";
    return kExitPassed;
}

int commandProfiles(const Args& args, std::ostream& out, std::ostream& err) {
    if (args.options.count("--gaps")) {
        if (args.options.count("--diff") || args.positional.size() > 1) {
            err << "cnxsim profiles: --gaps takes at most one VERSION\n" << kProfilesUsage;
            return kExitInvalid;
        }
        return commandGaps(args, out, err);
    }
    if (auto it = args.options.find("--diff"); it != args.options.end()) {
        if (args.positional.size() != 1) {
            err << "cnxsim profiles: --diff takes two versions, e.g. --diff 2.10 3.0\n" << kProfilesUsage;
            return kExitInvalid;
        }
        std::string error;
        const auto* a = profileFor(it->second, &error);
        const auto* b = a ? profileFor(args.positional[0], &error) : nullptr;
        if (!a || !b) {
            err << "cnxsim profiles: " << error << "\n";
            return kExitInvalid;
        }
        out << "Pulsar " << a->release.toString() << " (" << a->name << ") vs " << b->release.toString() << " ("
            << b->name << "):\n";
        auto sa = switchesOf(*a), sb = switchesOf(*b);
        int differing = 0;
        for (std::size_t i = 0; i < sa.size(); ++i) {
            if (sa[i].value == sb[i].value) continue;
            ++differing;
            // The PR that set the value of the later release.
            const auto& later = a->release < b->release ? *b : *a;
            auto prov = later.provenance.find(sa[i].name);
            out << "  " << sa[i].name << ": " << sa[i].value << " -> " << sb[i].value << "  ("
                << (prov != later.provenance.end() ? prov->second : std::string("baseline")) << ")\n";
        }
        out << differing << " switch(es) differ\n";
        return kExitPassed;
    }
    if (!args.positional.empty()) {
        std::string error;
        const auto* p = profileFor(args.positional[0], &error);
        if (!p) {
            err << "cnxsim profiles: " << error << "\n";
            return kExitInvalid;
        }
        out << "Pulsar " << p->release.toString() << " (" << p->name << ", " << p->releases << "):\n";
        for (const auto& sw : switchesOf(*p)) {
            auto prov = p->provenance.find(sw.name);
            out << "  " << sw.name << " = " << sw.value << "  ("
                << (prov != p->provenance.end() ? prov->second : std::string("2.4.0 baseline")) << ")\n";
        }
        return kExitPassed;
    }
    out << "release line  modelled up to  profile  protocol  Avro    represents\n";
    for (const auto& p : allProfiles()) {
        std::string line = std::to_string(p.release.major) + "." + std::to_string(p.release.minor);
        out << "  " << line << std::string(12 - std::min<std::size_t>(line.size(), 11), ' ') << p.release.toString()
            << std::string(16 - std::min<std::size_t>(p.release.toString().size(), 15), ' ') << p.name
            << std::string(9 - std::min<std::size_t>(p.name.size(), 8), ' ') << "v" << p.maxProtocolVersion << "       "
            << compat::to_string_view(p.checkOptions.avro) << "  " << p.releases << "\n";
    }
    out << "\nA version names a line (\"2.10\": its newest modelled release) or an exact release (\"2.10.4\").\n"
           "`cnxsim profiles VERSION` lists every switch; `--diff A B` the ones that differ, with the PR.\n";
    return kExitPassed;
}

std::string_view usageOf(const std::string& command) {
    if (command == "run") return kRunUsage;
    if (command == "explain") return kExplainUsage;
    if (command == "lint") return kLintUsage;
    if (command == "profiles") return kProfilesUsage;
    if (command == "compat") return compatUsage();
    if (command == "serve") return serve::serveUsage();
    if (command == "record") return record::recordUsage();
    if (command == "completion") return kCompletionUsage;
    if (command == "schema") return kSchemaUsage;
    return kUsage;
}

}  // namespace

int runCli(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
    if (argv.empty() || argv[0] == "--help" || argv[0] == "-h") {
        (argv.empty() ? err : out) << kUsage;
        return argv.empty() ? kExitInvalid : kExitPassed;
    }
    std::string command = argv[0];
    if (command == "help") {
        out << usageOf(argv.size() > 1 ? argv[1] : "");
        return kExitPassed;
    }
    if (command == "--version" || command == "version") {
        printVersion(out);
        return kExitPassed;
    }
    if (command == "schema") {
        if (argv.size() == 2 && (argv[1] == "-h" || argv[1] == "--help")) {
            out << kSchemaUsage;
            return kExitPassed;
        }
        if (argv.size() != 1) {
            err << "cnxsim schema: takes no arguments\n" << kSchemaUsage;
            return kExitInvalid;
        }
        out << load::scenarioJsonSchema();
        return kExitPassed;
    }
    if (command == "compat") return runCompat({argv.begin() + 1, argv.end()}, out, err);
    if (command == "serve") return serve::runServe({argv.begin() + 1, argv.end()}, out, err);
    if (command == "record") return record::runRecord({argv.begin() + 1, argv.end()}, out, err);
    if (command == "completion") {
        if (argv.size() == 2 && (argv[1] == "-h" || argv[1] == "--help")) {
            out << kCompletionUsage;
            return kExitPassed;
        }
        if (argv.size() != 2 || argv[1] != "bash") {
            err << "cnxsim completion: expected the shell, bash\n" << kCompletionUsage;
            return kExitInvalid;
        }
        out << bashCompletion();
        return kExitPassed;
    }
    if (!parsedCommand(command)) {
        auto hint = closestMatch(command, commandNames());
        err << "cnxsim: unknown command '" << command << "'" << (hint ? " (did you mean '" + *hint + "'?)" : "") << "\n"
            << kUsage;
        return kExitInvalid;
    }
    Args args;
    std::vector<std::string> rest(argv.begin() + 1, argv.end());
    if (auto e = parseArgs(command, rest, args)) {
        err << "cnxsim " << command << ": " << *e << "\n" << usageOf(command);
        return kExitInvalid;
    }
    if (args.options.count("--help")) {
        out << usageOf(command);
        return kExitPassed;
    }
    setVerbosity(args.verbosity);
    if (command == "run") return commandRun(args, out, err);
    if (command == "explain") return commandExplain(args, out, err);
    if (command == "lint") return commandLint(args, out, err);
    return commandProfiles(args, out, err);
}

}  // namespace cnx::sim
