#pragma once
// The differential search (issue 42 item 4, doc/explore.md): seeded random
// sessions, each a whole scenario, are handed to a Judge that runs them on two
// sides (a real broker and the model, or the model under two releases) and
// says whether and where they disagree; every disagreement is shrunk to a
// minimal scenario that still shows it and written as a file, once per kind.
// Nothing here touches a network: the judge is the caller's.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace cnx::sim::explore {

/// What a judge says about one session.
struct Verdict {
    bool disagrees = false;
    std::size_t step = 0;      // 0-based index of the first disagreeing step
    std::string kind;          // stable key of the disagreement, kept while shrinking,
                               // e.g. "producer: real=IncompatibleSchema model=ok"
    std::string detail;        // human text (expected, real broker, model) for the file header
    std::string acceptedYaml;  // the scenario with each step's `expect` set to the real broker's answer
                               // (may be empty: the shrunk session is then written without expectations)
};

/// Runs one session (scenario YAML text, one document) on both sides and
/// compares. It must not throw (explore() stops with an error if it does).
using Judge = std::function<Verdict(const std::string& yaml)>;

struct ExploreOptions {
    std::uint64_t sessions = 500;
    std::uint64_t seed = 1;
    std::filesystem::path outDir;
    /// The judge calls one shrink may make (the session's own verdict not counted).
    std::size_t maxShrinkCalls = 200;
    /// What follows `cnxsim run FILE` in a written file's replay line, e.g.
    /// "--against pulsar://127.0.0.1:6650 --admin http://127.0.0.1:8080 --version 4.2".
    std::string replayArgs;
    /// A progress line every this many sessions (0: only disagreements and the end).
    std::uint64_t progressEvery = 50;
};

/// One distinct kind of disagreement found by explore().
struct Finding {
    std::string kind;
    std::vector<std::uint64_t> sessions;  // every session index that showed it, in order
    std::filesystem::path file;           // the shrunk scenario written for the first one
    std::size_t stepsBefore = 0;          // steps of the first session
    std::size_t stepsAfter = 0;           // steps of the shrunk scenario
    std::size_t judgeCalls = 0;           // spent by its shrink
    bool shrinkCutShort = false;          // the shrink stopped at maxShrinkCalls
};

struct ExploreSummary {
    std::uint64_t sessions = 0;        // sessions judged
    std::uint64_t disagreements = 0;   // of them, those that disagreed
    std::uint64_t distinct = 0;        // distinct kinds (== findings.size())
    /// Sessions that disagreed once but not when judged again at once: the judge (a real
    /// broker) answered the same session two ways. Logged and listed in summary.txt with
    /// their kind, not counted above, not shrunk.
    std::vector<std::pair<std::uint64_t, std::string>> unconfirmed;
    std::vector<std::filesystem::path> written;  // one scenario per kind, then summary.txt
    std::vector<Finding> findings;
    /// Set when the search could not go on: outDir not writable, a file not
    /// written, a judge that threw. What was found before is kept above.
    std::optional<std::string> error;
};

/// The seeded session `index` of a search with `seed`: a whole scenario as
/// YAML text, one document, no `expect`, no broker section. Deterministic:
/// the same (seed, index) gives the same text on every platform.
std::string generateSession(std::uint64_t seed, std::uint64_t index);

struct ShrinkResult {
    std::string yaml;           // the smallest scenario found that keeps the kind
    Verdict verdict;            // the judge's verdict on it (the original's when nothing shrank)
    std::size_t judgeCalls = 0;
    bool cutShort = false;      // maxJudgeCalls was reached before the shrink was done
    std::size_t stepsBefore = 0, stepsAfter = 0;
    std::optional<std::string> error;  // `yaml` could not be read as a scenario: nothing shrank
};

/// Removes steps (the ones after the first disagreeing step, then chunks, then
/// single steps, each with the steps that use a name it opened), then step
/// fields that only refine a step (client, access_mode, count, ...), then unused
/// schemas, topics and client declarations, while `judge` still reports a verdict
/// of `original.kind`. Every candidate must load (loadScenarioText) before it is
/// judged; at most `maxJudgeCalls` judge calls.
ShrinkResult shrink(const std::string& yaml, const Judge& judge, const Verdict& original,
                    std::size_t maxJudgeCalls = 200);

/// Runs options.sessions sessions through `judge`, shrinks the first disagreement
/// of each kind, writes it to outDir (created if missing) as NNN-<kind>.yaml
/// with a header (seed, session, replay line, the judge's detail), and at the end
/// summary.txt (seed and every kind with its sessions). Progress lines go to
/// `log`. Files are written with writeFileAtomically (sim/io/file_write.h).
ExploreSummary explore(const ExploreOptions& options, const Judge& judge, std::ostream& log);

}  // namespace cnx::sim::explore
