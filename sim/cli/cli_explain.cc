#include "sim/cli/cli_commands.h"

#include <charconv>
#include <optional>
#include <ostream>

#include "broker_model/profile/profile.h"
#include "sim/cli/cli.h"
#include "sim/report/reports.h"
#include "sim/run/runner.h"
#include "sim/scenario/did_you_mean.h"

namespace cnx::sim::cli {
namespace {

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
    "  --no-fast-paths  as `run --no-fast-paths`: the same output, slower\n"
    "\n"
    "exit status: 0 all passed, 1 some failed, 2 invalid input (an unknown\n"
    "--version or --step)\n";

constexpr std::string_view kLintUsage =
    "usage: cnxsim lint [PATH...] [--no-fast-paths]\n"
    "\n"
    "Loads scenario files and folders and reports every problem as\n"
    "file:line:column: message, without running anything; with no PATH the\n"
    "bundled suite, as run finds it. Exit 2 on any problem. --no-fast-paths\n"
    "parses with yaml-cpp alone, as `run --no-fast-paths`.\n";

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

}  // namespace

std::string_view explainUsage() { return kExplainUsage; }
std::string_view lintUsage() { return kLintUsage; }

int commandExplain(const Args& args, std::ostream& out, std::ostream& err, FastPaths environmentFastPaths) {
    const FastPaths fastPaths = fastPathsOf(args, environmentFastPaths);
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
    auto loaded = loadPaths(args.positional, fastPaths);
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
            options.fastPaths = fastPaths;
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

int commandLint(const Args& args, std::ostream& out, std::ostream& err, FastPaths environmentFastPaths) {
    auto loaded = loadPaths(args.positional.empty() ? defaultScenarioPaths() : args.positional,
                            fastPathsOf(args, environmentFastPaths));
    if (!loaded.errors.empty()) return reportErrors(loaded.errors, err);
    for (const auto& [file, count] : loaded.schemasFiles)
        out << file << ": a schemas file (" << count << " schema definition(s)), not a scenario: OK\n";
    out << loaded.scenarios.size() << " scenario(s) OK\n";
    return kExitPassed;
}

}  // namespace cnx::sim::cli
