#pragma once
// PROTOBUF_NATIVE checker (reference §6.5): the root message full name must
// not change. Definitions are JSON {fileDescriptorSet (base64),
// rootMessageTypeName, rootFileDescriptorName}, decoded with libprotobuf.

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "broker_model/compat/compatibility_check.h"

namespace cnx::compat {

std::unique_ptr<SchemaCompatibilityCheck> makeProtobufNativeCheck();

/// §6.7 validation of a PROTOBUF_NATIVE definition: nullopt when valid, else
/// the broker's message (`deserialize ProtobufNative Schema failed`, ...).
std::optional<std::string> protobufNativeDefinitionError(std::string_view definition);

}  // namespace cnx::compat
