#pragma once
// A behaviour profile: every way in which the admission answers of one
// broker release line differ from another, as named switches and texts
// (reference §9, §10). The model reads switches; it never compares version
// numbers. Profiles are data and live in profiles.cc.

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "broker_model/compat/compatibility_check.h"
#include "broker_model/release_version.h"

namespace cnx {

/// §3.5: which attachments make a topic "not idle".
enum class IdleRule {
    activeUsageOrSubscriptions,  // 2.4.0-2.7.1: isActive() = usage count != 0 or any subscription exists (#7728)
    producersOrConnectedConsumers,  // 2.7.2+ (#9853): producers non-empty or connected consumers != 0
};

/// §4.5: the "equal schema" function used for de-duplication.
enum class DedupRule {
    dataHashAnyType,        // 2.5.0-2.7.0: SHA-256 of data, type ignored
    typedStructural,        // 2.8.0+: same type; Avro-structural for AVRO/JSON/PROTOBUF, else data hash
};

/// §4.6: what a differing existing/new type does on the compatibility paths.
enum class TypeCheckRule {
    primitiveOnly,  // 2.5.0-2.7.1: `Incompatible primitive schema: ...` when the existing type is primitive
    strict,         // 2.7.2/2.8.0+: `Incompatible schema: exists schema type ...`
};

/// §5.3: order in which the effective compatibility strategy is resolved.
enum class StrategyResolution {
    namespaceThenAutoUpdate,  // 2.5.0-2.8.1
    hierarchy,                // 2.10.0+: topic -> namespace explicit -> namespace auto-update -> broker
};

/// §5.4: where `isAllowAutoUpdateSchema` comes from.
enum class AutoUpdateResolution {
    namespaceOnly,      // 2.5.0-2.8.1: namespace value, default true
    namespaceThenBroker,  // 2.8.2+ (#12786): namespace if set, else broker isAllowAutoUpdateSchemaEnabled
};

/// §5.5 / §3.7: where the topic's schema-validation-enforced value comes from.
enum class EnforcementSource {
    namespaceOnly,    // 2.4.0-2.10.x
    topicThenNamespace,  // 2.11.0+ (#15712)
};

struct BehaviourProfile {
    std::string name;         // "P42"
    std::string releases;     // "4.1.x - 4.2.0"
    ReleaseVersion first;     // first release it covers
    ReleaseVersion last;      // last release it covers
    std::string serverVersion;  // CONNECTED.server_version suffix, e.g. "4.2.0"

    // --- wire (§8.5) ---
    int maxProtocolVersion = 21;  // highest ProtocolVersion the broker answers with

    // --- producer path (§1) ---
    std::string producerWithoutSchemaMessage;  // §1.3
    bool producerErrorCausedBy = true;          // §1.5: "<class>: <msg> caused by <class>: <msg>" (#9544, 2.8.0)
    bool getOrCreateNotFoundIncludesTopic = true;  // §1.8 (#20932)
    bool getSchemaEmptyVersionIsError = true;      // §1.9 (#14626)
    bool getSchemaNotFoundIncludesTopic = true;    // §1.9 (#20932)

    // --- consumer path (§2) ---
    bool autoConsumeSkipsSchema = true;            // §2.3 PIP-236 (#17449, 3.0.0)
    bool consumerAlwaysCompatibleShortcut = true;  // §4.7 step 1 (#12721)
    bool activeTopicEmptySchemaMessage = true;     // §3.5 (#22974): NotExistSchema -> "Failed to add schema to an active topic ..."

    // --- topic (§3) ---
    IdleRule idleRule = IdleRule::producersOrConnectedConsumers;
    bool idleIgnoresAutoConsumeConsumers = true;      // §3.5 PIP-236 (3.0.0)
    bool idleIgnoresReplicatorProducersPersistent = true;  // §3.5 #20888 (2.10.6, 2.11.3, 3.0.2, 3.1.0)
    bool systemTopicsAlwaysAutoUpdate = true;          // §3.3/§4.8 #14809 (2.9.3, 2.10.1, 2.11.0)
    bool topicDeleteDeletesSchema = true;              // §3.6 #14608 (2.11.0): topic deletion always deletes the schema

    // --- registry (§4) ---
    DedupRule dedupRule = DedupRule::typedStructural;
    TypeCheckRule typeCheckRule = TypeCheckRule::strict;
    bool alwaysCompatibleShortCircuit = true;     // §4.6 (#9797, 2.7.2/2.8.0)
    bool checkWithLatestPassesWithoutSchema = true;  // §4.6 (#22720: 3.0.6, 3.2.4, 4.0.0)
    bool registryRetriesWholeDecision = true;     // §4.11 (#18701/#18760)
    bool forceDeleteSupported = true;             // §4.9 (#14655, 2.11.0)

    // --- policies (§5) ---
    StrategyResolution strategyResolution = StrategyResolution::hierarchy;
    AutoUpdateResolution autoUpdateResolution = AutoUpdateResolution::namespaceThenBroker;
    EnforcementSource enforcementSource = EnforcementSource::topicThenNamespace;
    bool topicLevelStrategy = true;  // 2.10.0 (#13297)

    // --- admin REST (§7) ---
    int adminPostSchemaSuccessStatus = 200;      // 202 before 2.11.0 (#15733)
    int adminInvalidDefinitionStatus = 422;      // 500 before 2.11.0 (§7.4, derived)
    // §7.4 #24103 (admin upload rejects non-record AVRO, 4.1.0) is not modelled:
    // its status and text are UNCONFIRMED (the PR excerpt ends at `new RestException(Resp`).

    // --- checkers (§6) ---
    compat::CheckOptions checkOptions;
};

/// The profiles, oldest first.
std::span<const BehaviourProfile> allProfiles();

/// The newest profile: the default when a scenario names no version.
const BehaviourProfile& newestProfile();

/// The profile of release `version` ("4.2", "4.2.0"); nullptr with `error`
/// set when no profile models it.
const BehaviourProfile* profileFor(std::string_view version, std::string* error = nullptr);

}  // namespace cnx
