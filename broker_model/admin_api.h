#pragma once
// The admin REST endpoints that touch schemas, policies and topics
// (reference §7): `SchemasResource` plus topic deletion. Each call answers
// with an HTTP status, a JSON body or reason, and a decision trace; registry
// work is posted on the executor as the broker's async handlers do.

#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "broker_model/broker.h"
#include "broker_model/trace.h"

namespace cnx {

struct AdminResponse {
    int status = 200;
    nlohmann::json body;  // the response entity (null when none)
    std::string reason;   // error text (reason phrase / `{"reason": ...}`)
    TracePtr trace = std::make_shared<Trace>();

    bool ok() const { return status >= 200 && status < 300; }
};

class AdminApi {
public:
    using Callback = std::function<void(AdminResponse)>;

    /// `broker` must outlive the API object.
    explicit AdminApi(Broker& broker) : broker_(broker) {}

    /// POST .../schema (§7.4).
    void postSchema(const TopicName& topic, const SchemaData& schema, Callback done);
    /// GET .../schema and GET .../schema/{version}.
    void getSchema(const TopicName& topic, std::optional<SchemaVersion> version, Callback done);
    /// POST .../version: the version of an equal live schema, or -1.
    void getVersionBySchema(const TopicName& topic, const SchemaData& schema, Callback done);
    /// DELETE .../schema[?force=true].
    void deleteSchema(const TopicName& topic, bool force, Callback done);
    /// POST .../compatibility.
    void testCompatibility(const TopicName& topic, const SchemaData& schema, Callback done);
    /// DELETE of a topic (persistent or not); `deleteSchema` asks for schema deletion
    /// (always done from 2.11, §3.6). Attached clients are disconnected when `force`.
    AdminResponse deleteTopic(const TopicName& topic, bool force, bool deleteSchema);

private:
    std::string schemaIdOf(const TopicName& topic) const;
    AdminResponse missingEndpoint(const char* what) const;

    Broker& broker_;
};

}  // namespace cnx
