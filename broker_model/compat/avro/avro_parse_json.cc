// How the full parser (avro_parse.cc) reads a definition's text as Jackson
// does: the first JSON value (comments allowed), Jackson's nesting limit, its
// syntax error, and from Avro 1.11.3 the "dangling content" after the value.
#include <cctype>
#include <string>
#include <string_view>

#include "broker_model/compat/avro/avro_parse_internal.h"
#include "broker_model/compat/avro/avro_parse_rules.h"
#include "broker_model/compat/avro/avro_schema.h"
#include "broker_model/compat/json/json_nesting.h"

namespace cnx::compat::avro::parse_json {

namespace {

using parse_rules::versionAtLeast;

// ---- top-level JSON: Jackson reads the first value; the rest is "dangling" ----

// Returns the end offset of the first JSON value in `text` (after leading
// whitespace and comments); npos when
// the value never closes.
struct ValueExtent {
    std::size_t begin = 0;
    std::size_t end = std::string_view::npos;
};

std::size_t skipSpaceAndComments(std::string_view t, std::size_t i) {
    while (i < t.size()) {
        if (std::isspace(static_cast<unsigned char>(t[i]))) {
            ++i;
        } else if (t.compare(i, 2, "//") == 0) {
            auto nl = t.find('\n', i);
            i = nl == std::string_view::npos ? t.size() : nl + 1;
        } else if (t.compare(i, 2, "/*") == 0) {
            auto close = t.find("*/", i + 2);
            i = close == std::string_view::npos ? t.size() : close + 2;
        } else {
            break;
        }
    }
    return i;
}

std::size_t skipString(std::string_view t, std::size_t i) {  // t[i] == '"'
    for (++i; i < t.size(); ++i) {
        if (t[i] == '\\') ++i;
        else if (t[i] == '"') return i + 1;
    }
    return std::string_view::npos;
}

ValueExtent firstValue(std::string_view t) {
    ValueExtent v;
    std::size_t i = v.begin = skipSpaceAndComments(t, 0);
    if (i >= t.size()) return v;
    if (t[i] != '{' && t[i] != '[') {
        if (t[i] == '"') {
            v.end = skipString(t, i);
            return v;
        }
        while (i < t.size() && !std::isspace(static_cast<unsigned char>(t[i])) && std::string_view(",:]}{[\"/").find(t[i]) == std::string_view::npos) ++i;
        v.end = i;
        return v;
    }
    int depth = 0;
    while (i < t.size()) {
        char c = t[i];
        if (c == '"') {
            i = skipString(t, i);
            if (i == std::string_view::npos) return v;
            continue;
        }
        if (c == '/' && (t.compare(i, 2, "//") == 0 || t.compare(i, 2, "/*") == 0)) {
            i = skipSpaceAndComments(t, i);
            continue;
        }
        if (c == '{' || c == '[') ++depth;
        if (c == '}' || c == ']') {
            if (--depth == 0) {
                v.end = i + 1;
                return v;
            }
        }
        ++i;
    }
    return v;
}

std::string trimmed(std::string_view s) {
    auto b = s.find_first_not_of(" \t\n\r\f\v");
    if (b == std::string_view::npos) return {};
    return std::string(s.substr(b, s.find_last_not_of(" \t\n\r\f\v") - b + 1));
}

// Jackson's JsonParseException text cannot be reproduced exactly: the class is
// right, the sentence is nlohmann's (UNCONFIRMED wording).
JavaException jsonSyntaxError(const std::string& what) {
    return {std::string(exception_class::kAvroSchemaParse), "com.fasterxml.jackson.core.JsonParseException: " + what};
}

JavaException jacksonTooDeep() {
    return {std::string(exception_class::kAvroSchemaParse), jacksonNestingMessage()};
}

// Dangling-content check: present in the 1.11.x parser read; assumed from 1.11.3 (UNCONFIRMED for 1.9/1.10).
std::optional<JavaException> danglingContent(std::string_view text, std::size_t end, const ParseOptions& opt) {
    if (versionAtLeast(opt.version, AvroVersion::v1_11_3) && end != std::string_view::npos) {
        std::string rest = trimmed(text.substr(end));
        if (!rest.empty()) return JavaException{std::string(exception_class::kAvroSchemaParse), "dangling content after end of schema: " + rest};
    }
    return std::nullopt;
}

}  // namespace

// Jackson's readTree of the definition into `tape` (no root: no content).
// An object or array goes through JsonTape's reader first; whatever it does
// not take (and every other text) goes through nlohmann, kept in `holder`,
// as before: depth guard, nlohmann's parse and its error, dangling content.
std::optional<JavaException> readJson(std::string_view text, const ParseOptions& opt, JsonTape& tape, std::optional<Json>& holder) {
    std::size_t start = skipSpaceAndComments(text, 0);
    if (enabled(opt.fastPaths) && start < text.size() && (text[start] == '{' || text[start] == '[')) {
        std::size_t end = 0;
        if (tape.read(text, start, &end)) return danglingContent(text, end, opt);  // read() ends where firstValue() does
    }
    ValueExtent v = firstValue(text);
    if (v.begin >= text.size()) return std::nullopt;  // no content: readTree returns null
    std::string_view valueText = v.end == std::string_view::npos ? text.substr(v.begin) : text.substr(v.begin, v.end - v.begin);
    // Jackson 2.15+ StreamReadConstraints (UNCONFIRMED per Avro version: older
    // Jacksons have no limit and overflow the stack somewhere deeper).
    if (jsonNestsDeeperThan(valueText, kMaxJsonNesting, /*comments=*/true)) return jacksonTooDeep();
    try {
        holder = Json::parse(valueText, nullptr, true, true);
    } catch (const Json::exception& e) {
        return jsonSyntaxError(e.what());
    }
    if (auto e = danglingContent(text, v.end, opt)) return e;
    tape.adopt(*holder);
    return std::nullopt;
}

}  // namespace cnx::compat::avro::parse_json
