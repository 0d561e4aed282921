#include "sim/runtime/duration.h"

#include <cctype>
#include <charconv>
#include <cmath>

namespace cnx::sim {

std::optional<std::chrono::milliseconds> parseDuration(std::string_view v, std::chrono::milliseconds max) {
    double scale = 0;
    if (v.ends_with("ms")) {
        scale = 1;
        v.remove_suffix(2);
    } else if (v.ends_with("s")) {
        scale = 1000;
        v.remove_suffix(1);
    } else {
        return std::nullopt;
    }
    if (v.empty() || !(std::isdigit(static_cast<unsigned char>(v.front())) || v.front() == '.'))
        return std::nullopt;  // no sign, inf or nan
    double n = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || p != v.data() + v.size() || !std::isfinite(n) || !(n >= 0)) return std::nullopt;
    // The bound on the number as written: 1e16s once became a negative count
    // of milliseconds (the conversion overflowed) that passed a bound on the count.
    const double ms = n * scale;
    if (!(ms <= static_cast<double>(max.count()))) return std::nullopt;
    return std::chrono::milliseconds(std::llround(ms));
}

}  // namespace cnx::sim
