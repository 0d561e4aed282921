// libFuzzer target: the PROTOBUF_NATIVE definition path (reference §6.5, §6.7).
//
// Input: the raw bytes of a protobuf FileDescriptorSet, as `cnxsim compat`
// reads a .desc file. It is turned into a PROTOBUF_NATIVE definition the way
// that command does (root message and file chosen from the set), validated as
// the registry does and checked against itself and against a fixed valid
// definition; the raw bytes are also tried as a definition text of their own.
// Malformed descriptors must get the broker's refusal text, never an abort.

#include <cstdint>
#include <string>
#include <string_view>

#include "broker_model/compat/checker_set.h"
#include "broker_model/compat/protobuf_native/protobuf_native_check.h"
#include "broker_model/profile/profile.h"
#include "broker_model/registry/definition_validator.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const cnx::compat::CheckerSet checkers;
    std::string bytes(reinterpret_cast<const char*>(data), size);
    const auto& profile = cnx::newestProfile();
    const auto& check = checkers.forType(cnx::SchemaType::PROTOBUF_NATIVE);
    const auto& options = profile.checkOptions;

    cnx::SchemaData raw{cnx::SchemaType::PROTOBUF_NATIVE, bytes, {}};
    cnx::validateSchemaDefinition(profile, raw, false);
    cnx::compat::protobufNativeDefinitionError(bytes);

    // The definition a client (and `cnxsim compat`) builds from a .desc file.
    cnx::SchemaData candidate{cnx::SchemaType::PROTOBUF_NATIVE,
                              cnx::compat::protobufNativeDefinitionWithDefaultRoot(bytes), {}};
    cnx::validateSchemaDefinition(profile, candidate, false);
    for (auto strategy : {cnx::CompatibilityStrategy::FULL, cnx::CompatibilityStrategy::BACKWARD_TRANSITIVE}) {
        check.checkCompatible(candidate, candidate, strategy, options);
        check.checkCompatible(raw, candidate, strategy, options);
    }
    return 0;
}
