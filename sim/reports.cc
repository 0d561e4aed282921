#include "sim/reports.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <algorithm>

#include "broker_model/release_version.h"
#include "sim/expectation.h"

namespace cnx::sim {
namespace {

std::string title(const ScenarioResult& r) { return r.scenario->name + " [" + r.version + "]"; }

std::string position(const Step& step) {
    return step.pos.file + ":" + std::to_string(step.pos.line) + ":" + std::to_string(step.pos.column);
}

std::string observedText(const StepResult& s) {
    const auto& o = s.observed;
    if (o.ok) return renderObserved(o, s.step->action);
    return o.error + ": " + o.message;
}

std::string xmlEscape(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&apos;"; break;
            default:
                // XML 1.0 forbids most control characters.
                if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') out += "?";
                else out += c;
        }
    }
    return out;
}

std::string mdEscape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '|') out += "\\|";
        else if (c == '\n') out += " ";
        else out += c;
    }
    return out;
}

int notAsserted(const ScenarioResult& r) {
    int n = 0;
    for (const auto& s : r.steps) n += s.status == StepStatus::notAsserted ? 1 : 0;
    return n;
}

}  // namespace

std::string consoleLine(const ScenarioResult& r) {
    std::string line = std::string(r.passed ? "PASS  " : "FAIL  ") + r.file + ": " + title(r);
    if (int n = notAsserted(r)) line += "  (" + std::to_string(n) + " step(s) not asserted on " + r.version + ")";
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
        out << "    expected: " << (s.expected ? renderExpect(*s.expected) : std::string("(check assertions)")) << "\n";
        out << "    observed: " << observedText(s) << "\n";
        out << "    why:      " << s.why << "\n";
        out << "    trace:\n" << s.observed.trace.format("      ");
    }
    return out.str();
}

std::string explainBlock(const ScenarioResult& r) {
    std::ostringstream out;
    out << "== " << r.file << ": " << title(r) << " (profile " << r.profile << ")\n";
    if (!r.setupError.empty()) out << "  set-up failed: " << r.setupError << "\n";
    for (const auto& s : r.steps) {
        out << "  " << s.label << " at " << position(*s.step) << "\n";
        out << "    observed: " << observedText(s) << "\n";
        if (s.expected) out << "    expected: " << renderExpect(*s.expected) << (s.status == StepStatus::passed ? "  [pass]" : "  [FAIL: " + s.why + "]") << "\n";
        out << s.observed.trace.format("      ");
    }
    return out.str();
}

std::optional<std::string> writeFileAtomically(const std::string& path, const std::string& text) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path target(path);
    if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
    fs::path tmp = target;
    tmp += ".tmp-cnxsim";
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        if (!f) return "cannot write " + tmp.string();
        f << text;
        if (!f.flush()) return "cannot write " + tmp.string();
    }
    fs::rename(tmp, target, ec);
    if (ec) {
        fs::remove(tmp, ec);
        return "cannot rename to " + path + ": " + ec.message();
    }
    return std::nullopt;
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
        x << "  <testsuite name=\"" << xmlEscape(file) << "\" tests=\"" << runs.size() << "\" failures=\"" << f
          << "\" errors=\"0\" time=\"" << t << "\">\n";
        x << "    <properties><property name=\"seed\" value=\"" << seed << "\"/></properties>\n";
        for (const auto* r : runs) {
            x << "    <testcase classname=\"" << xmlEscape(file) << "\" name=\"" << xmlEscape(title(*r)) << "\" time=\""
              << r->seconds << "\"";
            if (r->passed) {
                x << "/>\n";
                continue;
            }
            std::string first = r->setupError;
            for (const auto& s : r->steps) {
                if (first.empty() && s.status == StepStatus::failed) first = s.label + ": " + s.why;
            }
            x << ">\n      <failure message=\"" << xmlEscape(first) << "\">" << xmlEscape(failureBlock(*r))
              << "</failure>\n    </testcase>\n";
        }
        x << "  </testsuite>\n";
    }
    x << "</testsuites>\n";
    return writeFileAtomically(path, x.str());
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
    return it->second->passed ? "pass" : "FAIL";
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
    if (failed) {
        md << "\n## Failures\n";
        for (const auto& r : results) {
            if (r.passed) continue;
            md << "\n### " << mdEscape(r.file + ": " + title(r)) << "\n\n```\n" << failureBlock(r) << "```\n";
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
      << ".pass{background:#dfd}.FAIL{background:#fdd}pre{background:#f6f6f6;padding:6px}</style></head><body>\n";
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
            h << "<td class=\"" << c << "\">" << c << "</td>";
        }
        h << "</tr>\n";
    }
    h << "</table>\n";
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
    if (ext == ".md" || ext == ".markdown") return writeFileAtomically(path, markdown(results, seed));
    if (ext == ".html" || ext == ".htm") return writeFileAtomically(path, html(results, seed));
    return "--report takes a .md or .html file, got '" + path + "'";
}

}  // namespace cnx::sim
