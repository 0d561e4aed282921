#include "sim/run/yaml_text.h"

#include "broker_model/core/utf8.h"
#include "sim/run/expectation.h"

namespace cnx::sim {
namespace {

// YAML 1.1's printable characters, less the line breaks it folds inside a scalar (U+0085, U+2028, U+2029).
bool printableInLine(char32_t c) {
    if (c == 0x85 || c == 0x2028 || c == 0x2029) return false;
    return c == 0x09 || (c >= 0x20 && c <= 0x7E) || (c >= 0xA0 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) ||
           c >= 0x10000;
}

std::string hexEscape(char prefix, char32_t value, int digits) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out = {'\\', prefix};
    for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) out += kHex[(value >> shift) & 0xF];
    return out;
}

// `text` as a double-quoted scalar's inside (`quoted`) or a comment holds it:
// characters YAML cannot carry as they are escaped by code point (read back as
// the same UTF-8), and a byte that is no UTF-8 as the text `\xNN` (YAML holds
// only Unicode, so the same bytes cannot come back: the text says what they were).
std::string escaped(std::string_view text, bool quoted) {
    std::string out;
    out.reserve(text.size() + 2);
    for (std::size_t i = 0, length = 1; i < text.size(); i += length) {
        auto code = decodeUtf8(text, i, length);
        if (!code) {
            out += (quoted ? "\\\\" : "\\") + hexEscape('x', static_cast<unsigned char>(text[i]), 2).substr(1);
            continue;
        }
        char32_t c = *code;
        if (quoted && (c == '"' || c == '\\')) out += '\\', out += static_cast<char>(c);
        else if (c == '\n') out += "\\n";
        else if (c == '\t') out += quoted ? "\\t" : "\t";
        else if (c == '\r') out += "\\r";
        else if (printableInLine(c)) out.append(text.substr(i, length));
        else out += hexEscape(c <= 0xFF ? 'x' : c <= 0xFFFF ? 'u' : 'U', c, c <= 0xFF ? 2 : c <= 0xFFFF ? 4 : 8);
    }
    return out;
}

}  // namespace

std::string yamlQuote(const std::string& text) { return "\"" + escaped(text, true) + "\""; }

bool yamlPrintableLine(std::string_view text) {
    for (std::size_t i = 0, length = 1; i < text.size(); i += length) {
        auto code = decodeUtf8(text, i, length);
        if (!code || !printableInLine(*code) || *code == '\t') return false;
    }
    return true;
}

std::string yamlCommentText(std::string_view text) { return escaped(text, false); }


}  // namespace cnx::sim
