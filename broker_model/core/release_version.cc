#include "broker_model/core/release_version.h"

#include <charconv>

namespace cnx {
namespace {

// Digits only: from_chars alone takes a sign, so "3.0.-1" read as patch -1,
// which means "the line" (issue 40 item 4).
bool parseNumber(std::string_view s, int& out) {
    if (s.empty() || s.size() > 4) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && ptr == s.data() + s.size();
}

bool sameLine(const ReleaseVersion& a, const ReleaseVersion& b) { return a.major == b.major && a.minor == b.minor; }

bool lineBefore(const ReleaseVersion& a, const ReleaseVersion& b) {
    return a.major < b.major || (a.major == b.major && a.minor < b.minor);
}

}  // namespace

bool carriedBy(const ReleaseVersion& release, std::span<const ReleaseVersion> firstReleases) {
    for (const auto& r : firstReleases) {
        if (sameLine(r, release)) return r.patchOrZero() <= release.patchOrZero();
    }
    for (const auto& r : firstReleases) {
        if (r.patch <= 0 && lineBefore(r, release)) return true;
    }
    return false;
}

std::optional<ReleaseVersion> ReleaseVersion::parse(std::string_view text) {
    ReleaseVersion v;
    auto dot1 = text.find('.');
    if (dot1 == std::string_view::npos) return std::nullopt;
    auto dot2 = text.find('.', dot1 + 1);
    if (!parseNumber(text.substr(0, dot1), v.major)) return std::nullopt;
    auto minorText = text.substr(dot1 + 1, dot2 == std::string_view::npos ? std::string_view::npos : dot2 - dot1 - 1);
    if (!parseNumber(minorText, v.minor)) return std::nullopt;
    if (dot2 != std::string_view::npos && !parseNumber(text.substr(dot2 + 1), v.patch)) return std::nullopt;
    return v;
}

std::string ReleaseVersion::toString() const {
    std::string s = std::to_string(major) + "." + std::to_string(minor);
    if (patch >= 0) s += "." + std::to_string(patch);
    return s;
}

std::strong_ordering operator<=>(const ReleaseVersion& a, const ReleaseVersion& b) {
    if (auto c = a.major <=> b.major; c != 0) return c;
    if (auto c = a.minor <=> b.minor; c != 0) return c;
    return a.patchOrZero() <=> b.patchOrZero();
}

}  // namespace cnx
