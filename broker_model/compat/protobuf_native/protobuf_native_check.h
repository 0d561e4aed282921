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

/// The definition a Pulsar client sends for a PROTOBUF_NATIVE schema (§6.5):
/// JSON {fileDescriptorSet: base64 of the bytes, rootMessageTypeName,
/// rootFileDescriptorName}, in the Java bean's order. Bytes of a name that are
/// not UTF-8 become U+FFFD, as Java's String of the descriptor's name does
/// (issue 7 item 8). Never throws; the bytes need not be a valid set.
std::string protobufNativeDefinition(std::string_view fileDescriptorSet, std::string_view rootMessageTypeName,
                                     std::string_view rootFileDescriptorName);

/// protobufNativeDefinition with the root `cnxsim compat` picks by default:
/// the set's last file and its first top-level message (package-qualified).
/// Names are empty when the bytes are not a set or define no message, so the
/// validator then refuses the definition.
std::string protobufNativeDefinitionWithDefaultRoot(std::string_view fileDescriptorSet);

}  // namespace cnx::compat
