#pragma once
// The quick way to a scenario text's tree: built from the events libyaml reads
// in the precheck (sim/scenario/yaml_precheck.h), so that the text is parsed
// once, by the faster parser, instead of twice. yaml-cpp stays the reference:
// the tree must be the one YamlDocuments::parse builds from yaml-cpp's events,
// node for node, mark for mark (line, column and byte offset), scalar for
// scalar. So the quick tree takes only what both parsers are known to read
// alike, and declines the whole text at the first thing it does not take; the
// loader then parses that text with yaml-cpp as before, whose answer (and
// errors) stand. tests/unit/yaml_quick_tree_test.cpp and tests/fuzz/fuzz_loader.cc
// hold it to yaml-cpp's tree on every text it takes.
//
// Declined (yaml-cpp's marks or values differ there, or it is too rare to be
// worth the proof):
// - anchors, aliases, tags, %YAML/%TAG directives, an explicit document end `...`;
// - empty nodes (`- ` or `key:` with nothing after it), except a block
//   mapping's value followed by the next key: yaml-cpp marks an empty node at
//   the next token, libyaml at the `:` before;
// - tabs: libyaml reads a tab as separation where yaml-cpp refuses it;
// - text with a byte order mark, `\r`, or a Unicode line break (NEL, LS, PS):
//   libyaml starts a new line there, yaml-cpp's marks do not;
// - a flow mapping that is not written `{...}` (`[a: 1]`), an explicit key `?`;
// - a plain scalar in a flow collection with `?` in it or `:` at its end
//   (yaml-cpp ends the scalar there);
// - a plain or quoted scalar over several lines, and escapes other than the
//   one-byte ones (`\"`, `\\`, `\n`, ...) in a double-quoted scalar;
// - a block scalar (`|`, `>`) in a text that does not end with a line break
//   (yaml-cpp folds a last line of indentation there into a space), or whose
//   indicator is not to the right of its block collection's start (libyaml
//   takes `-\n|\n  x` as an item, yaml-cpp refuses it).
//
// libyaml counts columns and offsets in characters, yaml-cpp in bytes: marks
// are converted, so a line with `§` or `→` before a node keeps yaml-cpp's column.

#include <optional>
#include <string>
#include <string_view>

#include "sim/scenario/load/yaml_tree.h"
#include "sim/scenario/yaml_precheck.h"

struct yaml_mark_s;  // libyaml's yaml_mark_t

namespace cnx::sim::load {

class YamlQuickTree final : public YamlEventObserver {
public:
    /// `text` is what the precheck reads; it must outlive this object.
    explicit YamlQuickTree(std::string_view text);

    void observe(const yaml_event_s& event) override;

    /// The documents, after a precheck of the whole text found no problem;
    /// nullopt when the text was declined (parse it with yaml-cpp).
    std::optional<YamlDocuments> take();

private:
    struct Open {
        YamlNodeData* node;
        YamlNodeData* key;  // a mapping's key whose value has not come yet
        bool flow;
        int column;  // where the collection starts (bytes)
    };

    void decline() { declined_ = true; }
    bool scalar(const yaml_event_s& e);
    bool emptyValue();
    bool collection(const yaml_event_s& e, YamlKind kind);
    YamlNodeData* add(YamlKind kind, const YAML::Mark& at);
    YAML::Mark markOf(const yaml_mark_s& at);

    std::string_view text_;
    bool ascii_ = true;
    // Non-ASCII text: where the last converted mark was, in characters and bytes.
    std::size_t charAt_ = 0, byteAt_ = 0, lineStartByte_ = 0;
    YamlDocuments docs_;
    std::vector<Open> open_;
    YamlNodeData* pendingNull_ = nullptr;  // an empty value, marked when the next key comes
    bool declined_ = false;
    bool ended_ = false;  // the stream's end was seen
};

/// The quick tree held to yaml-cpp's on one text, for the tests and the
/// loader's fuzz target: empty when the precheck refuses the text, the quick
/// tree declines it, or it builds the tree yaml-cpp builds; else what differs
/// (yaml-cpp refusing a text the quick tree took counts as a difference).
std::string quickTreeDifference(std::string_view text);

}  // namespace cnx::sim::load
