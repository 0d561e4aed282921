#pragma once
// Conversions between the wire `Schema` and the registry's SchemaData
// (reference §1.2, §2.3, §2.4).

#include "broker_model/core/schema_data.h"
#include "proto/PulsarApi.pb.h"

namespace cnx::wire {

/// proto -> Java type: AutoConsume -> AUTO_CONSUME; values the Java enum does
/// not know (External 22) -> NONE; otherwise the same integer.
SchemaType fromProtoType(pulsar::proto::Schema::Type t);

/// Java -> proto type: AUTO_CONSUME -> AutoConsume; other negatives -> None.
pulsar::proto::Schema::Type toProtoType(SchemaType t);

/// The broker's record of a client schema: type, data verbatim, properties
/// (the proto `name` is ignored, §1.2).
SchemaData fromProto(const pulsar::proto::Schema& schema);

/// A wire schema named `name` (clients send their own names; the broker
/// answers GET_SCHEMA with the schema-id).
pulsar::proto::Schema toProto(const SchemaData& schema, const std::string& name);

}  // namespace cnx::wire
