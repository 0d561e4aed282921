#pragma once
// Every BaseCommand the broker model sends, built in one place (reference
// §8.2-§8.5), and what the wire layer knows of each command type: who sends
// it, whether it carries its sub-message, and the request id of a response.
// ServerCnx never builds a BaseCommand itself: it calls these.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "broker_model/wire/command_pool.h"
#include "proto/PulsarApi.pb.h"

namespace cnx::wire {

using pulsar::proto::BaseCommand;

/// Who puts a command type on the wire (upstream's ServerCnx / ClientCnx).
enum class Sender {
    client,  // client -> broker only (CONNECT, LOOKUP, FLOW, ...)
    broker,  // broker -> client only (CONNECTED, LOOKUP_RESPONSE, MESSAGE, ...)
    either,  // both ways: PING, PONG, CLOSE_PRODUCER, CLOSE_CONSUMER
};
Sender senderOf(BaseCommand::Type type);

/// The command carries the sub-message its type names (field number == type value).
bool hasBody(const BaseCommand& command);
/// The sub-message its type names, or null when the command lacks it.
const google::protobuf::MessageLite* bodyOf(const BaseCommand& command);
/// command.IsInitialized() of a command parsed from `encoded`. That walks every
/// one of BaseCommand's ~60 optional messages; the usual command is its type
/// and one message, read off `encoded`'s top-level fields, and answered from
/// that message alone. Any other shape takes the generic walk.
bool commandInitialized(const BaseCommand& command, std::string_view encoded);

/// Payload commands carry `[metadataSize][MessageMetadata][payload]` after the
/// BaseCommand (§8.1): SEND (client) and MESSAGE (broker).
bool isPayloadCommand(BaseCommand::Type type);

/// The request id a response answers; nullopt for commands that are not a
/// response to a request (or a response whose optional request_id is absent).
std::optional<std::uint64_t> requestIdOf(const BaseCommand& command);

/// The request id a client's request carries, or nullopt for one that carries
/// none (CONNECT, SEND, FLOW, an ACK without receipt, PING, ...).
std::optional<std::uint64_t> requestIdOfRequest(const BaseCommand& request);

/// How the broker answers `request` with an error: the response type that
/// carries an error for it (LOOKUP_RESPONSE Failed, SEND_ERROR, ERROR, ...).
/// nullopt for a command that gets no answer (FLOW, REDELIVER, an ACK without
/// request id, PING, PONG). CONNECT gets ERROR with request id -1, as the broker
/// answers a failed handshake.
std::optional<BaseCommand> errorAnswerTo(const BaseCommand& request, pulsar::proto::ServerError code,
                                         const std::string& message);
/// Whether commands of `type` can get an error answer at all (errorAnswerTo may
/// still return nullopt for one that lacks the request id, such as an ACK).
bool hasErrorAnswer(BaseCommand::Type type);

// --- responses the broker sends ------------------------------------------------

/// CONNECTED (§8.6).
PooledCommand connected(const std::string& serverVersion, int protocolVersion, int maxMessageSize);
PooledCommand ping();
PooledCommand pong();
PooledCommand error(std::uint64_t requestId, pulsar::proto::ServerError code, const std::string& message);
PooledCommand success(std::uint64_t requestId);
/// PRODUCER_SUCCESS of a newly attached producer: last_sequence_id -1 and producer_ready set (§1.6).
PooledCommand producerSuccess(std::uint64_t requestId, const std::string& producerName, const std::string& schemaVersion);
/// PRODUCER_SUCCESS repeated for a producer id already created on the connection
/// (§1.1 step 3): name and schema version only.
PooledCommand producerSuccessRepeated(std::uint64_t requestId, const std::string& producerName,
                                    const std::string& schemaVersion);
/// SEND_RECEIPT; `highest_sequence_id` is the larger of the SEND's (a batch's last) and `sequenceId`, as the broker answers.
PooledCommand sendReceipt(std::uint64_t producerId, std::uint64_t sequenceId, std::uint64_t ledgerId,
                        std::uint64_t entryId, std::uint64_t highestSequenceId = 0);
PooledCommand sendError(std::uint64_t producerId, std::uint64_t sequenceId, pulsar::proto::ServerError code,
                      const std::string& message);
/// The broker closes a producer / consumer (topic unloaded); request_id is -1, as
/// upstream's ServerCnx.closeProducer sends it.
PooledCommand closeProducer(std::uint64_t producerId);
PooledCommand closeConsumer(std::uint64_t consumerId);
/// GET_SCHEMA_RESPONSE with the schema and its 8-byte version (§1.9).
PooledCommand getSchemaResponse(std::uint64_t requestId, const pulsar::proto::Schema& schema,
                              const std::string& schemaVersion);
PooledCommand getSchemaResponseError(std::uint64_t requestId, pulsar::proto::ServerError code,
                                   const std::string& message);
/// GET_OR_CREATE_SCHEMA_RESPONSE with the version bytes (empty: no version) (§1.8).
PooledCommand getOrCreateSchemaResponse(std::uint64_t requestId, const std::string& schemaVersion);
PooledCommand getOrCreateSchemaResponseError(std::uint64_t requestId, pulsar::proto::ServerError code,
                                           const std::string& message);

// --- delivery to consumers (cnxsim serve) ----------------------------------------

/// MESSAGE for consumer `consumerId`: sent as a payload frame with the entry's metadata and payload.
/// Its message id carries the topic's partition index, -1 when not a partition
/// (Commands.newMessageCommand sets it always, from Consumer's partitionIdx).
PooledCommand message(std::uint64_t consumerId, std::uint64_t ledgerId, std::uint64_t entryId,
                    std::uint32_t redeliveryCount, int partition = -1);
/// ACTIVE_CONSUMER_CHANGE (CommandActiveConsumerChange).
PooledCommand activeConsumerChange(std::uint64_t consumerId, bool isActive);
PooledCommand ackResponse(std::uint64_t consumerId, std::uint64_t requestId);
PooledCommand ackResponseError(std::uint64_t consumerId, std::uint64_t requestId, pulsar::proto::ServerError code,
                             const std::string& message);
/// GET_LAST_MESSAGE_ID_RESPONSE: the last entry's id with the topic's partition index (-1: not
/// partitioned) and, when that entry is a batch of n, batch index n-1 (ServerCnx.getLargestBatchIndexWhenPossible).
/// `markDelete`: the consumer's cursor's mark-delete position (ledger, entry), sent as
/// consumer_mark_delete_position when its ledger id is >= 0 (Commands.newGetLastMessageIdResponse).
PooledCommand getLastMessageIdResponse(std::uint64_t requestId, std::uint64_t ledgerId, std::uint64_t entryId,
                                     int partition = -1, int batchIndex = -1,
                                     std::optional<std::pair<std::int64_t, std::int64_t>> markDelete = std::nullopt);
/// LOOKUP_RESPONSE: this broker serves the topic itself (response Connect, authoritative).
PooledCommand lookupConnect(std::uint64_t requestId, const std::string& brokerServiceUrl);
PooledCommand lookupFailed(std::uint64_t requestId, pulsar::proto::ServerError code, const std::string& message);
/// PARTITIONED_METADATA_RESPONSE Success with the partition count (0: not partitioned).
PooledCommand partitionedMetadata(std::uint64_t requestId, std::uint32_t partitions);
PooledCommand partitionedMetadataFailed(std::uint64_t requestId, pulsar::proto::ServerError code,
                                      const std::string& message);
/// GET_TOPICS_OF_NAMESPACE_RESPONSE with every topic given, not filtered by pattern.
PooledCommand topicsOfNamespace(std::uint64_t requestId, const std::vector<std::string>& topics);

}  // namespace cnx::wire
