#include "sim/report/shorten.h"

#include <cctype>
#include <string_view>

namespace cnx::sim {
namespace {

// The end (one past the closing bracket) of the JSON object or array opening
// at `at`, or npos when the brackets do not balance. Strings are skipped, so
// brackets inside them do not count.
std::size_t jsonEnd(const std::string& s, std::size_t at) {
    int depth = 0;
    bool inString = false;
    for (std::size_t i = at; i < s.size(); ++i) {
        char c = s[i];
        if (inString) {
            if (c == '\\') ++i;
            else if (c == '"') inString = false;
            continue;
        }
        if (c == '"') inString = true;
        else if (c == '{' || c == '[') ++depth;
        else if (c == '}' || c == ']') {
            if (--depth == 0) return i + 1;
        }
    }
    return std::string::npos;
}

// Folds the whitespace at the end of `out` (line breaks included) into one space.
void foldTrailingSpace(std::string& out) {
    std::size_t n = out.size();
    while (n > 0 && (out[n - 1] == ' ' || out[n - 1] == '\n' || out[n - 1] == '\r' || out[n - 1] == '\t')) --n;
    if (n == out.size()) return;
    out.resize(n);
    out += ' ';
}

}  // namespace

std::string elideEmbeddedJson(const std::string& text) {
    std::string out;
    std::size_t left = 0;
    for (std::size_t i = 0; i < text.size();) {
        char c = text[i];
        std::size_t end = (c == '{' || c == '[') ? jsonEnd(text, i) : std::string::npos;
        if (end == std::string::npos || end - i <= kEmbeddedJsonLimit) {
            out += c;
            ++i;
            continue;
        }
        foldTrailingSpace(out);
        out += c == '{' ? "{…}" : "[…]";
        left += end - i;
        i = end;
        while (i < text.size() && (text[i] == '\n' || text[i] == '\r' || text[i] == ' ' || text[i] == '\t')) ++i;
        if (i < text.size()) out += ' ';
    }
    if (left == 0) return text;
    return out + " [" + std::to_string(left) + " characters of embedded JSON left out]";
}

std::string oneLineMessage(const std::string& text, bool verboseHint) {
    auto out = elideEmbeddedJson(text);
    bool cut = out != text;
    // Java exception class names chained before the words: "a.b.FooException: c.d.BarException: msg",
    // "Error during ... FULL: org.apache.avro.SchemaValidationException: msg" -> the words only.
    auto nameChar = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '$'; };
    for (std::size_t i = 0; i < out.size();) {
        if (!nameChar(out[i]) || (i > 0 && nameChar(out[i - 1]))) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < out.size() && nameChar(out[j])) ++j;
        std::string_view name(out.data() + i, j - i);
        bool exception = name.find('.') != std::string_view::npos &&
                         (name.ends_with("Exception") || name.ends_with("Error"));
        if (exception && out.compare(j, 2, ": ") == 0) {
            out.erase(i, j + 2 - i);
            continue;
        }
        i = j;
    }
    // The first cause only: Avro appends " caused by <the same chain again>".
    if (auto by = out.find(" caused by "); by != std::string::npos) out.resize(by), cut = true;
    if (auto eol = out.find_first_of("\r\n"); eol != std::string::npos) out.resize(eol), cut = true;
    if (auto note = out.find(" [") ; note != std::string::npos && out.ends_with(" left out]")) out.resize(note);
    if (!cut) return out;
    return out + (verboseHint ? " \xe2\x80\xa6 (-v: the full message)" : " \xe2\x80\xa6");
}

}  // namespace cnx::sim
