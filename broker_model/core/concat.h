#pragma once
// concat(a, b, ...): the pieces one after another in one string, sized once.
// Trace details are written for every request; a chain of `+` makes a
// temporary string, and often an allocation, for every piece.

#include <string>
#include <string_view>

namespace cnx {

template <class... Pieces>
std::string concat(const Pieces&... pieces) {
    std::string out;
    out.reserve((std::string_view(pieces).size() + ... + 0));
    (out.append(std::string_view(pieces)), ...);
    return out;
}

}  // namespace cnx
