// ServerCnx: the schema commands of the binary protocol, GET_SCHEMA (§1.9) and
// GET_OR_CREATE_SCHEMA (§1.8).

#include "broker_model/protocol/server_cnx.h"

#include "broker_model/wire/commands.h"
#include "broker_model/wire/schema_wire.h"

namespace cnx {

// --- §1.9 GET_SCHEMA ---------------------------------------------------------------

void ServerCnx::handleGetSchema(const pulsar::proto::CommandGetSchema& cmd) {
    auto scope = handling(cmd.request_id());
    auto trace = newTrace(cmd.request_id());
    const auto requestId = cmd.request_id();
    std::string parseError;
    auto name = TopicName::parse(cmd.topic(), &parseError);
    if (!name) {
        send(wire::getSchemaResponseError(requestId, serverErrorOf(RefusalKind::invalidTopicName), parseError));
        return;
    }
    std::optional<std::int64_t> wanted;
    if (cmd.has_schema_version()) {
        wanted = wire::decodeSchemaVersion(cmd.schema_version());
        if (!wanted && broker_.profile().getSchemaEmptyVersionIsError) {
            trace->add("§1.9", "handleGetSchema", "schema_version present but not 8 bytes -> Empty schema version");
            send(wire::getSchemaResponseError(requestId, serverErrorOf(RefusalKind::emptySchemaVersion), "Empty schema version"));
            return;
        }
    }
    // §1.9: until 2.6.1/2.7.0 (#7708) the id kept a `-partition-N` suffix.
    std::string id = broker_.profile().getSchemaStripsPartition ? name->schemaId() : std::string(name->withoutDomain());
    const StageRef stage{StageKind::registryRead, name->toString(), id};
    broker_.scheduler().post(stage, [self = lifetime_.guard(), requestId, id, wanted, topic = cmd.topic(),
                                                trace] {
        if (auto* cnx = self.get()) cnx->answerGetSchema(requestId, id, wanted, topic, *trace);
    });
}

void ServerCnx::answerGetSchema(std::uint64_t requestId, const std::string& id, std::optional<std::int64_t> wanted,
                                const std::string& topic, Trace& trace) {
    // §1.9: a read of the latest version is SchemaRegistryServiceImpl#getSchema(id, Latest),
    // schemaStorage.get(id, latest) with no deleted check: a delete marker is answered as it is
    // stored (NONE, empty) with its version; only reads by version trim the deleted entries.
    // Seen on real 3.0.7 and 4.2.4 brokers (`cnxsim run --against`, issue 42).
    std::optional<StoredSchema> found;
    if (wanted) {
        found = broker_.registry().byVersion(id, *wanted);
    } else if (const auto& all = broker_.registry().history(id); !all.empty()) {
        found = all.back();
    }
    if (!found) {
        trace.add("§1.9", "handleGetSchema", [&] { return "no live schema for " + id + " -> TopicNotFound"; });
        noteGap(broker_.profile(), Gap::getSchemaNotFoundRecycledField, &trace, "not-found answer");
        send(wire::getSchemaResponseError(requestId, serverErrorOf(RefusalKind::schemaOrTopicNotFound),
                                          broker_.profile().getSchemaNotFoundIncludesTopic
                                              ? "Topic not found or no-schema " + topic
                                              : "Topic not found or no-schema"));
        return;
    }
    trace.add("§1.9", "handleGetSchema", [&] { return "found version " + std::to_string(found->version); });
    send(wire::getSchemaResponse(requestId, wire::toProto(found->schema, id), wire::encodeSchemaVersion(found->version)));
}

// --- §1.8 GET_OR_CREATE_SCHEMA -------------------------------------------------------

void ServerCnx::handleGetOrCreateSchema(const pulsar::proto::CommandGetOrCreateSchema& cmd) {
    auto scope = handling(cmd.request_id());
    auto trace = newTrace(cmd.request_id());
    auto respond = [self = lifetime_.guard(), requestId = cmd.request_id(), trace](Result<SchemaVersion> r) {
        if (auto* cnx = self.get()) cnx->answerGetOrCreateSchema(requestId, r, *trace);
    };
    std::string parseError;
    auto name = TopicName::parse(cmd.topic(), &parseError);
    auto topic = name ? broker_.loadTopic(*name, false) : nullptr;  // getTopicIfExists: no auto-creation
    if (!topic) {
        std::string shown = name ? name->toString() : cmd.topic();
        std::string message = broker_.profile().getOrCreateNotFoundIncludesTopic ? "Topic not found " + shown
                                                                                  : std::string("Topic not found");
        trace->add("§1.8", "GET_OR_CREATE_SCHEMA", "topic does not exist -> TopicNotFound");
        respond(BrokerError{RefusalKind::topicNotFound, message, std::string()});  // the handler's own answer: no class
        return;
    }
    auto schema = wire::fromProto(cmd.schema());
    if (cmd.schema().type() == pulsar::proto::Schema::None) {
        trace->add("§1.8", "GET_OR_CREATE_SCHEMA", "proto type None -> producer-without-schema path");
        producerWithoutSchema(topic, /*replicator=*/false, respond, trace);
        return;
    }
    topic->addSchema(schema, trace, respond);
}

void ServerCnx::answerGetOrCreateSchema(std::uint64_t requestId, const Result<SchemaVersion>& r, Trace& trace) {
    if (!r.ok()) {
        // Schema-step failures carry the §1.5 wrapping; the handler's own
        // refusals (topic not found) are sent as plain text.
        const auto& e = r.error();
        trace.add("§1.8", "GET_OR_CREATE_SCHEMA", [&] { return "failed: " + e.message; });
        send(wire::getOrCreateSchemaResponseError(requestId, e.code(),
                                                  e.exceptionClass().empty() ? e.message : producerErrorText(e)));
        return;
    }
    auto v = r.value();
    trace.add("§1.8", "GET_OR_CREATE_SCHEMA", [&] {
        return "schema_version=" + (v == kNoVersion ? std::string("empty") : std::to_string(v));
    });
    send(wire::getOrCreateSchemaResponse(requestId, v == kNoVersion ? std::string() : wire::encodeSchemaVersion(v)));
}

}  // namespace cnx
