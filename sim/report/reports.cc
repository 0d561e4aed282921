#include "sim/report/reports.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string_view>

#include <algorithm>

#include "broker_model/core/release_version.h"
#include "broker_model/core/utf8.h"
#include "broker_model/profile/profile.h"
#include "sim/report/race_text.h"
#include "sim/report/scenario_diagram.h"
#include "sim/report/sequence_diagram.h"
#include "sim/report/shorten.h"
#include "sim/run/expectation.h"
#include "sim/io/file_write.h"

namespace cnx::sim {
namespace {

// The versions the broker runs through: "2.10", or "2.10 → 3.0" when the
// scenario upgrades (per-version keys match the first; doc/scenario-format.md).
std::string versionPath(const ScenarioResult& r) {
    std::string path = r.version;
    for (const auto& step : r.scenario->steps) {
        if (const auto* u = std::get_if<UpgradeBrokerStep>(&step.body)) path += " \u2192 " + u->version;
    }
    return path;
}

std::string title(const ScenarioResult& r) { return r.scenario->name + " [" + versionPath(r) + "]"; }

std::string position(const Step& step) {
    return step.pos.file + ":" + std::to_string(step.pos.line) + ":" + std::to_string(step.pos.column);
}

// Whether a broker message embeds long JSON (an Avro refusal's schemas).
bool embedsSchemas(const std::string& message) { return elideEmbeddedJson(message) != message; }

// A refusal's message as its root line (sim/report/shorten.h), or whole with -v.
std::string observedText(const StepResult& s, bool verbose = true) {
    const auto& o = s.observed;
    if (o.ok) return renderObserved(o, *s.step);
    return o.error + ": " + (verbose || !embedsSchemas(o.message) ? o.message : oneLineMessage(o.message));
}

// XML 1.0 §2.2 Char: what a well-formed document may contain at all.
bool isXmlChar(std::uint32_t cp) {
    return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) || (cp >= 0xE000 && cp <= 0xFFFD) ||
           (cp >= 0x10000 && cp <= 0x10FFFF);
}

constexpr std::string_view kReplacement = "\xef\xbf\xbd";  // U+FFFD

// `s` as valid UTF-8 of XML characters: each byte that is not well-formed
// UTF-8, and each character XML forbids, becomes U+FFFD. Reports pass every
// text from the run (names, file names, messages, traces) through this.
std::string safeText(const std::string& s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        std::size_t length = 1;
        auto cp = decodeUtf8(s, i, length);
        if (cp && isXmlChar(*cp)) out.append(s, i, length);
        else out += kReplacement;
        i += length;
    }
    return out;
}

// Character data and attribute values: markup characters as entities; in an
// attribute also tab and line ends, which parsers would otherwise normalise.
std::string xmlEscape(const std::string& s, bool attribute = false) {
    std::string out;
    for (char c : safeText(s)) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            case '\n': out += attribute ? "&#10;" : "\n"; break;
            case '\r': out += "&#13;"; break;
            case '\t': out += attribute ? "&#9;" : "\t"; break;
            default: out += c;
        }
    }
    return out;
}

std::string xmlAttr(const std::string& s) { return xmlEscape(s, true); }

std::string mdEscape(const std::string& s) {
    std::string out;
    for (char c : safeText(s)) {
        if (c == '|') out += "\\|";
        else if (c == '\n' || c == '\r') out += " ";
        else out += c;
    }
    return out;
}

// A Markdown code block holding `text` verbatim: the fence is longer than any
// run of backticks inside, so the text cannot end the block early.
std::string mdCodeBlock(const std::string& text) {
    std::size_t longest = 0, run = 0;
    for (char c : text) {
        run = c == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    std::string fence(std::max<std::size_t>(3, longest + 1), '`');
    return fence + "\n" + safeText(text) + fence + "\n";
}

int notAsserted(const ScenarioResult& r) {
    int n = 0;
    for (const auto& s : r.steps) n += s.status == StepStatus::notAsserted ? 1 : 0;
    return n;
}

/// "not modelled: #25012 (...) at step 3 (producer)" for every gap a step met.
std::vector<std::string> gapNotes(const ScenarioResult& r) {
    std::vector<std::string> out;
    for (const auto& s : r.steps) {
        for (const auto& g : s.notModelled) out.push_back(g + " at " + s.label());
    }
    return out;
}

std::string notModelledLines(const StepResult& s, const std::string& indent) {
    std::string out;
    for (const auto& g : s.notModelled) out += indent + g + "\n";
    return out;
}

}  // namespace

std::string consoleLine(const ScenarioResult& r) {
    std::string line = std::string(r.passed ? "PASS  " : "FAIL  ") + r.file + ": " + title(r);
    if (int n = notAsserted(r)) line += "  (" + std::to_string(n) + " step(s) not asserted on " + r.version + ")";
    for (const auto& g : gapNotes(r)) line += "\n      " + g;
    // A passing race that a bound stopped passes on the schedules explored only: say how far it got.
    for (const auto& s : r.steps)
        if (s.race && !s.race->stopped.empty() && s.status != StepStatus::failed)
            line += "\n      NOT EXHAUSTIVE at " + s.label() + ": " + s.race->stopped;
    return line;
}

std::string failureBlock(const ScenarioResult& r, bool verbose) {
    auto shortText = [verbose](const std::string& t) { return verbose ? t : elideEmbeddedJson(t); };
    std::ostringstream out;
    if (!r.setupError.empty()) {
        out << "  set-up failed: " << r.setupError << "\n";
        return out.str();
    }
    for (const auto& s : r.steps) {
        if (s.status != StepStatus::failed) continue;
        out << "  " << s.label() << " at " << position(*s.step) << "\n";
        if (s.race) {
            out << "    why:      " << shortText(s.why) << "\n" << raceBlock(s, "    ", false);
            continue;
        }
        std::string expected = s.expected                  ? renderExpect(*s.expected)
                               : s.step->is<CheckStep>() ? std::string("(check assertions)")
                                                           : std::string("(none)");
        out << "    expected: " << expected << "\n";
        // Short forms: the checker's problem paths, not the schemas a message embeds.
        out << "    observed: " << observedText(s, verbose) << "\n" << notModelledLines(s, "              ");
        for (const auto& p : s.observed.problems) out << "    problem:  " << p.summary() << "\n";
        std::string why = s.why;
        if (!verbose && !s.observed.ok && embedsSchemas(s.observed.message)) {
            if (auto at = why.find(s.observed.message); at != std::string::npos)
                why.replace(at, s.observed.message.size(), oneLineMessage(s.observed.message));
        }
        out << "    why:      " << shortText(why) << "\n";
        out << "    trace:\n";
        for (const auto& e : s.observed.trace.entries())
            out << "      " << e.section << " " << e.rule << ": " << shortText(e.detail) << "\n";
    }
    return out.str();
}

std::string explainBlock(const ScenarioResult& r, bool verbose) {
    auto shortText = [verbose](const std::string& t) { return verbose ? t : elideEmbeddedJson(t); };
    std::ostringstream out;
    out << "== " << r.file << ": " << title(r) << " (profile " << r.profile << ")\n";
    if (!r.setupError.empty()) out << "  set-up failed: " << r.setupError << "\n";
    for (const auto& s : r.steps) {
        out << "  " << s.label() << " at " << position(*s.step) << "\n";
        if (s.race) {
            out << "    " << (s.status == StepStatus::failed ? "[FAIL: " + s.why + "]" : std::string(s.status == StepStatus::passed ? "[pass]" : "[not asserted]")) << "\n";
            out << raceBlock(s, "    ", true);
            out << "    the run goes on from the canonical schedule (the branches as written):\n";
            out << s.observed.trace.format("      ");
            continue;
        }
        out << "    observed: " << observedText(s, verbose) << "\n" << notModelledLines(s, "              ");
        if (!verbose && !s.observed.ok && embedsSchemas(s.observed.message)) {
            for (const auto& p : s.observed.problems) out << "    problem:  " << p.summary() << "\n";
        }
        if (s.expected && s.expected->notAsserted)
            out << "    expected: ~  [not asserted on " << r.version << "]\n";
        else if (s.expected)
            out << "    expected: " << renderExpect(*s.expected) << (s.status == StepStatus::passed ? "  [pass]" : "  [FAIL: " + shortText(s.why) + "]") << "\n";
        if (verbose) {
            out << s.observed.trace.format("      ");
            continue;
        }
        for (const auto& e : s.observed.trace.entries())
            out << "      " << e.section << " " << e.rule << ": " << elideEmbeddedJson(e.detail) << "\n";
    }
    return out.str();
}

// Creates the report's folder if needed, then writes it with the one safe writer.
std::optional<std::string> writeReportFile(const std::string& path, const std::string& text) {
    std::filesystem::path target(path);
    if (target.has_parent_path() && !std::filesystem::is_directory(target.parent_path())) {
        std::error_code ec;
        std::filesystem::create_directories(target.parent_path(), ec);
        if (ec) return "cannot create the folder " + target.parent_path().string() + ": " + ec.message();
    }
    return writeFileAtomically(target, text);
}

namespace {

// JUnit `classname`: the file's path relative to where cnxsim ran, without
// its extension, '/' as '.' (scenarios/issues/pulsar-1.yaml ->
// scenarios.issues.pulsar-1), so viewers group test cases by folder.
std::string junitClassName(const std::string& file) {
    std::filesystem::path p = std::filesystem::path(file).lexically_normal();
    if (p.is_absolute()) {
        std::error_code ec;
        auto rel = std::filesystem::relative(p, std::filesystem::current_path(ec), ec);
        if (!ec && !rel.empty() && rel.native().rfind("..", 0) != 0) p = rel;
    }
    std::string out;
    for (const auto& part : p.replace_extension()) {
        auto text = part.string();
        if (text == "/" || text == "." || text == ".." || text.empty()) continue;
        out += (out.empty() ? "" : ".") + text;
    }
    return out.empty() ? file : out;
}

std::string fixed3(double seconds) {
    std::ostringstream o;
    o.setf(std::ios::fixed);
    o.precision(3);
    o << seconds;
    return o.str();
}

}  // namespace

std::string shortReason(const ScenarioResult& r) {
    if (!r.setupError.empty()) return "set-up failed: " + elideEmbeddedJson(r.setupError);
    for (const auto& s : r.steps) {
        if (s.status == StepStatus::failed) return s.label() + ": " + elideEmbeddedJson(s.why);
    }
    return "";
}

std::optional<std::string> writeJUnit(const std::string& path, const std::vector<ScenarioResult>& results,
                                      std::uint64_t seed) {
    std::map<std::string, std::vector<const ScenarioResult*>> byFile;
    int failures = 0;
    double total = 0;
    for (const auto& r : results) {
        byFile[r.file].push_back(&r);
        failures += r.passed ? 0 : 1;
        total += r.seconds;
    }
    std::ostringstream x;
    x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    x << "<testsuites name=\"cnxsim\" tests=\"" << results.size() << "\" failures=\"" << failures << "\" time=\""
      << fixed3(total) << "\">\n";
    for (const auto& [file, runs] : byFile) {
        int f = 0;
        double t = 0;
        std::string versions;
        for (const auto* r : runs) {
            f += r->passed ? 0 : 1;
            t += r->seconds;
            versions += (versions.empty() ? "" : ",") + r->version;
        }
        auto classname = junitClassName(file);
        x << "  <testsuite name=\"" << xmlAttr(classname) << "\" tests=\"" << runs.size() << "\" failures=\"" << f
          << "\" errors=\"0\" skipped=\"0\" time=\"" << fixed3(t) << "\" file=\"" << xmlAttr(file) << "\">\n";
        x << "    <properties><property name=\"seed\" value=\"" << seed << "\"/><property name=\"versions\" value=\""
          << xmlAttr(versions) << "\"/></properties>\n";
        for (const auto* r : runs) {
            x << "    <testcase classname=\"" << xmlAttr(classname) << "\" name=\"" << xmlAttr(title(*r))
              << "\" file=\"" << xmlAttr(file) << "\" time=\"" << fixed3(r->seconds) << "\">\n";
            x << "      <properties><property name=\"version\" value=\"" << xmlAttr(r->version)
              << "\"/><property name=\"profile\" value=\"" << xmlAttr(r->profile) << "\"/><property name=\"seed\" value=\""
              << seed << "\"/></properties>\n";
            if (!r->passed) {
                bool race = false;
                for (const auto& s : r->steps) race = race || (s.status == StepStatus::failed && s.race);
                const char* type = !r->setupError.empty() ? "SetupError" : race ? "RaceOutcome" : "ExpectationMismatch";
                x << "      <failure type=\"" << type << "\" message=\"" << xmlAttr(shortReason(*r)) << "\">"
                  << xmlEscape(failureBlock(*r)) << "</failure>\n";
            }
            // Passed or not, a path the model does not implement is said, not hidden.
            auto gaps = gapNotes(*r);
            if (!gaps.empty()) {
                x << "      <system-out>";
                for (const auto& g : gaps) x << xmlEscape(g) << "\n";
                x << "</system-out>\n";
            }
            x << "    </testcase>\n";
        }
        x << "  </testsuite>\n";
    }
    x << "</testsuites>\n";
    return writeReportFile(path, x.str());
}

namespace {

// The release line of a version ("3.0.2" -> "3.0"); the text itself when it is not one.
std::string releaseLine(const std::string& v) {
    auto r = ReleaseVersion::parse(v);
    return r ? std::to_string(r->major) + "." + std::to_string(r->minor) : v;
}

bool versionLess(const std::string& a, const std::string& b) {
    auto va = ReleaseVersion::parse(a), vb = ReleaseVersion::parse(b);
    if (!va || !vb) return a < b;
    if (*va == *vb) return a.size() < b.size();  // "2.10" before "2.10.0"
    return *va < *vb;
}

// Rows: one per scenario (file + name), the failing ones first; columns: one
// per release line, each holding the exact releases run on it.
struct Matrix {
    std::vector<std::string> lines;  // release lines in order
    struct Row {
        std::string name;
        bool failed = false;
        std::map<std::string, std::vector<const ScenarioResult*>> byLine;
    };
    std::vector<Row> rows;
};

Matrix matrixOf(const std::vector<ScenarioResult>& results) {
    Matrix m;
    std::vector<std::string> versions;
    std::set<std::string> seen;
    std::map<std::string, std::size_t> rowOf;
    for (const auto& r : results) {
        if (seen.insert(r.version).second) versions.push_back(r.version);
        std::string key = r.file + ": " + r.scenario->name;
        auto [it, inserted] = rowOf.emplace(key, m.rows.size());
        if (inserted) m.rows.push_back({key, false, {}});
        auto& row = m.rows[it->second];
        row.failed = row.failed || !r.passed;
        row.byLine[releaseLine(r.version)].push_back(&r);
    }
    std::stable_sort(versions.begin(), versions.end(), versionLess);
    for (const auto& v : versions) {
        auto line = releaseLine(v);
        if (std::find(m.lines.begin(), m.lines.end(), line) == m.lines.end()) m.lines.push_back(line);
    }
    for (auto& row : m.rows) {
        for (auto& [line, runs] : row.byLine)
            std::stable_sort(runs.begin(), runs.end(),
                             [](const ScenarioResult* a, const ScenarioResult* b) { return versionLess(a->version, b->version); });
    }
    std::stable_partition(m.rows.begin(), m.rows.end(), [](const Matrix::Row& r) { return r.failed; });
    return m;
}

// The exact release a run modelled: "4.2.5" for a run asked as "4.2" (the
// line's newest modelled release); the text itself when it names no release.
std::string exactRelease(const ScenarioResult& r) {
    const auto* profile = profileFor(r.version);
    return profile ? profile->release.toString() : r.version;
}

std::string status(const ScenarioResult& r) {
    if (!r.passed) return "FAIL";
    return gapNotes(r).empty() ? "pass" : "not modelled";
}

// A cell's one word: FAIL when any release of the line failed, else "not
// modelled" when any met a gap, else pass; "–" when none ran.
std::string cellStatus(const std::vector<const ScenarioResult*>& runs) {
    if (runs.empty()) return "–";
    std::string worst = "pass";
    for (const auto* r : runs) {
        auto s = status(*r);
        if (s == "FAIL") return s;
        if (s != "pass") worst = s;
    }
    return worst;
}

const std::vector<const ScenarioResult*>& runsOn(const Matrix::Row& row, const std::string& line) {
    static const std::vector<const ScenarioResult*> none;
    auto it = row.byLine.find(line);
    return it == row.byLine.end() ? none : it->second;
}

// "FAIL 3.0.2, 3.0.6" / "pass (3)" for the Markdown table.
std::string mdCell(const std::vector<const ScenarioResult*>& runs) {
    auto word = cellStatus(runs);
    if (runs.empty() || word == "pass") return runs.empty() ? word : word + " (" + std::to_string(runs.size()) + ")";
    std::string out = word;
    std::string sep = " ";
    for (const auto* r : runs) {
        if (status(*r) == word) {
            out += sep + exactRelease(*r);
            sep = ", ";
        }
    }
    return out;
}

std::string summaryLine(const std::vector<ScenarioResult>& results, std::uint64_t seed) {
    int failed = 0;
    for (const auto& r : results) failed += r.passed ? 0 : 1;
    return std::to_string(results.size()) + " runs: " + std::to_string(results.size() - failed) + " passed, " +
           std::to_string(failed) + " failed (seed " + std::to_string(seed) + ")";
}

std::string markdown(const std::vector<ScenarioResult>& results, std::uint64_t seed) {
    int failed = 0;
    for (const auto& r : results) failed += r.passed ? 0 : 1;
    std::ostringstream md;
    md << "# cnxsim report\n\n" << (failed ? "**FAIL** " : "**PASS** ") << summaryLine(results, seed) << "\n";
    if (failed) {
        md << "\n## Failures\n";
        for (const auto& r : results) {
            if (r.passed) continue;
            md << "\n### " << mdEscape(r.file + ": " + title(r)) << "\n\n```mermaid\n"
               << toMermaid(diagramOf(r)) << "```\n\n" << mdCodeBlock(failureBlock(r));
        }
    }
    auto m = matrixOf(results);
    md << "\n## Scenario × release line\n\n| scenario |";
    for (const auto& l : m.lines) md << " " << mdEscape(l) << " |";
    md << "\n|---|";
    for (std::size_t i = 0; i < m.lines.size(); ++i) md << "---|";
    md << "\n";
    for (const auto& row : m.rows) {
        md << "| " << mdEscape(row.name) << " |";
        for (const auto& l : m.lines) md << " " << mdEscape(mdCell(runsOn(row, l))) << " |";
        md << "\n";
    }
    bool anyGap = false;
    for (const auto& r : results) anyGap = anyGap || !gapNotes(r).empty();
    if (anyGap) {
        md << "\n## Answers on paths the model does not implement\n\n";
        for (const auto& r : results) {
            for (const auto& g : gapNotes(r)) md << "- " << mdEscape(r.file + " [" + r.version + "]: " + g) << "\n";
        }
    }
    return md.str();
}

constexpr const char* kStyle =
    "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}"
    "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:3px 7px;vertical-align:top}"
    "th{background:#f0f0f4}td.name{font-family:monospace;font-size:90%}"
    ".pass{background:#dfd}.FAIL{background:#fcc}.gap{background:#ffd}"
    ".summary{font-size:120%;padding:.5em;border-radius:4px}.summary.bad{background:#fcc}.summary.good{background:#dfd}"
    "pre{background:#f6f6f6;padding:6px;white-space:pre-wrap;overflow-wrap:anywhere}details>summary{cursor:pointer}"
    "td details summary{list-style:none}td details ul{margin:0;padding-left:1em}"
    ".failure{border-left:4px solid #c00;padding-left:1em;margin-bottom:2em}svg.seq{max-width:100%;height:auto}";

std::string htmlCellClass(const std::string& word) { return word == "not modelled" ? "gap" : word == "–" ? "" : word; }

std::string html(const std::vector<ScenarioResult>& results, std::uint64_t seed) {
    int failed = 0;
    for (const auto& r : results) failed += r.passed ? 0 : 1;
    std::ostringstream h;
    h << "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>cnxsim report</title>"
      << "<style>" << kStyle << "</style></head><body>\n<h1>cnxsim report</h1>\n";
    h << "<p class=\"summary " << (failed ? "bad" : "good") << "\">" << (failed ? "FAIL: " : "PASS: ")
      << htmlEscape(summaryLine(results, seed)) << "</p>\n";
    if (failed) {
        h << "<h2>Failures</h2>\n";
        int n = 0;
        for (const auto& r : results) {
            if (r.passed) continue;
            ++n;
            h << "<div class=\"failure\" id=\"f" << n << "\"><h3>" << htmlEscape(r.file + ": " + title(r))
              << "</h3>\n" << toSvg(diagramOf(r), "seq" + std::to_string(n)) << "<pre>" << htmlEscape(failureBlock(r)) << "</pre>\n"
              << "<details><summary>every step with its trace</summary><pre>" << htmlEscape(explainBlock(r))
              << "</pre></details></div>\n";
        }
    }
    auto m = matrixOf(results);
    h << "<h2>Scenario × release line</h2>\n<table><tr><th>scenario</th>";
    for (const auto& l : m.lines) h << "<th>" << htmlEscape(l) << "</th>";
    h << "</tr>\n";
    for (const auto& row : m.rows) {
        h << "<tr><td class=\"name\">" << htmlEscape(row.name) << "</td>";
        for (const auto& l : m.lines) {
            const auto& runs = runsOn(row, l);
            auto word = cellStatus(runs);
            h << "<td class=\"" << htmlCellClass(word) << "\">";
            if (runs.empty()) {
                h << "–</td>";
                continue;
            }
            h << "<details" << (word == "FAIL" ? " open" : "") << "><summary>" << htmlEscape(word) << " ("
              << runs.size() << ")</summary><ul>";
            for (const auto* r : runs) h << "<li>" << htmlEscape(exactRelease(*r) + " " + status(*r)) << "</li>";
            h << "</ul></details></td>";
        }
        h << "</tr>\n";
    }
    h << "</table>\n";
    bool anyGap = false;
    for (const auto& r : results) anyGap = anyGap || !gapNotes(r).empty();
    if (anyGap) {
        h << "<h2>Answers on paths the model does not implement</h2>\n<details><summary>notes</summary><ul>\n";
        for (const auto& r : results) {
            for (const auto& g : gapNotes(r)) h << "<li>" << htmlEscape(r.file + " [" + r.version + "]: " + g) << "</li>\n";
        }
        h << "</ul></details>\n";
    }
    h << "</body></html>\n";
    return h.str();
}

}  // namespace

std::string markdownReport(const std::vector<ScenarioResult>& results, std::uint64_t seed) {
    return markdown(results, seed);
}

std::optional<std::string> writeReport(const std::string& path, const std::vector<ScenarioResult>& results,
                                       std::uint64_t seed) {
    auto ext = std::filesystem::path(path).extension().string();
    if (ext == ".md" || ext == ".markdown") return writeReportFile(path, markdown(results, seed));
    if (ext == ".html" || ext == ".htm") return writeReportFile(path, html(results, seed));
    return "--report takes a .md or .html file, got '" + path + "'";
}

}  // namespace cnx::sim
