// The quick path of parse(): see avro_quick_parse.h for the subset it reads.
//
// One recursive descent over the text does the JSON and the Avro grammar at
// once. It mirrors the full parser (avro_parse.cc) step for step wherever a
// node is made, so that node ids agree: a record's node before its fields'
// types, an array, map or union node after what it contains, one shared node
// per primitive named by a bare string. Nodes are laid out into the compact
// tables in id order at the end, as avro_schema_graph.cc's buildCompact lays
// out the full model. Every function returns false to decline.

#include "broker_model/compat/avro/avro_quick_parse.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "broker_model/compat/avro/avro_parse_rules.h"

namespace cnx::compat::avro {

namespace {

using namespace parse_rules;

constexpr NodeId kNoNode = static_cast<NodeId>(-1);
constexpr std::size_t kScanNames = 32;  // named types found by a scan up to this many, then by a map
constexpr std::size_t kScanKeys = 16;   // props per object compared for duplicates; more: decline

// ASCII from 0x20 but '"' and '\\': the only bytes the quick path takes in a string.
constexpr std::array<bool, 256> kPlain = [] {
    std::array<bool, 256> t{};
    for (int c = 0x20; c < 0x80; ++c) t[static_cast<std::size_t>(c)] = c != '"' && c != '\\';
    return t;
}();

// Eight bytes at a time: a bit set in the top of each byte that is not plain
// (a quote, a backslash, below 0x20 or from 0x80). The lowest set bit is
// exact; bits above it may be set by borrows, and are never looked at.
inline std::uint64_t notPlain(std::uint64_t w) {
    constexpr std::uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    auto zero = [](std::uint64_t v) { return (v - ones) & ~v & highs; };
    return zero(w ^ (ones * '"')) | zero(w ^ (ones * '\\')) | ((w - ones * 0x20) & ~w & highs) | (w & highs);
}

// The first byte from p that is not plain, or end.
inline const char* skipPlain(const char* p, const char* end) {
#if defined(__SSE2__)
    // Sixteen bytes at a time where SSE2 is there (every x86-64): as signed
    // bytes, those below 0x20 and those from 0x80 are both less than 0x20.
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
    for (; end - p >= 16; p += 16) {
        __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        __m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)), _mm_cmplt_epi8(v, space));
        if (int m = _mm_movemask_epi8(stop)) return p + std::countr_zero(static_cast<unsigned>(m));
    }
#endif
    for (; end - p >= 8; p += 8) {
        std::uint64_t w;
        std::memcpy(&w, p, sizeof w);
        if (std::uint64_t m = notPlain(w)) {
            if constexpr (std::endian::native == std::endian::little) return p + std::countr_zero(m) / 8;
            else return p + std::countl_zero(m) / 8;
        }
    }
    while (p != end && kPlain[static_cast<unsigned char>(*p)]) ++p;
    return p;
}

// memcpy(to, from, n) for the few bytes of a name, without a call of the
// library's memcpy for each (n is unknown at compile time): fixed-size loads
// and stores, overlapping, up to 16 bytes.
inline void copyShort(char* to, const char* from, std::size_t n) {
    if (n > 16) {
        std::memcpy(to, from, n);
    } else if (n >= 8) {
        std::memcpy(to, from, 8);
        std::memcpy(to + n - 8, from + n - 8, 8);
    } else if (n >= 4) {
        std::memcpy(to, from, 4);
        std::memcpy(to + n - 4, from + n - 4, 4);
    } else if (n > 0) {
        to[0] = from[0];
        to[n / 2] = from[n / 2];
        to[n - 1] = from[n - 1];
    }
}

struct QNode {
    Type type = Type::null;
    bool open = false;                      // a record whose fields are being read
    std::uint32_t depth = 0, unionDepth = 0;  // as the full parser's GraphScratch
    std::uint32_t a = 0;                    // array/map: items; fixed: size; record/union/enum: first in done fields/branches/symbols
    std::uint32_t count = 0;                // record: fields; union: branches; enum: symbols
    std::uint32_t nameOff = 0, nameLen = 0;  // named: full name in Scratch::pool
};

struct QField {
    std::string_view name;
    NodeId type = 0;
    std::uint8_t flags = 0;
};

// Per thread, reused: a parse allocates only for the Schema it returns.
struct Scratch {
    std::vector<QNode> nodes;
    std::vector<QField> fieldStack, fields;
    std::vector<NodeId> branchStack, branches;
    std::vector<std::string_view> symbols, sortedSymbols;
    std::vector<NodeId> named;  // named types in the order defined
    std::unordered_map<std::string, NodeId> byName;  // past kScanNames
    std::string pool;           // full names of named types
    std::string ref;            // a reference's full name, being composed
    std::vector<std::string_view> keys;  // an object's keys the parser does not read, for the duplicate check

    void clear() {
        nodes.clear();
        fieldStack.clear();
        fields.clear();
        branchStack.clear();
        branches.clear();
        symbols.clear();
        named.clear();
        if (!byName.empty()) byName.clear();
        pool.clear();
        keys.clear();
    }
};

class QuickParser {
public:
    QuickParser(std::string_view text, const ParseOptions& o, std::size_t maxNesting, Scratch& s)
        : text_(text), p_(text.data()), end_(text.data() + text.size()), maxNesting_(std::min(maxNesting, kQuickMaxNesting)), dollar_(o.namesAllowDollar),
          enumDefaults_(versionAtLeast(o.version, AvroVersion::v1_9_1)), s_(s) {}

    bool run(Schema& out) {
        ws();
        if (p_ == end_ || (*p_ != '{' && *p_ != '[')) return false;
        NodeId root = kNoNode;
        if (!schema(&root, 0)) return false;
        // Jackson reads the first value; from Avro 1.11.3 anything but
        // whitespace after it is an error, before that it is ignored.
        for (; p_ != end_; ++p_) {
            char c = *p_;
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v') return false;
        }
        return layOut(root, out);
    }

    /// The JSON nesting of the definition (compat::jsonNesting of its text), once run() is true.
    std::size_t nesting() const { return deepest_; }

private:
    // ---- JSON ----

    // A container opens at `level` (the root is 1): false past the limit.
    bool enter(std::size_t level) {
        deepest_ = std::max(deepest_, level);
        return level <= maxNesting_;
    }

    void ws() {
        if (p_ != end_ && static_cast<unsigned char>(*p_) > ' ') return;  // the common case: no whitespace
        while (p_ != end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t')) ++p_;
    }
    bool at(char c) const { return p_ != end_ && *p_ == c; }

    bool str(std::string_view* out) {
        if (!at('"')) return false;
        const char* start = ++p_;
        p_ = skipPlain(p_, end_);
        if (p_ == end_ || *p_ != '"') return false;  // an escape, a control or non-ASCII byte: decline
        *out = std::string_view(start, static_cast<std::size_t>(p_ - start));
        ++p_;
        return true;
    }

    bool literal(std::string_view word) {
        if (static_cast<std::size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) return false;
        p_ += word.size();
        return true;
    }

    // -?(0|[1-9][0-9]*), not followed by a fraction or exponent; *value when it fits in 64 bits.
    bool integer(std::int64_t* value, bool* fits) {
        bool negative = at('-');
        if (negative) ++p_;
        if (p_ == end_ || *p_ < '0' || *p_ > '9') return false;
        std::uint64_t v = 0;
        bool ok = true;
        if (*p_ == '0') {
            ++p_;
        } else {
            for (; p_ != end_ && *p_ >= '0' && *p_ <= '9'; ++p_) {
                unsigned d = static_cast<unsigned>(*p_ - '0');
                if (v > (UINT64_MAX - d) / 10) ok = false;
                v = v * 10 + d;
            }
        }
        if (p_ != end_ && (*p_ == '.' || *p_ == 'e' || *p_ == 'E')) return false;
        if (negative && v > static_cast<std::uint64_t>(INT64_MAX) + 1) ok = false;
        *fits = ok;
        *value = negative ? static_cast<std::int64_t>(0 - v) : static_cast<std::int64_t>(v);
        return true;
    }

    // Any JSON value of the subset, read and dropped (props, docs, defaults).
    // Duplicate keys inside it do not matter: no key of it is read.
    bool skip(std::size_t depth) {
        if (p_ == end_) return false;
        switch (*p_) {
            case '"': {
                std::string_view s;
                return str(&s);
            }
            case '[':
                if (!enter(depth + 1)) return false;
                ++p_;
                return elements([&] { return skip(depth + 1); });
            case '{': {
                if (!enter(depth + 1)) return false;
                ++p_;
                ws();
                bool more = !at('}');
                if (!more) ++p_;
                while (more) {
                    std::string_view k;
                    if (!key(&k) || !skip(depth + 1) || !next(&more)) return false;
                }
                return true;
            }
            case 't': return literal("true");
            case 'f': return literal("false");
            case 'n': return literal("null");
            default: return number();
        }
    }

    // A JSON number, as nlohmann reads it, kept short enough that it is
    // finite as a double: at most 19 digits before the point and a
    // two-digit exponent (a longer one is the full parser's to read).
    bool number() {
        const char* start = p_;
        if (at('-')) ++p_;
        if (p_ == end_ || *p_ < '0' || *p_ > '9') return false;
        if (*p_ == '0') {
            ++p_;
        } else {
            while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
        }
        if (p_ - start > 20) return false;
        if (at('.')) {
            ++p_;
            const char* digits = p_;
            while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
            if (p_ == digits) return false;
        }
        if (at('e') || at('E')) {
            ++p_;
            if (at('+') || at('-')) ++p_;
            const char* digits = p_;
            while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
            if (p_ == digits || p_ - digits > 2) return false;
        }
        return true;
    }

    // Reads `"key" :` of the next member; false on the end of input or a bad key.
    bool key(std::string_view* k) {
        if (!str(k)) return false;
        ws();
        if (!at(':')) return false;
        ++p_;
        ws();
        return true;
    }

    // The keys of an object read so far: known ones as bits, the others in Scratch::keys from otherBase.
    struct KeysSeen {
        KeySet known = 0;
        std::size_t otherBase = 0;
    };

    // The members of the object whose '{' was just read: each(class of the key)
    // reads the value after "key":. Each key once per object (KeysSeen).
    template <class Each>
    bool members(Each&& each) {
        ws();
        KeysSeen seen{0, s_.keys.size()};
        if (at('}')) {
            ++p_;
            return true;
        }
        return memberLoop(seen, each);
    }

    // The members after one whose value `each` has just read (see field()).
    template <class Each>
    bool moreMembers(KeysSeen& seen, Each&& each) {
        bool more = false;
        if (!next(&more)) return false;
        if (!more) {
            forget(seen);
            return true;
        }
        return memberLoop(seen, each);
    }

    // From a member's key to the object's '}'.
    template <class Each>
    bool memberLoop(KeysSeen& seen, Each&& each) {
        for (bool more = true; more;) {
            std::string_view k;
            if (!key(&k)) return false;
            Key c = classify(k);
            if (!firstTime(seen, c, k) || !each(c) || !next(&more)) return false;
        }
        forget(seen);
        return true;
    }

    // The text at p_ starts with `lit` (a key and its colon, as a compact
    // definition spells it): whole-word matching for the keys every field has.
    template <std::size_t N>
    bool startsWith(const char (&lit)[N]) const {
        return static_cast<std::size_t>(end_ - p_) >= N - 1 && is(std::string_view(p_, N - 1), lit);
    }

    // The elements of the array whose '[' was just read, each read by `each`.
    template <class Each>
    bool elements(Each&& each) {
        ws();
        if (at(']')) {
            ++p_;
            return true;
        }
        while (true) {
            if (!each()) return false;
            ws();
            if (at(',')) {
                ++p_;
                ws();
                continue;
            }
            if (!at(']')) return false;
            ++p_;
            return true;
        }
    }

    // After a member: true and *more on ',', true and !*more on '}'.
    bool next(bool* more) {
        ws();
        if (at(',')) {
            ++p_;
            ws();
            *more = true;
            return true;
        }
        if (!at('}')) return false;
        ++p_;
        *more = false;
        return true;
    }

    // Each key once per object: a duplicate would be read differently by the
    // full parser's JSON (nlohmann keeps one value), so it declines.
    bool firstTime(KeysSeen& seen, Key k, std::string_view name) {
        if (k != kOther) {
            if (seen.known & bit(k)) return false;
            seen.known |= bit(k);
            return true;
        }
        auto b = s_.keys.begin() + static_cast<std::ptrdiff_t>(seen.otherBase);
        if (std::find(b, s_.keys.end(), name) != s_.keys.end()) return false;
        if (s_.keys.size() - seen.otherBase >= kScanKeys) return false;
        s_.keys.push_back(name);
        return true;
    }
    void forget(const KeysSeen& seen) { s_.keys.resize(seen.otherBase); }

    // ---- nodes and names (as the full parser's add / track / Names) ----

    NodeId node(Type t, std::uint32_t depth, std::uint32_t unionDepth) {
        QNode& n = s_.nodes.emplace_back();
        n.type = t;
        n.depth = depth;
        n.unionDepth = unionDepth;
        return static_cast<NodeId>(s_.nodes.size() - 1);
    }

    NodeId sharedPrimitive(Type t) {
        NodeId& made = primitives_[static_cast<std::size_t>(t)];
        if (made == 0) made = node(t, 0, 0) + 1;
        return made - 1;
    }

    std::string_view fullNameOf(NodeId id) const { return std::string_view(s_.pool).substr(s_.nodes[id].nameOff, s_.nodes[id].nameLen); }

    NodeId defined(std::string_view full) const {
        if (s_.named.size() <= kScanNames) {
            for (NodeId id : s_.named) {
                if (fullNameOf(id) == full) return id;
            }
            return kNoNode;
        }
        auto it = s_.byName.find(std::string(full));
        return it == s_.byName.end() ? kNoNode : it->second;
    }

    // Names.put of a new named node; false where the full parser throws.
    bool define(NodeId id) {
        std::string_view full = fullNameOf(id);
        if (primitiveType(full)) return false;  // "Schemas may not be named after primitives"
        if (defined(full) != kNoNode) return false;  // "Can't redefine"
        s_.named.push_back(id);
        if (s_.named.size() == kScanNames + 1) {
            for (NodeId d : s_.named) s_.byName.emplace(std::string(fullNameOf(d)), d);
        } else if (s_.named.size() > kScanNames + 1) {
            s_.byName.emplace(std::string(full), id);
        }
        return true;
    }

    // makeName(name, space) into the pool for node `id`; *newSpace is the name's namespace.
    bool makeName(NodeId id, std::string_view name, std::string_view space, std::string_view* newSpace) {
        auto dot = name.rfind('.');
        std::string_view local = name;
        if (dot != std::string_view::npos) {
            space = name.substr(0, dot);
            local = name.substr(dot + 1);
        }
        if (checkName(local, dollar_) != NameCheck::ok) return false;
        QNode& n = s_.nodes[id];
        n.nameOff = static_cast<std::uint32_t>(s_.pool.size());
        if (!space.empty()) s_.pool.append(space).append(1, '.');
        s_.pool.append(local);
        n.nameLen = static_cast<std::uint32_t>(s_.pool.size() - n.nameOff);
        nameBytes_ += n.nameLen;
        *newSpace = space;
        return true;
    }

    // Parser::findName(fullName(ref, space)).
    NodeId find(std::string_view ref, std::string_view space) {
        auto dot = ref.rfind('.');
        std::string_view local = ref;
        if (dot != std::string_view::npos) {
            space = ref.substr(0, dot);
            local = ref.substr(dot + 1);
        }
        if (checkName(local, dollar_) != NameCheck::ok) return kNoNode;  // the full parser throws: decline
        std::string& full = s_.ref;
        full.assign(space);
        if (!space.empty()) full += '.';
        full += local;
        NodeId id = defined(full);
        if (id != kNoNode && s_.nodes[id].open) recursive_ = true;  // closes a cycle
        return id;
    }

    // Names.get(String) of a bare name: a primitive, or a named type in the current namespace, then the null one.
    bool reference(std::string_view ref, NodeId* out) {
        if (auto p = primitiveType(ref)) {
            *out = sharedPrimitive(*p);
            return true;
        }
        NodeId id = find(ref, space_);
        if (id == kNoNode) id = find(ref, "");
        *out = id;
        return id != kNoNode;
    }

    // ---- the Avro grammar ----

    // Parser::parse: a schema where one is expected.
    bool schema(NodeId* out, std::size_t depth) {
        if (p_ == end_) return false;
        if (*p_ == '"') {
            std::string_view ref;
            return str(&ref) && reference(ref, out);
        }
        if (*p_ == '{') return object(out, depth + 1);
        if (*p_ == '[') return unionOf(out, depth + 1);
        return false;
    }

    // Parser::parseObject (aliases declined).
    bool object(NodeId* out, std::size_t depth) {
        if (!enter(depth)) return false;
        ++p_;
        std::string_view type, name, ns;
        bool haveType = false, haveName = false, haveNs = false;
        bool structural = false;  // the type's own part (fields, items, values) has been read
        std::int64_t size = 0;
        bool sizeIsInt = false;
        const char* symbols = nullptr;  // where the "symbols" value starts
        std::string_view textDefault;   // a text "default" (an enum's, from Avro 1.9)
        bool haveTextDefault = false;
        NodeId id = kNoNode;
        bool read = members([&](Key c) {
            switch (c) {
                case kType:
                    if (structural || !str(&type)) return false;
                    haveType = true;
                    return true;
                case kName:
                    if (structural || !str(&name)) return false;
                    haveName = true;
                    return true;
                case kNamespace:
                    if (structural || !str(&ns)) return false;
                    haveNs = true;
                    return true;
                case kAliases: return false;
                case kFields:
                case kItems:
                case kValues:
                    if (!haveType) return false;
                    if (c == kFields && (is(type, "record") || is(type, "error"))) {
                        if (!haveName || !record(name, haveNs ? ns : space_, &id, depth)) return false;
                        structural = true;
                        return true;
                    }
                    if ((c == kItems && is(type, "array")) || (c == kValues && is(type, "map"))) {
                        NodeId items = kNoNode;
                        if (!schema(&items, depth)) return false;
                        id = node(c == kItems ? Type::array : Type::map, s_.nodes[items].depth + 1, s_.nodes[items].unionDepth);
                        s_.nodes[id].a = items;
                        structural = true;
                        return true;
                    }
                    return skip(depth);
                case kSymbols:
                    symbols = p_;
                    return skip(depth);
                case kDefault:
                    if (!at('"')) return skip(depth);
                    haveTextDefault = true;
                    return str(&textDefault);
                case kSize:
                    if (at('-') || (p_ != end_ && *p_ >= '0' && *p_ <= '9')) {
                        bool fits = false;
                        if (!integer(&size, &fits)) return false;
                        sizeIsInt = fits && size >= INT32_MIN && size <= INT32_MAX;
                        return true;
                    }
                    return skip(depth);
                default: return skip(depth);
            }
        });
        if (!read) return false;
        if (!haveType) return false;
        if (auto p = primitiveType(type)) {
            *out = node(*p, 0, 0);
            return true;
        }
        if (is(type, "record") || is(type, "error") || is(type, "array") || is(type, "map")) {
            *out = id;
            return structural;
        }
        if (is(type, "fixed")) {
            if (!haveName || !sizeIsInt) return false;
            id = node(Type::fixed, 0, 0);
            s_.nodes[id].a = static_cast<std::uint32_t>(static_cast<std::int32_t>(size));
            std::string_view unused;
            if (!makeName(id, name, haveNs ? ns : space_, &unused) || !define(id)) return false;
            *out = id;
            return true;
        }
        if (is(type, "enum")) {
            if (!haveName || symbols == nullptr) return false;
            *out = enumeration(name, haveNs ? ns : space_, symbols, haveTextDefault && enumDefaults_ ? &textDefault : nullptr);
            return *out != kNoNode;
        }
        // A named type used as {"type": "Name"}: the current namespace only.
        *out = find(type, space_);
        return *out != kNoNode;
    }

    // Parser::parseEnum, at the end of its object: `symbols` is where the
    // "symbols" value starts (valid JSON: it was read once).
    NodeId enumeration(std::string_view name, std::string_view space, const char* symbols, const std::string_view* enumDefault) {
        const char* resume = p_;
        p_ = symbols;
        const std::size_t base = s_.symbols.size();
        if (!at('[')) return kNoNode;  // "Enum has no symbols"
        ++p_;
        bool read = elements([&] {
            std::string_view sym;
            if (!str(&sym) || checkName(sym, dollar_) != NameCheck::ok) return false;  // "Null name", or an invalid one
            s_.symbols.push_back(sym);
            nameBytes_ += sym.size();
            return true;
        });
        if (!read) return kNoNode;
        p_ = resume;
        // "Duplicate enum symbol", and a default not among the symbols.
        auto& sorted = s_.sortedSymbols;
        sorted.assign(s_.symbols.begin() + static_cast<std::ptrdiff_t>(base), s_.symbols.end());
        std::sort(sorted.begin(), sorted.end());
        if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return kNoNode;
        if (enumDefault != nullptr && !std::binary_search(sorted.begin(), sorted.end(), *enumDefault)) return kNoNode;
        NodeId id = node(Type::enumeration, 0, 0);
        s_.nodes[id].a = static_cast<std::uint32_t>(base);
        s_.nodes[id].count = static_cast<std::uint32_t>(s_.symbols.size() - base);
        std::string_view unused;
        if (!makeName(id, name, space, &unused) || !define(id)) return kNoNode;
        return id;
    }

    // Parser::parseRecord, at the "fields" value: the node, named and
    // defined, then each field; the namespace is the record's meanwhile.
    bool record(std::string_view name, std::string_view space, NodeId* out, std::size_t depth) {
        NodeId id = node(Type::record, 0, 0);
        std::string_view newSpace;
        if (!makeName(id, name, space, &newSpace) || !define(id)) return false;
        s_.nodes[id].open = true;
        std::string_view saved = std::exchange(space_, newSpace);
        if (!at('[') || !enter(depth + 1)) return false;  // "Record has no fields" / too deep
        ++p_;
        std::size_t base = s_.fieldStack.size();
        if (!elements([&] { return field(depth + 1); })) return false;
        space_ = saved;
        std::uint32_t d = 0, u = 0;
        for (std::size_t i = base; i < s_.fieldStack.size(); ++i) {
            const QNode& t = s_.nodes[s_.fieldStack[i].type];
            d = std::max(d, t.depth + 1);
            u = std::max(u, t.unionDepth);
        }
        QNode& n = s_.nodes[id];
        n.depth = d;
        n.unionDepth = u;
        n.open = false;
        n.a = static_cast<std::uint32_t>(s_.fields.size());
        n.count = static_cast<std::uint32_t>(s_.fieldStack.size() - base);
        slots_ += CompactSchema::tableSize(n.count);
        s_.fields.insert(s_.fields.end(), s_.fieldStack.begin() + static_cast<std::ptrdiff_t>(base), s_.fieldStack.end());
        s_.fieldStack.resize(base);
        *out = id;
        return true;
    }

    // Parser::parseField; `depth` is that of the fields array.
    bool field(std::size_t depth) {
        const std::size_t level = depth + 1;  // the field object's
        if (int plain = plainField(level)) return plain > 0;
        if (!at('{') || !enter(level)) return false;
        ++p_;
        QField f;
        bool haveName = false, haveType = false, haveDefault = false, defaultNull = false, defaultText = false;
        auto each = [&](Key c) {
            switch (c) {
                case kName:
                    haveName = true;
                    return str(&f.name);
                case kType:
                    haveType = true;
                    return fieldType(&f.type, level);
                case kDefault:
                    haveDefault = true;
                    defaultNull = at('n');
                    defaultText = at('"');
                    return skip(level);
                case kOrder: {
                    std::string_view o;
                    return str(&o) && isOrder(o);
                }
                case kAliases: return false;
                default: return skip(level);
            }
        };
        // Most fields start {"name":…,"type":…: those two keys are matched as
        // whole words, and what follows is read as members() reads it.
        bool read = false;
        if (startsWith("\"name\":")) {
            p_ += 7;
            ws();
            haveName = true;
            if (!str(&f.name)) return false;
            KeysSeen seen{bit(kName), s_.keys.size()};
            if (startsWith(",\"type\":")) {
                p_ += 8;
                ws();
                haveType = true;
                seen.known |= bit(kType);
                if (!fieldType(&f.type, level)) return false;
            }
            read = moreMembers(seen, each);
        } else {
            read = members(each);
        }
        if (!read) return false;
        if (!haveName || !haveType || checkName(f.name, dollar_) != NameCheck::ok) return false;
        const QNode& t = s_.nodes[f.type];
        if (haveDefault) {
            // Double.valueOf of a text default: it can throw, so the full parser decides.
            if (defaultText && (t.type == Type::float_ || t.type == Type::double_)) return false;
            f.flags |= CompactSchema::kHasDefault;
            bool nullable = t.type == Type::null ||
                            (t.type == Type::union_ && t.count > 0 && s_.nodes[s_.branches[t.a]].type == Type::null);
            if (nullable && defaultNull) f.flags |= CompactSchema::kNullDefaultOnNullable;
        }
        s_.fieldStack.push_back(f);
        nameBytes_ += f.name.size();
        return true;
    }

    // The commonest field, as Avro's own toString and most generators print
    // it: {"name":"<name>","type":"<type name>"}, without whitespace. Matched
    // here byte for byte and read as field() would read it (the same checks,
    // in effect, and the same node); 0 when the text has another shape (other
    // keys, whitespace, a type that is not a name, an escape), with nothing
    // read, for field() to read key by key. 1 read, -1 declined.
    int plainField(std::size_t level) {
        const char* p = p_;
        if (end_ - p < 9 || !is(std::string_view(p, 9), "{\"name\":\"")) return 0;
        const char* name = p + 9;
        const char* q = skipPlain(name, end_);
        if (end_ - q < 10 || !is(std::string_view(q, 10), "\",\"type\":\"")) return 0;
        const char* type = q + 10;
        const char* e = skipPlain(type, end_);
        if (end_ - e < 2 || e[0] != '"' || e[1] != '}') return 0;
        if (!enter(level)) return -1;
        QField f;
        f.name = std::string_view(name, static_cast<std::size_t>(q - name));
        if (!reference(std::string_view(type, static_cast<std::size_t>(e - type)), &f.type)) return -1;
        if (checkName(f.name, dollar_) != NameCheck::ok) return -1;
        p_ = e + 2;
        s_.fieldStack.push_back(f);
        nameBytes_ += f.name.size();
        return 1;
    }

    // A field's "type" value; `level` is the field object's.
    bool fieldType(NodeId* type, std::size_t level) {
        if (at('"')) {
            std::string_view ref;
            return str(&ref) && reference(ref, type);
        }
        return (at('{') || at('[')) && schema(type, level);
    }

    // Field.Order.valueOf(text.toUpperCase()) succeeds.
    static bool isOrder(std::string_view o) {
        auto same = [o](std::string_view upper) {
            if (o.size() != upper.size()) return false;
            for (std::size_t i = 0; i < o.size(); ++i) {
                char c = o[i];
                if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
                if (c != upper[i]) return false;
            }
            return true;
        };
        return same("ASCENDING") || same("DESCENDING") || same("IGNORE");
    }

    // Parser::parseUnion.
    bool unionOf(NodeId* out, std::size_t depth) {
        if (!enter(depth)) return false;
        ++p_;
        ws();
        std::size_t base = s_.branchStack.size();
        bool read = elements([&] {
            NodeId b = kNoNode;
            if (!schema(&b, depth)) return false;
            s_.branchStack.push_back(b);
            return true;
        });
        if (!read) return false;
        std::uint32_t d = 0, u = 0, records = 0;
        const std::size_t n = s_.branchStack.size() - base;
        for (std::size_t i = base; i < s_.branchStack.size(); ++i) {
            const QNode& b = s_.nodes[s_.branchStack[i]];
            if (b.type == Type::union_) return false;  // "Nested union"
            d = std::max(d, b.depth + 1);
            u = std::max(u, b.unionDepth + 1);
            if (b.type == Type::record) ++records;
            // "Duplicate in union": named types by full name, the others by
            // type name. Two unnamed branches have the same name exactly when
            // they have the same type, so only a pair with a named side
            // compares names (a record may be named "map", say).
            for (std::size_t j = base; j < i; ++j) {
                Type other = s_.nodes[s_.branchStack[j]].type;
                if (!isNamed(b.type) && !isNamed(other)) {
                    if (other == b.type) return false;
                } else if (branchName(s_.branchStack[j]) == branchName(s_.branchStack[i])) {
                    return false;
                }
            }
            if (n > kScanNames) return false;  // a very wide union: the full parser's set is quicker than this scan
        }
        if (records >= 2) severalRecordBranches_ = true;
        NodeId id = node(Type::union_, d, u);
        s_.nodes[id].a = static_cast<std::uint32_t>(s_.branches.size());
        s_.nodes[id].count = static_cast<std::uint32_t>(n);
        s_.branches.insert(s_.branches.end(), s_.branchStack.begin() + static_cast<std::ptrdiff_t>(base), s_.branchStack.end());
        s_.branchStack.resize(base);
        *out = id;
        return true;
    }

    std::string_view branchName(NodeId b) const {
        Type t = s_.nodes[b].type;
        return isNamed(t) ? fullNameOf(b) : to_string_view(t);
    }

    // ---- the compact tables, in id order (as buildCompact) ----

    bool layOut(NodeId root, Schema& out) {
        CompactSchema& c = out.compact;
        const std::size_t count = s_.nodes.size();
        CompactSchema::Sizes sizes;
        sizes.nodes = count;
        sizes.fields = s_.fields.size();
        sizes.branches = s_.branches.size();
        sizes.symbols = s_.symbols.size();
        sizes.slots = slots_;          // counted as the records were read
        sizes.nameBytes = nameBytes_;  // and the names: of named types, fields and symbols
        sizes.definitionBytes = text_.size();
        c.allocate(sizes);
        std::memcpy(c.definition.data(), text_.data(), text_.size());
        // Cursors into the tables, which fill in node id order.
        std::uint32_t slot = 0, field = 0, branch = 0, symbol = 0, nameAt = 0;
        auto addName = [&c, &nameAt](std::string_view text) {
            copyShort(c.names.data() + nameAt, text.data(), text.size());
            nameAt += static_cast<std::uint32_t>(text.size());
        };
        for (NodeId id = 0; id < count; ++id) {
            const QNode& n = s_.nodes[id];
            CompactSchema::CNode& cn = c.nodes[id];
            cn.type = n.type;
            if (isNamed(n.type)) {
                cn.nameOff = nameAt;
                cn.nameLen = n.nameLen;
                addName(fullNameOf(id));
            }
            switch (n.type) {
                case Type::fixed:
                case Type::array:
                case Type::map: cn.a = n.a; break;
                case Type::enumeration:
                    cn.a = symbol;
                    cn.b = n.count;
                    for (std::uint32_t i = 0; i < n.count; ++i) {
                        std::string_view sym = s_.symbols[n.a + i];
                        c.symbols[symbol++] = {nameAt, static_cast<std::uint32_t>(sym.size())};
                        addName(sym);
                    }
                    break;
                case Type::union_:
                    cn.a = branch;
                    cn.b = n.count;
                    std::copy_n(s_.branches.begin() + n.a, n.count, c.branches.data() + branch);
                    branch += n.count;
                    break;
                case Type::record: {
                    cn.a = field;
                    cn.b = n.count;
                    cn.c = slot;
                    const std::uint32_t mask = CompactSchema::tableSize(n.count) - 1;
                    for (std::uint32_t i = 0; i < n.count; ++i) {
                        const QField& f = s_.fields[n.a + i];
                        CompactSchema::CField& cf = c.fields[field++];
                        cf.type = f.type;
                        cf.hash = CompactSchema::hashName(f.name);
                        cf.nameOff = nameAt;
                        cf.nameLen = static_cast<std::uint32_t>(f.name.size());
                        cf.flags = f.flags;
                        addName(f.name);
                        std::uint32_t h = cf.hash & mask;
                        for (; c.slots[slot + h] != 0; h = (h + 1) & mask) {
                            if (s_.fields[n.a + c.slots[slot + h] - 1].name == f.name) return false;  // "Duplicate field"
                        }
                        c.slots[slot + h] = i + 1;
                    }
                    slot += mask + 1;
                    break;
                }
                default: break;
            }
        }
        c.severalRecordBranches = severalRecordBranches_;
        if (!recursive_) {
            c.maxDepth = s_.nodes[root].depth;
            c.maxUnionDepth = s_.nodes[root].unionDepth;
        }
        c.ready = true;
        out.root = root;
        out.recursive = recursive_;
        out.hasAliases = false;  // aliases are declined
        return true;
    }

    std::string_view text_;
    const char* p_;
    const char* end_;
    std::size_t maxNesting_;
    std::size_t deepest_ = 0;
    bool dollar_;
    bool enumDefaults_;  // Avro >= 1.9: an enum's text "default" must be one of its symbols
    Scratch& s_;
    std::string_view space_;  // the current namespace: always a view of the text
    bool recursive_ = false;
    bool severalRecordBranches_ = false;
    std::size_t nameBytes_ = 0;  // the compact name pool's size: full names of named types, field names, symbols
    std::size_t slots_ = 0;      // the records' field hash tables, in all
    std::array<NodeId, static_cast<std::size_t>(Type::null) + 1> primitives_{};  // per Type: its shared node + 1
};

}  // namespace

std::shared_ptr<Schema> quickParse(std::string_view definition, const ParseOptions& options, std::size_t* nesting,
                                   std::size_t maxNesting) {
    thread_local Scratch scratch;
    scratch.clear();
    auto schema = std::make_shared<Schema>();
    QuickParser parser(definition, options, maxNesting, scratch);
    bool taken = parser.run(*schema);
    if (nesting != nullptr) *nesting = parser.nesting();
    if (!taken) return nullptr;
    schema->deferNodes(options);
    return schema;
}

}  // namespace cnx::compat::avro
