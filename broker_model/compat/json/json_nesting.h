#pragma once
// The one guard every JSON entry point of the model applies before handing a
// text to nlohmann::json (issue 7 item 6). nlohmann's parser is iterative, but
// copying, comparing and dump() of the tree recurse once per level, and so do
// our own walkers; a document nested 100,000 deep overflowed the stack. The
// scan below is iterative and O(n), so it is safe on any input.
//
// The limit is Jackson's: StreamReadConstraints.DEFAULT_MAX_DEPTH = 1000
// (jackson-core 2.15+, jackson-core#943). What the broker answers past it
// depends on the parser of each path, and is said where the guard is used.

#include <cstddef>
#include <string>
#include <string_view>

namespace cnx::compat {

/// Jackson 2.15+ `StreamReadConstraints.getMaxNestingDepth()` default.
inline constexpr std::size_t kMaxJsonNesting = 1000;

/// The deepest container nesting (`{` / `[` levels) anywhere in `text`,
/// skipping string contents (with their escapes) and, when `comments`, `//`
/// and `/* */` comments. Stops counting early once `stopAbove` is exceeded
/// (returns a value > stopAbove then). Never fails; malformed text just
/// yields the depth of its brackets.
std::size_t jsonNestingDepth(std::string_view text, bool comments = false,
                             std::size_t stopAbove = static_cast<std::size_t>(-1));

/// Jackson 2.15+'s StreamConstraintsException, as `Throwable.toString()` renders it.
std::string jacksonNestingMessage(std::size_t limit = kMaxJsonNesting);

/// True when `text` nests deeper than `limit` (default kMaxJsonNesting).
inline bool jsonNestsDeeperThan(std::string_view text, std::size_t limit = kMaxJsonNesting, bool comments = false) {
    return jsonNestingDepth(text, comments, limit) > limit;
}

}  // namespace cnx::compat
