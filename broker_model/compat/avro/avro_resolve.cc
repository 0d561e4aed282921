#include "broker_model/compat/avro/avro_resolve.h"

#include <array>
#include <algorithm>
#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>

// Sources read (apache/avro lang/java/avro): io/parsing/ResolvingGrammarGenerator.java
// (pre-1.9 self-contained generator and the 1.9+ Resolver-based one),
// Resolver.java (1.11.1+ text), io/parsing/Symbol.java (hasErrors with and
// without a visited set, flatten/flattenedSize), ValidateMutualRead.java,
// Schema.applyAliases/getAliases. Written from those, not copied.

namespace cnx::compat::avro {
namespace {

// ---- version switches (§6.3; one place) ----

struct Rules {
    bool applyAliases;          // Resolver.resolve applies Schema.applyAliases (1.9+; 1.8.2 ignored aliases)
    bool shortNames;            // enum/fixed names compared unqualified (1.11.1+, AVRO-3133)
    bool enumDefaults;          // enum "default" exists (1.9+)
    bool visitedHasErrors;      // Symbol.hasErrors keeps a visited set (1.9+); 1.8.2 recursed forever through unions
    bool equivUnionIsSimple;    // equivalent writer/reader unions generate no resolution at all (1.9+)
    bool equivComparesFieldNames;  // unionEquiv compares record field names (read in the 1.11.1+ Resolver; UNCONFIRMED for 1.9–1.11.0)
    bool missingCheckFirst;     // 1.8.2 resolveRecords reports a missing field before resolving any field
    bool missingNamesLastField; // Resolver's message names the *last* missing field; 1.8.2 the first
    bool nullDefaultShortcut;   // GenericData.getDefaultValue skips encoding null for null / [null,...] (1.9+)
    bool unionPromotesToFloat;  // a reader-union branch is chosen by int->float / long->float (1.9+);
                                // 1.8.2 bestBranch: int->long|double, long->double, float->double only
};

Rules rulesFor(AvroVersion v) {
    switch (v) {
        case AvroVersion::v1_8_2: return {false, false, false, false, false, false, true, false, false, false};
        case AvroVersion::v1_9_1:
        case AvroVersion::v1_10_2: return {true, false, true, true, true, false, false, true, true, true};
        case AvroVersion::v1_11_3:
        case AvroVersion::v1_11_4:
        case AvroVersion::v1_12_0: return {true, true, true, true, true, true, false, true, true, true};
    }
    return {true, true, true, true, true, true, false, true, true, true};
}

constexpr int kMaxDepth = 20000;  // beyond this our model declares a Java StackOverflowError

struct Thrown {
    JavaException e;
};

[[noreturn]] void stackOverflow() { throw Thrown{{std::string(kStackOverflowError), ""}}; }

enum class ErrorType { incompatibleTypes, namesDontMatch, sizesDontMatch, missingRequiredField, noMatchingBranch };

std::string_view problemKind(ErrorType e) {
    switch (e) {
        case ErrorType::incompatibleTypes: return "type_mismatch";
        case ErrorType::namesDontMatch: return "name_mismatch";
        case ErrorType::sizesDontMatch: return "fixed_size_mismatch";
        case ErrorType::missingRequiredField: return "reader_field_missing_default_value";
        case ErrorType::noMatchingBranch: return "missing_union_branch";
    }
    return "type_mismatch";
}

enum class Kind { doNothing, error, promote, container, enumAdjust, skip, record, writerUnion, readerUnion };

using ActionId = std::uint32_t;
constexpr ActionId kNone = 0xFFFFFFFFu;

struct Action {
    Kind kind = Kind::doNothing;
    NodeId w = 0, r = 0;
    ErrorType error = ErrorType::incompatibleTypes;
    std::string message;             // Avro's ErrorAction text
    std::uint32_t missingField = 0;  // reader field index for missingRequiredField
    std::vector<ActionId> children;  // record: per writer field; union: per writer branch; container/readerUnion: one
    std::vector<std::uint32_t> readerField;  // record: reader field index per writer field (skip: unused)
    std::vector<std::uint32_t> defaults;  // record: reader fields filled from defaults
    int firstMatch = -1;
    bool unionEquiv = false;
    ActionId shadow = kNone;  // record whose pair later resolved to an error
};

// ---- the writer as Schema.applyAliases(writer, reader) would rename it ----

class WriterNames {
public:
    WriterNames(const Schema& w, const Schema& r, bool apply) : w_(w) {
        // Without a reader alias nothing is renamed: skip the O(n) passes below.
        if (!apply || !r.hasAliases || schemaEquals(w, r)) return;
        collect(r);
        if (aliases_.empty() && fieldAliases_.empty()) return;
        rename();
    }

    const std::string& full(NodeId id) const { return renamed(id) ? renamed_.at(id).full : w_.at(id).name.full; }
    const std::string& shortName(NodeId id) const { return renamed(id) ? renamed_.at(id).name : w_.at(id).name.name; }

    const std::string& fieldName(NodeId rec, std::uint32_t i) const {
        auto it = fields_.find(rec);
        return it == fields_.end() ? w_.at(rec).fields[i].name : it->second.names[i];
    }

    // hasField, trying writer field `at` first: fields mostly keep their positions.
    bool hasFieldAt(NodeId rec, std::uint32_t at, const std::string& name) const {
        if (at < w_.at(rec).fields.size() && fieldName(rec, at) == name) return true;
        return hasField(rec, name);
    }

    bool hasField(NodeId rec, const std::string& name) const {
        auto it = fields_.find(rec);
        if (it == fields_.end()) return w_.at(rec).field(name) != nullptr;
        return it->second.index.count(name) != 0;
    }

    // Avro getFullName(): named types by name, others by type name.
    std::string fullOf(NodeId id) const {
        const Node& n = w_.at(id);
        return isNamed(n.type) ? full(id) : std::string(to_string_view(n.type));
    }

private:
    struct RenamedFields {
        std::vector<std::string> names;
        std::unordered_map<std::string, std::uint32_t> index;
    };

    bool renamed(NodeId id) const { return renamed_.count(id) != 0; }

    void collect(const Schema& r) {  // Schema.getAliases over the reader
        std::vector<char> seen(r.nodes.size(), 0);
        std::vector<NodeId> stack{r.root};
        while (!stack.empty()) {
            NodeId id = stack.back();
            stack.pop_back();
            if (seen[id]) continue;
            seen[id] = 1;
            const Node& n = r.at(id);
            for (const Name& a : n.aliases) aliases_[a.full] = n.name;
            if (n.type == Type::record) collectFields(n, stack);
            if (n.type == Type::array || n.type == Type::map) stack.push_back(n.items);
            for (NodeId b : n.branches) stack.push_back(b);
        }
    }

    void collectFields(const Node& n, std::vector<NodeId>& stack) {
        for (const Field& f : n.fields) {
            for (const auto& a : f.aliases) fieldAliases_[n.name.full][a] = f.name;
            stack.push_back(f.type);
        }
        auto it = fieldAliases_.find(n.name.full);
        if (it == fieldAliases_.end()) return;
        auto copy = it->second;
        for (const Name& a : n.aliases) fieldAliases_[a.full] = copy;
    }

    void rename() {
        for (NodeId id = 0; id < w_.nodes.size(); ++id) {
            const Node& n = w_.at(id);
            if (!isNamed(n.type)) continue;
            auto it = aliases_.find(n.name.full);
            if (it != aliases_.end()) renamed_[id] = it->second;
            if (n.type == Type::record) renameFields(id);
        }
    }

    void renameFields(NodeId id) {
        const Node& n = w_.at(id);
        auto fa = fieldAliases_.find(full(id));
        if (fa == fieldAliases_.end()) return;
        RenamedFields rf;
        for (std::uint32_t i = 0; i < n.fields.size(); ++i) {
            auto a = fa->second.find(n.fields[i].name);
            rf.names.push_back(a == fa->second.end() ? n.fields[i].name : a->second);
            auto [pos, inserted] = rf.index.emplace(rf.names.back(), i);
            if (!inserted) duplicateField(id, rf, i, pos->second);
        }
        fields_[id] = std::move(rf);
    }

    [[noreturn]] void duplicateField(NodeId id, const RenamedFields& rf, std::uint32_t i, std::uint32_t j) const {
        const Node& n = w_.at(id);
        auto desc = [&](std::uint32_t k) {
            std::string t(to_string_view(w_.at(n.fields[k].type).type));
            std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
            return rf.names[k] + " type:" + t + " pos:" + std::to_string(k);
        };
        throw Thrown{{std::string(exception_class::kAvroRuntime),
                      "Duplicate field " + rf.names[i] + " in record " + full(id) + ": " + desc(i) + " and " + desc(j) + "."}};
    }

    const Schema& w_;
    std::unordered_map<std::string, Name> aliases_;
    std::unordered_map<std::string, std::unordered_map<std::string, std::string>> fieldAliases_;
    std::unordered_map<NodeId, Name> renamed_;
    std::unordered_map<NodeId, RenamedFields> fields_;
};

// ---- ResolvingGrammarGenerator.encode: the default must encode (§6.3) ----

class DefaultEncoder {
public:
    explicit DefaultEncoder(const Schema& s) : s_(s) {}

    void encode(NodeId t, const Json& v, int depth = 0) {
        if (depth > kMaxDepth) stackOverflow();
        const Node& n = s_.at(t);
        switch (n.type) {
            case Type::record: return encodeRecord(n, v, depth);
            case Type::enumeration: return encodeEnum(n, v);
            case Type::array: return encodeArray(n, v, depth);
            case Type::map: return encodeMap(n, v, depth);
            case Type::union_: return encode(n.branches.at(0), v, depth + 1);
            case Type::fixed: return require(v.is_string(), "Non-string default value for fixed: ", v);
            case Type::string: return require(v.is_string(), "Non-string default value for string: ", v);
            case Type::bytes: return require(v.is_string(), "Non-string default value for bytes: ", v);
            case Type::int_: return require(v.is_number(), "Non-numeric default value for int: ", v);
            case Type::long_: return require(v.is_number(), "Non-numeric default value for long: ", v);
            case Type::float_: return require(v.is_number(), "Non-numeric default value for float: ", v);
            case Type::double_: return require(v.is_number(), "Non-numeric default value for double: ", v);
            case Type::boolean: return require(v.is_boolean(), "Non-boolean default for boolean: ", v);
            case Type::null: return require(v.is_null(), "Non-null default value for null type: ", v);
        }
    }

private:
    static void require(bool ok, std::string_view what, const Json& v) {
        if (!ok) throw Thrown{{std::string(kAvroTypeException), std::string(what) + jacksonCompact(v)}};
    }

    void encodeRecord(const Node& n, const Json& v, int depth) {
        for (const Field& f : n.fields) {
            const Json* value = nullptr;
            if (v.is_object()) {
                auto it = v.find(f.name);
                if (it != v.end()) value = &*it;
            }
            if (value == nullptr && f.defaultValue) value = &*f.defaultValue;
            if (value == nullptr) throw Thrown{{std::string(kAvroTypeException), "No default value for: " + f.name}};
            encode(f.type, *value, depth + 1);
        }
    }

    static void encodeEnum(const Node& n, const Json& v) {
        // getEnumOrdinal(textValue()) unboxes a missing ordinal: NullPointerException (message UNCONFIRMED).
        bool known = v.is_string() && std::find(n.symbols.begin(), n.symbols.end(), v.get<std::string>()) != n.symbols.end();
        if (!known) throw Thrown{{std::string(kNullPointerException), ""}};
    }

    void encodeArray(const Node& n, const Json& v, int depth) {  // Jackson iterates array elements or object values
        if (!v.is_array() && !v.is_object()) return;
        for (const auto& item : v) encode(n.items, item, depth + 1);
    }

    void encodeMap(const Node& n, const Json& v, int depth) {  // fieldNames() of an object only
        if (!v.is_object()) return;
        for (const auto& [k, item] : v.items()) encode(n.items, item, depth + 1);
    }

    const Schema& s_;
};

// ---- Resolver ----

class FastPass;

class Resolver {
    friend class FastPass;

public:
    Resolver(const Schema& w, const Schema& r, const Rules& rules)
        : w_(w), r_(r), rules_(rules), names_(w, r, rules.applyAliases), encoder_(r) {
        acts_.reserve(w.nodes.size() + 16);  // about one action per writer node reached
    }

    ActionId run() { return resolve(w_.root, r_.root, 0); }
    ActionId run(NodeId w, NodeId r) { return resolve(w, r, 0); }
    const std::vector<Action>& actions() const { return acts_; }
    const Schema& writer() const { return w_; }
    const Schema& reader() const { return r_; }

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
            for (const Node& n : r_.nodes) {
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
};

// ---- the fast "no error anywhere?" pass ----

// Walks the (writer, reader) pairs in the Resolver's order, on the schemas'
// CompactSchema tables, building nothing: no actions, no messages, no
// allocation in steady state. It answers only "compatible" (no error action
// and no exception anywhere in the grammar) or "don't know" (bail): the full
// Resolver then runs and builds the grammar, its verdict and its problems.
//
// It is only entered where "no error action, no exception" implies the full
// verdict is compatible under every rule set (see FastPass::applies): neither
// schema recursive (so FlattenCheck cannot fire, the 1.8.2 hasErrors search
// meets no symbol twice and its default-value grammars cannot loop), no
// reader alias to apply (the writer's names are its own), and the nesting
// bounded well below kMaxDepth. It bails on the first error, on a reader
// union where Resolver would resolve a record branch speculatively, on a
// default that does not encode, and when it exceeds a linear work budget
// (pairs revisited without the Resolver's memo).
class FastPass {
public:
    FastPass(const Schema& w, const Schema& r, const Rules& rules)
        : w_(w), r_(r), cw_(w.compact), cr_(r.compact), rules_(rules),
          budget_(16 * static_cast<std::int64_t>(w.nodes.size() + r.nodes.size()) + 1024) {}

    static bool applies(const Schema& w, const Schema& r, const Rules& rules) {
        if (!w.compact.ready || !r.compact.ready) return false;
        if (w.compact.nodes.size() != w.nodes.size() || r.compact.nodes.size() != r.nodes.size()) return false;
        if (w.recursive || r.recursive) return false;
        // Bounded nesting: every depth the Resolver, the 1.8.2 hasErrors search
        // (also over a defaulted reader field's own grammar) and the default
        // encoder reach stays far below kMaxDepth.
        if (std::max(w.compact.maxDepth, r.compact.maxDepth) > static_cast<std::uint32_t>(kMaxFastDepth)) return false;
        if (rules.applyAliases && r.hasAliases) return false;
        // 1.8.2 hasErrors also searches generate(T, T) of each defaulted reader
        // field; there a reader union with two record branches makes the
        // Resolver try one record's structure against the other, which can throw.
        if (!rules.visitedHasErrors && r.compact.severalRecordBranches) return false;
        return true;
    }

    /// True: the full resolution finds no error and throws nothing.
    bool compatible() {
        Scratch& s = scratch();
        s.marks.clear();
        s.memo.assign(w_.nodes.size(), 0);
        scratch_ = &s;
        return resolve(w_.root, r_.root, 0);
    }

private:
    static constexpr int kMaxFastDepth = 1000;  // deeper: the Resolver decides (its limit is kMaxDepth)

    struct Scratch {
        std::vector<std::uint8_t> marks;   // reader fields matched, a stack segment per record being resolved
        std::vector<std::uint32_t> memo;   // writer record -> reader record + 1 resolved without error
    };
    static Scratch& scratch() {
        thread_local Scratch s;
        return s;
    }

    using CNode = CompactSchema::CNode;
    using CField = CompactSchema::CField;

    bool resolve(NodeId w, NodeId r, int depth) {
        if (depth > kMaxFastDepth || --budget_ < 0) return false;
        const CNode& W = cw_.nodes[w];
        const CNode& R = cr_.nodes[r];
        if (W.type == Type::union_) return writerUnion(w, r, depth);
        if (W.type == R.type) return sameType(w, r, depth);
        if (R.type == Type::union_) return readerUnion(w, r, depth);
        return Resolver::promotable(W.type, R.type);
    }

    bool namesMatch(NodeId w, NodeId r) const {
        const Node& W = w_.at(w);
        const Node& R = r_.at(r);
        return rules_.shortNames ? W.name.name == R.name.name : W.name.full == R.name.full;
    }

    bool sameType(NodeId w, NodeId r, int depth) {
        const CNode& W = cw_.nodes[w];
        switch (W.type) {
            case Type::fixed: return namesMatch(w, r) && w_.at(w).size == r_.at(r).size;
            case Type::enumeration: return namesMatch(w, r);
            case Type::array:
            case Type::map: return resolve(W.a, cr_.nodes[r].a, depth + 1);
            case Type::record: return record(w, r, depth);
            case Type::union_: return writerUnion(w, r, depth);
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

    // ---- unions ----

    bool writerUnion(NodeId w, NodeId r, int depth) {
        const CNode& W = cw_.nodes[w];
        if (W.b == 0) return false;
        bool equiv = false;
        if (rules_.equivUnionIsSimple) {
            int e = unionEquiv(w, r, depth);
            if (e < 0) return false;
            equiv = e == 1;
        }
        // As the Resolver: every branch is resolved (an error under an
        // equivalent union would be ignored there; here it only bails).
        for (std::uint32_t i = 0; i < W.b; ++i) {
            NodeId wb = cw_.branches[W.a + i];
            NodeId rb = equiv ? cr_.branches[cr_.nodes[r].a + i] : r;
            if (!resolve(wb, rb, depth + 1)) return false;
        }
        return true;
    }

    // Resolver::unionEquiv without its memo (neither schema is recursive):
    // 1 equivalent, 0 not, -1 bail.
    int unionEquiv(NodeId w, NodeId r, int depth) {
        if (depth > kMaxFastDepth || --budget_ < 0) return -1;
        const CNode& W = cw_.nodes[w];
        const CNode& R = cr_.nodes[r];
        if (W.type != R.type) return 0;
        if (isNamed(W.type) && !namesMatch(w, r)) return 0;
        switch (W.type) {
            case Type::array:
            case Type::map: return unionEquiv(W.a, R.a, depth + 1);
            case Type::fixed: return w_.at(w).size == r_.at(r).size ? 1 : 0;
            case Type::enumeration: return w_.at(w).symbols == r_.at(r).symbols ? 1 : 0;
            case Type::union_:
                if (W.b != R.b) return 0;
                for (std::uint32_t i = 0; i < W.b; ++i) {
                    int e = unionEquiv(cw_.branches[W.a + i], cr_.branches[R.a + i], depth + 1);
                    if (e != 1) return e;
                }
                return 1;
            case Type::record:
                if (W.b != R.b) return 0;
                for (std::uint32_t i = 0; i < W.b; ++i) {
                    const CField& wf = cw_.fields[W.a + i];
                    const CField& rf = cr_.fields[R.a + i];
                    if (rules_.equivComparesFieldNames && !sameName(wf, rf)) return 0;
                    int e = unionEquiv(wf.type, rf.type, depth + 1);
                    if (e != 1) return e;
                }
                return 1;
            case Type::string:
            case Type::bytes:
            case Type::int_:
            case Type::long_:
            case Type::float_:
            case Type::double_:
            case Type::boolean:
            case Type::null: return 1;
        }
        return 0;
    }

    bool readerUnion(NodeId w, NodeId r, int depth) {
        const CNode& W = cw_.nodes[w];
        const CNode& R = cr_.nodes[r];
        int match = -1;
        for (std::uint32_t j = 0; j < R.b && match < 0; ++j) {
            NodeId b = cr_.branches[R.a + j];
            if (cr_.nodes[b].type != W.type) continue;
            if (!isNamed(W.type) || w_.at(w).name.full == r_.at(b).name.full) match = static_cast<int>(j);
            else if (W.type == Type::record) return false;  // the Resolver would try the record's structure
        }
        for (std::uint32_t j = 0; j < R.b && match < 0; ++j) {
            if (Resolver::unionPromotes(W.type, cr_.nodes[cr_.branches[R.a + j]].type, rules_.unionPromotesToFloat)) {
                match = static_cast<int>(j);
            }
        }
        if (match < 0) return false;
        return resolve(w, cr_.branches[R.a + static_cast<std::uint32_t>(match)], depth + 1);
    }

    // ---- records ----

    bool sameName(const CField& a, const CField& b) const {
        return a.hash == b.hash && a.nameLen == b.nameLen && cw_.name(a) == cr_.name(b);
    }

    // Reader field of the writer field `wf` (writer position `at` tried first), or -1.
    std::int64_t readerField(const CNode& R, std::uint32_t at, const CField& wf) const {
        if (at < R.b && sameName(wf, cr_.fields[R.a + at])) return at;
        if (R.b == 0) return -1;
        std::uint32_t mask = CompactSchema::tableSize(R.b) - 1;
        const std::uint32_t* slots = cr_.slots.data() + R.c;
        for (std::uint32_t h = wf.hash & mask;; h = (h + 1) & mask) {
            std::uint32_t s = slots[h];
            if (s == 0) return -1;
            if (sameName(wf, cr_.fields[R.a + s - 1])) return s - 1;
        }
    }

    bool record(NodeId w, NodeId r, int depth) {
        std::uint32_t& memo = scratch_->memo[w];
        if (memo == r + 1) return true;
        const CNode& W = cw_.nodes[w];
        const CNode& R = cr_.nodes[r];
        auto& marks = scratch_->marks;
        std::size_t base = marks.size();
        marks.resize(base + R.b, 0);
        for (std::uint32_t i = 0; i < W.b; ++i) {
            const CField& wf = cw_.fields[W.a + i];
            std::int64_t j = readerField(R, i, wf);
            if (j < 0) continue;  // skipped
            marks[base + static_cast<std::size_t>(j)] = 1;
            if (!resolve(wf.type, cr_.fields[R.a + static_cast<std::uint32_t>(j)].type, depth + 1)) return false;
        }
        for (std::uint32_t j = 0; j < R.b; ++j) {
            if (marks[base + j]) continue;
            const CField& rf = cr_.fields[R.a + j];
            if (!(rf.flags & CompactSchema::kHasDefault)) return false;  // missing required field: an error
            // A null default of a nullable type always encodes (and 1.9+ skips it).
            if (rf.flags & CompactSchema::kNullDefaultOnNullable) continue;
            if (!defaultEncodes(r_.at(r).fields[j])) return false;
        }
        marks.resize(base);
        scratch_->memo[w] = r + 1;
        return true;
    }

    // Resolver::checkDefault without throwing: false where it would throw.
    bool defaultEncodes(const Field& rf) const {
        try {
            const Node& t = r_.at(rf.type);
            bool nullable = t.type == Type::null || (t.type == Type::union_ && r_.at(t.branches.at(0)).type == Type::null);
            if (rules_.nullDefaultShortcut && rf.defaultValue->is_null() && nullable) return true;
            DefaultEncoder(r_).encode(rf.type, *rf.defaultValue);
            return true;
        } catch (...) {
            return false;
        }
    }

    const Schema& w_;
    const Schema& r_;
    const CompactSchema& cw_;
    const CompactSchema& cr_;
    Rules rules_;
    std::int64_t budget_;
    Scratch* scratch_ = nullptr;
};

// ---- grammar-level outcomes ----

// Symbol.flatten: a record sequence that directly contains itself (no union,
// array or map in between) makes flattenedSize() recurse forever, in every
// Avro version (§6.3). Node space: actions, then writer nodes, then reader nodes.
class FlattenCheck {
public:
    explicit FlattenCheck(const Resolver& res)
        : res_(res), acts_(res.actions()), wBase_(acts_.size()), rBase_(wBase_ + res.writer().nodes.size()),
          total_(rBase_ + res.reader().nodes.size()) {}

    bool overflows(ActionId root, bool equivIsSimple) {
        std::vector<char> reach(total_, 0);
        std::vector<std::size_t> stack{root};
        while (!stack.empty()) {
            std::size_t n = stack.back();
            stack.pop_back();
            if (reach[n]) continue;
            reach[n] = 1;
            allEdges(n, equivIsSimple, stack);
        }
        color_.assign(total_, 0);
        for (std::size_t n = 0; n < total_; ++n) {
            if (reach[n] && cyclic(n)) return true;
        }
        return false;
    }

private:
    const Schema& schemaOf(std::size_t n) const { return n < rBase_ ? res_.writer() : res_.reader(); }
    std::size_t base(std::size_t n) const { return n < rBase_ ? wBase_ : rBase_; }

    void schemaEdges(std::size_t n, std::vector<std::size_t>& out, bool directOnly) const {
        const Schema& s = schemaOf(n);
        const Node& node = s.at(static_cast<NodeId>(n - base(n)));
        auto push = [&](NodeId id) {
            if (!directOnly || s.at(id).type == Type::record) out.push_back(base(n) + id);
        };
        if (node.type == Type::record) {
            for (const Field& f : node.fields) push(f.type);
        }
        if (directOnly) return;
        if (node.type == Type::array || node.type == Type::map) push(node.items);
        for (NodeId b : node.branches) push(b);
    }

    void allEdges(std::size_t n, bool equivIsSimple, std::vector<std::size_t>& out) const {
        if (n >= wBase_) return schemaEdges(n, out, false);
        const Action& a = acts_[n];
        if (a.kind == Kind::skip) return out.push_back(wBase_ + a.w);
        if (a.kind == Kind::writerUnion && a.unionEquiv && equivIsSimple) return out.push_back(wBase_ + a.w);
        for (ActionId c : a.children) out.push_back(c);
        for (auto j : a.defaults) out.push_back(rBase_ + res_.reader().at(a.r).fields[j].type);
    }

    void directEdges(std::size_t n, std::vector<std::size_t>& out) const {
        if (n >= wBase_) return schemaEdges(n, out, true);
        const Action& a = acts_[n];
        if (a.kind != Kind::record || a.shadow != kNone) return;
        for (ActionId c : a.children) {
            if (acts_[c].kind == Kind::record && acts_[c].shadow == kNone) out.push_back(c);
        }
        for (auto j : a.defaults) {
            NodeId t = res_.reader().at(a.r).fields[j].type;
            if (res_.reader().at(t).type == Type::record) out.push_back(rBase_ + t);
        }
    }

    // Iterative three-colour DFS: true iff a cycle is reachable from n.
    bool cyclic(std::size_t start) {
        if (color_[start] == 2) return false;
        std::vector<std::pair<std::size_t, std::vector<std::size_t>>> stack;
        auto push = [&](std::size_t n) {
            color_[n] = 1;
            std::vector<std::size_t> next;
            directEdges(n, next);
            stack.emplace_back(n, std::move(next));
        };
        push(start);
        while (!stack.empty()) {
            auto& [n, next] = stack.back();
            if (next.empty()) {
                color_[n] = 2;
                stack.pop_back();
                continue;
            }
            std::size_t m = next.back();
            next.pop_back();
            if (color_[m] == 1) return true;
            if (color_[m] == 0) push(m);
        }
        return false;
    }

    const Resolver& res_;
    const std::vector<Action>& acts_;
    std::size_t wBase_, rBase_, total_;
    std::vector<char> color_;
};

// Avro 1.8.2 Symbol.hasErrors: depth-first over the flattened grammar, no
// visited set. Records are inlined; union alternatives, union adjustments and
// repeaters are separate symbols; re-entering one that is still being
// searched never terminates (StackOverflowError), unless it is a repeater
// meeting itself in its own production (skipped). Production arrays are
// reversed, so record fields are searched last to first.
// Skip sub-grammars are not searched (SkipAction is an implicit action:
// hasErrors answers false). Default-value sub-grammars are: 1.8.2
// resolveRecords puts generate(rf.schema(), rf.schema()) of every defaulted
// reader field into the record's production, before the writer fields
// (checked against libavro-java 1.8.2 by tests/differential); `selfOverflows`
// answers for them.
class HasErrors182 {
public:
    enum class Outcome { none, error, overflow };
    using SelfOverflows = std::function<bool(NodeId readerType)>;
    HasErrors182(const std::vector<Action>& acts, const Schema& reader, SelfOverflows selfOverflows)
        : acts_(acts), reader_(reader), selfOverflows_(std::move(selfOverflows)), frame_(acts.size(), 0), inlineDone_(acts.size(), 0) {}

    Outcome run(ActionId root) { return inlineContent(root, kNone, 0); }

private:
    Outcome inlineContent(ActionId a, ActionId owner, int depth) {
        if (depth > kMaxDepth) return Outcome::overflow;
        const Action& act = acts_[a];
        if (act.kind == Kind::error || act.shadow != kNone) return Outcome::error;
        switch (act.kind) {
            case Kind::record: return inlineRecord(a, owner, depth);
            case Kind::container:
                if (a == owner) return Outcome::none;  // the repeater met itself: skipped
                return frame(a, [&] { return inlineContent(act.children[0], a, depth + 1); });
            case Kind::writerUnion:
                return frame(a, [&] { return branches(act.children, depth); });
            case Kind::readerUnion:
                return frame(a, [&] { return branches(act.children, depth); });
            case Kind::doNothing:
            case Kind::error:
            case Kind::promote:
            case Kind::enumAdjust:
            case Kind::skip: return Outcome::none;
        }
        return Outcome::none;
    }

    Outcome inlineRecord(ActionId a, ActionId owner, int depth) {
        if (inlineDone_[a]) return Outcome::none;
        if (selfOverflows_) {  // production: defaults (last first), then writer fields (last first)
            const auto& defaults = acts_[a].defaults;
            for (auto it = defaults.rbegin(); it != defaults.rend(); ++it) {
                if (selfOverflows_(reader_.at(acts_[a].r).fields[*it].type)) return Outcome::overflow;
            }
        }
        const auto& ch = acts_[a].children;
        for (auto it = ch.rbegin(); it != ch.rend(); ++it) {
            Outcome o = inlineContent(*it, owner, depth + 1);
            if (o != Outcome::none) return o;
        }
        inlineDone_[a] = 1;
        return Outcome::none;
    }

    // Alternative / UnionAdjust symbols: a record branch is the record's own
    // (shared) sequence object, searched as a frame of its own.
    Outcome branches(const std::vector<ActionId>& children, int depth) {
        for (ActionId c : children) {
            Outcome o = acts_[c].kind == Kind::record && acts_[c].shadow == kNone
                            ? frame(c, [&] { return inlineRecord(c, kNone, depth + 1); })
                            : inlineContent(c, kNone, depth + 1);
            if (o != Outcome::none) return o;
        }
        return Outcome::none;
    }

    template <typename F>
    Outcome frame(ActionId key, F&& search) {
        if (frame_[key] == 1) return Outcome::overflow;
        if (frame_[key] == 2) return Outcome::none;
        frame_[key] = 1;
        Outcome o = search();
        if (o == Outcome::none) frame_[key] = 2;
        return o;
    }

    const std::vector<Action>& acts_;
    const Schema& reader_;
    SelfOverflows selfOverflows_;
    std::vector<char> frame_;
    std::vector<char> inlineDone_;
};

// Avro 1.8.2: the grammar generate(T, T) of a defaulted reader field type T,
// searched by hasErrors inside the record that holds the default. It has no
// error symbol (a schema always resolves against itself); the search can only
// fail to terminate (recursion through a union). Its records are (reader,
// reader) pairs, disjoint from the (writer, reader) grammar, and share one
// memo as in Java (one `seen` map per generate).
class DefaultGrammars182 {
public:
    DefaultGrammars182(const Schema& reader, const Rules& rules) : reader_(reader), res_(reader, reader, rules) {}

    bool overflows(NodeId type) {
        auto it = cache_.find(type);
        if (it != cache_.end()) return it->second;
        ActionId root = res_.run(type, type);
        bool o = HasErrors182(res_.actions(), reader_, nullptr).run(root) == HasErrors182::Outcome::overflow;
        cache_[type] = o;
        return o;
    }

private:
    const Schema& reader_;
    Resolver res_;
    std::unordered_map<NodeId, bool> cache_;
};

// Every error symbol the grammar reaches, with reader paths (§6.3 problems).
class ProblemCollector {
public:
    ProblemCollector(const Resolver& res, bool equivIsSimple)
        : res_(res), acts_(res.actions()), equivIsSimple_(equivIsSimple), visited_(acts_.size(), 0) {}

    std::vector<Problem> run(ActionId root) {
        walk(root);
        return std::move(out_);
    }

private:
    // One step of the walk: an action, the length of its parent's path in
    // `path_`, the suffix it adds, and its depth.
    struct Step {
        ActionId a;
        std::size_t parentLen;
        std::string suffix;
        int depth;
    };

    // Depth first, children in order, each action once: the order and paths of
    // the recursive walk, with an explicit stack and one path buffer. Every step
    // overwrites `path_` from its parent's length on, and a parent's prefix is
    // never touched below it, so memory is linear in the depth (issue 7 item 9:
    // a path copy per level was quadratic).
    void walk(ActionId root) {
        std::vector<Step> stack{{root, 0, "", 0}};
        while (!stack.empty()) {
            Step st = std::move(stack.back());
            stack.pop_back();
            if (st.depth > kMaxDepth) continue;
            path_.resize(st.parentLen);
            path_ += st.suffix;
            ActionId a = st.a;
            while (acts_[a].shadow != kNone) a = acts_[a].shadow;
            if (visited_[a]) continue;
            visited_[a] = 1;
            expand(acts_[a], st.depth, stack);
        }
    }

    // Reports an error, or pushes the children to visit (last first, so the first pops first).
    void expand(const Action& act, int depth, std::vector<Step>& stack) {
        std::size_t len = path_.size();
        auto push = [&](ActionId c, std::string suffix) { stack.push_back({c, len, std::move(suffix), depth + 1}); };
        switch (act.kind) {
            case Kind::error: return report(act, path_);
            case Kind::record:
                for (std::size_t i = act.children.size(); i-- > 0;) {
                    if (acts_[act.children[i]].kind == Kind::skip) continue;
                    push(act.children[i], "/fields/" + std::to_string(act.readerField[i]) + "/type");
                }
                return;
            case Kind::container:
                return push(act.children[0], res_.reader().at(act.r).type == Type::array ? "/items" : "/values");
            case Kind::writerUnion:
                if (act.unionEquiv && equivIsSimple_) return;
                for (std::size_t i = act.children.size(); i-- > 0;) {
                    push(act.children[i], act.unionEquiv ? "/" + std::to_string(i) : std::string());
                }
                return;
            case Kind::readerUnion: return push(act.children[0], "/" + std::to_string(act.firstMatch));
            case Kind::doNothing:
            case Kind::promote:
            case Kind::enumAdjust:
            case Kind::skip: return;
        }
    }

    void report(const Action& act, const std::string& path) {
        Problem p;
        p.kind = std::string(problemKind(act.error));
        p.path = act.error == ErrorType::missingRequiredField ? path + "/fields/" + std::to_string(act.missingField) : path;
        p.detail = act.message;
        p.reader = fragment(res_.reader(), act.r);
        p.writer = fragment(res_.writer(), act.w);
        out_.push_back(std::move(p));
    }

    static std::string fragment(const Schema& s, NodeId id) {
        std::string text = toJsonText(s, id, false);
        constexpr std::size_t kMax = 2000;
        if (text.size() > kMax) text = text.substr(0, kMax) + "...";
        return text;
    }

    const Resolver& res_;
    const std::vector<Action>& acts_;
    bool equivIsSimple_;
    std::vector<char> visited_;
    std::string path_;
    std::vector<Problem> out_;
};

// Symbol.hasErrors with a visited set (1.9+): any reachable error symbol.
bool reachableError(const std::vector<Action>& acts, ActionId root, bool equivIsSimple) {
    std::vector<char> seen(acts.size(), 0);
    std::vector<ActionId> stack{root};
    while (!stack.empty()) {
        ActionId a = stack.back();
        stack.pop_back();
        if (seen[a]) continue;
        seen[a] = 1;
        const Action& act = acts[a];
        if (act.kind == Kind::error || act.shadow != kNone) return true;
        if (act.kind == Kind::skip || (act.kind == Kind::writerUnion && act.unionEquiv && equivIsSimple)) continue;
        for (ActionId c : act.children) stack.push_back(c);
    }
    return false;
}

Resolution errorResult(JavaException e) {
    Resolution r;
    r.verdict = Verdict::error;
    r.thrown = std::move(e);
    return r;
}

}  // namespace

Resolution canRead(const Schema& writer, const Schema& reader, AvroVersion version) {
    Rules rules = rulesFor(version);
    // The common answer, "compatible", without building the grammar; anything
    // else (or any doubt) is decided, with its problems, by the full resolution.
    if (FastPass::applies(writer, reader, rules) && FastPass(writer, reader, rules).compatible()) return Resolution{};
    try {
        Resolver res(writer, reader, rules);
        ActionId root = res.run();
        // Flattening can only loop when a record reaches itself, i.e. in a recursive schema.
        bool mayLoop = writer.recursive || reader.recursive;
        if (mayLoop && FlattenCheck(res).overflows(root, rules.equivUnionIsSimple)) {
            return errorResult({std::string(kStackOverflowError), ""});
        }
        Resolution out;
        // The collector reports a subset of the reachable error symbols: none reachable, none to collect.
        bool reachable = reachableError(res.actions(), root, rules.equivUnionIsSimple);
        if (reachable) out.problems = ProblemCollector(res, rules.equivUnionIsSimple).run(root);
        if (rules.visitedHasErrors) {
            out.verdict = reachable ? Verdict::incompatible : Verdict::compatible;
            return out;
        }
        DefaultGrammars182 defaults(reader, rules);
        auto selfOverflows = [&defaults](NodeId t) { return defaults.overflows(t); };
        switch (HasErrors182(res.actions(), reader, selfOverflows).run(root)) {
            case HasErrors182::Outcome::none: out.verdict = Verdict::compatible; break;
            case HasErrors182::Outcome::error: out.verdict = Verdict::incompatible; break;
            case HasErrors182::Outcome::overflow: return errorResult({std::string(kStackOverflowError), ""});
        }
        return out;
    } catch (const Thrown& t) {
        return errorResult(t.e);
    }
}

}  // namespace cnx::compat::avro
