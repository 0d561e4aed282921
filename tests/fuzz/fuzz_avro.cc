// libFuzzer target: the Avro parser and every checker that reads Avro-format
// definitions (reference §6.3, §6.4, §6.6, §6.7).
//
// Input: `existing [NUL candidate [NUL selector]]`. Without a NUL the text is
// both definitions. The selector byte picks the Avro release, the strategy and
// two checker options, so that mutations spread over every release's rules;
// without one (the checked-in crashers) every release runs, each with another
// strategy. Each definition is
// validated as the registry does, parsed, compared for equality and checked
// as AVRO, as JSON and as the value of a KEY_VALUE schema whose key
// properties are the other definition's text (the KEY_VALUE properties are
// JSON the broker parses with Gson). Everything must answer with a value.
// Where the parser's quick path takes a definition, it must build what the
// full parser builds (avro_quick_parse.h); a disagreement traps.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker_model/compat/avro/avro_check.h"
#include "broker_model/compat/avro/avro_quick_parse.h"
#include "broker_model/compat/checker_set.h"
#include "broker_model/compat/key_value/key_value_check.h"
#include "broker_model/profile/profile.h"
#include "broker_model/registry/definition_validator.h"

namespace {

using cnx::CompatibilityStrategy;
using cnx::SchemaData;
using cnx::SchemaType;
using cnx::compat::AvroVersion;

constexpr std::array kVersions{AvroVersion::v1_8_2,  AvroVersion::v1_9_1,  AvroVersion::v1_10_2,
                               AvroVersion::v1_11_3, AvroVersion::v1_11_4, AvroVersion::v1_12_0};
constexpr std::array kStrategies{CompatibilityStrategy::BACKWARD,          CompatibilityStrategy::FORWARD,
                                 CompatibilityStrategy::FULL,              CompatibilityStrategy::BACKWARD_TRANSITIVE,
                                 CompatibilityStrategy::FORWARD_TRANSITIVE, CompatibilityStrategy::FULL_TRANSITIVE,
                                 CompatibilityStrategy::ALWAYS_COMPATIBLE};

void checkBoth(const cnx::compat::CheckerSet& checkers, const SchemaData& a, const SchemaData& b,
               CompatibilityStrategy strategy, const cnx::compat::CheckOptions& options) {
    const auto& check = checkers.forType(b.type);
    check.checkCompatible(a, b, strategy, options);
    std::vector<SchemaData> history{a, b};
    check.checkCompatible(history, b, strategy, options);
}

void quickAgrees(const std::string& definition, const cnx::compat::avro::ParseOptions& options) {
    auto quick = cnx::compat::avro::quickParse(definition, options);
    if (!quick) return;
    auto full = cnx::compat::avro::parseFull(definition, options);
    const auto* f = full.schema.get();
    if (f == nullptr || quick->root != f->root || quick->recursive != f->recursive || quick->hasAliases != f->hasAliases ||
        !(quick->compact == f->compact)) {
        __builtin_trap();
    }
}

/// One selector's worth of checks on the two definitions.
void checkAll(std::uint8_t pick, const std::string& first, const std::string& second) {
    static const cnx::compat::CheckerSet checkers;
    cnx::compat::CheckOptions options;
    options.avro = kVersions[pick % kVersions.size()];
    options.avroNamesAllowDollar = (pick & 0x40) != 0;
    options.jsonAllowLegacyJacksonFormat = (pick & 0x80) != 0;
    auto strategy = kStrategies[(pick / kVersions.size()) % kStrategies.size()];

    auto parseOptions = cnx::compat::avro::parseOptionsFor(options);
    quickAgrees(first, parseOptions);
    quickAgrees(second, parseOptions);

    const auto& profile = cnx::newestProfile();
    for (auto type : {SchemaType::AVRO, SchemaType::JSON}) {
        SchemaData a{type, first, {}}, b{type, second, {}};
        cnx::validateSchemaDefinition(profile, a, options.jsonAllowLegacyJacksonFormat);
        cnx::validateSchemaDefinition(profile, b, options.jsonAllowLegacyJacksonFormat);
        checkBoth(checkers, a, b, strategy, options);
    }
    cnx::compat::avroParseError(first, options);
    cnx::compat::avroDefinitionsEqual(first, second, options);

    SchemaData key{SchemaType::STRING, "", {}};
    SchemaData value{SchemaType::AVRO, second, {}};
    auto kv = cnx::compat::encodeKeyValue(key, value, "INLINE");
    kv.properties["key.schema.properties"] = first;
    auto older = cnx::compat::encodeKeyValue(key, SchemaData{SchemaType::AVRO, first, {}}, "SEPARATED");
    cnx::validateSchemaDefinition(profile, kv, false);
    checkBoth(checkers, older, kv, strategy, options);
    std::string error;
    cnx::compat::decodeKeyValue(kv, &error);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view input(reinterpret_cast<const char*>(data), size);
    auto cut = input.find('\0');
    std::string first(input.substr(0, cut));
    std::string second = first;
    std::optional<std::uint8_t> pick;
    if (cut != std::string_view::npos) {
        auto rest = input.substr(cut + 1);
        auto cut2 = rest.find('\0');
        second = std::string(rest.substr(0, cut2));
        if (cut2 != std::string_view::npos && cut2 + 1 < rest.size()) pick = std::uint8_t(rest[cut2 + 1]);
    }
    if (pick) {
        checkAll(*pick, first, second);
        return 0;
    }
    // No selector: every Avro release once, each with another strategy.
    for (std::size_t i = 0; i < kVersions.size(); ++i) checkAll(std::uint8_t(i + kVersions.size() * i), first, second);
    return 0;
}
