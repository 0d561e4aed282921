#pragma once
// A sequence diagram, model-neutral: participants (lifelines) and the
// messages between them in order, drawn as inline SVG (HTML report) or as a
// mermaid `sequenceDiagram` (Markdown report). It knows nothing of scenarios;
// sim/report/scenario_diagram.h builds one from a run.

#include <cstddef>
#include <string>
#include <vector>

namespace cnx::sim {

struct SequenceMessage {
    std::size_t from = 0;  // participant index
    std::size_t to = 0;
    std::string label;
    bool reply = false;      // drawn dashed (an answer)
    bool highlight = false;  // the failing step: drawn in red
};

struct SequenceDiagram {
    std::vector<std::string> participants;
    std::vector<SequenceMessage> messages;

    /// The index of `name`, added at the end when new.
    std::size_t participant(const std::string& name);
    void add(std::size_t from, std::size_t to, std::string label, bool reply, bool highlight);
};

/// `label` as at most `maxLines` lines of at most `width` monospace cells
/// (a wide East Asian character takes two), broken at spaces where a word
/// fits, inside a word where none does; the last line ends in "…" when text
/// is left over. Whole code points only. At least one line.
std::vector<std::string> wrapLabel(const std::string& label, std::size_t width, std::size_t maxLines);

/// `<svg>` ... `</svg>`, every text escaped for HTML/XML. Labels are set in
/// monospace, each inside the span of its arrow (wrapped to two lines, five
/// for a failing step, then cut with "…") and carried whole in its `<title>`;
/// rows grow with their labels' lines, so no label reaches another row's
/// arrow or a lifeline beyond its own arrow. `id` prefixes the element ids
/// (arrow heads), unique per diagram of a page.
std::string toSvg(const SequenceDiagram& diagram, const std::string& id = "seq");

/// A mermaid `sequenceDiagram` (without the fence): participants aliased
/// P0, P1, ... so names cannot break the syntax; characters mermaid reads as
/// syntax in a text (`#`, `;`, `<`, `>`, `%`, `&`, quotes, backticks, line
/// ends) as mermaid entity codes; highlighted messages inside a red `rect`.
std::string toMermaid(const SequenceDiagram& diagram);

/// `s` as text safe in XML/HTML character data and attribute values (invalid
/// UTF-8 and characters XML forbids become U+FFFD; markup characters entities).
std::string htmlEscape(const std::string& s);

}  // namespace cnx::sim
