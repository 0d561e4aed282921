#include "sim/accept/accept_writer.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "sim/io/file_write.h"
#include "sim/io/file_read.h"

namespace cnx::sim {
namespace {

struct Line {
    std::string text;  // without the line ending
    std::string eol;   // "\n", "\r\n" or "" (last line without one)
};

/// A place in the text: 0-based line index and 0-based byte column.
struct Place {
    std::size_t line = 0;
    std::size_t col = 0;
};

std::vector<Line> splitLines(const std::string& text) {
    std::vector<Line> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t nl = text.find('\n', start);
        if (nl == std::string::npos) {
            lines.push_back({text.substr(start), ""});
            break;
        }
        bool crlf = nl > start && text[nl - 1] == '\r';
        lines.push_back({text.substr(start, nl - start - (crlf ? 1 : 0)), crlf ? "\r\n" : "\n"});
        start = nl + 1;
    }
    return lines;
}

std::string joinLines(const std::vector<Line>& lines) {
    std::string out;
    for (const Line& l : lines) out += l.text + l.eol;
    return out;
}

std::string defaultEol(const std::vector<Line>& lines) {
    for (const Line& l : lines) {
        if (!l.eol.empty()) return l.eol;
    }
    return "\n";
}

std::size_t indentOf(const std::string& s) {
    std::size_t n = 0;
    while (n < s.size() && s[n] == ' ') ++n;
    return n;
}

bool isBlankOrComment(const std::string& s) {
    std::size_t i = s.find_first_not_of(" \t");
    return i == std::string::npos || s[i] == '#';
}

// The start of a `#` comment in a one-line value, outside quotes; npos if none.
std::size_t commentStart(const std::string& s, std::size_t from) {
    char quote = 0;
    for (std::size_t i = from; i < s.size(); ++i) {
        char c = s[i];
        if (quote) {
            if (c == '\\' && quote == '"') ++i;
            else if (c == quote) quote = 0;
        } else if (c == '"' || c == '\'') {
            if (i == from || s[i - 1] == ' ' || s[i - 1] == '{' || s[i - 1] == '[' || s[i - 1] == ',' || s[i - 1] == ':')
                quote = c;
        } else if (c == '#' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t')) {
            return i;
        }
    }
    return std::string::npos;
}

// Finds `expect` followed by `:` as a key on `s` (at a key boundary).
std::optional<std::size_t> findExpectKey(const std::string& s) {
    for (std::size_t at = s.find("expect"); at != std::string::npos; at = s.find("expect", at + 1)) {
        char before = at == 0 ? ' ' : s[at - 1];
        if (before != ' ' && before != '-' && before != '{' && before != ',') continue;
        std::size_t colon = s.find_first_not_of(" \t", at + 6);
        if (colon != std::string::npos && s[colon] == ':') return colon;
    }
    return std::nullopt;
}

class Editor {
public:
    explicit Editor(std::vector<Line> lines) : lines_(std::move(lines)), eol_(defaultEol(lines_)) {}

    std::optional<std::string> apply(const AcceptEdit& edit);
    const std::vector<Line>& lines() const { return lines_; }

private:
    bool isFlowStep(Place key) const;
    std::optional<Place> flowOpening(Place key) const;
    std::size_t blockEnd(std::size_t first, std::size_t indent) const;
    std::optional<std::string> insertBlock(Place key, const std::string& yaml);
    std::optional<std::string> replaceBlock(std::size_t expectLine, const std::string& yaml);
    std::optional<std::string> editFlow(Place key, bool replace, const std::string& yaml);
    void replaceRange(Place from, Place to, const std::string& replacement);

    std::vector<Line> lines_;
    std::string eol_;
};

std::optional<std::string> Editor::apply(const AcceptEdit& edit) {
    if (edit.expectYaml.empty() || edit.expectYaml.find_first_of("\r\n") != std::string::npos)
        return "expect value must be one non-empty line of YAML";
    if (edit.stepLine < 1 || static_cast<std::size_t>(edit.stepLine) > lines_.size() || edit.stepColumn < 1)
        return "no step at line " + std::to_string(edit.stepLine);
    Place key{static_cast<std::size_t>(edit.stepLine - 1), static_cast<std::size_t>(edit.stepColumn - 1)};
    const std::string& text = lines_[key.line].text;
    if (key.col >= text.size() || text[key.col] == ' ' || text[key.col] == '#')
        return "no step key at " + std::to_string(edit.stepLine) + ":" + std::to_string(edit.stepColumn);
    if (isFlowStep(key)) return editFlow(key, edit.expectLine.has_value(), edit.expectYaml);
    if (!edit.expectLine) return insertBlock(key, edit.expectYaml);
    if (*edit.expectLine < edit.stepLine || static_cast<std::size_t>(*edit.expectLine) > lines_.size())
        return "no expect at line " + std::to_string(*edit.expectLine);
    return replaceBlock(static_cast<std::size_t>(*edit.expectLine - 1), edit.expectYaml);
}

// The `{` that opens a flow-style step mapping, before its first key.
std::optional<Place> Editor::flowOpening(Place key) const {
    std::size_t line = key.line;
    std::size_t col = key.col;
    while (true) {
        const std::string& s = lines_[line].text;
        while (col > 0 && (s[col - 1] == ' ' || s[col - 1] == '\t')) --col;
        if (col > 0) {
            if (s[col - 1] == '{') return Place{line, col - 1};
            return std::nullopt;
        }
        if (line == 0) return std::nullopt;
        --line;
        col = lines_[line].text.size();
    }
}

bool Editor::isFlowStep(Place key) const { return flowOpening(key).has_value(); }

// One past the last content line of the block that starts at line `first`
// and continues with lines indented at least `minIndent` (blank and comment
// lines inside belong to it, trailing ones do not).
std::size_t Editor::blockEnd(std::size_t first, std::size_t minIndent) const {
    std::size_t end = first + 1;
    for (std::size_t i = first + 1; i < lines_.size(); ++i) {
        if (isBlankOrComment(lines_[i].text)) continue;
        if (indentOf(lines_[i].text) < minIndent) break;
        end = i + 1;
    }
    return end;
}

// A step's own lines are indented at least as far as its keys (a line at the
// key column is a further key, or a compact sequence value); a line left of
// it is the next step.
std::optional<std::string> Editor::insertBlock(Place key, const std::string& yaml) {
    std::size_t after = blockEnd(key.line, std::max<std::size_t>(key.col, 1));
    Line& last = lines_[after - 1];
    std::string lineEol = last.eol.empty() ? "" : eol_;
    if (last.eol.empty()) last.eol = eol_;
    lines_.insert(lines_.begin() + static_cast<std::ptrdiff_t>(after),
                  Line{std::string(key.col, ' ') + "expect: " + yaml, lineEol});
    return std::nullopt;
}

std::optional<std::string> Editor::replaceBlock(std::size_t expectLine, const std::string& yaml) {
    std::string& s = lines_[expectLine].text;
    auto colon = findExpectKey(s);
    if (!colon) return "no 'expect' key on line " + std::to_string(expectLine + 1);
    std::size_t keyCol = s.rfind("expect", *colon);
    std::size_t comment = commentStart(s, *colon + 1);
    std::string keep;  // the comment with the blanks before it, as written
    if (comment != std::string::npos) keep = s.substr(std::max(s.find_last_not_of(" \t", comment - 1) + 1, *colon + 1));
    if (!keep.empty() && keep.front() == '#') keep = " " + keep;
    std::size_t end = blockEnd(expectLine, keyCol + 1);
    s = s.substr(0, *colon + 1) + " " + yaml + keep;
    lines_.erase(lines_.begin() + static_cast<std::ptrdiff_t>(expectLine + 1),
                 lines_.begin() + static_cast<std::ptrdiff_t>(end));
    return std::nullopt;
}

// Replaces the text from `from` up to (not including) `to`, which may be on a later line.
void Editor::replaceRange(Place from, Place to, const std::string& replacement) {
    std::string merged = lines_[from.line].text.substr(0, from.col) + replacement + lines_[to.line].text.substr(to.col);
    lines_[from.line].text = merged;
    lines_[from.line].eol = lines_[to.line].eol;
    lines_.erase(lines_.begin() + static_cast<std::ptrdiff_t>(from.line + 1),
                 lines_.begin() + static_cast<std::ptrdiff_t>(to.line + 1));
}

/// The top-level entries of a flow mapping, found by a small scanner that
/// knows quotes, comments and nesting.
struct FlowEntry {
    std::string key;
    Place colon;
    Place valueEnd;  // one past the value's last significant character
};

struct FlowMap {
    std::vector<FlowEntry> entries;
    Place lastSignificant;  // one past the last significant character before the closing brace
    bool closed = false;
};

class FlowScanner {
public:
    explicit FlowScanner(const std::vector<Line>& lines) : lines_(lines) {}

    FlowMap scan(Place open) {
        FlowMap map;
        map.lastSignificant = {open.line, open.col + 1};
        int depth = 1;
        bool colonSeen = false;
        std::string key;
        for (std::size_t line = open.line; line < lines_.size(); ++line) {
            const std::string& s = lines_[line].text;
            for (std::size_t col = line == open.line ? open.col + 1 : 0; col < s.size(); ++col) {
                char c = s[col];
                if (quote_) {
                    if (c == '\\' && quote_ == '"') ++col;
                    else if (c == quote_) quote_ = 0;
                    if (depth == 1 && !colonSeen) key += c;
                    map.lastSignificant = {line, col + 1};
                    continue;
                }
                if (c == ' ' || c == '\t') continue;
                if (c == '#' && (col == 0 || s[col - 1] == ' ' || s[col - 1] == '\t')) break;
                if (c == '"' || c == '\'') quote_ = c;
                if (c == '{' || c == '[') ++depth;
                if ((c == '}' || c == ']') && --depth == 0) {
                    finish(map, key, colonSeen);
                    map.closed = true;
                    return map;
                }
                if (depth == 1 && c == ',') {
                    finish(map, key, colonSeen);
                    key.clear();
                    colonSeen = false;
                    map.lastSignificant = {line, col + 1};
                    continue;
                }
                if (depth == 1 && c == ':' && !colonSeen && !quote_) {
                    colonSeen = true;
                    map.entries.push_back({trimQuotes(key), {line, col}, {line, col + 1}});
                } else if (depth == 1 && !colonSeen) {
                    key += c;
                }
                map.lastSignificant = {line, col + 1};
            }
        }
        return map;
    }

private:
    static std::string trimQuotes(std::string key) {
        if (key.size() >= 2 && (key.front() == '"' || key.front() == '\'') && key.back() == key.front())
            return key.substr(1, key.size() - 2);
        return key;
    }

    static void finish(FlowMap& map, const std::string&, bool colonSeen) {
        if (colonSeen && !map.entries.empty()) map.entries.back().valueEnd = map.lastSignificant;
    }

    const std::vector<Line>& lines_;
    char quote_ = 0;
};

std::optional<std::string> Editor::editFlow(Place key, bool replace, const std::string& yaml) {
    Place open = *flowOpening(key);
    FlowMap map = FlowScanner(lines_).scan(open);
    if (!map.closed) return "the flow mapping of the step at line " + std::to_string(key.line + 1) + " is not closed";
    auto expect = std::find_if(map.entries.begin(), map.entries.end(),
                               [](const FlowEntry& e) { return e.key == "expect"; });
    if (replace && expect == map.entries.end())
        return "no 'expect' in the step at line " + std::to_string(key.line + 1);
    if (expect != map.entries.end()) {
        replaceRange({expect->colon.line, expect->colon.col + 1}, expect->valueEnd, " " + yaml);
        return std::nullopt;
    }
    Place at = map.lastSignificant;
    bool trailingComma = at.col > 0 && lines_[at.line].text[at.col - 1] == ',';
    replaceRange(at, at, std::string(trailingComma ? " " : ", ") + "expect: " + yaml);
    return std::nullopt;
}

std::optional<std::string> readAll(const std::filesystem::path& file, std::string& out) {
    auto read = readFileBounded(file, kScenarioFile);
    if (auto* e = std::get_if<FileReadError>(&read)) return "cannot read " + e->message();
    out = std::move(std::get<std::string>(read));
    return std::nullopt;
}

// The file `--accept` replaces: `file` itself, or the file a symbolic link
// (or a chain of them) finally names, so that the link stays a link.
std::optional<std::string> resolveTarget(const std::filesystem::path& file, std::filesystem::path& out) {
    std::error_code ec;
    out = std::filesystem::canonical(file, ec);
    if (ec) return "cannot resolve " + file.string() + ": " + ec.message();
    return std::nullopt;
}

}  // namespace

std::optional<std::string> applyAcceptEditsToText(std::string& text, std::vector<AcceptEdit> edits) {
    // Bottom-up, so that earlier positions stay valid while later text changes.
    std::sort(edits.begin(), edits.end(), [](const AcceptEdit& a, const AcceptEdit& b) {
        return std::pair(a.stepLine, a.stepColumn) > std::pair(b.stepLine, b.stepColumn);
    });
    for (std::size_t i = 1; i < edits.size(); ++i) {
        if (edits[i].stepLine == edits[i - 1].stepLine && edits[i].stepColumn == edits[i - 1].stepColumn)
            return "two edits for the step at " + std::to_string(edits[i].stepLine) + ":" +
                   std::to_string(edits[i].stepColumn);
    }
    Editor editor(splitLines(text));
    for (const AcceptEdit& edit : edits) {
        if (auto error = editor.apply(edit)) return error;
    }
    text = joinLines(editor.lines());
    return std::nullopt;
}

std::optional<std::string> applyAcceptEdits(const std::filesystem::path& file, std::vector<AcceptEdit> edits) {
    std::filesystem::path target;
    if (auto error = resolveTarget(file, target)) return error;
    if (auto error = refuseToReplace(target)) return error;
    std::string text;
    if (auto error = readAll(target, text)) return error;
    if (auto error = applyAcceptEditsToText(text, std::move(edits))) return file.string() + ": " + *error;
    return writeFileAtomically(target, text);
}

}  // namespace cnx::sim
