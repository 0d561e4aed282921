#pragma once
// Pulsar's framing (reference §8.1). Simple commands:
// `[totalSize: u32 BE][commandSize: u32 BE][BaseCommand]`, totalSize = 4 + commandSize.
// Payload commands (SEND from a client, MESSAGE from the broker) go on with
// `[magic 0x0e01][CRC32C: u32 BE][metadataSize: u32 BE][MessageMetadata][payload]`,
// the magic+checksum block optional, the checksum over everything after it; a
// MESSAGE may carry `[magic 0x0e02][size: u32 BE][BrokerEntryMetadata]` first.
// Decoding never trusts the sizes: a short, oversized or inconsistent frame,
// or one whose BaseCommand does not parse, is an error value. A byte stream is
// read with wire::FrameStream (frame_stream.h); decodeFrame reads one whole frame
// through the same code.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "proto/PulsarApi.pb.h"

namespace cnx::wire {

/// Largest frame accepted: broker default maxMessageSize (5 MiB) + 10 KiB padding (§8.1).
inline constexpr std::uint32_t kMaxFrameSize = 5 * 1024 * 1024 + 10 * 1024;

/// A decoded frame: the command and, for payload commands (SEND, MESSAGE), the
/// message metadata and payload (§8.1).
struct Frame {
    pulsar::proto::BaseCommand command;
    std::optional<pulsar::proto::MessageMetadata> metadata;
    std::string payload;
    /// The magic 0x0e01 + CRC32C block was there.
    bool checksumPresent = false;
    /// It was there and matches the bytes after it. A mismatch is no decode
    /// error: the broker answers SEND_ERROR ChecksumError.
    bool checksumValid = false;
    /// A MESSAGE's broker-entry-metadata block (magic 0x0e02), when present.
    std::optional<pulsar::proto::BrokerEntryMetadata> brokerEntryMetadata;
};

/// CRC32C (Castagnoli), as Pulsar's checksum block carries it.
std::uint32_t crc32c(std::string_view bytes);

/// Serialises `command` as one simple-command frame.
std::string encodeFrame(const pulsar::proto::BaseCommand& command);
/// The same into `out` (replacing what it held), for a caller that reuses one buffer.
void encodeFrameInto(const pulsar::proto::BaseCommand& command, std::string& out);

enum class Checksum { crc32c, none };

/// Serialises a payload command:
/// `[sizes][BaseCommand]([0x0e02][size][entry])([0x0e01][CRC32C])[metadataSize][metadata][payload]`.
std::string encodePayloadFrame(const pulsar::proto::BaseCommand& command, const pulsar::proto::MessageMetadata& metadata,
                               std::string_view payload, Checksum checksum = Checksum::crc32c,
                               const pulsar::proto::BrokerEntryMetadata* brokerEntry = nullptr);

/// Parses one whole frame. nullopt with `error` set when it is malformed.
std::optional<Frame> decodeFrame(std::string_view frame, std::string* error);
/// The same into `out`, a default-constructed Frame or one frame_pool.h
/// cleared for reuse (its content is unspecified after a failure): for a
/// caller that keeps the frame where it is decoded. False with `error` set
/// when the frame is malformed.
bool decodeFrame(std::string_view frame, Frame& out, std::string* error);
/// Whether decodeFrame(encodeFrame(`command`)) succeeds and gives back
/// `command` and nothing else: the frame is within the size limit, carries no
/// payload, and the command has its message and every required field. Judged
/// from the command, without encoding it (its ByteSizeLong is called, and
/// cached), for a command built by setters, as the model and the modelled
/// clients build theirs. A receiver in the same process (ServerCnx's Receiver,
/// ServerCnx::receive of a command) takes such a command as it is.
bool decodesToItself(const pulsar::proto::BaseCommand& command);

/// Whether decodeFrame(encodePayloadFrame(`command`, `metadata`, a payload of
/// `payloadSize` bytes)) with its CRC32C block and no broker entry succeeds and
/// gives back the three, the checksum present and valid: the command is a
/// payload command (SEND, MESSAGE) with its message and every required field,
/// the metadata has its required fields, and the frame is within the size
/// limit. Judged without encoding, as decodesToItself judges a simple command.
bool payloadFrameDecodesToItself(const pulsar::proto::BaseCommand& command,
                                 const pulsar::proto::MessageMetadata& metadata, std::size_t payloadSize);

/// 8-byte big-endian signed version (§4.1), as in `schema_version` fields.
std::string encodeSchemaVersion(std::int64_t version);
/// nullopt unless `bytes` is exactly 8 bytes.
std::optional<std::int64_t> decodeSchemaVersion(std::string_view bytes);

}  // namespace cnx::wire
