#include "sim/clients/client_library.h"

#include "broker_model/core/release_version.h"
#include "broker_model/profile/protocol.h"
#include "broker_model/wire/schema_wire.h"

namespace cnx::sim {
namespace {

// C++ `isBuiltInSchema` (lib/Commands.cc): the only types it ever sends.
bool cppSends(SchemaType t) {
    return t == SchemaType::STRING || t == SchemaType::JSON || t == SchemaType::AVRO || t == SchemaType::PROTOBUF ||
           t == SchemaType::PROTOBUF_NATIVE || t == SchemaType::KEY_VALUE;
}

std::string wireName(const SchemaData& schema) { return std::string(to_string_view(schema.type)); }

}  // namespace

std::string_view libraryName(ClientLibrary library) {
    switch (library) {
        case ClientLibrary::java: return "java";
        case ClientLibrary::cpp: return "cpp";
        case ClientLibrary::go: return "go";
    }
    return "java";
}

int protocolVersionOfRelease(const std::string& version) {
    auto v = ReleaseVersion::parse(version);
    if (!v) return protocol::kNewest;
    if (v->patch < 0) v->patch = 0;  // "2.10": the line's protocol, set by its .0 release
    return protocol::protocolVersionOfRelease(*v);
}

ClientModel makeClientModel(const ClientDecl& decl, const std::string& brokerVersion) {
    ClientModel m;
    m.library = decl.library == "cpp" ? ClientLibrary::cpp : decl.library == "go" ? ClientLibrary::go : ClientLibrary::java;
    const std::string& version = decl.version.empty() ? brokerVersion : decl.version;
    switch (m.library) {
        case ClientLibrary::java:
            m.protocolVersion = protocolVersionOfRelease(version);
            m.clientVersion = "Pulsar-Java-v" + version;
            break;
        case ClientLibrary::cpp:
            // The C++ client advertises ProtocolVersion_MAX of its proto (the newest at HEAD).
            m.protocolVersion = protocol::kNewest;
            m.clientVersion = "Pulsar-CPP-v" + version;
            break;
        case ClientLibrary::go:
            // pulsar-client-go pulsar/internal/connection.go (@015d8dfe): CONNECT carries
            // PulsarProtocolVersion = ProtocolVersion_v20 whatever the release (early
            // releases sent v13, later v18; doc/scenario-format.md "Clients"), and
            // pulsar/internal/version.go names it "Pulsar-Go-<version>" (#1383).
            m.protocolVersion = 20;
            m.clientVersion = "Pulsar-Go-" + version;
            break;
    }
    return m;
}

std::optional<pulsar::proto::Schema> producerSchemaField(const ClientModel& client, const SchemaData& schema) {
    switch (client.library) {
        case ClientLibrary::java:
            if (schema.type == SchemaType::BYTES || schema.type == SchemaType::NONE) return std::nullopt;
            return wire::toProto(schema, wireName(schema));
        case ClientLibrary::cpp:
            if (!cppSends(schema.type)) return std::nullopt;
            return wire::toProto(schema, wireName(schema));
        case ClientLibrary::go:
            // §1.7: the Go client always sets the field; `NewBytesSchema(props)` (and a NONE
            // schema) goes out as proto type None (its internal.BYTES = 0) with its properties.
            if (schema.type == SchemaType::BYTES || schema.type == SchemaType::NONE) {
                auto out = wire::toProto(schema, wireName(schema));
                out.set_type(pulsar::proto::Schema::None);
                return out;
            }
            return wire::toProto(schema, wireName(schema));
    }
    return std::nullopt;
}

std::optional<pulsar::proto::Schema> subscribeSchemaField(const ClientModel& client, const SchemaRef& schema,
                                                          int negotiatedProtocol) {
    switch (schema.kind) {
        case SchemaRef::Kind::none:
        case SchemaRef::Kind::autoProduceBytes:
            return std::nullopt;
        case SchemaRef::Kind::autoConsume:
            // §2.3: Java sends {name AutoConsume, type AutoConsume, empty} to brokers of protocol >= v21.
            if (client.library == ClientLibrary::java && protocol::supportsAutoConsumeSchemaType(negotiatedProtocol)) {
                pulsar::proto::Schema s;
                s.set_name("AutoConsume");
                s.set_type(pulsar::proto::Schema::AutoConsume);
                s.set_schema_data("");
                return s;
            }
            return std::nullopt;
        case SchemaRef::Kind::definition:
            return producerSchemaField(client, schema.data);
    }
    return std::nullopt;
}

pulsar::proto::Schema getOrCreateSchemaField(const SchemaData& schema) {
    return wire::toProto(schema, wireName(schema));
}

}  // namespace cnx::sim
