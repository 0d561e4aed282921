#pragma once
// Strict UTF-8 (Unicode Table 3-7): no overlong forms, no surrogates, nothing
// past U+10FFFF, which is what nlohmann's dump and Java's decoders accept as is.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace cnx {

/// One code point decoded at `at`; nullopt for a byte that does not start a
/// well-formed sequence (bad lead, truncated, overlong, surrogate, beyond
/// U+10FFFF). `length` gets the bytes consumed (1 when nullopt).
std::optional<std::uint32_t> decodeUtf8(std::string_view s, std::size_t at, std::size_t& length);

/// Whether all of `s` is well-formed UTF-8.
bool wellFormedUtf8(std::string_view s);

}  // namespace cnx
