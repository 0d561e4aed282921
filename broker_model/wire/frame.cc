#include "broker_model/wire/frame.h"

#include <boost/crc.hpp>

#include "broker_model/wire/frame_stream.h"

namespace cnx::wire {
namespace {

void putU32(std::string& out, std::uint32_t v) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xff));
}

std::uint32_t getU32(std::string_view s, std::size_t at) {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
    return v;
}

}  // namespace

std::uint32_t crc32c(std::string_view bytes) {
    boost::crc_optimal<32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, true, true> crc;
    crc.process_bytes(bytes.data(), bytes.size());
    return crc.checksum();
}

std::string encodeFrame(const pulsar::proto::BaseCommand& command) {
    // Serialised in place after the sizes: one allocation, no copy of the body.
    const std::size_t size = command.ByteSizeLong();
    std::string out;
    out.reserve(8 + size);
    putU32(out, static_cast<std::uint32_t>(4 + size));
    putU32(out, static_cast<std::uint32_t>(size));
    out.resize(8 + size);
    command.SerializeWithCachedSizesToArray(reinterpret_cast<std::uint8_t*>(out.data() + 8));
    return out;
}

std::string encodePayloadFrame(const pulsar::proto::BaseCommand& command, const pulsar::proto::MessageMetadata& metadata,
                               std::string_view payload, Checksum checksum,
                               const pulsar::proto::BrokerEntryMetadata* brokerEntry) {
    std::string body = command.SerializeAsString();
    std::string entry;  // [0x0e02][size][BrokerEntryMetadata]
    if (brokerEntry) {
        std::string e = brokerEntry->SerializeAsString();
        entry = std::string("\x0e\x02", 2);
        putU32(entry, static_cast<std::uint32_t>(e.size()));
        entry += e;
    }
    std::string checked;  // [metadataSize][metadata][payload]: what the CRC32C covers
    std::string meta = metadata.SerializeAsString();
    putU32(checked, static_cast<std::uint32_t>(meta.size()));
    checked += meta;
    checked += payload;
    std::string block;  // [0x0e01][CRC32C]
    if (checksum == Checksum::crc32c) {
        block = std::string("\x0e\x01", 2);
        putU32(block, crc32c(checked));
    }
    std::string out;
    putU32(out, static_cast<std::uint32_t>(4 + body.size() + entry.size() + block.size() + checked.size()));
    putU32(out, static_cast<std::uint32_t>(body.size()));
    out += body;
    out += entry;
    out += block;
    out += checked;
    return out;
}

// One whole frame: its sizes must account for exactly these bytes; the body is
// read by the stream's parser, in place (no copy of the bytes, no moves of the
// decoded command), after the stream's own checks of the declared size.
std::optional<Frame> decodeFrame(std::string_view bytes, std::string* error) {
    std::optional<Frame> frame(std::in_place);
    if (!decodeFrame(bytes, *frame, error)) return std::nullopt;
    return frame;
}

bool decodeFrame(std::string_view bytes, Frame& out, std::string* error) {
    auto fail = [&](std::string message) {
        if (error) *error = std::move(message);
        return false;
    };
    if (bytes.size() < 8)
        return fail("frame of " + std::to_string(bytes.size()) + " bytes is shorter than its 8-byte header");
    std::uint32_t total = getU32(bytes, 0);
    if (total <= kMaxFrameSize && static_cast<std::size_t>(total) + 4 != bytes.size())
        return fail("frame says totalSize=" + std::to_string(total) + " but " + std::to_string(bytes.size() - 4) +
                    " bytes follow it");
    if (auto problem = frameSizeProblem(total, kMaxFrameSize)) return fail(std::move(*problem));
    return parseFrameBody(bytes.substr(4), out, error);
}

std::string encodeSchemaVersion(std::int64_t version) {
    std::string out(8, '\0');
    auto v = static_cast<std::uint64_t>(version);
    for (int i = 7; i >= 0; --i) {
        out[static_cast<std::size_t>(i)] = static_cast<char>(v & 0xff);
        v >>= 8;
    }
    return out;
}

std::optional<std::int64_t> decodeSchemaVersion(std::string_view bytes) {
    if (bytes.size() != 8) return std::nullopt;
    std::uint64_t v = 0;
    for (char c : bytes) v = (v << 8) | static_cast<unsigned char>(c);
    return static_cast<std::int64_t>(v);
}

}  // namespace cnx::wire
