#include "broker_model/admin/admin_api.h"
#include "broker_model/admin/schema_payload.h"
#include "broker_model/admin/status_mapping.h"

#include <cstdint>
#include <string_view>

#include "broker_model/compat/json/json_nesting.h"
#include "broker_model/compat/key_value/key_value_check.h"
#include "broker_model/policy/policy_resolution.h"
#include "broker_model/registry/definition_validator.h"

namespace cnx {

AdminResponse AdminResponse::success(TracePtr trace, int status, nlohmann::json body) {
    AdminResponse r;
    r.status = status;
    r.body = std::move(body);
    r.trace = std::move(trace);
    return r;
}

AdminResponse AdminResponse::failure(TracePtr trace, int status, std::string reason) {
    AdminResponse r;
    r.status = status;
    r.reason = std::move(reason);
    if (!r.reason.empty()) r.body = {{"reason", r.reason}};
    r.trace = std::move(trace);
    return r;
}

AdminResponse AdminResponse::bareFailure(TracePtr trace, int status, std::string reason) {
    AdminResponse r;
    r.status = status;
    r.reason = std::move(reason);
    r.trace = std::move(trace);
    return r;
}

namespace {

// Admin work runs with no client connection; it touches `topic`'s schema id.
StageRef adminStage(StageKind kind, const TopicName& topic) {
    return StageRef{kind, topic.toString(), topic.schemaIdView()};
}

// §7.2 before #21645 / #21632 (2.5.0 on; 2.4.x's KEY_VALUE payloads are not modelled
// apart): /compatibility and /version used the payload's {"key": ..., "value": ...}
// JSON text as the KEY_VALUE data, unconverted.
bool keyValuePayloadUnconverted(const BehaviourProfile& profile, const SchemaData& schema) {
    return schema.type == SchemaType::KEY_VALUE && profile.pip44Registry && !profile.adminConvertsKeyValuePayload;
}

// 2.4.x: a KEY_VALUE payload on /compatibility or /version is a known gap.
void noteKeyValuePayloadGap(const BehaviourProfile& profile, const SchemaData& schema, Trace& trace) {
    if (schema.type == SchemaType::KEY_VALUE)
        noteGap(profile, Gap::keyValueAdminPayloadBeforePip44, &trace, "KEY_VALUE payload");
}

// The admin JSON text of a KEY_VALUE payload, as the endpoint received it.
SchemaData asUnconvertedPayload(const SchemaData& schema) {
    SchemaData raw = schema;
    raw.data = renderAdminSchemaData(schema);
    return raw;
}

// The reason phrase Jetty 12 writes for the statuses a bare refusal has (RFC 9110).
std::string_view standardReasonPhrase(int status) {
    switch (status) {
        case 400: return "Bad Request";
        case 404: return "Not Found";
        case 409: return "Conflict";
        case 412: return "Precondition Failed";
        case 422: return "Unprocessable Entity";
        case 500: return "Internal Server Error";
        default: return "Error";
    }
}

// §7.4: the text of an error response, per release.
std::string errorText(const BehaviourProfile& profile, const BrokerError& e) {
    switch (profile.adminErrorText) {
        case AdminErrorText::none: return "";
        case AdminErrorText::wrapped: return e.text();
        case AdminErrorText::root: return e.message;
    }
    return e.message;
}

// The `GetSchemaResponse` JSON of a stored entry (§7.2).
nlohmann::json schemaResponseJson(const StoredSchema& entry) {
    return {{"version", entry.version},
            {"type", std::string(to_string_view(entry.schema.type))},
            {"timestamp", entry.timestamp},
            {"data", renderAdminSchemaData(entry.schema)},
            {"properties", entry.schema.properties}};
}

}  // namespace

// §3.1/§7.1: the admin resource's schema-id; 2.4.0-2.4.1 kept the partition suffix (#4751).
std::string AdminApi::schemaIdOf(const TopicName& topic) const {
    if (broker_.profile().adminSchemaIdStripsPartition) return topic.schemaId();
    return std::string(topic.withoutDomain());
}

AdminResponse AdminApi::missingEndpoint(TraceText what) const {
    auto trace = broker_.newTrace();
    trace->add("§7.1", what, "endpoint added in 2.4.2/2.5.0 (#4800): not in this release");
    return AdminResponse::failure(trace, 404, "HTTP 404 Not Found");
}

void AdminApi::postSchema(const TopicName& topic, const SchemaData& schema, Callback done) {
    auto trace = broker_.newTrace();
    const auto& profile = broker_.profile();
    // §7.3: 2.4.0-2.4.1 use FULL without reading the namespace policies.
    bool readsNamespace = profile.adminStrategyResolution != AdminStrategyResolution::fullHardcoded;
    if (auto missing = missingTenantOrNamespace(topic, "POST schema", !profile.adminSchemaTopicOperationCheck, readsNamespace, trace)) {
        done(*missing);
        return;
    }
    // §7.4: isAllowAutoUpdateSchema and enforcement play no role here.
    auto strategy = adminStrategy(profile, broker_.policies(), topic, trace.get());
    broker_.registry().putSchemaIfAbsent(
        schemaIdOf(topic), schema, strategy, trace, [done, trace, &profile](Result<SchemaVersion> r) {
            if (r.ok()) {
                trace->add("§7.4", "POST schema", [&] { return "version " + std::to_string(r.value()); });
                // {"version": {"version": n}} per Jackson bean rules (UNCONFIRMED, §7.2).
                done(AdminResponse::success(trace, profile.adminPostSchemaSuccessStatus, {{"version", {{"version", r.value()}}}}));
                return;
            }
            const auto& e = r.error();
            int status = adminStatusOf(profile, AdminEndpoint::postSchema, e.kind);
            if (adminAnswerIsBare(AdminEndpoint::postSchema, e.kind)) {
                // §7.2: Jetty 12 sends the status's own phrase, not the text (#25100).
                done(AdminResponse::bareFailure(trace, status, profile.adminReasonPhraseIsStandard
                                                                   ? std::string(standardReasonPhrase(status))
                                                                   : errorText(profile, e)));
            } else {
                done(AdminResponse::failure(trace, status, e.text()));
            }
        });
}

void AdminApi::getSchema(const TopicName& topic, std::optional<SchemaVersion> version, Callback done) {
    auto trace = broker_.newTrace();
    if (auto missing = missingTenantOrNamespace(topic, "GET schema", !broker_.profile().adminSchemaTopicOperationCheck, false, trace)) {
        done(*missing);
        return;
    }
    // Continuation(...): an admin call is rare, and its continuation (a request and
    // a callback) may go to the heap; the admission path's must fit in place (Scheduler::post).
    broker_.scheduler().post(adminStage(StageKind::registryRead, topic), Continuation([this, topic, version, trace, done] {
        auto id = schemaIdOf(topic);
        auto& registry = broker_.registry();
        std::optional<StoredSchema> found;
        if (version) {
            found = registry.byVersion(id, *version);
        } else if (registry.hasSchema(id)) {
            const auto& all = registry.history(id);
            found = all.back();  // 2.4.0 returns the marker itself (§3.2)
        }
        std::string reason = broker_.profile().adminNotFoundReason ? "Schema not found" : "";
        if (!found) {
            trace->add("§7.4", "GET schema", [&] {
                return "no live schema" + (version ? " with version " + std::to_string(*version) : std::string());
            });
            done(AdminResponse::failure(trace, 404, reason));
            return;
        }
        if (found->deleted) {
            trace->add("§7.4", "GET schema", "the entry is a delete marker -> 404 (before #6764)");
            done(AdminResponse::failure(trace, 404, version ? "Schema is deleted" : reason));
            return;
        }
        trace->add("§7.4", "GET schema", [&] { return "version " + std::to_string(found->version); });
        done(AdminResponse::success(trace, 200, schemaResponseJson(*found)));
    }));
}

// §7.2: {"getSchemaResponses": [...]}, the live list oldest first; empty (not 404) when nothing is live.
void AdminApi::getAllSchemas(const TopicName& topic, Callback done) {
    if (!broker_.profile().adminHasCompatibilityAndVersion) {
        done(missingEndpoint("GET schemas"));
        return;
    }
    auto trace = broker_.newTrace();
    broker_.scheduler().post(adminStage(StageKind::registryRead, topic), Continuation([this, topic, trace, done] {
        auto responses = nlohmann::json::array();
        for (const auto& e : broker_.registry().liveList(schemaIdOf(topic))) responses.push_back(schemaResponseJson(e));
        trace->add("§7.4", "GET schemas", [&] { return std::to_string(responses.size()) + " live version(s)"; });
        done(AdminResponse::success(trace, 200, {{"getSchemaResponses", std::move(responses)}}));
    }));
}

// §7.2: "equal" here is the same SHA-256 over data (plus type since 2.8.0), in the live list.
void AdminApi::getVersionBySchema(const TopicName& topic, const SchemaData& schema, Callback done) {
    if (!broker_.profile().adminHasCompatibilityAndVersion) {
        done(missingEndpoint("POST version"));
        return;
    }
    auto trace = broker_.newTrace();
    if (auto missing = missingTenantOrNamespace(topic, "POST version", !broker_.profile().adminSchemaTopicOperationCheck, false, trace)) {
        done(*missing);
        return;
    }
    noteKeyValuePayloadGap(broker_.profile(), schema, *trace);
    if (keyValuePayloadUnconverted(broker_.profile(), schema)) {
        trace->add("§7.2", "POST version",
                   "KEY_VALUE payload not converted before #21632: its JSON text is compared with the stored binary KV data");
    }
    auto payload = keyValuePayloadUnconverted(broker_.profile(), schema) ? asUnconvertedPayload(schema) : schema;
    broker_.scheduler().post(adminStage(StageKind::registryRead, topic), Continuation([this, topic, schema = std::move(payload), trace, done] {
        SchemaVersion v = kNoVersion;
        bool typed = broker_.profile().hashIncludesType;
        for (const auto& e : broker_.registry().liveList(schemaIdOf(topic))) {
            if (e.schema.data == schema.data && (!typed || e.schema.type == schema.type)) {
                v = e.version;
                break;
            }
        }
        trace->add("§7.4", "POST version", [&] { return "hash match in live list -> " + std::to_string(v); });
        done(AdminResponse::success(trace, broker_.profile().adminVersionSuccessStatus, {{"version", v}}));
    }));
}

// §4.9 / §4.11: the delete reads the locator, then writes conditionally on the
// version it read. A soft delete losing that write to a concurrent
// registration: retried before #18701; from #18701 on the old storage path
// has no retry, and the delete fails with "Concurrent modification" (409),
// deleting nothing (derived). A hard delete removes the history outright.
void AdminApi::deleteSchema(const TopicName& topic, bool force, Callback done) {
    auto trace = broker_.newTrace();
    if (auto missing = missingTenantOrNamespace(topic, "DELETE schema", true, false, trace)) {
        done(*missing);
        return;
    }
    broker_.scheduler().post(adminStage(StageKind::registryRead, topic), Continuation([this, topic, force, trace, done] {
        auto seen = broker_.registry().locatorVersion(schemaIdOf(topic));
        broker_.scheduler().post(adminStage(StageKind::registryWrite, topic), Continuation([this, topic, force, seen, trace, done] {
            bool hard = force && broker_.profile().forceDeleteSupported;
            if (force && !hard) trace->add("§4.9", "DELETE schema", "force is not supported before 2.11 (#14655) -> soft delete");
            const auto id = schemaIdOf(topic);
            if (!hard && broker_.registry().locatorVersion(id) != seen) {
                if (broker_.profile().softDeleteConflictFails) {
                    trace->add("§4.11", "DELETE schema", "locator changed since the read -> Concurrent modification (#18701)");
                    done(AdminResponse::failure(trace, 409, "Concurrent modification"));
                    return;
                }
                trace->add("§4.11", "DELETE schema", "locator changed since the read -> retry the write");
            }
            auto v = broker_.registry().deleteSchema(id, hard);
            trace->add("§4.9", "DELETE schema", [&] {
                return hard ? "hard delete, storage removed" : "soft delete marker version " + std::to_string(v);
            });
            done(AdminResponse::success(trace, 200, {{"version", v}}));
        }));
    }));
}

void AdminApi::testCompatibility(const TopicName& topic, const SchemaData& schema, Callback done) {
    const auto& profile = broker_.profile();
    if (!profile.adminHasCompatibilityAndVersion) {
        done(missingEndpoint("POST compatibility"));
        return;
    }
    auto trace = broker_.newTrace();
    if (auto missing = missingTenantOrNamespace(topic, "POST compatibility", true, true, trace)) {
        done(*missing);
        return;
    }
    noteKeyValuePayloadGap(profile, schema, *trace);
    auto strategy = adminStrategy(profile, broker_.policies(), topic, trace.get(), /*forCompatibilityCheck=*/true);
    auto body = [strategy](bool compatible) {
        return nlohmann::json{{"compatibility", compatible}, {"schemaCompatibilityStrategy", std::string(to_string_view(strategy))}};
    };
    if (keyValuePayloadUnconverted(profile, schema)) {
        // §7.2 before #21645: the validator's KEY_VALUE branch reads the JSON text's first
        // 4 bytes as the key length and allocates that many bytes (issue #21584).
        std::string text = renderAdminSchemaData(schema);
        std::uint32_t length = 0;
        for (std::size_t i = 0; i < 4 && i < text.size(); ++i) length = (length << 8) | static_cast<unsigned char>(text[i]);
        trace->add("§7.2", "POST compatibility",
                   [&] {
                       return "KEY_VALUE payload not converted before #21645: JSON text read as KV data, key length " +
                              std::to_string(length) + " -> java.lang.OutOfMemoryError: Java heap space";
                   });
        done(AdminResponse::failure(trace, 500,
                     "\n --- An unexpected error occurred in the server ---\n\nMessage: Java heap space\n\n"
                     "Stacktrace:\n\njava.lang.OutOfMemoryError: Java heap space"));
        return;
    }
    if (!profile.pip44Registry) {
        // 2.4.2: the boolean isCompatible answers true or false in the body.
        broker_.scheduler().post(adminStage(StageKind::registryRead, topic), Continuation([this, topic, schema, strategy, trace, done, body] {
            bool ok = broker_.registry().legacyIsCompatible(schemaIdOf(topic), schema, strategy, *trace);
            done(AdminResponse::success(trace, 202, body(ok)));
        }));
        return;
    }
    broker_.registry().checkCompatible(
        schemaIdOf(topic), schema, strategy, trace, [done, trace, body, &profile](std::optional<BrokerError> err) {
            if (!err) {
                done(AdminResponse::success(trace, 202, body(true)));
                return;
            }
            // §7.4: the registry fails instead of answering false, with the root message.
            done(AdminResponse::failure(trace, adminStatusOf(profile, AdminEndpoint::testCompatibility, err->kind),
                                        err->message));
        });
}

AdminResponse AdminApi::unloadTopic(const TopicName& topic) {
    auto trace = broker_.newTrace();
    auto base = topic.partitionedBase();
    // A topic that does not exist is not found (a real 4.2.4 broker, issue 42).
    if (!broker_.topicExists(base) && broker_.partitionsOf(base) == 0) {
        trace->add("§3.5", "unload", "topic does not exist");
        return AdminResponse::failure(trace, 404, "Topic " + base.toString() + " not found");
    }
    broker_.unload(base);
    trace->add("§3.5", "unload", [&] {
        return base.toString() + " unloaded (non-persistent message counters start again)";
    });
    return AdminResponse::success(trace, 204, nullptr);
}

// Two known gaps of §3.6: a partitioned topic's policies kept, and partitioned schema deletion before its fixes.
void AdminApi::noteDeleteTopicGaps(const TopicName& topic, int partitions, Trace& trace) const {
    const auto& profile = broker_.profile();
    if (partitions == 0) return;
    auto kept = broker_.policies().topicOf(topic);
    if (kept.schemaCompatibilityStrategy || kept.schemaValidationEnforced)
        noteGap(profile, Gap::topicDeleteKeepsTopicPolicies, &trace, "topic-level policies of a partitioned topic kept by the model");
    noteGap(profile, Gap::partitionedTopicSchemaDeletion, &trace, std::to_string(partitions) + " partition(s)");
}

// §3.6: a loaded topic deletes its topic-level policies (PersistentTopic#delete); the path of a
// topic that is not loaded deletes only its managed ledger until #21093 (#21075). Partitioned
// topics: a known gap (noteDeleteTopicGaps).
void AdminApi::deleteTopicPolicies(const TopicName& topic, int partitions, bool unloaded, Trace& trace) {
    auto& stored = broker_.policies().topics;
    auto it = stored.find(topic.toString());
    if (partitions > 0 || it == stored.end()) return;
    if (unloaded && !broker_.profile().topicDeleteUnloadedDeletesPolicies) {
        trace.add("§3.6", "delete topic", "topic not loaded: only its managed ledger is deleted, topic-level policies kept (#21075)");
        return;
    }
    stored.erase(it);
    trace.add("§3.6", "delete topic",
              unloaded ? "topic not loaded: topic-level policies deleted (#21093)" : "topic-level policies deleted with the loaded topic");
}

// §3.6: what the deletion does to the schema, by release (topicDeleteSchema).
void AdminApi::deleteTopicSchema(const TopicName& topic, bool deleteSchema, bool unloaded, Trace& trace) {
    auto id = topic.schemaId();
    bool live = broker_.registry().latest(id).has_value();
    if (live && unloaded && broker_.profile().topicDeleteUnloadedKeepsSchema) {
        trace.add("§3.6", "delete topic", "topic not loaded: only its managed ledger is deleted, the schema is kept (#21075, fixed by #21093)");
        return;
    }
    switch (broker_.profile().topicDeleteSchema) {
        case TopicDeleteSchema::softWhenAsked:
            if (deleteSchema && live) {
                auto v = broker_.registry().deleteSchema(id, false);
                trace.add("§3.6", "delete topic", [&] { return "schema soft-deleted, marker version " + std::to_string(v); });
                return;
            }
            break;
        case TopicDeleteSchema::hardWhenAsked:
            if (deleteSchema && live) {
                broker_.registry().deleteSchema(id, true);
                trace.add("§3.6", "delete topic", "schema storage hard-deleted (#8167); versions restart at 0");
                return;
            }
            break;
        case TopicDeleteSchema::hardAlways:
            if (live) {
                broker_.registry().deleteSchema(id, true);
                trace.add("§3.6", "delete topic", "schema storage hard-deleted (#14608); versions restart at 0");
                return;
            }
            break;
    }
    trace.add("§3.6", "delete topic", live ? "schema kept (delete_schema not asked)" : "no live schema to delete");
}

AdminResponse AdminApi::deleteTopic(const TopicName& topic, bool force, bool deleteSchema) {
    auto trace = broker_.newTrace();
    int partitions = broker_.partitionsOf(topic);
    // The clients of the topic, or of the first busy partition: a partitioned topic is
    // deleted partition by partition, and the first refusal is the answer (a real 4.2.4 broker).
    std::size_t producers = 0, consumers = 0;
    auto count = [&](const TopicName& t) {
        if (producers + consumers > 0) return;
        if (const Topic* loaded = broker_.findTopic(t)) {
            producers += loaded->producers().size();
            consumers += static_cast<std::size_t>(loaded->consumerCount());
        }
    };
    count(topic);
    for (int i = 0; i < partitions; ++i) count(topic.partition(i));
    const bool busy = producers + consumers > 0;
    // The texts of a real 4.2.4 broker (`cnxsim run --against --explore`, issue 42): the topic's
    // name in the 404 and the clients counted in the 412 (PersistentTopic#delete). Earlier
    // lines' texts are UNCONFIRMED.
    if (!broker_.topicExists(topic) && partitions == 0) {
        trace->add("§3.6", "delete topic", "topic does not exist");
        return AdminResponse::failure(trace, 404, "Topic " + topic.toString() + " not found");
    }
    if (busy && !force) {
        trace->add("§3.6", "delete topic", "producers or consumers attached and force=false -> 412");
        const auto clients = producers + consumers;
        return AdminResponse::failure(trace, 412, "Topic has " + std::to_string(clients) +
                                                      (clients == 1 ? " client" : " clients") + " connected Including " + std::to_string(consumers) +
                                                      " consumers, " + std::to_string(producers) +
                                                      " producers, and 0 replicators.");
    }
    noteDeleteTopicGaps(topic, partitions, *trace);
    // BrokerService#deleteTopic: a persistent topic that is not loaded is deleted through the
    // managed ledger factory, not PersistentTopic#delete (#21075).
    bool unloaded = partitions == 0 && topic.persistent() && broker_.findTopic(topic) == nullptr;
    deleteTopicPolicies(topic, partitions, unloaded, *trace);
    broker_.deleteTopicState(topic);
    deleteTopicSchema(topic, deleteSchema, unloaded, *trace);
    return AdminResponse::success(trace, 204, nullptr);
}

}  // namespace cnx
