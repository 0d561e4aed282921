#pragma once
// The documents of a scenario text as the loader reads them: yaml-cpp's parser
// (its events, its marks, its errors) builds a compact tree of our own instead
// of yaml-cpp's Node graph. A YAML::Node costs several allocations, a
// shared_ptr and a set insertion per node and as much again to free; here a
// node is one slot of a deque, and the text is parsed once (the bound on the
// number of documents, yaml-cpp#1040, is kept in the same pass).
//
// The tree mirrors yaml-cpp's NodeBuilder exactly: an alias is the anchored
// node itself (its mark included), a mapping keeps every pair in file order
// (duplicates too), an empty document is a null node without a mark.

#include <yaml-cpp/mark.h>

#include <cstddef>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cnx::sim::load {

enum class YamlKind { null, scalar, sequence, map };

struct YamlNodeData;

/// A node of a YamlDocuments tree (or the null node): a pointer, cheap to copy.
/// It is valid while its YamlDocuments lives.
class YamlRef {
public:
    struct Pair;

    YamlRef() = default;
    explicit YamlRef(const YamlNodeData* n) : n_(n) {}

    YamlKind kind() const;
    bool IsNull() const { return kind() == YamlKind::null; }
    bool IsScalar() const { return kind() == YamlKind::scalar; }
    bool IsSequence() const { return kind() == YamlKind::sequence; }
    bool IsMap() const { return kind() == YamlKind::map; }
    /// The scalar's text; empty for any other node.
    const std::string& Scalar() const;
    /// Where the node starts; Mark::null_mark() for the null node without a place.
    YAML::Mark Mark() const;
    /// Items of a sequence, pairs of a mapping; 0 otherwise.
    std::size_t size() const;
    /// The items of a sequence (empty for any other node).
    std::span<const YamlRef> items() const;
    /// The pairs of a mapping in file order (empty for any other node).
    std::span<const Pair> pairs() const;

private:
    const YamlNodeData* n_ = nullptr;
};

struct YamlRef::Pair {
    YamlRef first;
    YamlRef second;
};

struct YamlNodeData {
    YamlKind kind = YamlKind::null;
    YAML::Mark mark = YAML::Mark::null_mark();
    std::string scalar;
    std::vector<YamlRef> items;         // sequence
    std::vector<YamlRef::Pair> pairs;   // mapping
};

/// The documents of one text, and the nodes they are made of.
class YamlDocuments {
public:
    YamlDocuments() = default;
    YamlDocuments(const YamlDocuments&) = delete;
    YamlDocuments& operator=(const YamlDocuments&) = delete;
    YamlDocuments(YamlDocuments&&) = default;
    YamlDocuments& operator=(YamlDocuments&&) = default;

    std::size_t size() const { return roots_.size(); }
    bool empty() const { return roots_.empty(); }
    YamlRef operator[](std::size_t i) const { return roots_[i]; }
    /// Adds an empty document (a null root).
    void addEmpty() { roots_.emplace_back(); }

    /// Parses `text` with yaml-cpp, at most `maxDocuments` documents. Throws
    /// what yaml-cpp's parser throws (YAML::ParserException and kin). When the
    /// text holds more, answers false and `*extraDocument` is where the first
    /// one too many starts.
    bool parse(std::string_view text, std::size_t maxDocuments, YAML::Mark* extraDocument);

private:
    friend class YamlTreeBuilder;
    friend class YamlQuickTree;
    std::unique_ptr<std::deque<YamlNodeData>> nodes_ = std::make_unique<std::deque<YamlNodeData>>();
    std::vector<YamlRef> roots_;
};

/// Whether two trees are the same node for node: kinds, marks (offset, line,
/// column), scalars, items and pairs in order. When not, `*difference` (if
/// given) says where they first part. For the tests that hold the quick tree
/// (yaml_quick_tree.h) to yaml-cpp's.
bool sameDocuments(const YamlDocuments& a, const YamlDocuments& b, std::string* difference = nullptr);

}  // namespace cnx::sim::load
