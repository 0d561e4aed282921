#pragma once
// A text cut to a bound, for what is shown or kept beside the model's answers
// (decision traces, `serve --trace` lines, the ERROR text of an answer that
// would pass the frame limit): a client may send a 4 MiB topic or producer
// name, or a schema whose refusal text embeds it twice, and none of that may
// be copied whole into every trace line kept. The cut never splits a UTF-8
// sequence and says how much was left out.

#include <cstddef>
#include <string>
#include <string_view>

namespace cnx {

/// Names (topic, producer, subscription) as traces show them.
inline constexpr std::size_t kShownNameBytes = 256;
/// A decision trace entry's detail.
inline constexpr std::size_t kTraceDetailBytes = 4096;

/// The marker a cut text ends with: "...[N more bytes]".
inline std::string cutMarker(std::size_t cutBytes) { return "...[" + std::to_string(cutBytes) + " more bytes]"; }

/// `text` when it has at most `max` bytes; else its first bytes (at most
/// `max`, the marker included, whole UTF-8 sequences only) and the marker.
inline std::string boundedText(std::string_view text, std::size_t max) {
    if (text.size() <= max) return std::string(text);
    std::size_t keep = 0;
    // The marker's length depends on the number it carries: at most 20 digits.
    std::size_t room = max > 40 ? max - 40 : 0;
    keep = room;
    while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0) == 0x80) --keep;  // not inside a sequence
    return std::string(text.substr(0, keep)) + cutMarker(text.size() - keep);
}

/// A name as a trace shows it (kShownNameBytes).
inline std::string shownName(std::string_view name) { return boundedText(name, kShownNameBytes); }

}  // namespace cnx
