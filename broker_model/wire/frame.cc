#include "broker_model/wire/frame.h"

#include <cstring>

#include <boost/crc.hpp>

#include "broker_model/wire/commands.h"
#include "broker_model/wire/frame_stream.h"

namespace cnx::wire {
namespace {

// Big-endian u32 at `at`, in bytes already there.
void setU32(std::string& out, std::size_t at, std::uint32_t v) {
    for (std::size_t i = 0; i < 4; ++i) out[at + i] = static_cast<char>((v >> (24 - 8 * i)) & 0xff);
}

std::uint32_t getU32(std::string_view s, std::size_t at) {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
    return v;
}

// Serialises `message`, whose ByteSizeLong was called, at `at`.
void putMessage(std::string& out, std::size_t at, const google::protobuf::MessageLite& message) {
    message.SerializeWithCachedSizesToArray(reinterpret_cast<std::uint8_t*>(out.data() + at));
}

// A varint's bytes at `p`; returns the byte after it.
std::uint8_t* putVarint(std::uint8_t* p, std::uint64_t v) {
    while (v >= 0x80) {
        *p++ = static_cast<std::uint8_t>(v | 0x80);
        v >>= 7;
    }
    *p++ = static_cast<std::uint8_t>(v);
    return p;
}

std::size_t varintSize(std::uint64_t v) {
    std::size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        ++n;
    }
    return n;
}

// Whether `command`, whose ByteSizeLong (`size`) was called, is its type
// (field 1) and `body`, the message its type names (field number == type
// value), and nothing else: those two account for every byte of `size`.
bool onlyTypeAndBody(const pulsar::proto::BaseCommand& command, const google::protobuf::MessageLite& body,
                     std::size_t size) {
    const auto type = static_cast<std::uint64_t>(command.type());
    const auto bodySize = static_cast<std::uint64_t>(body.GetCachedSize());
    return command.has_type() &&
           1 + varintSize(type) + varintSize((type << 3) | 2) + varintSize(bodySize) + bodySize == size;
}

// Serialises `command`, whose ByteSizeLong (`size`) was called, at `at`. The
// usual command is its type and its message only (onlyTypeAndBody), and their
// encoding is what protobuf writes (fields in number order): written here,
// without BaseCommand's serialiser testing its ~60 optional messages. Any other
// command goes through protobuf.
void putCommand(std::string& out, std::size_t at, const pulsar::proto::BaseCommand& command, std::size_t size) {
    auto* p = reinterpret_cast<std::uint8_t*>(out.data() + at);
    const auto* body = bodyOf(command);
    if (body && onlyTypeAndBody(command, *body, size)) {
        const auto type = static_cast<std::uint64_t>(command.type());
        *p++ = 0x08;  // field 1, varint
        p = putVarint(p, type);
        p = putVarint(p, (type << 3) | 2);
        p = putVarint(p, static_cast<std::uint64_t>(body->GetCachedSize()));
        body->SerializeWithCachedSizesToArray(p);
        return;
    }
    command.SerializeWithCachedSizesToArray(p);
}

// Whether `command`, whose ByteSizeLong (`size`) was called, has its message
// and every required field, as the decode's commandInitialized judges the
// bytes it would be encoded to: from its own message when it is nothing else.
bool commandComplete(const pulsar::proto::BaseCommand& command, std::size_t size) {
    if (!hasBody(command)) return false;
    const auto* body = bodyOf(command);  // null for a PING or PONG without its (empty) message
    return body && onlyTypeAndBody(command, *body, size) ? body->IsInitialized() : command.IsInitialized();
}

}  // namespace

std::uint32_t crc32c(std::string_view bytes) {
    boost::crc_optimal<32, 0x1EDC6F41, 0xFFFFFFFF, 0xFFFFFFFF, true, true> crc;
    crc.process_bytes(bytes.data(), bytes.size());
    return crc.checksum();
}

void encodeFrameInto(const pulsar::proto::BaseCommand& command, std::string& out) {
    // Serialised in place after the sizes: no copy of the body.
    const std::size_t size = command.ByteSizeLong();
    out.resize(8 + size);
    setU32(out, 0, static_cast<std::uint32_t>(4 + size));
    setU32(out, 4, static_cast<std::uint32_t>(size));
    putCommand(out, 8, command, size);
}

std::string encodeFrame(const pulsar::proto::BaseCommand& command) {
    std::string out;
    encodeFrameInto(command, out);
    return out;
}

std::string encodePayloadFrame(const pulsar::proto::BaseCommand& command, const pulsar::proto::MessageMetadata& metadata,
                               std::string_view payload, Checksum checksum,
                               const pulsar::proto::BrokerEntryMetadata* brokerEntry) {
    // Every part serialised in place into one string sized once; the CRC32C
    // covers [metadataSize][metadata][payload], read where it was written.
    const std::size_t bodySize = command.ByteSizeLong();
    const std::size_t entrySize = brokerEntry ? brokerEntry->ByteSizeLong() : 0;
    const std::size_t metaSize = metadata.ByteSizeLong();
    const std::size_t entryBlock = brokerEntry ? 6 + entrySize : 0;   // [0x0e02][size][entry]
    const std::size_t crcBlock = checksum == Checksum::crc32c ? 6 : 0;  // [0x0e01][CRC32C]
    const std::size_t checked = 4 + metaSize + payload.size();
    std::string out;
    out.resize(8 + bodySize + entryBlock + crcBlock + checked);
    setU32(out, 0, static_cast<std::uint32_t>(4 + bodySize + entryBlock + crcBlock + checked));
    setU32(out, 4, static_cast<std::uint32_t>(bodySize));
    std::size_t at = 8;
    putCommand(out, at, command, bodySize);
    at += bodySize;
    if (brokerEntry) {
        out[at] = '\x0e';
        out[at + 1] = '\x02';
        setU32(out, at + 2, static_cast<std::uint32_t>(entrySize));
        putMessage(out, at + 6, *brokerEntry);
        at += entryBlock;
    }
    const std::size_t crcAt = at;
    at += crcBlock;
    const std::size_t checkedAt = at;
    setU32(out, at, static_cast<std::uint32_t>(metaSize));
    putMessage(out, at + 4, metadata);
    at += 4 + metaSize;
    if (!payload.empty()) std::memcpy(out.data() + at, payload.data(), payload.size());
    if (crcBlock) {
        out[crcAt] = '\x0e';
        out[crcAt + 1] = '\x01';
        setU32(out, crcAt + 2, crc32c(std::string_view(out).substr(checkedAt, checked)));
    }
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

bool decodesToItself(const pulsar::proto::BaseCommand& command) {
    // decodeFrame's checks of encodeFrame(command), judged from the command:
    // the frame's size, no payload, the command's message, its required fields
    // (the message's own when the command is nothing else, onlyTypeAndBody).
    // Parsing what protobuf serialised from a message built by setters gives
    // that message back field for field (proto2; an enum setter takes only
    // the enum's values, which the parser keeps).
    if (!command.has_type() || isPayloadCommand(command.type())) return false;
    const std::size_t size = command.ByteSizeLong();
    return size <= kMaxFrameSize - 4 && commandComplete(command, size);  // totalSize = 4 + size
}

bool payloadFrameDecodesToItself(const pulsar::proto::BaseCommand& command,
                                 const pulsar::proto::MessageMetadata& metadata, std::size_t payloadSize) {
    if (!command.has_type() || !isPayloadCommand(command.type())) return false;
    const std::size_t size = command.ByteSizeLong();
    // totalSize = 4 (commandSize) + command + 6 (magic, CRC32C) + 4 (metadataSize) + metadata + payload
    const std::uint64_t total = 4 + static_cast<std::uint64_t>(size) + 6 + 4 + metadata.ByteSizeLong() + payloadSize;
    return total <= kMaxFrameSize && commandComplete(command, size) && metadata.IsInitialized();
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
