#pragma once
// Short forms of broker texts for failure blocks (issue 9 item 3): a refusal's
// message can embed whole schemas (Avro's "Unable to read schema: {...} using
// schema: {...}"); a failure block shows the checker's problem paths instead,
// and the message with its embedded JSON left out; `cnxsim explain` too
// (issue 13), unless -v asks for the full text.

#include <cstddef>
#include <string>

namespace cnx::sim {

/// Embedded JSON objects and arrays longer than this are left out.
inline constexpr std::size_t kEmbeddedJsonLimit = 60;

/// `text` with every embedded JSON object or array longer than
/// kEmbeddedJsonLimit replaced by "{…}" / "[…]", line breaks around them
/// folded into spaces, and a note of how many characters were left out.
/// A text with nothing to leave out is returned unchanged.
std::string elideEmbeddedJson(const std::string& text);

/// A broker message as one line (issue 13): embedded JSON elided, cut at the
/// first line break that remains (marked "…"). `run` and `explain` print
/// this and the checker's problem list; `-v` prints the full message, and
/// a shortened text says so unless `verboseHint` is false (a diagram's label,
/// whose tooltip has the whole text).
std::string oneLineMessage(const std::string& text, bool verboseHint = true);

}  // namespace cnx::sim
