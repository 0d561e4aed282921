#include "broker_model/core/utf8.h"

namespace cnx {

std::optional<std::uint32_t> decodeUtf8(std::string_view s, std::size_t at, std::size_t& length) {
    auto b = static_cast<unsigned char>(s[at]);
    length = 1;
    if (b < 0x80) return b;
    std::size_t n = (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || at + n > s.size()) return std::nullopt;
    std::uint32_t cp = b & (0xFFu >> (n + 1));
    for (std::size_t k = 1; k < n; ++k) {
        auto c = static_cast<unsigned char>(s[at + k]);
        if ((c & 0xC0) != 0x80) return std::nullopt;
        cp = (cp << 6) | (c & 0x3Fu);
    }
    static constexpr std::uint32_t kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMinimum[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return std::nullopt;
    length = n;
    return cp;
}

bool wellFormedUtf8(std::string_view s) {
    for (std::size_t i = 0, length = 1; i < s.size(); i += length) {
        if (static_cast<unsigned char>(s[i]) < 0x80) {  // ASCII, most of any text: no decoding
            length = 1;
            continue;
        }
        if (!decodeUtf8(s, i, length)) return false;
    }
    return true;
}

}  // namespace cnx
