#include "broker_model/compat/json/json_nesting.h"

namespace cnx::compat {
namespace {

// Index just past the string starting at t[i] == '"' (or t.size() if unterminated).
std::size_t skipString(std::string_view t, std::size_t i) {
    for (++i; i < t.size(); ++i) {
        if (t[i] == '\\') ++i;
        else if (t[i] == '"') return i + 1;
    }
    return t.size();
}

// Index just past the comment starting at t[i] == '/', or i + 1 if none starts there.
std::size_t skipComment(std::string_view t, std::size_t i) {
    if (t.compare(i, 2, "//") == 0) {
        auto nl = t.find('\n', i);
        return nl == std::string_view::npos ? t.size() : nl + 1;
    }
    if (t.compare(i, 2, "/*") == 0) {
        auto close = t.find("*/", i + 2);
        return close == std::string_view::npos ? t.size() : close + 2;
    }
    return i + 1;
}

}  // namespace

std::string jacksonNestingMessage(std::size_t limit) {
    return "com.fasterxml.jackson.core.exc.StreamConstraintsException: Document nesting depth (" +
           std::to_string(limit + 1) + ") exceeds the maximum allowed (" + std::to_string(limit) +
           ", from `StreamReadConstraints.getMaxNestingDepth()`)";
}

std::size_t jsonNestingDepth(std::string_view text, bool comments, std::size_t stopAbove) {
    std::size_t depth = 0, deepest = 0;
    std::size_t i = 0;
    while (i < text.size() && deepest <= stopAbove) {
        char c = text[i];
        if (c == '"') {
            i = skipString(text, i);
            continue;
        }
        if (c == '/' && comments) {
            i = skipComment(text, i);
            continue;
        }
        if (c == '{' || c == '[') {
            if (++depth > deepest) deepest = depth;
        } else if ((c == '}' || c == ']') && depth > 0) {
            --depth;
        }
        ++i;
    }
    return deepest;
}

}  // namespace cnx::compat
