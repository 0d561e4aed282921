#include "sim/scenario/yaml_precheck.h"

#include <yaml.h>

#include <map>
#include <vector>

#include "sim/io/file_read.h"

namespace cnx::sim {
namespace {

// Owns a libyaml event for one iteration of the loop.
class Event {
public:
    Event() = default;
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    ~Event() {
        if (filled_) yaml_event_delete(&event_);
    }
    bool next(yaml_parser_t& parser) {
        if (filled_) yaml_event_delete(&event_);
        filled_ = yaml_parser_parse(&parser, &event_) != 0;
        return filled_;
    }
    const yaml_event_t& get() const { return event_; }

private:
    yaml_event_t event_{};
    bool filled_ = false;
};

// Owns the parser, reading from `text` (which must outlive it).
class Parser {
public:
    explicit Parser(std::string_view text) {
        yaml_parser_initialize(&parser_);
        yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(text.data()), text.size());
    }
    Parser(const Parser&) = delete;
    Parser& operator=(const Parser&) = delete;
    ~Parser() { yaml_parser_delete(&parser_); }
    yaml_parser_t& get() { return parser_; }

private:
    yaml_parser_t parser_{};
};

YamlProblem at(const yaml_mark_t& mark, std::string message) {
    return {static_cast<int>(mark.line) + 1, static_cast<int>(mark.column) + 1, std::move(message)};
}

// libyaml's own words: "did not find expected node content (while parsing a block node)".
YamlProblem syntaxProblem(const yaml_parser_t& parser) {
    std::string message = "invalid YAML: ";
    message += parser.problem ? parser.problem : "cannot be parsed";
    if (parser.context) message += std::string(" (") + parser.context + ")";
    if (parser.error == YAML_MEMORY_ERROR) message = "invalid YAML: out of memory";
    return at(parser.problem_mark, std::move(message));
}

std::string text(const yaml_char_t* s) { return s ? reinterpret_cast<const char*>(s) : ""; }

// libyaml reads `&a ...x` as a scalar "...x"; yaml-cpp 0.7.0 reads a document
// end there, disagrees about the documents, and loops on a ',' after it as on
// yaml-cpp#1040. Found by a differential run of random texts through both.
bool startsWithDocumentMarker(const yaml_event_t& e) {
    if (e.data.scalar.style != YAML_PLAIN_SCALAR_STYLE) return false;
    std::string_view value(reinterpret_cast<const char*>(e.data.scalar.value), e.data.scalar.length);
    return value.starts_with("---") || value.starts_with("...");
}

// Walks the events of one stream, counting what the limits bound.
class Walk {
public:
    explicit Walk(const YamlLimits& limits) : limits_(limits) {}

    /// One event; a problem ends the walk.
    std::optional<YamlProblem> step(const yaml_event_t& e) {
        switch (e.type) {
            case YAML_DOCUMENT_START_EVENT: anchors_.clear(); return std::nullopt;
            case YAML_SCALAR_EVENT: return scalar(e);
            case YAML_SEQUENCE_START_EVENT: return open(e, e.data.sequence_start.anchor);
            case YAML_MAPPING_START_EVENT: return open(e, e.data.mapping_start.anchor);
            case YAML_SEQUENCE_END_EVENT:
            case YAML_MAPPING_END_EVENT: close(); return std::nullopt;
            case YAML_ALIAS_EVENT: return alias(e);
            case YAML_NO_EVENT:
            case YAML_STREAM_START_EVENT:
            case YAML_STREAM_END_EVENT:
            case YAML_DOCUMENT_END_EVENT: return std::nullopt;
        }
        return std::nullopt;
    }

private:
    struct Open {
        std::string anchor;  // empty: none
        std::size_t nodesBefore;
    };

    std::optional<YamlProblem> count(const yaml_mark_t& mark, std::size_t n) {
        nodes_ = n > limits_.maxNodes - std::min(nodes_, limits_.maxNodes) ? limits_.maxNodes + 1 : nodes_ + n;
        if (nodes_ <= limits_.maxNodes) return std::nullopt;
        return at(mark, "the file holds more than " + std::to_string(limits_.maxNodes) +
                            " YAML nodes (aliases counted as what they expand to); giving up");
    }

    std::optional<YamlProblem> scalar(const yaml_event_t& e) {
        if (e.data.scalar.length > limits_.maxScalarBytes)
            return at(e.start_mark, "a YAML scalar of " + sizeText(e.data.scalar.length) + " is over the " +
                                        sizeText(limits_.maxScalarBytes) + " limit for one value");
        if (startsWithDocumentMarker(e))
            return at(e.start_mark, "a plain scalar may not start with '---' or '...' (yaml-cpp reads a document "
                                    "marker there); quote it");
        if (auto p = count(e.start_mark, 1)) return p;
        if (e.data.scalar.anchor) anchors_[text(e.data.scalar.anchor)] = 1;
        return std::nullopt;
    }

    std::optional<YamlProblem> open(const yaml_event_t& e, const yaml_char_t* anchor) {
        if (static_cast<int>(open_.size()) >= limits_.maxDepth)
            return at(e.start_mark, "YAML nested too deeply (at most " + std::to_string(limits_.maxDepth) +
                                        " levels of mappings and sequences)");
        if (auto p = count(e.start_mark, 1)) return p;
        open_.push_back({text(anchor), nodes_ - 1});
        if (anchor) anchors_.erase(open_.back().anchor);  // redefined: the old node is gone from here on
        return std::nullopt;
    }

    void close() {
        if (open_.empty()) return;  // libyaml pairs them; defensive only
        Open o = std::move(open_.back());
        open_.pop_back();
        if (!o.anchor.empty()) anchors_[o.anchor] = nodes_ - o.nodesBefore;
    }

    std::optional<YamlProblem> alias(const yaml_event_t& e) {
        std::string name = text(e.data.alias.anchor);
        auto it = anchors_.find(name);
        if (it != anchors_.end()) return count(e.start_mark, it->second);
        for (const Open& o : open_) {
            if (o.anchor == name)
                return at(e.start_mark, "the YAML alias *" + name + " refers to a node that contains it");
        }
        return at(e.start_mark, "the YAML alias *" + name + " refers to no anchor &" + name + " before it");
    }

    const YamlLimits& limits_;
    std::vector<Open> open_;
    std::map<std::string, std::size_t> anchors_;  // anchor -> nodes it expands to
    std::size_t nodes_ = 0;
};

}  // namespace

std::optional<YamlProblem> precheckYaml(std::string_view input, const YamlLimits& limits, std::size_t* documents,
                                        YamlEventObserver* observer) {
    Parser parser(input);
    Walk walk(limits);
    Event event;
    std::size_t count = 0;
    for (;;) {
        if (!event.next(parser.get())) return syntaxProblem(parser.get());
        if (auto problem = walk.step(event.get())) return problem;
        if (observer) observer->observe(event.get());
        if (event.get().type == YAML_DOCUMENT_START_EVENT) ++count;
        if (event.get().type == YAML_STREAM_END_EVENT) {
            if (documents) *documents = count;
            return std::nullopt;
        }
    }
}

std::string yamlCppExtraDocumentMessage(std::size_t documents) {
    return "invalid YAML: yaml-cpp 0.7.0, which reads scenario files, finds more than the " + std::to_string(documents) +
           " document(s) of this text and would never stop (yaml-cpp#1040); quote the scalar before this point";
}

}  // namespace cnx::sim
