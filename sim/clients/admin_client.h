#pragma once
// The runner as a REST client of AdminApi: what an admin step observed is read
// from the endpoint's answer only (HTTP status, reason phrase and the JSON text
// of the body, doc/broker-behaviour.md §7.2), never from the registry or the
// policies. A 2xx body without the documented shape is a failure
// `BadResponse`, as it would be for a client decoding it.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "broker_model/admin/admin_api.h"
#include "broker_model/core/topic_name.h"
#include "sim/rest/admin_routes_table.h"
#include "sim/scenario/observed.h"

namespace cnx::sim {

enum class AdminCall {
    uploadSchema,       // POST …/schema             {"version": {"version": n}}
    getSchema,          // GET …/schema[/{version}]  GetSchemaResponse
    getSchemaVersion,   // POST …/version            {"version": n}
    deleteSchema,       // DELETE …/schema           {"version": n}
    deleteTopic,        // DELETE topic              no body
    testCompatibility,  // POST …/compatibility      {"compatibility": b, "schemaCompatibilityStrategy": s}
    setPolicy,          // namespace / topic policy  no body
    setBrokerConfig,    // brokers configuration     no body
    unloadTopic,        // PUT …/unload              no body
};

/// One admin REST request, built from the route table (sim/rest/admin_routes_table.h):
/// the requests serve's HTTP adapter dispatches and the recorder classifies.
struct AdminRequest {
    std::string method;               // GET, PUT, POST, DELETE
    std::string target;               // path and query, each segment encoded as Pulsar's Codec does
    std::optional<std::string> body;  // JSON text; nullopt: none
};

/// The named segments of a topic's routes: domain, tenant, namespace, local name.
rest::Params topicParams(const TopicName& topic);
/// The named segments of a namespace's routes, from `tenant/namespace`.
rest::Params namespaceParams(const std::string& ns);

/// The request of the route of `call` (its policy `leaf` when it has several)
/// with `params` and query `flags`; nullopt when the route needs a segment not given.
std::optional<AdminRequest> adminRequest(rest::Call call, const rest::Params& params, std::optional<std::string> body = {},
                                         const std::vector<std::pair<std::string, std::string>>& flags = {},
                                         std::string_view leaf = {});

/// The request of an admin step that sets (`value`) or unsets (nullopt)
/// `policy` at the namespace or topic of `params` (`topicLevel`): the setter
/// with the JSON body Jackson reads, the DELETE route, or the setter with the
/// policy's unset body; nullopt when no REST call of Pulsar's unsets it.
std::optional<AdminRequest> policyRequest(const rest::PolicyLeaf& policy, bool topicLevel, const rest::Params& params,
                                          const std::optional<std::string>& value);

/// The observation of one admin answer: the body as its JSON text parsed
/// again reads, so only what travels over HTTP is read. A body whose text
/// gives it back unchanged (well-formed UTF-8 strings, no floats) is read as
/// it is; the others are serialised and parsed (invalid UTF-8 becomes U+FFFD).
Observed observeAdmin(AdminCall call, AdminResponse response);

/// A `GetSchemaResponse` (§7.2) as a client turns it back into a schema: the
/// version, the type by its Java name, `data` as UTF-8 bytes and the
/// properties; for KEY_VALUE the `{"key": …, "value": …}` rendering is
/// converted back to the binary layout of §6.6, as the Java admin client's
/// `SchemaUtils.convertKeyValueDataStringToSchemaInfoSchema` does (a `""`
/// component becomes zero bytes, others their compact JSON text). nullopt with
/// `error` set when the body does not have that shape.
std::optional<std::pair<std::int64_t, SchemaData>> schemaFromGetSchemaResponse(const nlohmann::json& body,
                                                                               std::string* error);

}  // namespace cnx::sim
