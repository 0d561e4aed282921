#include "sim/explore/yaml_text.h"

#include "sim/run/expectation.h"
#include "sim/run/yaml_text.h"

namespace cnx::sim::explore::detail {
namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isWordChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || isDigit(c) || c == '_' || c == '.' || c == '-' ||
           c == '/';
}

bool allDigits(std::string_view s) {
    if (s.empty() || s.size() > 18) return false;
    for (char c : s) {
        if (!isDigit(c)) return false;
    }
    return true;
}

// A word that YAML reads back as this very string: no indicator first, not a
// number (other than a plain integer, which the loader reads as its text), not
// one of the core schema's null or boolean spellings of another meaning.
bool plainWord(std::string_view s) {
    if (s.empty()) return false;
    if (allDigits(s)) return true;
    if (isDigit(s[0]) || s[0] == '-' || s[0] == '.' || s[0] == '/') return false;
    for (char c : s) {
        if (!isWordChar(c)) return false;
    }
    for (std::string_view reserved : {"null", "Null", "NULL", "y", "Y", "n", "N", "yes", "Yes", "YES", "no", "No",
                                      "NO", "on", "On", "ON", "off", "Off", "OFF"}) {
        if (s == reserved) return false;
    }
    return true;
}

}  // namespace

std::string quoted(std::string_view text) {
    bool single = text.find('"') != std::string_view::npos && text.find('\'') == std::string_view::npos &&
                  yamlPrintableLine(text);
    return single ? "'" + std::string(text) + "'" : yamlQuote(std::string(text));
}

std::string scalar(std::string_view text) { return plainWord(text) ? std::string(text) : quoted(text); }

}  // namespace cnx::sim::explore::detail
