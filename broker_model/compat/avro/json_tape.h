#pragma once
// A flat, read-only JSON tree for the Avro parser (issue 14 "Speed"): one
// vector of values, one of object members and one of array elements, strings
// as views into the definition text. Reused per thread, so a parse allocates
// nothing for the JSON once the vectors have grown.
//
// Two ways to fill it, with the same tree as the result:
//  - read(): a strict reader for the common case. It accepts only texts that
//    nlohmann::json (comments ignored, as the parser calls it) also accepts,
//    and builds what nlohmann would build; on anything else (syntax errors,
//    comments, duplicate keys, nesting past 1,000, a number that is not an
//    integer in 64 bits, an invalid \u escape) it gives up and the caller
//    falls back to nlohmann, which then decides, as before.
//  - adopt(): a tree nlohmann parsed (the fallback). Every value keeps a
//    pointer to its nlohmann node, so json() copies exactly what it parsed.

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "broker_model/compat/avro/avro_schema.h"

namespace cnx::compat::avro {

class JsonTape {
public:
    using Index = std::uint32_t;
    static constexpr Index kNone = static_cast<Index>(-1);

    enum class Kind : std::uint8_t { null, boolean, integer, unsignedInteger, floating, string, array, object };

    struct Value {  // 16 bytes
        Kind kind = Kind::null;
        bool flag = false;  // boolean value
        Index count = 0;    // array elements / object members / string length
        union {
            const char* chars;  // string
            Index first;        // array: first element in elems_; object: first member in members_
            std::int64_t i;     // integer (unsignedInteger: the bits of the uint64)
            double d;           // floating (adopted trees only)
        };
        Value() : i(0) {}
        std::string_view str() const { return {chars, count}; }
    };
    struct Member {
        std::string_view key;
        Index value;
    };

    /// Reads the JSON value starting at text[begin] (which is '{' or '['). True
    /// on success, with *end the offset just past it; false when nlohmann must decide.
    bool read(std::string_view text, std::size_t begin, std::size_t* end);
    /// The tape of a tree nlohmann parsed; `j` must outlive the tape's use.
    Index adopt(const Json& j);
    void clear();
    /// Gives memory back after a very large document (keeps up to a few MiB, so
    /// a thread that parses large definitions does not map it afresh each time).
    void trim();

    Index root() const { return root_; }
    const Value& at(Index i) const { return values_[i]; }
    bool isString(Index i) const { return i != kNone && values_[i].kind == Kind::string; }
    bool isObject(Index i) const { return i != kNone && values_[i].kind == Kind::object; }
    bool isArray(Index i) const { return i != kNone && values_[i].kind == Kind::array; }
    /// The object's member `key` (first occurrence), or kNone (also for a non-object).
    Index member(Index obj, std::string_view key) const {
        if (!isObject(obj)) return kNone;
        for (const Member* m = membersBegin(obj); m != membersEnd(obj); ++m) {
            if (m->key.size() == key.size() && (key.empty() || m->key[0] == key[0]) && m->key == key) return m->value;
        }
        return kNone;
    }
    const Member* membersBegin(Index obj) const { return members_.data() + values_[obj].first; }
    std::string_view str(Index i) const { return values_[i].str(); }
    const Member* membersEnd(Index obj) const { return members_.data() + values_[obj].first + values_[obj].count; }
    const Index* elemsBegin(Index arr) const { return elems_.data() + values_[arr].first; }
    const Index* elemsEnd(Index arr) const { return elems_.data() + values_[arr].first + values_[arr].count; }

    /// The value as the nlohmann tree it was (or would have been) parsed to.
    Json json(Index i) const;
    /// Jackson's `JsonNode.toString()` of the value.
    std::string compact(Index i) const;

private:
    class Reader;
    Index adoptValue(const Json& j);

    std::vector<Value> values_;
    std::vector<Member> members_;
    std::vector<Index> elems_;
    std::vector<Member> memberStack_;  // members of the objects still open
    std::vector<Index> elemStack_;     // elements of the arrays still open
    std::deque<std::string> decoded_;  // strings with escapes, decoded (stable addresses)
    std::vector<const Json*> srcs_;    // adopted trees: each value's nlohmann node (empty after read())
    Index root_ = kNone;
};

}  // namespace cnx::compat::avro
