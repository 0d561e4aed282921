#include "broker_model/wire/frame.h"

#include "broker_model/wire/commands.h"

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

bool fail(std::string* error, std::string message) {
    if (error) *error = std::move(message);
    return false;
}

}  // namespace

std::string encodeFrame(const pulsar::proto::BaseCommand& command) {
    std::string body = command.SerializeAsString();
    std::string out;
    out.reserve(8 + body.size());
    putU32(out, static_cast<std::uint32_t>(4 + body.size()));
    putU32(out, static_cast<std::uint32_t>(body.size()));
    out += body;
    return out;
}

std::string encodePayloadFrame(const pulsar::proto::BaseCommand& command, const pulsar::proto::MessageMetadata& metadata,
                               std::string_view payload) {
    std::string body = command.SerializeAsString();
    std::string meta = metadata.SerializeAsString();
    std::string out;
    putU32(out, static_cast<std::uint32_t>(4 + body.size() + 4 + meta.size() + payload.size()));
    putU32(out, static_cast<std::uint32_t>(body.size()));
    out += body;
    putU32(out, static_cast<std::uint32_t>(meta.size()));
    out += meta;
    out += payload;
    return out;
}

namespace {

constexpr unsigned char kMagicCrc32c[2] = {0x0e, 0x01};

// The part of a payload command after the BaseCommand (§8.1).
bool decodePayload(std::string_view rest, Frame& frame, std::string* error) {
    if (rest.size() >= 6 && static_cast<unsigned char>(rest[0]) == kMagicCrc32c[0] &&
        static_cast<unsigned char>(rest[1]) == kMagicCrc32c[1]) {
        rest.remove_prefix(6);  // magic + CRC32C
    }
    if (rest.size() < 4) return fail(error, "payload command lacks its 4-byte metadataSize");
    std::uint32_t metaSize = getU32(rest, 0);
    if (static_cast<std::uint64_t>(metaSize) + 4 > rest.size())
        return fail(error, "metadataSize=" + std::to_string(metaSize) + " runs past the end of the frame");
    pulsar::proto::MessageMetadata meta;
    if (!meta.ParsePartialFromArray(rest.data() + 4, static_cast<int>(metaSize)))
        return fail(error, "MessageMetadata does not parse (bad protobuf encoding)");
    if (!meta.IsInitialized())
        return fail(error, "MessageMetadata lacks required fields: " + meta.InitializationErrorString());
    frame.metadata = std::move(meta);
    frame.payload = std::string(rest.substr(4 + metaSize));
    return true;
}

}  // namespace

std::optional<Frame> decodeFrame(std::string_view bytes, std::string* error) {
    if (bytes.size() < 8) {
        fail(error, "frame of " + std::to_string(bytes.size()) + " bytes is shorter than its 8-byte header");
        return std::nullopt;
    }
    std::uint32_t total = getU32(bytes, 0);
    std::uint32_t commandSize = getU32(bytes, 4);
    if (total > kMaxFrameSize) {
        fail(error, "frame size " + std::to_string(total) + " exceeds the maximum " + std::to_string(kMaxFrameSize));
        return std::nullopt;
    }
    if (static_cast<std::size_t>(total) + 4 != bytes.size()) {
        fail(error, "frame says totalSize=" + std::to_string(total) + " but " + std::to_string(bytes.size() - 4) +
                        " bytes follow it");
        return std::nullopt;
    }
    if (static_cast<std::uint64_t>(commandSize) + 4 > total) {
        fail(error, "commandSize=" + std::to_string(commandSize) + " exceeds totalSize=" + std::to_string(total));
        return std::nullopt;
    }
    Frame frame;
    if (!frame.command.ParsePartialFromArray(bytes.data() + 8, static_cast<int>(commandSize))) {
        fail(error, "BaseCommand does not parse (bad protobuf encoding)");
        return std::nullopt;
    }
    if (!frame.command.IsInitialized()) {
        fail(error, "BaseCommand lacks required fields: " + frame.command.InitializationErrorString());
        return std::nullopt;
    }
    if (!hasBody(frame.command)) {
        fail(error, "BaseCommand of type " + pulsar::proto::BaseCommand::Type_Name(frame.command.type()) +
                        " lacks its command message");
        return std::nullopt;
    }
    auto rest = bytes.substr(8 + commandSize);
    bool isSend = frame.command.type() == pulsar::proto::BaseCommand::SEND;
    if (isSend && !decodePayload(rest, frame, error)) return std::nullopt;
    if (!isSend && !rest.empty()) {
        fail(error, "a " + pulsar::proto::BaseCommand::Type_Name(frame.command.type()) +
                        " frame carries " + std::to_string(rest.size()) + " bytes after its command");
        return std::nullopt;
    }
    return frame;
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
