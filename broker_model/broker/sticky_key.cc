#include "broker_model/broker/sticky_key.h"

namespace cnx::sticky {
namespace {

constexpr std::uint32_t kC1 = 0xcc9e2d51;
constexpr std::uint32_t kC2 = 0x1b873593;

std::uint32_t rotl(std::uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

std::uint32_t mixK1(std::uint32_t k1) { return rotl(k1 * kC1, 15) * kC2; }

std::uint32_t mixH1(std::uint32_t h1, std::uint32_t k1) { return rotl(h1 ^ k1, 13) * 5 + 0xe6546b64; }

std::uint32_t fmix(std::uint32_t h) {
    h ^= h >> 16;
    h *= 0x85ebca6b;
    h ^= h >> 13;
    h *= 0xc2b2ae35;
    h ^= h >> 16;
    return h;
}

/// java.util.Base64's basic decoder into `out`; false for a text it refuses
/// (the broker's decode throws, and peekStickyKey falls back to NONE_KEY).
bool base64Decode(std::string_view in, std::string& out) {
    auto value = [](char c) -> int {
        if (c >= 'A' && c <= 'Z') return c - 'A';
        if (c >= 'a' && c <= 'z') return c - 'a' + 26;
        if (c >= '0' && c <= '9') return c - '0' + 52;
        if (c == '+') return 62;
        if (c == '/') return 63;
        return -1;
    };
    std::uint32_t bits = 0;
    int count = 0;
    std::size_t i = 0;
    for (; i < in.size() && in[i] != '='; ++i) {
        int v = value(in[i]);
        if (v < 0) return false;
        bits = (bits << 6) | static_cast<std::uint32_t>(v);
        count += 6;
        if (count >= 8) {
            count -= 8;
            out.push_back(static_cast<char>((bits >> count) & 0xff));
        }
    }
    for (; i < in.size(); ++i)
        if (in[i] != '=') return false;
    return true;
}

}  // namespace

std::uint32_t murmur3(std::string_view bytes) {
    std::uint32_t h1 = 0;
    std::size_t chunks = bytes.size() / 4;
    auto byte = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])); };
    for (std::size_t c = 0; c < chunks; ++c) {
        std::size_t at = c * 4;
        std::uint32_t k1 = byte(at) | byte(at + 1) << 8 | byte(at + 2) << 16 | byte(at + 3) << 24;  // little-endian
        h1 = mixH1(h1, mixK1(k1));
    }
    std::uint32_t k1 = 0;
    for (std::size_t i = 0; i < bytes.size() % 4; ++i) k1 ^= byte(chunks * 4 + i) << (i * 8);
    h1 ^= mixK1(k1);
    h1 ^= static_cast<std::uint32_t>(bytes.size());
    return fmix(h1) & 0x7fffffffu;
}

std::string stickyKey(const pulsar::proto::MessageMetadata& metadata) {
    if (metadata.has_ordering_key()) return metadata.ordering_key();
    if (metadata.has_partition_key()) {
        if (!metadata.partition_key_b64_encoded()) return metadata.partition_key();
        std::string decoded;
        if (base64Decode(metadata.partition_key(), decoded)) return decoded;
        // Base64 decoding threw: peekStickyKey logs it and answers NONE_KEY.
    }
    return "NONE_KEY";
}

}  // namespace cnx::sticky
