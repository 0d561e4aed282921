#pragma once
// Internal to avro_resolve.cc (split out by concern, included there only):
// the Resolver, which builds the resolving grammar of a (writer, reader) pair.

#include "broker_model/compat/avro/avro_default_encoder.h"
#include "broker_model/compat/avro/avro_writer_names.h"

namespace cnx::compat::avro::resolve {

// ---- Resolver ----

class FastPass;

class Resolver {
    friend class FastPass;

public:
    Resolver(const Schema& w, const Schema& r, const Rules& rules)
        : w_(w), r_(r), rules_(rules), names_(w, r, rules.applyAliases), encoder_(r) {
        acts_.reserve(w.nodeCount() + 16);  // about one action per writer node reached
    }

    ActionId run() { return resolve(w_.root, r_.root, 0); }
    ActionId run(NodeId w, NodeId r) { return resolve(w, r, 0); }
    const std::vector<Action>& actions() const { return acts_; }
    const Schema& writer() const { return w_; }
    const Schema& reader() const { return r_; }
    /// Calls of the type rules and reader-union branches scanned so far (Resolution::work).
    std::uint64_t work() const { return work_; }

private:
    ActionId add(Action a) {
        acts_.push_back(std::move(a));
        return static_cast<ActionId>(acts_.size() - 1);
    }

    ActionId simple(Kind k, NodeId w, NodeId r) {
        Action a;
        a.kind = k;
        a.w = w;
        a.r = r;
        return add(std::move(a));
    }

    std::string readerFull(NodeId r) const {
        const Node& n = r_.at(r);
        return isNamed(n.type) ? n.name.full : std::string(to_string_view(n.type));
    }

    ActionId error(NodeId w, NodeId r, ErrorType e, std::string suffix = {}) {
        Action a;
        a.kind = Kind::error;
        a.w = w;
        a.r = r;
        a.error = e;
        a.message = "Found " + names_.fullOf(w) + ", expecting " + readerFull(r) + suffix;
        return add(std::move(a));
    }

    bool namesMatch(NodeId w, NodeId r) const {
        return rules_.shortNames ? names_.shortName(w) == r_.at(r).name.name : names_.full(w) == r_.at(r).name.full;
    }

    ActionId resolve(NodeId w, NodeId r, int depth) {
        ++work_;
        if (depth > kMaxDepth) stackOverflow();
        const Node& W = w_.at(w);
        const Node& R = r_.at(r);
        if (W.type == Type::union_) return writerUnion(w, r, depth);
        if (W.type == R.type) return sameType(w, r, depth);
        if (R.type == Type::union_) return readerUnion(w, r, depth);
        return promote(w, r);
    }

    ActionId sameType(NodeId w, NodeId r, int depth) {
        const Node& W = w_.at(w);
        switch (W.type) {
            case Type::fixed:
                if (!namesMatch(w, r)) return error(w, r, ErrorType::namesDontMatch);
                if (W.size != r_.at(r).size) return error(w, r, ErrorType::sizesDontMatch);
                return simple(Kind::doNothing, w, r);
            case Type::enumeration:
                // §6.3: names compared, symbols never an error (decode-time only).
                return namesMatch(w, r) ? simple(Kind::enumAdjust, w, r) : error(w, r, ErrorType::namesDontMatch);
            case Type::array:
            case Type::map: {
                ActionId c = resolve(W.items, r_.at(r).items, depth + 1);
                ActionId id = simple(Kind::container, w, r);
                acts_[id].children.push_back(c);
                return id;
            }
            case Type::record: return record(w, r, depth);
            case Type::union_: return writerUnion(w, r, depth);
            case Type::string:
            case Type::bytes:
            case Type::int_:
            case Type::long_:
            case Type::float_:
            case Type::double_:
            case Type::boolean:
            case Type::null: return simple(Kind::doNothing, w, r);
        }
        return simple(Kind::doNothing, w, r);
    }

    static bool promotable(Type w, Type r) {  // §6.3 promotions
        switch (r) {
            case Type::long_: return w == Type::int_;
            case Type::float_: return w == Type::int_ || w == Type::long_;
            case Type::double_: return w == Type::int_ || w == Type::long_ || w == Type::float_;
            case Type::bytes: return w == Type::string;
            case Type::string: return w == Type::bytes;
            case Type::record:
            case Type::enumeration:
            case Type::array:
            case Type::map:
            case Type::union_:
            case Type::fixed:
            case Type::int_:
            case Type::boolean:
            case Type::null: return false;
        }
        return false;
    }

    ActionId promote(NodeId w, NodeId r) {
        if (promotable(w_.at(w).type, r_.at(r).type)) return simple(Kind::promote, w, r);
        return error(w, r, ErrorType::incompatibleTypes);
    }

    // ---- unions ----

    ActionId writerUnion(NodeId w, NodeId r, int depth) {
        // Java builds a new `seen` map per call; sharing one across calls is
        // the same answer when nothing is in progress between calls (no cycle)
        // and no call can overflow (issue 7 item 9: a chain of unions was quadratic).
        std::unordered_map<std::uint64_t, bool> local;
        auto& seen = memoIsContextFree(depth) ? sharedEquivSeen_ : local;
        // 1.8.2 resolveUnion has no equivalence shortcut: every writer branch
        // is resolved against the whole reader union (bestBranch).
        bool equiv = rules_.equivUnionIsSimple && unionEquiv(w, r, seen, depth);
        const Node& W = w_.at(w);
        std::vector<ActionId> children;
        for (std::size_t i = 0; i < W.branches.size(); ++i) {
            children.push_back(resolve(W.branches[i], equiv ? r_.at(r).branches[i] : r, depth + 1));
        }
        ActionId id = simple(Kind::writerUnion, w, r);
        acts_[id].children = std::move(children);
        acts_[id].unionEquiv = equiv;
        return id;
    }

    bool unionEquiv(NodeId w, NodeId r, std::unordered_map<std::uint64_t, bool>& seen, int depth) {
        ++work_;
        if (depth > kMaxDepth) stackOverflow();
        const Node& W = w_.at(w);
        const Node& R = r_.at(r);
        if (W.type != R.type) return false;
        if (isNamed(W.type) && !namesMatchForEquiv(w, r)) return false;
        switch (W.type) {
            case Type::array:
            case Type::map: return unionEquiv(W.items, R.items, seen, depth + 1);
            case Type::fixed: return W.size == R.size;
            case Type::enumeration: return W.symbols == R.symbols;
            case Type::union_: return branchesEquiv(W, R, seen, depth);
            case Type::record: return recordsEquiv(w, r, seen, depth);
            case Type::string:
            case Type::bytes:
            case Type::int_:
            case Type::long_:
            case Type::float_:
            case Type::double_:
            case Type::boolean:
            case Type::null: return true;
        }
        return false;
    }

    bool namesMatchForEquiv(NodeId w, NodeId r) const {
        return rules_.shortNames ? names_.shortName(w) == r_.at(r).name.name : names_.full(w) == r_.at(r).name.full;
    }

    bool branchesEquiv(const Node& W, const Node& R, std::unordered_map<std::uint64_t, bool>& seen, int depth) {
        if (W.branches.size() != R.branches.size()) return false;
        for (std::size_t i = 0; i < W.branches.size(); ++i) {
            if (!unionEquiv(W.branches[i], R.branches[i], seen, depth + 1)) return false;
        }
        return true;
    }

    bool recordsEquiv(NodeId w, NodeId r, std::unordered_map<std::uint64_t, bool>& seen, int depth) {
        std::uint64_t key = (std::uint64_t{w} << 32) | r;
        auto it = seen.find(key);
        if (it != seen.end()) return it->second;
        seen[key] = true;  // optimistic, as Avro
        const Node& W = w_.at(w);
        const Node& R = r_.at(r);
        bool eq = W.fields.size() == R.fields.size();
        for (std::size_t i = 0; eq && i < W.fields.size(); ++i) {
            if (rules_.equivComparesFieldNames && names_.fieldName(w, static_cast<std::uint32_t>(i)) != R.fields[i].name) eq = false;
            else eq = unionEquiv(W.fields[i].type, R.fields[i].type, seen, depth + 1);
        }
        seen[key] = eq;
        return eq;
    }

    ActionId readerUnion(NodeId w, NodeId r, int depth) {
        int j = firstMatchingBranch(w, r, depth);
        if (j < 0) return error(w, r, ErrorType::noMatchingBranch);
        ActionId c = resolve(w, r_.at(r).branches[static_cast<std::size_t>(j)], depth + 1);
        ActionId id = simple(Kind::readerUnion, w, r);
        acts_[id].children.push_back(c);
        acts_[id].firstMatch = j;
        return id;
    }

    // ---- linear shortcuts (issue 7 item 9), exact where they apply ----

    /// True when no resolution started at `depth` can throw or overflow, so
    /// that skipping or sharing work cannot change the answer: both schemas
    /// are acyclic with no aliases, every reader default encodes, and the
    /// deepest recursion from here stays below kMaxDepth. A step advances both
    /// sides (records, containers, equivalence) or one side out of a union, so
    /// a path has at most max(longest paths) + the union edges of both sides.
    bool memoIsContextFree(int depth) {
        if (w_.recursive || r_.recursive || w_.hasAliases || r_.hasAliases || !w_.compact.ready || !r_.compact.ready) return false;
        const CompactSchema& a = w_.compact;
        const CompactSchema& b = r_.compact;
        std::int64_t reach = std::int64_t{depth} + std::max(a.maxDepth, b.maxDepth) + a.maxUnionDepth + b.maxUnionDepth + 4;
        return reach < kMaxDepth && readerDefaultsEncode();
    }

    bool readerDefaultsEncode() {
        if (!defaultsEncode_) defaultsEncode_ = everyDefaultEncodes();
        return *defaultsEncode_;
    }

    bool everyDefaultEncodes() {
        try {
            for (const Node& n : r_.nodes()) {
                if (n.type != Type::record) continue;
                for (const Field& f : n.fields) {
                    if (f.defaultValue) checkDefault(f);
                }
            }
        } catch (const Thrown&) {
            return false;
        }
        return true;
    }

    /// Per reader union: the first branch of each unnamed type and of each
    /// (named type, full name); built once per union.
    struct UnionIndex {
        std::array<int, 14> firstOfType;
        std::unordered_map<std::string, int> firstNamed;  // type letter + full name
    };

    static std::string namedKey(Type t, const std::string& full) { return std::string(1, static_cast<char>('a' + static_cast<int>(t))) + full; }

    const UnionIndex& unionIndex(NodeId r) {
        auto [it, fresh] = unionIndex_.try_emplace(r);
        if (!fresh) return it->second;
        UnionIndex& ix = it->second;
        ix.firstOfType.fill(-1);
        const auto& branches = r_.at(r).branches;
        work_ += branches.size();
        for (std::size_t j = 0; j < branches.size(); ++j) {
            const Node& B = r_.at(branches[j]);
            auto& first = ix.firstOfType[static_cast<std::size_t>(B.type)];
            if (first < 0) first = static_cast<int>(j);
            if (isNamed(B.type)) ix.firstNamed.try_emplace(namedKey(B.type, B.name.full), static_cast<int>(j));
        }
        return ix;
    }

    /// firstMatchingBranch's answer when it is a same-type branch found by
    /// lookup: the first of an unnamed type, or the first with W's full name.
    /// For a record W only when the structural probes the scan would run on
    /// earlier record branches cannot throw (their results are then unused).
    std::optional<int> indexedMatch(NodeId w, NodeId r, int depth) {
        const Node& W = w_.at(w);
        if (W.type == Type::record && !memoIsContextFree(depth)) return std::nullopt;
        const UnionIndex& ix = unionIndex(r);
        if (!isNamed(W.type)) {
            int j = ix.firstOfType[static_cast<std::size_t>(W.type)];
            return j >= 0 ? std::optional<int>(j) : std::nullopt;
        }
        auto it = ix.firstNamed.find(namedKey(W.type, names_.full(w)));
        return it == ix.firstNamed.end() ? std::nullopt : std::optional<int>(it->second);
    }

    // Resolver.ReaderUnion.firstMatchingBranch ("taken verbatim from 1.8.x").
    int firstMatchingBranch(NodeId w, NodeId r, int depth) {
        if (auto j = indexedMatch(w, r, depth)) return *j;
        const Node& W = w_.at(w);
        const auto& branches = r_.at(r).branches;
        int structureMatch = -1;
        for (std::size_t j = 0; j < branches.size(); ++j) {
            ++work_;
            const Node& B = r_.at(branches[j]);
            if (B.type != W.type) continue;
            if (!isNamed(W.type)) return static_cast<int>(j);
            if (names_.full(w) == B.name.full) return static_cast<int>(j);
            if (W.type == Type::record && !hasMatchError(record(w, branches[j], depth + 1))) {
                if (structureMatch < 0 || names_.shortName(w) == B.name.name) structureMatch = static_cast<int>(j);
            }
        }
        if (structureMatch >= 0) return structureMatch;
        for (std::size_t j = 0; j < branches.size(); ++j) {
            ++work_;
            if (unionPromotes(W.type, r_.at(branches[j]).type, rules_.unionPromotesToFloat)) return static_cast<int>(j);
        }
        return -1;
    }

    static bool unionPromotes(Type w, Type b, bool toFloat) {
        switch (w) {
            case Type::int_: return b == Type::long_ || b == Type::double_ || (toFloat && b == Type::float_);
            case Type::long_: return b == Type::double_ || (toFloat && b == Type::float_);
            case Type::float_: return b == Type::double_;
            case Type::string: return b == Type::bytes;
            case Type::bytes: return b == Type::string;
            case Type::record:
            case Type::enumeration:
            case Type::array:
            case Type::map:
            case Type::union_:
            case Type::fixed:
            case Type::double_:
            case Type::boolean:
            case Type::null: return false;
        }
        return false;
    }

    bool isError(ActionId a) const { return acts_[a].kind == Kind::error || acts_[a].shadow != kNone; }

    bool hasMatchError(ActionId a) const {
        if (isError(a)) return true;
        for (ActionId c : acts_[a].children) {
            if (isError(c)) return true;
        }
        return false;
    }

    // ---- records: names never compared (§6.3) ----

    ActionId record(NodeId w, NodeId r, int depth) {
        std::uint64_t key = (std::uint64_t{w} << 32) | r;
        auto it = seen_.find(key);
        if (it != seen_.end()) return it->second;
        if (rules_.missingCheckFirst) {
            if (auto missing = firstMissing(w, r)) return seen_[key] = missingError(w, r, *missing);
        }
        ActionId id = simple(Kind::record, w, r);
        seen_[key] = id;
        resolveWriterFields(id, w, r, depth);
        for (std::uint32_t j = 0; j < r_.at(r).fields.size(); ++j) {
            const Field& rf = r_.at(r).fields[j];
            if (names_.hasFieldAt(w, j, rf.name)) continue;
            if (!rf.defaultValue) return shadowWithMissing(id, key, w, r);
            checkDefault(rf);
            acts_[id].defaults.push_back(j);
        }
        return id;
    }

    // Reader field `name`, trying position `at` first: fields mostly keep their positions.
    static const Field* readerField(const Node& R, std::uint32_t at, const std::string& name) {
        if (at < R.fields.size() && R.fields[at].name == name) return &R.fields[at];
        return R.field(name);
    }

    void resolveWriterFields(ActionId id, NodeId w, NodeId r, int depth) {
        const Node& W = w_.at(w);
        acts_[id].children.reserve(W.fields.size());
        acts_[id].readerField.reserve(W.fields.size());
        for (std::uint32_t i = 0; i < W.fields.size(); ++i) {
            const Node& R = r_.at(r);
            const Field* rf = readerField(R, i, names_.fieldName(w, i));
            ActionId c = rf ? resolve(W.fields[i].type, rf->type, depth + 1) : simple(Kind::skip, W.fields[i].type, 0);
            acts_[id].children.push_back(c);
            acts_[id].readerField.push_back(rf ? static_cast<std::uint32_t>(rf - R.fields.data()) : 0);
        }
    }

    std::optional<std::uint32_t> firstMissing(NodeId w, NodeId r) const {
        const auto& fields = r_.at(r).fields;
        for (std::uint32_t j = 0; j < fields.size(); ++j) {
            if (!names_.hasField(w, fields[j].name) && !fields[j].defaultValue) return j;
        }
        return std::nullopt;
    }

    std::optional<std::uint32_t> lastMissing(NodeId w, NodeId r) const {
        const auto& fields = r_.at(r).fields;
        std::optional<std::uint32_t> last;
        for (std::uint32_t j = 0; j < fields.size(); ++j) {
            if (!names_.hasField(w, fields[j].name) && !fields[j].defaultValue) last = j;
        }
        return last;
    }

    ActionId missingError(NodeId w, NodeId r, std::uint32_t field) {
        auto named = rules_.missingNamesLastField ? lastMissing(w, r).value_or(field) : field;
        ActionId e = error(w, r, ErrorType::missingRequiredField, ", missing required field " + r_.at(r).fields[named].name);
        acts_[e].missingField = field;
        return e;
    }

    ActionId shadowWithMissing(ActionId id, std::uint64_t key, NodeId w, NodeId r) {
        ActionId e = missingError(w, r, *firstMissing(w, r));
        acts_[id].shadow = e;
        return seen_[key] = e;
    }

    // GenericData.getDefaultValue (1.9+) / getBinary (1.8.2): the default must encode.
    void checkDefault(const Field& rf) {
        const Node& t = r_.at(rf.type);
        bool nullable = t.type == Type::null || (t.type == Type::union_ && r_.at(t.branches.at(0)).type == Type::null);
        if (rules_.nullDefaultShortcut && rf.defaultValue->is_null() && nullable) return;
        encoder_.encode(rf.type, *rf.defaultValue);
    }

    const Schema& w_;
    const Schema& r_;
    Rules rules_;
    WriterNames names_;
    DefaultEncoder encoder_;
    std::vector<Action> acts_;
    std::unordered_map<std::uint64_t, ActionId> seen_;
    std::unordered_map<std::uint64_t, bool> sharedEquivSeen_;
    std::unordered_map<NodeId, UnionIndex> unionIndex_;
    std::optional<bool> defaultsEncode_;
    std::uint64_t work_ = 0;
};

}  // namespace cnx::compat::avro::resolve
