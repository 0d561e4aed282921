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
#include "sim/report/race_text.h"
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

std::string observedText(const StepResult& s) {
    const auto& o = s.observed;
    if (o.ok) return renderObserved(o, s.step->action);
    return o.error + ": " + o.message;
}

// One code point decoded from strict UTF-8 at `at`; nullopt for a byte that
// does not start a well-formed sequence (bad lead, truncated, overlong,
// surrogate, beyond U+10FFFF). `length` gets the bytes consumed.
std::optional<std::uint32_t> decodeUtf8(const std::string& s, std::size_t at, std::size_t& length) {
    auto b = static_cast<unsigned char>(s[at]);
    length = 1;
    if (b < 0x80) return b;
    std::size_t n = (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || at + n > s.size()) return std::nullopt;
    std::uint32_t cp = b & (0xFFu >> (n + 1));
    for (std::size_t k = 1; k < n; ++k) {
        auto c = static_cast<unsigned char>(s[at + k]);
        if ((c & 0xC0) != 0x80) return std::nullopt;
        cp = (cp << 6) | (c & 0x3Fu);
    }
    static constexpr std::uint32_t kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMinimum[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return std::nullopt;
    length = n;
    return cp;
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
        for (const auto& g : s.notModelled) out.push_back(g + " at " + s.label);
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
    return line;
}

std::string failureBlock(const ScenarioResult& r) {
    std::ostringstream out;
    if (!r.setupError.empty()) {
        out << "  set-up failed: " << r.setupError << "\n";
        return out.str();
    }
    for (const auto& s : r.steps) {
        if (s.status != StepStatus::failed) continue;
        out << "  " << s.label << " at " << position(*s.step) << "\n";
        if (s.race) {
            out << "    why:      " << elideEmbeddedJson(s.why) << "\n" << raceBlock(s, "    ", false);
            continue;
        }
        std::string expected = s.expected                  ? renderExpect(*s.expected)
                               : s.step->action == "check" ? std::string("(check assertions)")
                                                           : std::string("(none)");
        out << "    expected: " << expected << "\n";
        // Short forms: the checker's problem paths, not the schemas a message embeds.
        out << "    observed: " << elideEmbeddedJson(observedText(s)) << "\n" << notModelledLines(s, "              ");
        for (const auto& p : s.observed.problems) out << "    problem:  " << p.summary() << "\n";
        out << "    why:      " << elideEmbeddedJson(s.why) << "\n";
        out << "    trace:\n";
        for (const auto& e : s.observed.trace.entries())
            out << "      " << e.section << " " << e.rule << ": " << elideEmbeddedJson(e.detail) << "\n";
    }
    return out.str();
}

std::string explainBlock(const ScenarioResult& r) {
    std::ostringstream out;
    out << "== " << r.file << ": " << title(r) << " (profile " << r.profile << ")\n";
    if (!r.setupError.empty()) out << "  set-up failed: " << r.setupError << "\n";
    for (const auto& s : r.steps) {
        out << "  " << s.label << " at " << position(*s.step) << "\n";
        if (s.race) {
            out << "    " << (s.status == StepStatus::failed ? "[FAIL: " + s.why + "]" : std::string(s.status == StepStatus::passed ? "[pass]" : "[not asserted]")) << "\n";
            out << raceBlock(s, "    ", true);
            out << "    the run goes on from the canonical schedule (the branches as written):\n";
            out << s.observed.trace.format("      ");
            continue;
        }
        out << "    observed: " << observedText(s) << "\n" << notModelledLines(s, "              ");
        if (s.expected && s.expected->notAsserted)
            out << "    expected: ~  [not asserted on " << r.version << "]\n";
        else if (s.expected)
            out << "    expected: " << renderExpect(*s.expected) << (s.status == StepStatus::passed ? "  [pass]" : "  [FAIL: " + s.why + "]") << "\n";
        out << s.observed.trace.format("      ");
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
      << total << "\">\n";
    for (const auto& [file, runs] : byFile) {
        int f = 0;
        double t = 0;
        for (const auto* r : runs) {
            f += r->passed ? 0 : 1;
            t += r->seconds;
        }
        x << "  <testsuite name=\"" << xmlAttr(file) << "\" tests=\"" << runs.size() << "\" failures=\"" << f
          << "\" errors=\"0\" time=\"" << t << "\">\n";
        x << "    <properties><property name=\"seed\" value=\"" << seed << "\"/></properties>\n";
        for (const auto* r : runs) {
            x << "    <testcase classname=\"" << xmlAttr(file) << "\" name=\"" << xmlAttr(title(*r)) << "\" time=\""
              << r->seconds << "\"";
            if (r->passed) {
                auto gaps = gapNotes(*r);
                if (gaps.empty()) {
                    x << "/>\n";
                    continue;
                }
                // Passed, but on a path the model does not implement: said, not hidden.
                x << ">\n      <system-out>";
                for (const auto& g : gaps) x << xmlEscape(g) << "\n";
                x << "</system-out>\n    </testcase>\n";
                continue;
            }
            std::string first = r->setupError;
            for (const auto& s : r->steps) {
                if (first.empty() && s.status == StepStatus::failed) first = s.label + ": " + elideEmbeddedJson(s.why);
            }
            x << ">\n      <failure message=\"" << xmlAttr(first) << "\">" << xmlEscape(failureBlock(*r))
              << "</failure>\n    </testcase>\n";
        }
        x << "  </testsuite>\n";
    }
    x << "</testsuites>\n";
    return writeReportFile(path, x.str());
}

namespace {

struct Matrix {
    std::vector<std::string> versions;
    std::vector<std::pair<std::string, std::map<std::string, const ScenarioResult*>>> rows;
};

Matrix matrixOf(const std::vector<ScenarioResult>& results) {
    Matrix m;
    std::set<std::string> seen;
    std::map<std::string, std::size_t> rowOf;
    for (const auto& r : results) {
        if (seen.insert(r.version).second) m.versions.push_back(r.version);
        std::string key = r.file + ": " + r.scenario->name;
        auto [it, inserted] = rowOf.emplace(key, m.rows.size());
        if (inserted) m.rows.push_back({key, {}});
        m.rows[it->second].second[r.version] = &r;
    }
    // Columns in release order ("2.10" sorts as 2.10.0, before "2.10.5").
    std::stable_sort(m.versions.begin(), m.versions.end(), [](const std::string& a, const std::string& b) {
        auto va = ReleaseVersion::parse(a), vb = ReleaseVersion::parse(b);
        if (!va || !vb) return a < b;
        if (*va == *vb) return a.size() < b.size();
        return *va < *vb;
    });
    return m;
}

std::string cell(const std::map<std::string, const ScenarioResult*>& row, const std::string& v) {
    auto it = row.find(v);
    if (it == row.end()) return "–";
    if (!it->second->passed) return "FAIL";
    return gapNotes(*it->second).empty() ? "pass" : "not modelled";
}

std::string markdown(const std::vector<ScenarioResult>& results, std::uint64_t seed) {
    int failed = 0;
    for (const auto& r : results) failed += r.passed ? 0 : 1;
    std::ostringstream md;
    md << "# cnxsim report\n\n";
    md << "Seed " << seed << ". " << (results.size() - failed) << " passed, " << failed << " failed.\n\n";
    auto m = matrixOf(results);
    md << "## Scenario × broker version\n\n| scenario |";
    for (const auto& v : m.versions) md << " " << v << " |";
    md << "\n|---|";
    for (std::size_t i = 0; i < m.versions.size(); ++i) md << "---|";
    md << "\n";
    for (const auto& [name, row] : m.rows) {
        md << "| " << mdEscape(name) << " |";
        for (const auto& v : m.versions) md << " " << cell(row, v) << " |";
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
    if (failed) {
        md << "\n## Failures\n";
        for (const auto& r : results) {
            if (r.passed) continue;
            md << "\n### " << mdEscape(r.file + ": " + title(r)) << "\n\n" << mdCodeBlock(failureBlock(r));
        }
    }
    return md.str();
}

std::string html(const std::vector<ScenarioResult>& results, std::uint64_t seed) {
    int failed = 0;
    for (const auto& r : results) failed += r.passed ? 0 : 1;
    std::ostringstream h;
    h << "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>cnxsim report</title>"
      << "<style>body{font-family:sans-serif}td,th{border:1px solid #ccc;padding:2px 6px}"
      << ".pass{background:#dfd}.FAIL{background:#fdd}.gap{background:#ffd}pre{background:#f6f6f6;padding:6px}</style></head><body>\n";
    h << "<h1>cnxsim report</h1>\n<p>Seed " << seed << ". " << (results.size() - failed) << " passed, " << failed
      << " failed.</p>\n";
    auto m = matrixOf(results);
    h << "<h2>Scenario × broker version</h2>\n<table><tr><th>scenario</th>";
    for (const auto& v : m.versions) h << "<th>" << xmlEscape(v) << "</th>";
    h << "</tr>\n";
    for (const auto& [name, row] : m.rows) {
        h << "<tr><td>" << xmlEscape(name) << "</td>";
        for (const auto& v : m.versions) {
            auto c = cell(row, v);
            h << "<td class=\"" << (c == "not modelled" ? "gap" : c) << "\">" << c << "</td>";
        }
        h << "</tr>\n";
    }
    h << "</table>\n";
    for (const auto& r : results) {
        for (const auto& g : gapNotes(r)) h << "<p class=\"gap\">" << xmlEscape(r.file + " [" + r.version + "]: " + g) << "</p>\n";
    }
    for (const auto& r : results) {
        if (r.passed) continue;
        h << "<h3>" << xmlEscape(r.file + ": " + title(r)) << "</h3>\n<pre>" << xmlEscape(failureBlock(r)) << "</pre>\n";
    }
    h << "</body></html>\n";
    return h.str();
}

}  // namespace

std::optional<std::string> writeReport(const std::string& path, const std::vector<ScenarioResult>& results,
                                       std::uint64_t seed) {
    auto ext = std::filesystem::path(path).extension().string();
    if (ext == ".md" || ext == ".markdown") return writeReportFile(path, markdown(results, seed));
    if (ext == ".html" || ext == ".htm") return writeReportFile(path, html(results, seed));
    return "--report takes a .md or .html file, got '" + path + "'";
}

}  // namespace cnx::sim
