#pragma once
// Pulsar's simple-command framing (reference §8.1):
// `[totalSize: u32 BE][commandSize: u32 BE][BaseCommand]`, totalSize = 4 + commandSize.
// Decoding never trusts the sizes: a short, oversized or inconsistent frame,
// or one whose BaseCommand does not parse, is an error value.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "proto/PulsarApi.pb.h"

namespace cnx::wire {

/// Largest frame accepted: broker default maxMessageSize (5 MiB) + 10 KiB padding (§8.1).
inline constexpr std::uint32_t kMaxFrameSize = 5 * 1024 * 1024 + 10 * 1024;

/// A decoded frame: the command and, for payload commands (SEND), the
/// message metadata and payload (§8.1; the optional magic+checksum block is
/// accepted and its checksum not verified).
struct Frame {
    pulsar::proto::BaseCommand command;
    std::optional<pulsar::proto::MessageMetadata> metadata;
    std::string payload;
};

/// Serialises `command` as one simple-command frame.
std::string encodeFrame(const pulsar::proto::BaseCommand& command);

/// Serialises a payload command: `[sizes][BaseCommand][metadataSize][metadata][payload]`.
std::string encodePayloadFrame(const pulsar::proto::BaseCommand& command, const pulsar::proto::MessageMetadata& metadata,
                               std::string_view payload);

/// Parses one whole frame. nullopt with `error` set when it is malformed.
std::optional<Frame> decodeFrame(std::string_view frame, std::string* error);

/// 8-byte big-endian signed version (§4.1), as in `schema_version` fields.
std::string encodeSchemaVersion(std::int64_t version);
/// nullopt unless `bytes` is exactly 8 bytes.
std::optional<std::int64_t> decodeSchemaVersion(std::string_view bytes);

}  // namespace cnx::wire
