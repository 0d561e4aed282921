#pragma once
// Text as YAML holds it, for everything cnxsim writes into scenarios (`--accept`,
// recordings). yamlQuote (sim/run/expectation.h) is defined beside these
// (yaml_text.cc): quotes, backslashes and control characters escaped (`\n`,
// `\t`, `\r`, `\xNN`), and so is every character YAML does not print (C1
// controls, U+2028, U+FFFE, ... as `\xNN`, `\uNNNN`), so it reads back as the
// same UTF-8. A byte that starts no valid UTF-8 sequence has no YAML form
// (YAML holds only Unicode): it is written as the text `\xNN`.

#include <string>
#include <string_view>

namespace cnx::sim {

/// Whether `text` can be written between single quotes on one line as it is:
/// valid UTF-8 of characters YAML prints, with no tab and no line break.
bool yamlPrintableLine(std::string_view text);

/// `text` made fit for a `#` comment line: escaped as yamlQuote escapes it, without quotes.
std::string yamlCommentText(std::string_view text);

}  // namespace cnx::sim
