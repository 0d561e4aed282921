#include "broker_model/wire/frame_stream.h"

#include <algorithm>

#include "broker_model/wire/commands.h"

namespace cnx::wire {
namespace {

std::uint32_t getU32(std::string_view s, std::size_t at) {
    std::uint32_t v = 0;
    for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
    return v;
}

bool fail(std::string* error, std::string message) {
    if (error) *error = std::move(message);
    return false;
}

bool startsWith(std::string_view s, unsigned char a, unsigned char b) {
    return s.size() >= 2 && static_cast<unsigned char>(s[0]) == a && static_cast<unsigned char>(s[1]) == b;
}

// `[0x0e02][size][BrokerEntryMetadata]`, only before a MESSAGE's metadata (upstream
// Commands.skipBrokerEntryMetadataIfExist / parseBrokerEntryMetadataIfExist).
bool decodeBrokerEntry(std::string_view& rest, Frame& frame, std::string* error) {
    if (rest.size() < 6) return fail(error, "broker-entry-metadata block lacks its 4-byte size");
    std::uint32_t size = getU32(rest, 2);
    if (static_cast<std::uint64_t>(size) + 6 > rest.size())
        return fail(error, "broker-entry-metadata size=" + std::to_string(size) + " runs past the end of the frame");
    auto& entry = frame.brokerEntryMetadata.emplace();
    if (!entry.ParsePartialFromArray(rest.data() + 6, static_cast<int>(size)) || !entry.IsInitialized())
        return fail(error, "BrokerEntryMetadata does not parse (bad protobuf encoding)");
    rest.remove_prefix(6 + size);
    return true;
}

// The part of a payload command after the BaseCommand (§8.1).
bool decodePayload(std::string_view rest, Frame& frame, std::string* error) {
    if (frame.command.type() == pulsar::proto::BaseCommand::MESSAGE && startsWith(rest, 0x0e, 0x02) &&
        !decodeBrokerEntry(rest, frame, error))
        return false;
    if (rest.size() >= 6 && startsWith(rest, 0x0e, 0x01)) {
        frame.checksumPresent = true;
        frame.checksumValid = getU32(rest, 2) == crc32c(rest.substr(6));
        rest.remove_prefix(6);  // magic + CRC32C
    }
    if (rest.size() < 4) return fail(error, "payload command lacks its 4-byte metadataSize");
    std::uint32_t metaSize = getU32(rest, 0);
    if (static_cast<std::uint64_t>(metaSize) + 4 > rest.size())
        return fail(error, "metadataSize=" + std::to_string(metaSize) + " runs past the end of the frame");
    auto& meta = frame.metadata.emplace();
    if (!meta.ParsePartialFromArray(rest.data() + 4, static_cast<int>(metaSize)))
        return fail(error, "MessageMetadata does not parse (bad protobuf encoding)");
    if (!meta.IsInitialized())
        return fail(error, "MessageMetadata lacks required fields: " + meta.InitializationErrorString());
    frame.payload.assign(rest.substr(4 + metaSize));
    return true;
}

}  // namespace

std::optional<Frame> parseFrameBody(std::string_view body, std::string* error) {
    std::optional<Frame> frame(std::in_place);
    if (!parseFrameBody(body, *frame, error)) return std::nullopt;
    return frame;
}

bool parseFrameBody(std::string_view body, Frame& frame, std::string* error) {
    const auto total = body.size();
    if (total < 4) return fail(error, "totalSize=" + std::to_string(total) + " is smaller than the 4-byte commandSize");
    std::uint32_t commandSize = getU32(body, 0);
    if (static_cast<std::uint64_t>(commandSize) + 4 > total)
        return fail(error, "commandSize=" + std::to_string(commandSize) + " exceeds totalSize=" + std::to_string(total));
    if (!frame.command.ParsePartialFromArray(body.data() + 4, static_cast<int>(commandSize)))
        return fail(error, "BaseCommand does not parse (bad protobuf encoding)");
    if (!commandInitialized(frame.command, body.substr(4, commandSize)))
        return fail(error, "BaseCommand lacks required fields: " + frame.command.InitializationErrorString());
    const auto type = frame.command.type();
    if (!hasBody(frame.command))
        return fail(error,
                    "BaseCommand of type " + pulsar::proto::BaseCommand::Type_Name(type) + " lacks its command message");
    auto rest = body.substr(4 + commandSize);
    if (isPayloadCommand(type)) return decodePayload(rest, frame, error);
    if (!rest.empty())
        return fail(error, "a " + pulsar::proto::BaseCommand::Type_Name(type) + " frame carries " +
                               std::to_string(rest.size()) + " bytes after its command");
    return true;
}

std::optional<std::string> frameSizeProblem(std::uint32_t total, std::uint32_t maxFrameSize) {
    if (total > maxFrameSize)
        return "frame size " + std::to_string(total) + " exceeds the maximum " + std::to_string(maxFrameSize);
    if (total < 4) return "totalSize=" + std::to_string(total) + " is smaller than the 4-byte commandSize";
    return std::nullopt;
}

bool FrameStream::fail(std::string message) {
    failed_ = true;
    error_ = std::move(message);
    pending_.clear();
    pending_.shrink_to_fit();
    need_ = 0;
    return false;
}

bool FrameStream::feed(std::string_view in) {
    if (failed_) return false;
    while (!in.empty()) {
        if (need_ == 0 && pending_.empty() && in.size() >= 4) {
            // A frame that starts here: read where it lies when all of it is in.
            std::uint32_t total = getU32(in, 0);
            if (auto problem = frameSizeProblem(total, maxFrameSize_)) return fail(std::move(*problem));
            if (in.size() - 4 >= total) {
                if (!parseReady(in.substr(4, total))) return false;
                in.remove_prefix(4 + static_cast<std::size_t>(total));
                continue;
            }
        }
        if (need_ == 0) {  // reading the 4 size bytes
            auto take = std::min<std::size_t>(4 - pending_.size(), in.size());
            pending_.append(in.substr(0, take));
            in.remove_prefix(take);
            if (pending_.size() < 4) break;
            std::uint32_t total = getU32(pending_, 0);
            if (auto problem = frameSizeProblem(total, maxFrameSize_)) return fail(std::move(*problem));
            need_ = 4 + static_cast<std::size_t>(total);
            continue;
        }
        auto take = std::min(need_ - pending_.size(), in.size());
        pending_.append(in.substr(0, take));
        in.remove_prefix(take);
        if (pending_.size() < need_) break;
        if (!parseReady(std::string_view(pending_).substr(4))) return false;
        pending_.clear();
        if (pending_.capacity() > kKeptCapacity) std::string().swap(pending_);  // a big frame's memory goes with it
        need_ = 0;
    }
    return true;
}

bool FrameStream::parseReady(std::string_view body) {
    std::string error;
    ready_.emplace_back();
    if (parseFrameBody(body, ready_.back(), &error)) return true;
    ready_.pop_back();
    return fail(std::move(error));
}

std::optional<Frame> FrameStream::next() {
    if (ready_.empty()) return std::nullopt;
    std::optional<Frame> f(std::move(ready_.front()));
    ready_.pop_front();
    return f;
}

}  // namespace cnx::wire
