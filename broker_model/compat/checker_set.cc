#include "broker_model/compat/checker_set.h"

#include "broker_model/compat/avro/avro_check.h"
#include "broker_model/compat/default/default_check.h"
#include "broker_model/compat/key_value/key_value_check.h"
#include "broker_model/compat/protobuf_native/protobuf_native_check.h"

namespace cnx::compat {

CheckerSet::CheckerSet() : default_(makeDefaultCheck()) {
    // §6.1: schemaRegistryCompatibilityCheckers default list, plus KEY_VALUE.
    // PROTOBUF is deliberately absent: it uses DEFAULT in the default configuration.
    add(SchemaType::AVRO, makeAvroCheck());
    add(SchemaType::JSON, makeJsonCheck());
    add(SchemaType::PROTOBUF_NATIVE, makeProtobufNativeCheck());
    add(SchemaType::KEY_VALUE, makeKeyValueCheck(*this));
}

const CheckerSet& CheckerSet::standard() {
    static const CheckerSet set;
    return set;
}

void CheckerSet::add(SchemaType type, std::unique_ptr<SchemaCompatibilityCheck> check) {
    checks_[type] = std::move(check);
}

const SchemaCompatibilityCheck& CheckerSet::forType(SchemaType type) const {
    auto it = checks_.find(type);
    return it == checks_.end() ? *default_ : *it->second;
}

}  // namespace cnx::compat
