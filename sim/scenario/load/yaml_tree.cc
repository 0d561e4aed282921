#include "sim/scenario/load/yaml_tree.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <sstream>

namespace cnx::sim::load {

namespace {
const std::string kEmpty;
}

YamlKind YamlRef::kind() const { return n_ ? n_->kind : YamlKind::null; }
const std::string& YamlRef::Scalar() const { return n_ && n_->kind == YamlKind::scalar ? n_->scalar : kEmpty; }
YAML::Mark YamlRef::Mark() const { return n_ ? n_->mark : YAML::Mark::null_mark(); }

std::size_t YamlRef::size() const {
    if (!n_) return 0;
    if (n_->kind == YamlKind::sequence) return n_->items.size();
    if (n_->kind == YamlKind::map) return n_->pairs.size();
    return 0;
}

std::span<const YamlRef> YamlRef::items() const {
    if (!n_ || n_->kind != YamlKind::sequence) return {};
    return n_->items;
}

std::span<const YamlRef::Pair> YamlRef::pairs() const {
    if (!n_ || n_->kind != YamlKind::map) return {};
    return n_->pairs;
}

// yaml-cpp's NodeBuilder (src/nodebuilder.cpp, 0.7.0), building YamlNodeData:
// a node is pushed when it starts and popped into its collection when it is
// complete; in a mapping every second popped node is the value of the key
// before it.
class YamlTreeBuilder : public YAML::EventHandler {
public:
    explicit YamlTreeBuilder(std::deque<YamlNodeData>& nodes) : nodes_(nodes) {}

    YamlRef takeRoot() {
        YamlRef r = root_;
        root_ = YamlRef();
        stack_.clear();
        keys_.clear();
        anchors_.clear();
        return r;
    }

    void OnDocumentStart(const YAML::Mark& mark) override {
        documentStart = mark;
        anchors_.assign(1, nullptr);  // anchors start at 1
    }
    void OnDocumentEnd() override {}

    void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        push(mark, anchor).kind = YamlKind::null;
        pop();
    }
    void OnAlias(const YAML::Mark&, YAML::anchor_t anchor) override {
        push(anchors_.at(anchor));
        pop();
    }
    void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor, const std::string& value) override {
        auto& n = push(mark, anchor);
        n.kind = YamlKind::scalar;
        n.scalar = value;
        pop();
    }
    void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                         YAML::EmitterStyle::value) override {
        push(mark, anchor).kind = YamlKind::sequence;
    }
    void OnSequenceEnd() override { pop(); }
    void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                    YAML::EmitterStyle::value) override {
        push(mark, anchor).kind = YamlKind::map;
        ++mapDepth_;
    }
    void OnMapEnd() override {
        --mapDepth_;
        pop();
    }

    YAML::Mark documentStart = YAML::Mark::null_mark();

private:
    YamlNodeData& push(const YAML::Mark& mark, YAML::anchor_t anchor) {
        YamlNodeData& n = nodes_.emplace_back();
        n.mark = mark;
        if (anchor) anchors_.push_back(&n);
        push(&n);
        return n;
    }

    void push(YamlNodeData* n) {
        const bool needsKey = !stack_.empty() && stack_.back()->kind == YamlKind::map && keys_.size() < mapDepth_;
        stack_.push_back(n);
        if (needsKey) keys_.push_back({n, false});
    }

    void pop() {
        if (stack_.size() == 1) {
            root_ = YamlRef(stack_.front());
            stack_.pop_back();
            return;
        }
        YamlNodeData* n = stack_.back();
        stack_.pop_back();
        YamlNodeData& collection = *stack_.back();
        if (collection.kind == YamlKind::sequence) {
            collection.items.emplace_back(n);
        } else if (collection.kind == YamlKind::map) {
            auto& key = keys_.back();
            if (key.second) {
                collection.pairs.push_back({YamlRef(key.first), YamlRef(n)});
                keys_.pop_back();
            } else {
                key.second = true;
            }
        }
    }

    std::deque<YamlNodeData>& nodes_;
    YamlRef root_;
    std::vector<YamlNodeData*> stack_;
    std::vector<std::pair<YamlNodeData*, bool>> keys_;  // a mapping's key, and whether its value follows
    std::vector<YamlNodeData*> anchors_{nullptr};
    std::size_t mapDepth_ = 0;
};

bool YamlDocuments::parse(std::string_view text, std::size_t maxDocuments, YAML::Mark* extraDocument) {
    std::istringstream in{std::string(text)};
    YAML::Parser parser(in);
    YamlTreeBuilder builder(*nodes_);
    while (parser.HandleNextDocument(builder)) {
        if (roots_.size() == maxDocuments) {
            if (extraDocument) *extraDocument = builder.documentStart;
            return false;
        }
        roots_.push_back(builder.takeRoot());
    }
    return true;
}

namespace {

std::string markText(const YAML::Mark& m) {
    return std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1) + " (offset " + std::to_string(m.pos) + ")";
}

std::string kindText(YamlKind k) {
    switch (k) {
        case YamlKind::null: return "null";
        case YamlKind::scalar: return "scalar";
        case YamlKind::sequence: return "sequence";
        case YamlKind::map: return "mapping";
    }
    return "?";
}

bool sameNode(const YamlRef& a, const YamlRef& b, std::string& why) {
    const YAML::Mark ma = a.Mark(), mb = b.Mark();
    if (a.kind() != b.kind()) {
        why = kindText(a.kind()) + " at " + markText(ma) + " against " + kindText(b.kind()) + " at " + markText(mb);
        return false;
    }
    if (ma.pos != mb.pos || ma.line != mb.line || ma.column != mb.column) {
        why = kindText(a.kind()) + " marked " + markText(ma) + " against " + markText(mb);
        return false;
    }
    if (a.Scalar() != b.Scalar()) {
        why = "scalar at " + markText(ma) + ": \"" + a.Scalar() + "\" against \"" + b.Scalar() + "\"";
        return false;
    }
    if (a.size() != b.size()) {
        why = kindText(a.kind()) + " at " + markText(ma) + " has " + std::to_string(a.size()) + " entries against " +
              std::to_string(b.size());
        return false;
    }
    for (std::size_t i = 0; i < a.items().size(); ++i) {
        if (!sameNode(a.items()[i], b.items()[i], why)) return false;
    }
    for (std::size_t i = 0; i < a.pairs().size(); ++i) {
        if (!sameNode(a.pairs()[i].first, b.pairs()[i].first, why)) return false;
        if (!sameNode(a.pairs()[i].second, b.pairs()[i].second, why)) return false;
    }
    return true;
}

}  // namespace

bool sameDocuments(const YamlDocuments& a, const YamlDocuments& b, std::string* difference) {
    std::string why;
    if (a.size() != b.size()) {
        why = std::to_string(a.size()) + " documents against " + std::to_string(b.size());
    } else {
        for (std::size_t i = 0; i < a.size() && why.empty(); ++i) {
            if (!sameNode(a[i], b[i], why) && why.empty()) why = "document " + std::to_string(i + 1);
        }
    }
    if (difference) *difference = why;
    return why.empty();
}

}  // namespace cnx::sim::load
