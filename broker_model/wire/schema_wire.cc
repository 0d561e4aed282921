#include "broker_model/wire/schema_wire.h"

namespace cnx::wire {

SchemaType fromProtoType(pulsar::proto::Schema::Type t) {
    if (t == pulsar::proto::Schema::AutoConsume) return SchemaType::AUTO_CONSUME;
    if (t == pulsar::proto::Schema::External) return SchemaType::NONE;
    return static_cast<SchemaType>(static_cast<int>(t));
}

pulsar::proto::Schema::Type toProtoType(SchemaType t) {
    if (t == SchemaType::AUTO_CONSUME) return pulsar::proto::Schema::AutoConsume;
    if (static_cast<int>(t) < 0) return pulsar::proto::Schema::None;
    return static_cast<pulsar::proto::Schema::Type>(static_cast<int>(t));
}

SchemaData fromProto(const pulsar::proto::Schema& schema) {
    SchemaData out;
    out.type = fromProtoType(schema.type());
    out.data = schema.schema_data();
    // Java builds a map from the list: a later duplicate key wins here
    // (the broker's own reaction to duplicates is UNCONFIRMED, §1.2).
    for (const auto& kv : schema.properties()) out.properties[kv.key()] = kv.value();
    return out;
}

pulsar::proto::Schema toProto(const SchemaData& schema, const std::string& name) {
    pulsar::proto::Schema out;
    out.set_name(name);
    out.set_schema_data(schema.data);
    out.set_type(toProtoType(schema.type));
    for (const auto& [k, v] : schema.properties) {
        auto* kv = out.add_properties();
        kv->set_key(k);
        kv->set_value(v);
    }
    return out;
}

}  // namespace cnx::wire
