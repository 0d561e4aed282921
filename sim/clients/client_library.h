#pragma once
// What real client libraries put on the wire for a step's schema (reference
// §1.7, §2.3, §8.5): the Java client by default, the C++ or Go client on request.
// The model of the broker never sees a step; it sees what the client sends.

#include <optional>
#include <string>
#include <string_view>

#include "broker_model/profile/protocol.h"
#include "proto/PulsarApi.pb.h"
#include "sim/scenario/scenario.h"

namespace cnx::sim {

enum class ClientLibrary { java, cpp, go };

/// "java", "cpp" or "go" (the `library` spelling).
std::string_view libraryName(ClientLibrary library);

struct ClientModel {
    ClientLibrary library = ClientLibrary::java;
    int protocolVersion = protocol::kNewest;  // what the client advertises in CONNECT
    std::string clientVersion;  // CONNECT.client_version
};

/// The client of `decl` talking to a broker of release `brokerVersion`
/// (a client without a version has the broker's version).
ClientModel makeClientModel(const ClientDecl& decl, const std::string& brokerVersion);

/// Highest ProtocolVersion of a Pulsar release line's proto (§8.5): 2.4 -> 14,
/// 2.5-2.7 -> 15, 2.8 -> 17, 2.9-2.11 -> 19, 3.0+ -> 21.
int protocolVersionOfRelease(const std::string& version);

/// The `schema` field of CommandProducer for `schema`, or nullopt when the
/// client omits it (Java: BYTES/NONE; C++: everything but its built-in types;
/// Go: never, its BYTES and NONE go out as proto None with their properties).
std::optional<pulsar::proto::Schema> producerSchemaField(const ClientModel& client, const SchemaData& schema);

/// The `schema` field of CommandSubscribe, or nullopt. AUTO_CONSUME is sent
/// only by the Java client and only when the negotiated protocol is >= v21.
std::optional<pulsar::proto::Schema> subscribeSchemaField(const ClientModel& client, const SchemaRef& schema,
                                                          int negotiatedProtocol);

/// The schema a multi-schema Java producer sends in GET_OR_CREATE_SCHEMA
/// (BYTES as proto None, §1.7).
pulsar::proto::Schema getOrCreateSchemaField(const SchemaData& schema);

}  // namespace cnx::sim
