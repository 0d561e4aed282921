#include "sim/scenario/load/yaml_quick_tree.h"

#include <yaml.h>

namespace cnx::sim::load {

namespace {

bool isAscii(std::string_view text) {
    unsigned char any = 0;
    for (char c : text) any |= static_cast<unsigned char>(c);
    return any < 0x80;
}

// A byte order mark anywhere, or a line break that libyaml counts and yaml-cpp
// does not (NEL U+0085, LS U+2028, PS U+2029).
bool hasUnicodeBreakOrBom(std::string_view text) {
    return text.find("\xC2\x85") != std::string_view::npos || text.find("\xE2\x80\xA8") != std::string_view::npos ||
           text.find("\xE2\x80\xA9") != std::string_view::npos || text.find("\xEF\xBB\xBF") != std::string_view::npos;
}

std::size_t utf8Width(unsigned char lead) {
    if (lead < 0x80) return 1;
    if ((lead >> 5) == 0x6) return 2;
    if ((lead >> 4) == 0xE) return 3;
    return 4;
}

// A `?` that starts a token: an explicit key (yaml-cpp marks what follows at
// the `?`), or in a flow collection a key indicator even before a non-blank
// (libyaml), where yaml-cpp reads something else. A `?` inside a token
// ("why?") is content to both.
bool hasQuestionToken(std::string_view text) {
    for (std::size_t at = text.find('?'); at != std::string_view::npos; at = text.find('?', at + 1)) {
        std::size_t before = at;
        while (before > 0 && text[before - 1] == ' ') --before;
        if (before == 0) return true;
        switch (text[before - 1]) {
            case '\n': case '-': case '{': case '[': case ',': case ':': return true;
            default: break;
        }
    }
    return false;
}

// The escapes of a double-quoted scalar's raw text that both parsers turn
// into the same one ASCII byte; anything else (\x, \u, \U, \N, \L, \P,
// \_, an escaped line break) is declined.
bool plainEscapesOnly(std::string_view raw) {
    for (std::size_t at = raw.find('\\'); at != std::string_view::npos; at = raw.find('\\', at + 2)) {
        if (at + 1 >= raw.size()) return false;
        switch (raw[at + 1]) {
            case '"': case '\\': case '/': case 'n': case 't': case 'r': case 'b': case 'f': case '0': case 'a':
            case 'v': case 'e': break;
            default: return false;
        }
    }
    return true;
}

// yaml-cpp's IsNullString: a plain scalar spelled so is a null node.
bool isNullSpelling(std::string_view s) { return s == "~" || s == "null" || s == "Null" || s == "NULL"; }

std::string_view valueOf(const yaml_event_t& e) {
    return {reinterpret_cast<const char*>(e.data.scalar.value), e.data.scalar.length};
}

}  // namespace

YamlQuickTree::YamlQuickTree(std::string_view text) : text_(text) {
    ascii_ = isAscii(text);
    // A tab is separation to libyaml in places where yaml-cpp refuses it
    // (`{ a:\t b }`); \r and Unicode breaks end lines for libyaml only.
    // (One memchr each: find_first_of would test every byte against the set.)
    if (text.find('\t') != std::string_view::npos || text.find('\r') != std::string_view::npos ||
        hasQuestionToken(text))
        decline();
    if (!ascii_ && hasUnicodeBreakOrBom(text)) decline();
}

YAML::Mark YamlQuickTree::markOf(const yaml_mark_t& at) {
    YAML::Mark m;
    m.line = static_cast<int>(at.line);
    if (ascii_) {
        m.pos = static_cast<int>(at.index);
        m.column = static_cast<int>(at.column);
        return m;
    }
    // Marks come in text order, so one cursor walks the text once; a step
    // back (not expected) starts it again from the top.
    if (at.index < charAt_) charAt_ = byteAt_ = lineStartByte_ = 0;
    while (charAt_ < at.index && byteAt_ < text_.size()) {
        auto c = static_cast<unsigned char>(text_[byteAt_]);
        byteAt_ += utf8Width(c);
        ++charAt_;
        if (c == '\n') lineStartByte_ = byteAt_;
    }
    m.pos = static_cast<int>(byteAt_);
    m.column = static_cast<int>(byteAt_ - lineStartByte_);
    return m;
}

YamlNodeData* YamlQuickTree::add(YamlKind kind, const YAML::Mark& at) {
    YamlNodeData& n = docs_.nodes_->emplace_back();
    n.kind = kind;
    n.mark = at;
    if (open_.empty()) {
        docs_.roots_.emplace_back(&n);
        return &n;
    }
    Open& parent = open_.back();
    if (parent.node->kind == YamlKind::sequence) {
        parent.node->items.emplace_back(&n);
    } else if (parent.key == nullptr) {
        parent.key = &n;
    } else {
        parent.node->pairs.push_back({YamlRef(parent.key), YamlRef(&n)});
        parent.key = nullptr;
    }
    return &n;
}

bool YamlQuickTree::scalar(const yaml_event_t& e) {
    if (e.data.scalar.anchor || e.data.scalar.tag) return false;
    const std::string_view value = valueOf(e);
    const YAML::Mark start = markOf(e.start_mark);
    const bool oneLine = e.start_mark.line == e.end_mark.line;
    switch (e.data.scalar.style) {
        case YAML_PLAIN_SCALAR_STYLE:
            if (value.empty()) return emptyValue();
            if (!oneLine) return false;  // folded lines
            // In a flow collection yaml-cpp ends a plain scalar at `?`, and at
            // a `:` before `,`, `]` or `}`; libyaml reads on.
            if (!open_.empty() && open_.back().flow && (value.find('?') != std::string_view::npos || value.back() == ':'))
                return false;
            if (isNullSpelling(value)) {
                add(YamlKind::null, start);
                return true;
            }
            break;
        case YAML_SINGLE_QUOTED_SCALAR_STYLE:
            if (!oneLine) return false;
            break;
        case YAML_DOUBLE_QUOTED_SCALAR_STYLE: {
            if (!oneLine) return false;
            // Escapes: only where the raw text between the quotes has none.
            const auto from = static_cast<std::size_t>(start.pos);
            const auto to = static_cast<std::size_t>(markOf(e.end_mark).pos);
            if (to <= from || to > text_.size() || !plainEscapesOnly(text_.substr(from + 1, to - from - 2)))
                return false;
            break;
        }
        case YAML_LITERAL_SCALAR_STYLE:
        case YAML_FOLDED_SCALAR_STYLE:
            // At the end of a text without a final line break yaml-cpp folds
            // a last line of indentation into a space ("a: >\n  x\n  " is
            // "x " to it, "x\n" to libyaml).
            if (!text_.ends_with('\n')) return false;
            // libyaml takes `|` or `>` at a block sequence's own column
            // (`-\n|\n  x`) as the item; yaml-cpp refuses it.
            if (!open_.empty() && start.column <= open_.back().column) return false;
            break;
        default: return false;
    }
    add(YamlKind::scalar, start)->scalar.assign(value);
    return true;
}

// `key:` with nothing after it in a block mapping: yaml-cpp marks the null
// value where the next token starts, which is the next key of the same
// mapping or the mapping's end. Only the first is taken: the mark is set when
// that key comes (observe).
bool YamlQuickTree::emptyValue() {
    if (open_.empty() || open_.back().node->kind != YamlKind::map || open_.back().flow || !open_.back().key)
        return false;
    pendingNull_ = add(YamlKind::null, YAML::Mark::null_mark());
    return true;
}

bool YamlQuickTree::collection(const yaml_event_t& e, YamlKind kind) {
    const bool sequence = kind == YamlKind::sequence;
    if (sequence ? (e.data.sequence_start.anchor || e.data.sequence_start.tag)
                 : (e.data.mapping_start.anchor || e.data.mapping_start.tag))
        return false;
    const bool flow = sequence ? e.data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE
                               : e.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE;
    // What the node starts with: `[`/`{` for flow, `-` for a block sequence, a
    // key for a block mapping (not `?`, an explicit key).
    const YAML::Mark at = markOf(e.start_mark);
    if (at.pos < 0 || static_cast<std::size_t>(at.pos) >= text_.size()) return false;
    const char first = text_[static_cast<std::size_t>(at.pos)];
    if (flow ? first != (sequence ? '[' : '{') : sequence ? first != '-' : first == '?') return false;
    open_.push_back({add(kind, at), nullptr, flow, at.column});
    return true;
}

void YamlQuickTree::observe(const yaml_event_t& e) {
    if (declined_) return;
    if (pendingNull_) {
        // The next key of the mapping that holds the empty value.
        const bool nextNode =
            e.type == YAML_SCALAR_EVENT || e.type == YAML_SEQUENCE_START_EVENT || e.type == YAML_MAPPING_START_EVENT;
        if (!nextNode || open_.empty() || open_.back().key) return decline();
        pendingNull_->mark = markOf(e.start_mark);
        pendingNull_ = nullptr;
    }
    bool taken = true;
    switch (e.type) {
        case YAML_STREAM_START_EVENT: taken = e.data.stream_start.encoding == YAML_UTF8_ENCODING; break;
        case YAML_STREAM_END_EVENT: ended_ = true; break;
        case YAML_DOCUMENT_START_EVENT:
            taken = !e.data.document_start.version_directive &&
                    e.data.document_start.tag_directives.start == e.data.document_start.tag_directives.end;
            break;
        case YAML_DOCUMENT_END_EVENT: taken = e.data.document_end.implicit != 0; break;
        case YAML_SCALAR_EVENT: taken = scalar(e); break;
        case YAML_SEQUENCE_START_EVENT: taken = collection(e, YamlKind::sequence); break;
        case YAML_MAPPING_START_EVENT: taken = collection(e, YamlKind::map); break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            taken = !open_.empty() && open_.back().key == nullptr;
            if (taken) open_.pop_back();
            break;
        case YAML_ALIAS_EVENT:
        case YAML_NO_EVENT: taken = false; break;
    }
    if (!taken) decline();
}

std::optional<YamlDocuments> YamlQuickTree::take() {
    if (declined_ || !ended_ || !open_.empty()) return std::nullopt;
    declined_ = true;  // taken once
    return std::move(docs_);
}

std::string quickTreeDifference(std::string_view text) {
    std::size_t documents = 0;
    YamlQuickTree quick(text);
    if (precheckYaml(text, {}, &documents, &quick)) return {};
    auto taken = quick.take();
    if (!taken) return {};
    YamlDocuments reference;
    try {
        YAML::Mark extra;
        if (!reference.parse(text, documents, &extra)) return "yaml-cpp reads more documents than libyaml";
    } catch (const std::exception& e) {
        return std::string("the quick tree took a text yaml-cpp refuses: ") + e.what();
    }
    std::string why;
    if (!sameDocuments(*taken, reference, &why)) return "quick against yaml-cpp: " + why;
    return {};
}

}  // namespace cnx::sim::load
