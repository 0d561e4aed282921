#pragma once
// A Pulsar release number as scenarios write it: "2.10" (a release line) or
// "2.10.4" (an exact release).

#include <compare>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "broker_model/core/inline_list.h"

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

/// Releases listed in a constant table: a change's first release of each line
/// that carries it, or the lines a row is limited to (profiles.cc, gaps.cc).
using ReleaseList = InlineList<ReleaseVersion, 8>;

/// Whether `release` carries a change that first shipped in `firstReleases`
/// (one release per line that got it): when the change lists a release of
/// the same line no later than `release`, or, for a line it does not list,
/// when it reached an earlier line's first (.0) release, i.e. it was on
/// master before this line branched.
bool carriedBy(const ReleaseVersion& release, std::span<const ReleaseVersion> firstReleases);

}  // namespace cnx
