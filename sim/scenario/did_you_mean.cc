#include "sim/scenario/did_you_mean.h"

#include <algorithm>
#include <cstddef>

namespace cnx::sim {
namespace {

// Words longer than this are never "misspellings"; skipping them keeps a
// pathological 10 MB key from costing O(n*m) per candidate.
constexpr std::size_t kMaxWordLength = 128;

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// Optimal string alignment distance, case-insensitive.
std::size_t distance(std::string_view a, std::string_view b) {
    const std::size_t n = a.size(), m = b.size();
    std::vector<std::size_t> prev2(m + 1), prev(m + 1), cur(m + 1);
    for (std::size_t j = 0; j <= m; ++j) prev[j] = j;
    for (std::size_t i = 1; i <= n; ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= m; ++j) {
            std::size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
            if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
                cur[j] = std::min(cur[j], prev2[j - 2] + 1);
        }
        std::swap(prev2, prev);
        std::swap(prev, cur);
    }
    return prev[m];
}

std::size_t allowedDistance(std::string_view word, std::string_view candidate) {
    return std::max<std::size_t>(1, std::min(word.size(), candidate.size()) / 3);
}

template <typename Range>
std::optional<std::string> best(std::string_view word, const Range& candidates) {
    if (word.empty() || word.size() > kMaxWordLength) return std::nullopt;
    std::optional<std::string> found;
    std::size_t bestDistance = 0;
    for (std::string_view c : candidates) {
        std::size_t limit = allowedDistance(word, c);
        std::size_t lengthGap = word.size() > c.size() ? word.size() - c.size() : c.size() - word.size();
        if (lengthGap > limit) continue;
        std::size_t d = distance(word, c);
        if (d > limit || (found && d >= bestDistance)) continue;
        found = std::string(c);
        bestDistance = d;
    }
    return found;
}

}  // namespace

std::optional<std::string> closestMatch(std::string_view word, std::span<const std::string_view> candidates) {
    return best(word, candidates);
}

std::optional<std::string> closestMatch(std::string_view word, const std::vector<std::string>& candidates) {
    return best(word, candidates);
}

std::string didYouMeanSuffix(std::string_view word, std::span<const std::string_view> candidates) {
    auto match = closestMatch(word, candidates);
    return match ? "; did you mean '" + *match + "'?" : std::string();
}

}  // namespace cnx::sim
