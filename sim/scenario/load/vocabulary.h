#pragma once
// The scenario format's fixed vocabulary (doc/scenario-format.md): the value
// spellings a key accepts, and the small text helpers every message uses.
// The key names themselves live in the field tables (field_binding.h).

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cnx::sim::load {

using Names = std::span<const std::string_view>;

// Limits. A scenario file is hand-written; these only stop hostile input.
constexpr std::size_t kNodeBudget = 5'000'000;   // nodes visited per document (aliases can multiply them)
constexpr int kMaxKeyValueDepth = 8;             // KEY_VALUE inside KEY_VALUE ...
constexpr std::size_t kMaxReportedErrors = 100;  // per file

// Order matters only for "did you mean" ties.
constexpr std::array<std::string_view, 3> kLibraries{"java", "cpp", "go"};
// `via` of get-schema: the admin REST call or GET_SCHEMA on the binary protocol.
constexpr std::array<std::string_view, 2> kGetSchemaVia{"admin", "wire"};
constexpr std::array<std::string_view, 2> kEncodings{"INLINE", "SEPARATED"};
constexpr std::array<std::string_view, 3> kFileKeys{"type", "schema", "properties"};
constexpr std::array<std::string_view, 1> kExhaustive{"exhaustive"};
// How many steps one `concurrently` may race (the interleavings grow as their factorial).
constexpr std::size_t kMaxRaceBranches = 16;
// `invariant:` of a race (doc/scenario-format.md, "Invariants").
constexpr std::array<std::string_view, 5> kInvariants{"admitted-schemas-compatible", "no-duplicate-versions",
                                                      "versions-contiguous", "every-request-answered",
                                                      "enforcement-holds"};
constexpr std::array<std::string_view, 1> kOk{"ok"};
constexpr std::array<std::string_view, 4> kAccessModes{"Shared", "Exclusive", "WaitForExclusive",
                                                       "ExclusiveWithFencing"};
constexpr std::array<std::string_view, 4> kSubTypes{"Exclusive", "Shared", "Failover", "Key_Shared"};
constexpr std::array<std::string_view, 2> kBooleans{"true", "false"};

// proto/PulsarApi.proto enum ServerError, then the outcomes the modelled
// client itself reports (doc/scenario-format.md): NotConnected (close/publish of
// nothing open), NotSupported (a feature the negotiated protocol lacks),
// ConnectionClosed (the broker refused a frame), NoResponse.
constexpr std::array<std::string_view, 30> kServerErrors{
    "UnknownError",
    "MetadataError",
    "PersistenceError",
    "AuthenticationError",
    "AuthorizationError",
    "ConsumerBusy",
    "ServiceNotReady",
    "ProducerBlockedQuotaExceededError",
    "ProducerBlockedQuotaExceededException",
    "ChecksumError",
    "UnsupportedVersionError",
    "TopicNotFound",
    "SubscriptionNotFound",
    "ConsumerNotFound",
    "TooManyRequests",
    "TopicTerminatedError",
    "ProducerBusy",
    "InvalidTopicName",
    "IncompatibleSchema",
    "ConsumerAssignError",
    "TransactionCoordinatorNotFound",
    "InvalidTxnStatus",
    "NotAllowedError",
    "TransactionConflict",
    "TransactionNotFound",
    "ProducerFenced",
    "NotConnected",
    "NotSupported",
    "ConnectionClosed",
    "NoResponse",
};

constexpr std::string_view kNone = "none";
constexpr std::string_view kAutoConsume = "AUTO_CONSUME";
constexpr std::string_view kAutoProduceBytes = "AUTO_PRODUCE_BYTES";

std::string inQuotes(std::string_view s);

/// "a, b or c".
std::string joined(Names names);

bool contains(Names names, std::string_view s);

/// Every schema type name (SchemaType), in declaration order.
Names schemaTypeNames();

/// Primitive type names usable where a schema is named (`schema: STRING`).
const std::vector<std::string_view>& primitiveNames();

}  // namespace cnx::sim::load
