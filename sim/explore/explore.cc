// explore: the differential search's loop and its files (doc/explore.md, "Files").

#include "sim/explore/explore.h"

#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>
#include <sstream>
#include <system_error>

#include "sim/io/file_write.h"
#include "sim/run/yaml_text.h"

namespace cnx::sim::explore {
namespace {

namespace fs = std::filesystem;

// The output folder, created if missing; the reason it cannot be written to otherwise.
std::optional<std::string> prepareOutDir(const fs::path& dir) {
    if (dir.empty()) return "no output folder given";
    std::error_code ec;
    auto st = fs::status(dir, ec);
    if (ec && ec != std::errc::no_such_file_or_directory)
        return "output folder " + dir.string() + ": " + ec.message();
    if (!fs::exists(st)) {
        fs::create_directories(dir, ec);
        if (ec) return "cannot create output folder " + dir.string() + ": " + ec.message();
        return std::nullopt;
    }
    if (!fs::is_directory(st)) return "output folder " + dir.string() + " exists and is not a folder";
    // On the mode bits, so that root (who may write anywhere) is refused a read-only folder too.
    auto writeBits = fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write;
    if ((st.permissions() & writeBits) == fs::perms::none)
        return "output folder " + dir.string() + " is read-only";
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        return "output folder " + dir.string() + " is not writable: " + std::strerror(errno);
    return std::nullopt;
}

std::size_t entriesIn(const fs::path& dir) {
    std::error_code ec;
    std::size_t n = 0;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) ++n;
    return n;
}

std::string slugOf(const std::string& kind) {
    std::string slug;
    for (unsigned char c : kind) {
        if (std::isalnum(c)) {
            slug += static_cast<char>(std::tolower(c));
        } else if (!slug.empty() && slug.back() != '-') {
            slug += '-';
        }
        if (slug.size() >= 60) break;
    }
    while (!slug.empty() && slug.back() == '-') slug.pop_back();
    return slug.empty() ? "disagreement" : slug;
}

std::string commented(const std::string& text) {
    std::string out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out += line.empty() ? "#\n" : "#   " + yamlCommentText(line) + "\n";
    return out;
}

std::string replayLine(const fs::path& file, const std::string& replayArgs) {
    return "cnxsim run " + file.string() + (replayArgs.empty() ? "" : " " + replayArgs);
}

std::string fileText(const ExploreOptions& o, const Finding& f, std::size_t number, const ShrinkResult& shrunk) {
    std::string out = "# cnxsim differential search: disagreement " + std::to_string(number) + ", found by seed " +
                      std::to_string(o.seed) + " in session " + std::to_string(f.sessions.front()) + "\n";
    out += "# kind: " + yamlCommentText(f.kind) + "\n";
    out += "# replay this file: " + replayLine(f.file, o.replayArgs) + "\n";
    out += "# the whole session again: session " + std::to_string(f.sessions.front()) + " of --explore " +
           std::to_string(f.sessions.front() + 1) + " --seed " + std::to_string(o.seed) + "\n";
    if (shrunk.error) {
        out += "# not shrunk: " + *shrunk.error + "\n";
    } else {
        out += "# shrunk from " + std::to_string(f.stepsBefore) + " steps to " + std::to_string(f.stepsAfter) +
               " in " + std::to_string(f.judgeCalls) + " judge calls\n";
    }
    if (f.shrinkCutShort)
        out += "# the shrink stopped at its bound of " + std::to_string(o.maxShrinkCalls) +
               " judge calls: the scenario may not be minimal\n";
    if (!shrunk.verdict.detail.empty()) out += "#\n" + commented(shrunk.verdict.detail);
    out += "\n";
    out += shrunk.verdict.acceptedYaml.empty() ? shrunk.yaml : shrunk.verdict.acceptedYaml;
    return out;
}

std::string summaryText(const ExploreOptions& o, const ExploreSummary& s) {
    std::string out = "cnxsim differential search\n";
    out += "seed: " + std::to_string(o.seed) + "\n";
    out += "sessions: " + std::to_string(s.sessions) + " of " + std::to_string(o.sessions) + "\n";
    if (!o.replayArgs.empty()) out += "against: " + o.replayArgs + "\n";
    out += "disagreements: " + std::to_string(s.disagreements) + " sessions, " + std::to_string(s.distinct) +
           " distinct\n";
    if (!s.unconfirmed.empty()) {
        out += "unconfirmed: " + std::to_string(s.unconfirmed.size()) +
               " session(s) disagreed once and agreed when judged again:";
        for (const auto& [i, kind] : s.unconfirmed) out += "\n  session " + std::to_string(i) + ": " + kind;
        out += "\n";
    }
    if (s.error) out += "stopped: " + *s.error + "\n";
    for (const auto& f : s.findings) {
        out += "\n" + f.file.filename().string() + "\n  kind: " + f.kind + "\n  sessions:";
        for (auto i : f.sessions) out += " " + std::to_string(i);
        out += "\n  shrunk: " + std::to_string(f.stepsBefore) + " -> " + std::to_string(f.stepsAfter) + " steps, " +
               std::to_string(f.judgeCalls) + " judge calls" + (f.shrinkCutShort ? " (bound reached)" : "") + "\n";
    }
    return out;
}

std::size_t stepCount(const std::string& yaml) {
    std::size_t n = 0;
    bool inSteps = false;
    std::istringstream in(yaml);
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line[0] != ' ' && line[0] != '#') inSteps = line.rfind("steps:", 0) == 0;
        if (inSteps && line.rfind("  - ", 0) == 0) ++n;
    }
    return n;
}

class Search {
public:
    Search(const ExploreOptions& o, const Judge& judge, std::ostream& log) : o_(o), judge_(judge), log_(log) {}

    ExploreSummary run() {
        if (auto err = prepareOutDir(o_.outDir)) return stop(*err);
        log_ << "explore: seed " << o_.seed << ", " << o_.sessions << " sessions, files in " << o_.outDir.string()
             << "\n";
        if (auto earlier = entriesIn(o_.outDir))
            log_ << "explore: note: " << o_.outDir.string() << " already holds " << earlier
                 << " entries; summary.txt will list this run's files\n";
        for (std::uint64_t i = 0; i < o_.sessions && !s_.error; ++i) {
            std::string yaml = generateSession(o_.seed, i);
            Verdict v = judged(yaml);
            if (judgeError_) {
                s_.error = "session " + std::to_string(i) + ": the judge failed: " + *judgeError_;
                break;
            }
            ++s_.sessions;
            if (v.disagrees) disagreement(i, yaml, v);
            if (o_.progressEvery && (i + 1) % o_.progressEvery == 0 && i + 1 < o_.sessions)
                log_ << "explore: " << (i + 1) << "/" << o_.sessions << " sessions, " << s_.disagreements
                     << " disagreements, " << s_.distinct << " distinct\n";
        }
        writeSummary();
        log_ << "explore: seed " << o_.seed << ": " << s_.sessions << " sessions, " << s_.disagreements
             << " disagreements, " << s_.distinct << " distinct" << (s_.error ? ", stopped: " + *s_.error : "")
             << "\n";
        return std::move(s_);
    }

private:
    ExploreSummary stop(const std::string& error) {
        s_.error = error;
        log_ << "explore: " << error << "\n";
        return std::move(s_);
    }

    // The judge, with an exception turned into the search's error.
    Verdict judged(const std::string& yaml) {
        try {
            return judge_(yaml);
        } catch (const std::exception& e) {  // the caller's judge: its boundary
            if (!judgeError_) judgeError_ = e.what();
            return {};
        }
    }

    void disagreement(std::uint64_t index, const std::string& yaml, const Verdict& v) {
        // A real broker is not always deterministic (its loaded topics take policy changes
        // from a notification, a producer may race its own reconnection): a disagreement
        // counts once the same session disagrees the same way a second time.
        Verdict again = judged(yaml);
        if (judgeError_) {
            s_.error = "session " + std::to_string(index) + " (judged again): the judge failed: " + *judgeError_;
            return;
        }
        if (!again.disagrees || again.kind != v.kind) {
            s_.unconfirmed.emplace_back(index, v.kind);
            log_ << "explore: session " << index << " disagreed (" << v.kind
                 << ") but " << (again.disagrees ? "disagreed otherwise (" + again.kind + ")" : "agreed")
                 << " when judged again: unconfirmed, not counted (replay: seed " << o_.seed << ", session " << index
                 << ")\n";
            return;
        }
        ++s_.disagreements;
        if (auto known = byKind_.find(v.kind); known != byKind_.end()) {
            auto& f = s_.findings[known->second];
            f.sessions.push_back(index);
            log_ << "explore: session " << index << " disagrees again: " << v.kind << " (first in session "
                 << f.sessions.front() << ")\n";
            return;
        }
        Judge guarded = [this](const std::string& text) { return judged(text); };
        ShrinkResult shrunk = shrink(yaml, guarded, v, o_.maxShrinkCalls);
        if (judgeError_) {
            s_.error = "session " + std::to_string(index) + " (shrinking): the judge failed: " + *judgeError_;
            return;
        }
        Finding f;
        f.kind = v.kind;
        f.sessions.push_back(index);
        char number[8];
        std::snprintf(number, sizeof number, "%03zu", s_.findings.size() + 1);
        f.file = o_.outDir / (std::string(number) + "-" + slugOf(v.kind) + ".yaml");
        f.stepsBefore = stepCount(yaml);
        f.stepsAfter = shrunk.error ? f.stepsBefore : shrunk.stepsAfter;
        f.judgeCalls = shrunk.judgeCalls;
        f.shrinkCutShort = shrunk.cutShort;
        if (auto err = writeFileAtomically(f.file, fileText(o_, f, s_.findings.size() + 1, shrunk))) {
            s_.error = *err;
            return;
        }
        log_ << "explore: session " << index << " disagrees: " << v.kind << "; shrunk from " << f.stepsBefore
             << " to " << f.stepsAfter << " steps in " << f.judgeCalls << " judge calls"
             << (f.shrinkCutShort ? " (bound reached)" : "") << ": " << f.file.string() << "\n";
        byKind_.emplace(f.kind, s_.findings.size());
        s_.written.push_back(f.file);
        s_.findings.push_back(std::move(f));
        s_.distinct = s_.findings.size();
    }

    void writeSummary() {
        fs::path file = o_.outDir / "summary.txt";
        if (auto err = writeFileAtomically(file, summaryText(o_, s_))) {
            if (!s_.error) s_.error = *err;
            return;
        }
        s_.written.push_back(file);
    }

    const ExploreOptions& o_;
    const Judge& judge_;
    std::ostream& log_;
    ExploreSummary s_;
    std::map<std::string, std::size_t> byKind_;
    std::optional<std::string> judgeError_;
};

}  // namespace

ExploreSummary explore(const ExploreOptions& options, const Judge& judge, std::ostream& log) {
    return Search(options, judge, log).run();
}

}  // namespace cnx::sim::explore
