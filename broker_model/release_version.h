#pragma once
// A Pulsar release number as scenarios write it: "2.10" (a release line) or
// "2.10.4" (an exact release).

#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace cnx {

struct ReleaseVersion {
    int major = 0;
    int minor = 0;
    int patch = -1;  // -1: only the line was given

    /// Parses "X.Y" or "X.Y.Z" (digits only); nullopt otherwise.
    static std::optional<ReleaseVersion> parse(std::string_view text);
    std::string toString() const;
    /// The patch, a missing one as 0 (how comparisons treat "2.10").
    int patchOrZero() const { return patch < 0 ? 0 : patch; }

    /// Orders by (major, minor, patch), a missing patch as 0.
    friend std::strong_ordering operator<=>(const ReleaseVersion& a, const ReleaseVersion& b);
    friend bool operator==(const ReleaseVersion& a, const ReleaseVersion& b) { return (a <=> b) == 0; }
};

}  // namespace cnx
