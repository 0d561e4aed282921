#pragma once
// The JSON layer of the quick Avro parser (avro_quick_parse.cc): the byte
// scans, the per-thread scratch tables, and JsonReader, which reads the subset
// of JSON the quick path takes (plain ASCII strings, no escapes, each key once
// per object) and declines everything else. Kept apart from the Avro grammar
// so each reads on its own; everything here is inline, as it was in the one
// file, since the grammar calls it for every byte of a definition.
// Internal to broker_model/compat/avro.

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "broker_model/compat/avro/avro_parse_rules.h"
#include "broker_model/compat/avro/avro_quick_parse.h"

namespace cnx::compat::avro::quick_parse {

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

// Reads JSON from the text's start, one value at a time, for the grammar
// above it (QuickParser): every function returns false to decline.
class JsonReader {
public:
    /// The JSON nesting of the definition (compat::jsonNesting of its text), once the parse succeeded.
    std::size_t nesting() const { return deepest_; }

protected:
    JsonReader(std::string_view text, std::size_t maxNesting, Scratch& s)
        : text_(text), p_(text.data()), end_(text.data() + text.size()), maxNesting_(maxNesting), s_(s) {}


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

    std::string_view text_;
    const char* p_;
    const char* end_;
    std::size_t maxNesting_;
    std::size_t deepest_ = 0;
    Scratch& s_;
};

}  // namespace cnx::compat::avro::quick_parse
