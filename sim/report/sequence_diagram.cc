#include "sim/report/sequence_diagram.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <vector>

namespace cnx::sim {

std::size_t SequenceDiagram::participant(const std::string& name) {
    auto it = std::find(participants.begin(), participants.end(), name);
    if (it != participants.end()) return static_cast<std::size_t>(it - participants.begin());
    participants.push_back(name);
    return participants.size() - 1;
}

void SequenceDiagram::add(std::size_t from, std::size_t to, std::string label, bool reply, bool highlight) {
    messages.push_back({from, to, std::move(label), reply, highlight});
}

namespace {

// Strict UTF-8 decode of one code point at `at` (length gets the bytes used);
// -1 for a malformed sequence.
long decode(const std::string& s, std::size_t at, std::size_t& length) {
    auto b = static_cast<unsigned char>(s[at]);
    length = 1;
    if (b < 0x80) return b;
    std::size_t n = (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || at + n > s.size()) return -1;
    long cp = b & (0xFF >> (n + 1));
    for (std::size_t k = 1; k < n; ++k) {
        auto c = static_cast<unsigned char>(s[at + k]);
        if ((c & 0xC0) != 0x80) return -1;
        cp = (cp << 6) | (c & 0x3F);
    }
    static constexpr long kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMinimum[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
    length = n;
    return cp;
}

bool xmlChar(long cp) {
    return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) || (cp >= 0xE000 && cp <= 0xFFFD) ||
           (cp >= 0x10000 && cp <= 0x10FFFF);
}

// The monospace cells a code point takes: 2 for the wide East Asian blocks
// (and what follows them), 1 for the rest, a malformed byte included (it is
// drawn as U+FFFD).
int cellsOf(long cp) { return cp >= 0x1100 && (cp <= 0x115F || cp >= 0x2E80) ? 2 : 1; }

struct Glyph {
    std::size_t at = 0, length = 1;  // bytes of the label
    int cells = 1;
    bool space = false;
};

std::vector<Glyph> glyphsOf(const std::string& s) {
    std::vector<Glyph> out;
    for (std::size_t i = 0; i < s.size();) {
        Glyph g;
        g.at = i;
        long cp = decode(s, i, g.length);
        g.cells = cp < 0 ? 1 : cellsOf(cp);
        g.space = cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r';
        out.push_back(g);
        i += g.length;
    }
    return out;
}

std::string bytesOf(const std::string& s, const std::vector<Glyph>& g, std::size_t from, std::size_t to) {
    return from >= to ? std::string() : s.substr(g[from].at, g[to - 1].at + g[to - 1].length - g[from].at);
}

}  // namespace

std::vector<std::string> wrapLabel(const std::string& label, std::size_t width, std::size_t maxLines) {
    width = std::max<std::size_t>(width, 2);
    maxLines = std::max<std::size_t>(maxLines, 1);
    auto g = glyphsOf(label);
    std::vector<std::string> lines;
    std::size_t i = 0;
    while (i < g.size() && lines.size() < maxLines) {
        std::size_t used = 0, j = i, lastSpace = i;
        while (j < g.size() && used + static_cast<std::size_t>(g[j].cells) <= width) {
            if (g[j].space) lastSpace = j;
            used += static_cast<std::size_t>(g[j].cells);
            ++j;
        }
        std::size_t end = j;
        if (j < g.size() && !g[j].space && lastSpace > i) end = lastSpace;  // break before the word that does not fit
        if (lines.size() + 1 == maxLines && end < g.size()) {
            // The last line and more to say: as much as fits beside the "…".
            end = i;
            for (used = 0; end < g.size() && used + static_cast<std::size_t>(g[end].cells) + 1 <= width; ++end)
                used += static_cast<std::size_t>(g[end].cells);
            lines.push_back(bytesOf(label, g, i, end) + "\xe2\x80\xa6");
            return lines;
        }
        lines.push_back(bytesOf(label, g, i, end));
        for (i = end; i < g.size() && g[i].space; ++i) {
        }
    }
    if (lines.empty()) lines.emplace_back();
    return lines;
}

namespace {

constexpr int kColumn = 190;  // between lifelines
constexpr int kRow = 30;      // a message with a one-line label
constexpr int kLine = 13;     // each further line of a wrapped label
constexpr int kTop = 50;      // below the participant boxes
constexpr int kMargin = 20;
constexpr int kPad = 6;       // between a label and the lifelines it lies between
// Labels are monospace, so their width is known here: one cell of DejaVu Sans
// Mono (the usual monospace) is 0.602 em, 6.6 px at 11 px; 7 leaves room for
// other monospace fonts. Participant names are 12 px (7.3 px a cell: 8).
constexpr int kCellPx = 7;
constexpr int kNameCellPx = 8;
constexpr std::size_t kLines = 2;         // a label's lines at most ...
constexpr std::size_t kFailingLines = 5;  // ... and a failing step's, which a reader came for

int xOf(std::size_t participant) { return kMargin + kColumn / 2 + static_cast<int>(participant) * kColumn; }

/// `s` as text valid in XML and Mermaid: a byte sequence that is not a
/// character XML allows becomes U+FFFD, a multi-byte character is kept, and
/// each ASCII byte is appended by `ascii` (its escape, or the byte).
template <typename Ascii>
std::string escapeText(const std::string& s, Ascii ascii) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        std::size_t length = 1;
        long cp = decode(s, i, length);
        if (cp < 0 || !xmlChar(cp))
            out += "\xef\xbf\xbd";
        else if (length > 1)
            out.append(s, i, length);
        else
            ascii(out, s[i]);
        i += length;
    }
    return out;
}

std::string mermaidText(const std::string& s) {
    return escapeText(s, [](std::string& out, char c) {
        switch (c) {
            case '#': out += "#35;"; break;
            case ';': out += "#59;"; break;
            case '%': out += "#37;"; break;
            case '&': out += "#38;"; break;
            case '<': out += "#lt;"; break;
            case '>': out += "#gt;"; break;
            case '"': out += "#quot;"; break;
            case '`': out += "#96;"; break;
            case '\n':
            case '\r':
            case '\t': out += ' '; break;
            default: out += c;
        }
    });
}

}  // namespace

std::string htmlEscape(const std::string& s) {
    return escapeText(s, [](std::string& out, char c) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    });
}

namespace {

// One message's place: its label's lines and the y of its arrow.
struct Row {
    std::vector<std::string> lines;
    int y = 0;
};

// The label's room: between the two lifelines its arrow joins, or for a
// message to itself from beside its loop to the next lifeline (the picture's
// edge for the last one), less kPad on each side.
std::size_t labelCells(std::size_t from, std::size_t to, int width) {
    int x1 = xOf(from), x2 = xOf(to);
    int room = x1 == x2 ? std::min(x1 + kColumn, width) - (x1 + 36) : std::abs(x2 - x1);
    return static_cast<std::size_t>(std::max(room - 2 * kPad, 2 * kCellPx) / kCellPx);
}

std::vector<Row> layOut(const SequenceDiagram& d, int width) {
    std::vector<Row> rows;
    int y = kTop;
    for (const auto& msg : d.messages) {
        Row row;
        row.lines = wrapLabel(msg.label, labelCells(msg.from, msg.to, width), msg.highlight ? kFailingLines : kLines);
        y += kRow + static_cast<int>(row.lines.size() - 1) * kLine;
        row.y = y;
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace

std::string toSvg(const SequenceDiagram& d, const std::string& id) {
    std::string plain = id + "-ah", failing = id + "-ahf";
    int width = 2 * kMargin + static_cast<int>(std::max<std::size_t>(d.participants.size(), 1)) * kColumn;
    auto rows = layOut(d, width);
    int bottom = (rows.empty() ? kTop : rows.back().y) + kRow;
    std::ostringstream s;
    s << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"seq\" width=\"" << width << "\" height=\"" << bottom + 10
      << "\" viewBox=\"0 0 " << width << " " << bottom + 10 << "\" role=\"img\">\n";
    s << "<defs><marker id=\"" << htmlEscape(plain) << "\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
         "orient=\"auto\"><path d=\"M0,0L10,5L0,10z\" fill=\"#333\"/></marker>"
         "<marker id=\"" << htmlEscape(failing) << "\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
         "orient=\"auto\"><path d=\"M0,0L10,5L0,10z\" fill=\"#c00\"/></marker></defs>\n";
    for (std::size_t m = 0; m < d.messages.size(); ++m) {  // the failing rows' bands, behind everything
        if (!d.messages[m].highlight) continue;
        int top = (m == 0 ? kTop : rows[m - 1].y) + 10;
        s << "<rect x=\"0\" y=\"" << top << "\" width=\"" << width << "\" height=\"" << rows[m].y + 10 - top
          << "\" fill=\"#fdd\"/>\n";
    }
    const auto nameCells = static_cast<std::size_t>((kColumn - 16 - 2 * kPad) / kNameCellPx);
    for (std::size_t p = 0; p < d.participants.size(); ++p) {
        int cx = xOf(p);
        s << "<g><title>" << htmlEscape(d.participants[p]) << "</title><rect x=\"" << cx - kColumn / 2 + 8
          << "\" y=\"8\" width=\"" << kColumn - 16 << "\" height=\"26\" rx=\"4\" fill=\"#eef\" stroke=\"#557\"/>"
          << "<text x=\"" << cx << "\" y=\"25\" text-anchor=\"middle\" font-family=\"monospace\" font-size=\"12\">"
          << htmlEscape(wrapLabel(d.participants[p], nameCells, 1).front()) << "</text></g>\n";
        s << "<line x1=\"" << cx << "\" y1=\"34\" x2=\"" << cx << "\" y2=\"" << bottom
          << "\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>\n";
    }
    for (std::size_t m = 0; m < d.messages.size(); ++m) {
        const auto& msg = d.messages[m];
        int y = rows[m].y;
        const char* colour = msg.highlight ? "#c00" : "#333";
        std::string marker = htmlEscape(msg.highlight ? failing : plain);
        // The whole label is the group's title (a tooltip); the picture shows it
        // wrapped, and cut with "…" past its lines.
        s << "<g class=\"" << (msg.highlight ? "msg failing" : "msg") << "\"><title>" << htmlEscape(msg.label)
          << "</title>";
        int x1 = xOf(msg.from), x2 = xOf(msg.to);
        if (x1 == x2) {  // to itself: a small loop
            s << "<path d=\"M" << x1 << "," << y - 8 << "h30v12h-30\" fill=\"none\" stroke=\"" << colour
              << "\" marker-end=\"url(#" << marker << ")\"/>";
        } else {
            s << "<line x1=\"" << x1 << "\" y1=\"" << y << "\" x2=\"" << x2 << "\" y2=\"" << y << "\" stroke=\""
              << colour << "\"" << (msg.reply ? " stroke-dasharray=\"5 3\"" : "") << " stroke-width=\""
              << (msg.highlight ? 2 : 1) << "\" marker-end=\"url(#" << marker << ")\"/>";
        }
        // Above its arrow, inside its row; a white halo keeps the lifelines the
        // arrow crosses from striking through the letters.
        int tx = x1 == x2 ? x1 + 36 : (x1 + x2) / 2;
        int first = y - 4 - static_cast<int>(rows[m].lines.size() - 1) * kLine;
        s << "<text x=\"" << tx << "\" y=\"" << first << "\" text-anchor=\"" << (x1 == x2 ? "start" : "middle")
          << "\" font-family=\"monospace\" font-size=\"11\" fill=\"" << colour
          << "\" stroke=\"#fff\" stroke-width=\"3\" stroke-linejoin=\"round\" paint-order=\"stroke\""
          << (msg.highlight ? " font-weight=\"bold\"" : "") << ">";
        for (std::size_t l = 0; l < rows[m].lines.size(); ++l)
            s << "<tspan x=\"" << tx << "\" y=\"" << first + static_cast<int>(l) * kLine << "\">"
              << htmlEscape(rows[m].lines[l]) << "</tspan>";
        s << "</text></g>\n";
    }
    s << "</svg>\n";
    return s.str();
}

std::string toMermaid(const SequenceDiagram& d) {
    std::ostringstream m;
    m << "sequenceDiagram\n";
    for (std::size_t p = 0; p < d.participants.size(); ++p)
        m << "    participant P" << p << " as " << mermaidText(d.participants[p]) << "\n";
    for (const auto& msg : d.messages) {
        if (msg.highlight) m << "    rect rgb(255, 210, 210)\n";
        // Mermaid sizes its columns to the widest message: lines of at most 40
        // cells (joined with its <br/>) keep the columns narrow.
        std::string text;
        for (const auto& line : wrapLabel(msg.label, 40, msg.highlight ? kFailingLines : 3))
            text += (text.empty() ? "" : "<br/>") + mermaidText(line);
        m << "    P" << msg.from << (msg.reply ? "-->>" : "->>") << "P" << msg.to << ": " << text << "\n";
        if (msg.highlight) m << "    end\n";
    }
    return m.str();
}

}  // namespace cnx::sim
