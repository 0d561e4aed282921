#include "sim/report/sequence_diagram.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

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

std::size_t codePoints(const std::string& s) {
    std::size_t count = 0;
    for (std::size_t i = 0; i < s.size(); ++count) {
        std::size_t length = 1;
        decode(s, i, length);
        i += length;
    }
    return count;
}

// Whole code points only, at most `limit` of them, "…" when cut.
std::string shortened(const std::string& s, std::size_t limit) {
    std::size_t count = 0;
    for (std::size_t i = 0; i < s.size(); ++count) {
        if (count == limit) return s.substr(0, i) + "\xe2\x80\xa6";
        std::size_t length = 1;
        decode(s, i, length);
        i += length;
    }
    return s;
}

constexpr int kColumn = 190;  // between lifelines
constexpr int kRow = 30;      // between messages
constexpr int kTop = 50;      // below the participant boxes
constexpr int kMargin = 20;

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

std::string toSvg(const SequenceDiagram& d, const std::string& id) {
    std::string plain = id + "-ah", failing = id + "-ahf";
    int width = 2 * kMargin + static_cast<int>(std::max<std::size_t>(d.participants.size(), 1)) * kColumn;
    int bottom = kTop + static_cast<int>(d.messages.size() + 1) * kRow;
    std::ostringstream s;
    s << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"seq\" width=\"" << width << "\" height=\"" << bottom + 10
      << "\" viewBox=\"0 0 " << width << " " << bottom + 10 << "\" role=\"img\">\n";
    s << "<defs><marker id=\"" << htmlEscape(plain) << "\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
         "orient=\"auto\"><path d=\"M0,0L10,5L0,10z\" fill=\"#333\"/></marker>"
         "<marker id=\"" << htmlEscape(failing) << "\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
         "orient=\"auto\"><path d=\"M0,0L10,5L0,10z\" fill=\"#c00\"/></marker></defs>\n";
    for (std::size_t m = 0; m < d.messages.size(); ++m) {  // the failing rows' bands, behind everything
        if (!d.messages[m].highlight) continue;
        int y = kTop + static_cast<int>(m + 1) * kRow;
        s << "<rect x=\"0\" y=\"" << y - kRow + 10 << "\" width=\"" << width << "\" height=\"" << kRow
          << "\" fill=\"#fdd\"/>\n";
    }
    for (std::size_t p = 0; p < d.participants.size(); ++p) {
        int cx = xOf(p);
        s << "<g><title>" << htmlEscape(d.participants[p]) << "</title><rect x=\"" << cx - kColumn / 2 + 8
          << "\" y=\"8\" width=\"" << kColumn - 16 << "\" height=\"26\" rx=\"4\" fill=\"#eef\" stroke=\"#557\"/>"
          << "<text x=\"" << cx << "\" y=\"26\" text-anchor=\"middle\" font-size=\"13\">"
          << htmlEscape(shortened(d.participants[p], 24)) << "</text></g>\n";
        s << "<line x1=\"" << cx << "\" y1=\"34\" x2=\"" << cx << "\" y2=\"" << bottom
          << "\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>\n";
    }
    for (std::size_t m = 0; m < d.messages.size(); ++m) {
        const auto& msg = d.messages[m];
        int y = kTop + static_cast<int>(m + 1) * kRow;
        const char* colour = msg.highlight ? "#c00" : "#333";
        std::string marker = htmlEscape(msg.highlight ? failing : plain);
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
        int tx = x1 == x2 ? x1 + 36 : (x1 + x2) / 2;
        std::size_t room = x1 == x2 ? 30 : static_cast<std::size_t>(std::abs(x2 - x1) / 7);
        std::string label = shortened(msg.label, std::max<std::size_t>(room, 24));
        if (msg.highlight && x1 != x2) {
            // The failing request and answer are what a reader came for: their labels
            // may run across the whole row (each message has a row of its own), centred
            // on the arrow but kept inside the picture (about 7 px a character).
            label = shortened(msg.label, static_cast<std::size_t>((width - 2 * kMargin) / 7));
            int half = static_cast<int>(codePoints(label)) * 7 / 2;
            tx = std::clamp(tx, kMargin + half, std::max(kMargin + half, width - kMargin - half));
        }
        s << "<text x=\"" << tx << "\" y=\"" << y - 4 << "\" text-anchor=\"" << (x1 == x2 ? "start" : "middle")
          << "\" font-size=\"11\" fill=\"" << colour << "\"" << (msg.highlight ? " font-weight=\"bold\"" : "") << ">"
          << htmlEscape(label) << "</text></g>\n";
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
        m << "    P" << msg.from << (msg.reply ? "-->>" : "->>") << "P" << msg.to << ": "
          << mermaidText(shortened(msg.label, 100)) << "\n";
        if (msg.highlight) m << "    end\n";
    }
    return m.str();
}

}  // namespace cnx::sim
