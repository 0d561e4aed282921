#include "sim/runtime/footprint.h"

#include <algorithm>

namespace cnx::sim {

void Footprint::finish() {
    for (auto* v : {&reads, &writes}) {
        std::sort(v->begin(), v->end());
        v->erase(std::unique(v->begin(), v->end()), v->end());
    }
}

namespace {
bool intersect(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
    auto i = a.begin();
    auto j = b.begin();
    while (i != a.end() && j != b.end()) {
        if (*i == *j) return true;
        if (*i < *j) ++i;
        else ++j;
    }
    return false;
}
}  // namespace

bool independent(const Footprint& a, const Footprint& b) {
    if (a.global || b.global) return false;
    return !intersect(a.writes, b.writes) && !intersect(a.writes, b.reads) && !intersect(b.writes, a.reads);
}

std::uint64_t keyOf(const std::string& text) {
    std::uint64_t h = 1469598103934665603ULL;  // FNV-1a
    for (unsigned char c : text) {
        h ^= c;
        h *= 1099511628211ULL;
    }
    return h;
}

std::uint64_t mixIds(std::uint64_t a, std::uint64_t b) {
    std::uint64_t z = a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;  // splitmix64 finaliser
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

}  // namespace cnx::sim
