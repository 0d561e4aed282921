#include "broker_model/admin_api.h"

#include "broker_model/compat/key_value_check.h"
#include "broker_model/policy_resolution.h"
#include "broker_model/registry/definition_validator.h"

namespace cnx {
namespace {

AdminResponse failure(TracePtr trace, int status, std::string reason) {
    AdminResponse r;
    r.status = status;
    r.reason = std::move(reason);
    r.body = {{"reason", r.reason}};
    r.trace = std::move(trace);
    return r;
}

AdminResponse success(TracePtr trace, int status, nlohmann::json body) {
    AdminResponse r;
    r.status = status;
    r.body = std::move(body);
    r.trace = std::move(trace);
    return r;
}

// §7.2: KEY_VALUE data is rendered back as {"key": ..., "value": ...}; a
// primitive component is "".
std::string renderData(const SchemaData& schema) {
    if (schema.type != SchemaType::KEY_VALUE) return schema.data;
    std::string error;
    auto kv = compat::decodeKeyValue(schema, &error);
    if (!kv) return schema.data;
    auto component = [](const SchemaData& c) -> nlohmann::json {
        if (c.data.empty()) return "";
        auto parsed = nlohmann::json::parse(c.data, nullptr, false);
        return parsed.is_discarded() ? nlohmann::json(c.data) : parsed;
    };
    return nlohmann::json{{"key", component(kv->key)}, {"value", component(kv->value)}}.dump();
}

}  // namespace

nlohmann::json schemaResponseJson(const StoredSchema& entry) {
    return {{"version", entry.version},
            {"type", std::string(to_string_view(entry.schema.type))},
            {"timestamp", 0},
            {"data", renderData(entry.schema)},
            {"properties", entry.schema.properties}};
}

void AdminApi::postSchema(const TopicName& topic, const SchemaData& schema, Callback done) {
    auto trace = std::make_shared<Trace>();
    const auto& profile = broker_.profile();
    // §7.4: isAllowAutoUpdateSchema and enforcement play no role here.
    auto strategy = adminStrategy(profile, broker_.policies(), topic, trace.get());
    broker_.registry().putSchemaIfAbsent(
        topic.schemaId(), schema, strategy, trace, [done, trace, &profile](Result<SchemaVersion> r) {
            if (r.ok()) {
                trace->add("§7.4", "POST schema", "version " + std::to_string(r.value()));
                // {"version": {"version": n}} per Jackson bean rules (UNCONFIRMED, §7.2).
                done(success(trace, profile.adminPostSchemaSuccessStatus, {{"version", {{"version", r.value()}}}}));
                return;
            }
            const auto& e = r.error();
            if (e.exceptionClass.ends_with("InvalidSchemaDataException")) {
                done(failure(trace, profile.adminInvalidDefinitionStatus, e.message));
            } else if (e.code == pulsar::proto::IncompatibleSchema) {
                done(failure(trace, 409, e.message));
            } else {
                done(failure(trace, 500, e.exceptionClass.empty() ? e.message : e.exceptionClass + ": " + e.message));
            }
        });
}

void AdminApi::getSchema(const TopicName& topic, std::optional<SchemaVersion> version, Callback done) {
    auto trace = std::make_shared<Trace>();
    broker_.executor().post("registry read", [this, topic, version, trace, done] {
        auto id = topic.schemaId();
        auto found = version ? broker_.registry().byVersion(id, *version) : broker_.registry().latest(id);
        if (!found) {
            trace->add("§7.4", "GET schema", "no live schema" + (version ? " with version " + std::to_string(*version) : std::string()));
            done(failure(trace, 404, "Schema not found"));
            return;
        }
        trace->add("§7.4", "GET schema", "version " + std::to_string(found->version));
        done(success(trace, 200, schemaResponseJson(*found)));
    });
}

// §7.2: "equal" here is the same SHA-256 over data plus type (2.8+), in the live list.
void AdminApi::getVersionBySchema(const TopicName& topic, const SchemaData& schema, Callback done) {
    auto trace = std::make_shared<Trace>();
    broker_.executor().post("registry read", [this, topic, schema, trace, done] {
        SchemaVersion v = kNoVersion;
        for (const auto& e : broker_.registry().liveList(topic.schemaId())) {
            if (e.schema.data == schema.data && e.schema.type == schema.type) {
                v = e.version;
                break;
            }
        }
        trace->add("§7.4", "POST version", "hash match in live list -> " + std::to_string(v));
        done(success(trace, broker_.profile().adminPostSchemaSuccessStatus, {{"version", v}}));
    });
}

void AdminApi::deleteSchema(const TopicName& topic, bool force, Callback done) {
    auto trace = std::make_shared<Trace>();
    broker_.executor().post("registry write", [this, topic, force, trace, done] {
        if (force && !broker_.profile().forceDeleteSupported) {
            trace->add("§4.9", "DELETE schema", "force is not supported before 2.11 -> soft delete");
        }
        bool hard = force && broker_.profile().forceDeleteSupported;
        auto v = broker_.registry().deleteSchema(topic.schemaId(), hard);
        trace->add("§4.9", "DELETE schema", hard ? "hard delete, storage removed" : "soft delete marker version " + std::to_string(v));
        done(success(trace, 200, {{"version", v}}));
    });
}

void AdminApi::testCompatibility(const TopicName& topic, const SchemaData& schema, Callback done) {
    auto trace = std::make_shared<Trace>();
    auto strategy = adminStrategy(broker_.profile(), broker_.policies(), topic, trace.get());
    broker_.registry().checkCompatible(
        topic.schemaId(), schema, strategy, trace, [done, trace, strategy](std::optional<BrokerError> err) {
            if (!err) {
                done(success(trace, 202,
                             {{"compatibility", true}, {"schemaCompatibilityStrategy", std::string(to_string_view(strategy))}}));
                return;
            }
            // §7.4: the registry fails instead of answering false: 500 with the text.
            if (err->exceptionClass.ends_with("InvalidSchemaDataException")) {
                done(failure(trace, 422, err->message));
                return;
            }
            done(failure(trace, 500, err->message));
        });
}

AdminResponse AdminApi::deleteTopic(const TopicName& topic, bool force, bool deleteSchema) {
    auto trace = std::make_shared<Trace>();
    int partitions = broker_.partitionsOf(topic);
    auto attached = [this](const TopicName& t) {
        const Topic* loaded = broker_.findTopic(t);
        return loaded && (!loaded->producers().empty() || loaded->consumerCount() > 0);
    };
    bool busy = attached(topic);
    for (int i = 0; i < partitions; ++i) busy = busy || attached(topic.partition(i));
    if (!broker_.topicExists(topic) && partitions == 0) {
        trace->add("§3.6", "delete topic", "topic does not exist");
        return failure(trace, 404, "Topic not found");
    }
    if (busy && !force) {
        trace->add("§3.6", "delete topic", "producers or consumers attached and force=false -> 412");
        return failure(trace, 412, "Topic has active producers/subscriptions");
    }
    broker_.deleteTopicState(topic);
    bool dropSchema = deleteSchema || broker_.profile().topicDeleteDeletesSchema;
    if (dropSchema && broker_.registry().latest(topic.schemaId())) {
        broker_.registry().deleteSchema(topic.schemaId(), true);  // §3.6: hard delete (2.7.0+)
        trace->add("§3.6", "delete topic", "schema storage hard-deleted; versions restart at 0");
    } else {
        trace->add("§3.6", "delete topic", dropSchema ? "no live schema to delete" : "schema kept");
    }
    return success(trace, 204, nullptr);
}

}  // namespace cnx
