#pragma once
// What one admin HTTP exchange becomes in a recording (doc/recording.md):
//
//   POST   …/schemas/{t}/{ns}/{topic}/schema          upload-schema
//   GET    …/schema[/{version}]                        get-schema
//   POST   …/version                                   get-schema-version
//   POST   …/compatibility                             test-compatibility
//   DELETE …/schema[?force=true]                       delete-schema
//   DELETE /admin/v2/{persistent|non-persistent}/…/{topic}[/partitions]  delete-topic
//   PUT    …/{topic}/unload                            unload
//   PUT|POST|DELETE namespace and topic schema policies  set-policy (Pulsar's field names)
//   POST|DELETE /admin/v2/brokers/configuration/{key}[/{value}]  set-broker-config
//   POST   /cnxsim/upgrade?version=V, /cnxsim/restart  upgrade-broker, restart-broker
//   PUT    namespaces/{t}/{ns}, …/{topic}[/partitions]  the header (`namespaces:`, `topics:`)
//
// Everything else (GETs of lists, policies, health, clusters, metrics,
// /cnxsim/status, tenants) changes nothing a step can express and is left out.
// An exchange is classified by the admin route table
// (sim/rest/admin_routes_table.h), as serve dispatched it: one on a path or
// method no route serves (a 404, 405, or 412 for a topic name) is left out too.

#include <optional>
#include <string>

#include "sim/record/recording.h"
#include "sim/record/schema_aliases.h"
#include "sim/net/session_tap.h"

namespace cnx::record {

struct AdminEffect {
    std::optional<RecordedStep> step;
    std::optional<std::string> createdNamespace;  // tenant/ns (created, or 409: it exists)
    std::optional<std::string> createdTopic;      // full name
    int partitions = 0;                           // of createdTopic
};

/// The effect of `exchange`; schemas in its body are named through `aliases`.
AdminEffect adminEffect(const serve::AdminExchange& exchange, SchemaAliases& aliases);

}  // namespace cnx::record
