#pragma once
// Pulsar's binary-protocol versions (`ProtocolVersion` in PulsarApi.proto)
// and the features the model depends on, by name. A broker answers CONNECT
// with min(client, broker) (§8.6); which version a broker of a release speaks
// is the profile's `maxProtocolVersion`, set by the fixes that raised it
// (profiles.cc), and a Java client of a release advertises that same version
// (protocolVersionOfRelease). Nothing else compares protocol numbers.

#include "broker_model/core/release_version.h"

namespace cnx::protocol {

/// v1: PING / PONG keep-alive; the broker does not PING an older client.
inline constexpr int kKeepAlive = 1;
/// v5: CLOSE_PRODUCER / CLOSE_CONSUMER from the broker ("disconnect client w/o
/// closing connection"); an older client's connection is dropped instead.
inline constexpr int kCloseWithoutDisconnect = 5;
/// v11: consumers verify the MESSAGE checksum; the broker strips it for older ones.
inline constexpr int kConsumerChecksum = 11;
/// v12: ACTIVE_CONSUMER_CHANGE; the broker sends it to no older client
/// (PulsarCommandSenderImpl.sendActiveConsumerChange, Commands.peerSupportsActiveConsumerListener).
inline constexpr int kActiveConsumerChange = 12;
/// v15 (PIP-43, #5165, 2.5.0): GET_OR_CREATE_SCHEMA, for multi-schema producers (§1.8).
inline constexpr int kGetOrCreateSchema = 15;
/// v21 (PIP-236, #17449, 3.0.0): `Schema.Type` value 21, AutoConsume (§2.3).
inline constexpr int kAutoConsumeSchemaType = 21;
/// The newest version of the proto this cnxsim carries (the C++ client's ProtocolVersion_MAX).
inline constexpr int kNewest = 21;

/// Whether the broker sends a consumer of `version` the MESSAGE checksum block.
constexpr bool consumerVerifiesChecksum(int version) { return version >= kConsumerChecksum; }
/// Whether a connection negotiated at `version` may use GET_OR_CREATE_SCHEMA.
constexpr bool supportsGetOrCreateSchema(int version) { return version >= kGetOrCreateSchema; }
/// Whether a peer of protocol `version` knows the AutoConsume schema type:
/// a broker that does not cannot parse a SUBSCRIBE carrying it (a required
/// enum field), and a Java client does not send it to such a broker.
constexpr bool supportsAutoConsumeSchemaType(int version) { return version >= kAutoConsumeSchemaType; }

/// The protocol version a broker (and the Java client) of `release` speaks:
/// the `maxProtocolVersion` the profile fixes give that release. A release
/// before the oldest fix speaks v14, one after the newest the newest's.
int protocolVersionOfRelease(const ReleaseVersion& release);

}  // namespace cnx::protocol
