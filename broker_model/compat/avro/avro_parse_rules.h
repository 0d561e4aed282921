#pragma once
// Internal to the Avro parsers (avro_parse.cc, avro_quick_parse.cc): the
// lexical rules both read a definition by, so that the two cannot drift apart.

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

#include "broker_model/compat/avro/avro_schema.h"

namespace cnx::compat::avro::parse_rules {

template <class Word>
inline Word loadWord(const char* p) {
    Word w;
    std::memcpy(&w, p, sizeof w);
    return w;
}

// s == lit, compared in registers: two overlapping loads cover 3 to 16 bytes
// (GCC calls the library's memcmp for a constant length of 3, 5, 6 or 7, and
// the parsers compare such words for every key and type name they read).
template <std::size_t N>
bool is(std::string_view s, const char (&lit)[N]) {
    constexpr std::size_t n = N - 1;
    if (s.size() != n) return false;
    const char* p = s.data();
    if constexpr (n == 0) {
        return true;
    } else if constexpr (n < 3) {
        return std::memcmp(p, lit, n) == 0;
    } else if constexpr (n < 4) {
        return loadWord<std::uint16_t>(p) == loadWord<std::uint16_t>(lit) && p[2] == lit[2];
    } else if constexpr (n <= 8) {
        return loadWord<std::uint32_t>(p) == loadWord<std::uint32_t>(lit) &&
               loadWord<std::uint32_t>(p + n - 4) == loadWord<std::uint32_t>(lit + n - 4);
    } else if constexpr (n <= 16) {
        return loadWord<std::uint64_t>(p) == loadWord<std::uint64_t>(lit) &&
               loadWord<std::uint64_t>(p + n - 8) == loadWord<std::uint64_t>(lit + n - 8);
    } else {
        return std::memcmp(p, lit, n) == 0;
    }
}

inline bool versionAtLeast(AvroVersion v, AvroVersion min) { return static_cast<int>(v) >= static_cast<int>(min); }

// Schema.PRIMITIVES: the type a bare name stands for, if it is one.
inline std::optional<Type> primitiveType(std::string_view s) {
    // By length, then the name: this runs for every type name of a definition.
    switch (s.size()) {
        case 3:
            if (is(s, "int")) return Type::int_;
            break;
        case 4:
            if (is(s, "long")) return Type::long_;
            if (is(s, "null")) return Type::null;
            break;
        case 5:
            if (is(s, "bytes")) return Type::bytes;
            if (is(s, "float")) return Type::float_;
            break;
        case 6:
            if (is(s, "string")) return Type::string;
            if (is(s, "double")) return Type::double_;
            break;
        case 7:
            if (is(s, "boolean")) return Type::boolean;
            break;
        default: break;
    }
    return std::nullopt;
}

constexpr bool isAsciiLetter(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Java Character.isLetter / isLetterOrDigit, approximated: every non-ASCII
// UTF-8 byte counts as a letter (UNCONFIRMED for non-letter code points).
constexpr bool isNameStart(unsigned char c, bool dollar) { return isAsciiLetter(c) || c == '_' || c >= 0x80 || (dollar && c == '$'); }
constexpr bool isNamePart(unsigned char c, bool dollar) { return isNameStart(c, dollar) || (c >= '0' && c <= '9'); }

// isNameStart (bit 1) and isNamePart (bit 2) of each byte, '$' aside: one
// look-up a byte (this runs for every name and field name of a definition).
inline constexpr std::array<std::uint8_t, 256> kNameBytes = [] {
    std::array<std::uint8_t, 256> t{};
    for (int c = 0; c < 256; ++c) {
        auto u = static_cast<unsigned char>(c);
        t[u] = static_cast<std::uint8_t>((isNameStart(u, false) ? 1 : 0) | (isNamePart(u, false) ? 2 : 0));
    }
    return t;
}();

// What Schema.validateName (1.8–1.11) / NameValidator.UTF_VALIDATOR (1.12) accepts.
enum class NameCheck { ok, empty, badStart, badPart };
inline NameCheck checkName(std::string_view name, bool dollar) {
    if (name.empty()) return NameCheck::empty;
    auto has = [dollar](char ch, std::uint8_t bit) {
        auto c = static_cast<unsigned char>(ch);
        return (kNameBytes[c] & bit) != 0 || (dollar && c == '$');
    };
    if (!has(name[0], 1)) return NameCheck::badStart;
    for (std::size_t i = 1; i < name.size(); ++i) {
        if (!has(name[i], 2)) return NameCheck::badPart;
    }
    return NameCheck::ok;
}

// The object keys the parsers read.
enum Key : std::uint8_t { kOther, kType, kName, kNamespace, kDoc, kFields, kItems, kValues, kSize, kSymbols, kAliases, kDefault, kOrder, kKeyCount };
using KeySet = std::uint32_t;
constexpr KeySet bit(Key k) { return KeySet{1} << k; }

inline Key classify(std::string_view k) {
    switch (k.size()) {
        case 3: return is(k, "doc") ? kDoc : kOther;
        case 4: return is(k, "type") ? kType : is(k, "name") ? kName : is(k, "size") ? kSize : kOther;
        case 5: return is(k, "items") ? kItems : is(k, "order") ? kOrder : kOther;
        case 6: return is(k, "fields") ? kFields : is(k, "values") ? kValues : kOther;
        case 7: return is(k, "symbols") ? kSymbols : is(k, "aliases") ? kAliases : is(k, "default") ? kDefault : kOther;
        case 9: return is(k, "namespace") ? kNamespace : kOther;
        default: return kOther;
    }
}

// Keys that are not props (Schema.SCHEMA_RESERVED, ENUM_RESERVED from 1.9, FIELD_RESERVED); any other key,
// the empty one included, is a prop.
inline constexpr KeySet kSchemaReserved = bit(kDoc) | bit(kFields) | bit(kItems) | bit(kName) | bit(kNamespace) | bit(kSize) |
                                          bit(kSymbols) | bit(kValues) | bit(kType) | bit(kAliases);
inline constexpr KeySet kEnumReserved = kSchemaReserved | bit(kDefault);
inline constexpr KeySet kFieldReserved = bit(kDefault) | bit(kDoc) | bit(kName) | bit(kOrder) | bit(kType) | bit(kAliases);

}  // namespace cnx::compat::avro::parse_rules
