#pragma once
// A behaviour profile: every way in which the admission answers of one broker
// release differ from another, as named switches and texts (reference §9,
// §10). The model reads switches; it never compares version numbers.
//
// Profiles are data (profiles.cc): the behaviour of Pulsar 2.4.0 is the
// baseline, and every change of the §9.1 timeline is a "fix" with its PR, its
// reference section and the first release of each line that carries it. The
// profile of an exact release is the baseline with every fix that release
// carries applied; each switch remembers the PR that set it.

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "broker_model/compat/compatibility_check.h"
#include "broker_model/core/compatibility_strategy.h"
#include "broker_model/profile/gaps.h"
#include "broker_model/core/release_version.h"

namespace cnx {

/// §3.5: which attachments make a topic "not idle".
enum class IdleRule {
    activeUsageOrSubscriptions,     // 2.4.0-2.7.1: isActive() = usage count != 0 or any subscription exists (#7728)
    producersOrConnectedConsumers,  // 2.7.2/2.8.0+ (#9853): producers non-empty or connected consumers != 0
};

/// §4.3/§4.4/§4.5: how an already-registered schema is found again.
enum class DedupRule {
    storageHashWholeHistory,      // 2.4.0: storage-level SHA-256 over the entire history, pre-delete included (#4724)
    storageHashAfterLastDelete,   // 2.4.1-2.4.2 (#4731): storage-level hash, entries after the last marker
    dataHashAnyType,              // 2.5.0-2.7.0 (PIP-44 #5227): live list, SHA-256 of data, type ignored
    avroStructuralAnyType,        // 2.7.1 (#9612): Avro-structural for AVRO/JSON/PROTOBUF, parses every live entry, type ignored
    avroStructuralTypedParseAll,  // 2.7.2-2.7.x (#9797): as 2.7.1 but the type must match; parse-all bug kept
    typedStructural,              // 2.8.0+ (#10573): same type; Avro-structural for Avro-based types, else data hash
};

/// §4.6 / §6.8: what a differing existing/new type does on the compatibility paths.
enum class TypeCheckRule {
    none,           // 2.4.x: the checker of the new type decides
    primitiveOnly,  // 2.5.0-2.7.1 (#5051, #5103): `Incompatible primitive schema: ...` when the existing type is primitive
    strict,         // 2.7.2/2.8.0+ (#9797): `Incompatible schema: exists schema type ...`
};

/// §5.3: order in which the effective compatibility strategy is resolved.
enum class StrategyResolution {
    namespaceAutoUpdateOnly,   // 2.4.x: converted namespace auto-update strategy (default Full)
    namespaceThenAutoUpdate,   // 2.5.0-2.8.1: namespace explicit -> converted auto-update
    namespaceBrokerAutoUpdate, // 2.8.2, 2.9.0-2.9.1 (#11856): namespace explicit -> broker (UNDEFINED skips) -> auto-update
    namespaceAutoUpdateBroker, // 2.8.3, 2.9.2+ (#13938): namespace explicit -> auto-update if set -> broker
    hierarchy,                 // 2.10.0+ (#13297): topic -> namespace explicit -> auto-update -> broker
};

/// §7.3: the strategy of the admin endpoints.
enum class AdminStrategyResolution {
    fullHardcoded,              // 2.4.0-2.4.1 (#4821): POST /schema always FULL
    namespaceAutoUpdate,        // 2.4.2 (#4950): converted namespace auto-update strategy
    namespaceThenAutoUpdate,    // 2.5.0-2.8.x
    namespaceBrokerAutoUpdate,  // 2.9.x
    hierarchy,                  // 2.10.0+: topic (policies enabled) -> namespace -> auto-update -> broker
};

/// §5.4: where `isAllowAutoUpdateSchema` comes from.
enum class AutoUpdateResolution {
    absent,               // 2.4.x: the feature does not exist (clients may always register)
    namespaceOnly,        // 2.5.0-2.8.1, 2.9.0-2.9.1: namespace value, default true
    namespaceThenBroker,  // 2.8.2, 2.9.2, 2.10.0+ (#12786): namespace if set, else broker isAllowAutoUpdateSchemaEnabled
};

/// §5.5 / §3.7: where the topic's schema-validation-enforced value comes from.
enum class EnforcementSource {
    namespaceOnly,       // 2.4.0-2.10.x (#4157)
    topicThenNamespace,  // 2.11.0+ (#15712)
};

/// §7.4: the text of an admin schema error response.
enum class AdminErrorText {
    none,     // 2.4.x: a bare status
    wrapped,  // 2.5.0-2.10.x: the async wrapper's "<class>: <message>"
    root,     // 2.11.0+ (#15733): the root exception's message
};

/// §3.6: what deleting a topic does to its schema.
enum class TopicDeleteSchema {
    softWhenAsked,    // 2.4.x-2.6.1: only with delete_schema; a soft-delete marker
    hardWhenAsked,    // 2.6.2/2.7.0+ (#8167): only with delete_schema; storage hard-deleted
    hardAlways,       // 2.11.0+ (#14608): always; storage hard-deleted
};

struct BehaviourProfile {
    std::string name;           // the §10 profile this release belongs to, e.g. "P210"
    std::string releases;       // what that profile represents, e.g. "2.8.2 - 2.10.x"
    ReleaseVersion release;     // the exact release this profile models

    // --- wire (§8.5) ---
    int maxProtocolVersion = 14;  // highest ProtocolVersion the broker answers with (checks: protocol.h)

    // --- producer path (§1) ---
    std::string producerWithoutSchemaMessage = "Producers cannot connect without a schema to topics with a schema";
    bool producerErrorCausedBy = false;            // §1.5 "<class>: <msg> caused by <class>: <msg>" (#9544)
    bool getOrCreateNotFoundIncludesTopic = false;  // §1.8 (#20932)
    bool getSchemaStripsPartition = false;         // §1.9 (#7708)
    bool getSchemaEmptyVersionIsError = false;     // §1.9 (#14626)
    bool getSchemaNotFoundIncludesTopic = false;   // §1.9 (#20932)

    // --- consumer path (§2) ---
    bool pip44ConsumerCheck = false;               // §2.2/§3.4 (#5227): checkConsumerCompatibility; else 2.4's boolean check
    bool autoConsumeSkipsSchema = false;           // §2.3 PIP-236 (#17449)
    bool consumerAlwaysCompatibleShortcut = false;  // §4.7 step 1 (#12721)
    bool activeTopicEmptySchemaMessage = false;    // §3.5 (#22974): NotExistSchema -> "Failed to add schema to an active topic ..."

    // --- delivery (issue 41) ---
    // PIP-54 (#6052, 2.6.0): acknowledgmentAtBatchIndexLevelEnabled exists; before it an
    // ACK's ack_set is not read (the whole entry is acknowledged).
    bool batchIndexAck = false;
    // #19502 (3.0.0, from the C++ client's ConsumerTest note): a Failover subscription
    // of a non-partitioned topic picks its active consumer on a hash ring of the
    // consumers' names; before, the first consumer to subscribe.
    bool failoverNonPartitionedHashRing = false;

    // --- topic (§3) ---
    IdleRule idleRule = IdleRule::activeUsageOrSubscriptions;
    bool idleIgnoresAutoConsumeConsumers = false;         // §3.5 PIP-236 (#17449)
    bool idleIgnoresReplicatorProducersPersistent = false;  // §3.5 (#20888)
    bool systemTopicsAlwaysAutoUpdate = false;            // §3.3/§4.8 (#14809)
    bool softDeleteMarkerIsSchema = true;                 // §3.2: 2.4.0 returned the marker as the latest schema (#4669)
    TopicDeleteSchema topicDeleteSchema = TopicDeleteSchema::softWhenAsked;  // §3.6
    // §3.6 (#21075): deleting a persistent topic that is not loaded deletes only its managed
    // ledger: on 3.0.1 and 3.1.0 its schema stays (#21093 deletes it from 3.0.2, 3.1.1, 3.2.0).
    bool topicDeleteUnloadedKeepsSchema = false;
    // §3.6 (#21093, 3.0.2, 3.1.1, 3.2.0): that path deletes the topic-level policies too; before,
    // only a loaded topic's deletion did (PersistentTopic#delete).
    bool topicDeleteUnloadedDeletesPolicies = false;

    // --- registry (§4) ---
    bool pip44Registry = false;  // §4.3 (#5227): live-list dedup before any check; else 2.4's storage-level dedup
    DedupRule dedupRule = DedupRule::storageHashWholeHistory;
    TypeCheckRule typeCheckRule = TypeCheckRule::none;
    bool hashIncludesType = false;                    // §4.6 (#10573): the hash shortcut and /version compare the type too
    bool alwaysCompatibleShortCircuit = false;        // §4.6 (#9797)
    bool checkWithLatestPassesWithoutSchema = false;  // §4.6 (#22720)
    bool registryRetriesWholeDecision = false;        // §4.11 (#18701/#18760)
    bool softDeleteConflictFails = false;             // §4.11 (#18701, derived): a soft delete that loses its
                                                      // conditional write answers 409 (before: retried)
    bool getByVersionLiveOnly = false;                // §4.1 (#6764)
    bool forceDeleteSupported = false;                // §4.9 (#14655)
    // §6.7 (#24103): the validator refuses an AVRO definition whose top level is a
    // union ("Avro schema typed [UNION] is not supported"); top-level primitives stay accepted.
    bool validatorRefusesAvroTopLevelUnion = false;

    // --- policies (§5) ---
    StrategyResolution strategyResolution = StrategyResolution::namespaceAutoUpdateOnly;
    bool systemTopicStrategy = false;  // §5.3 (#12598): system topics use systemTopicSchemaCompatibilityStrategy
    // §5.3 (#17979): on 2.9.2-2.9.3 branch-2.9's #13557 left a system topic's strategy at
    // AbstractTopic's initial FULL (systemTopicSchemaCompatibilityStrategy never applied);
    // #17986 (2.9.4) set it in the constructor again. Master never had the bug.
    bool systemTopicsCheckedUnderFull = false;
    AutoUpdateResolution autoUpdateResolution = AutoUpdateResolution::absent;
    EnforcementSource enforcementSource = EnforcementSource::namespaceOnly;
    // §5.2: what a namespace created on this release stores. Policies are data in
    // the metadata store: a namespace created on 2.8.1 keeps its stored values
    // after an upgrade.
    bool namespaceCreatedWithAutoUpdateFull = true;     // schema_auto_update_compatibility_strategy=Full (null from #13938)
    bool namespaceCreatedWithAllowAutoUpdate = false;   // is_allow_auto_update_schema=true (2.5.0 #5227; null from #12786)
    // §5.1: a null auto-update strategy converts to ALWAYS_INCOMPATIBLE up to
    // 2.8.2/2.9.1, and means "unset" from #13938.
    bool nullAutoUpdateIsAlwaysIncompatible = true;
    // §5.6: broker.conf defaults of this release.
    CompatibilityStrategy brokerStrategyDefault = CompatibilityStrategy::UNDEFINED;  // #11856 (UNDEFINED), #13938 (FULL)
    bool brokerHasStrategyKey = false;  // §5.6: schemaCompatibilityStrategy exists (#11856)
    bool brokerBatchIndexAckDefault = false;  // §5.6: acknowledgmentAtBatchIndexLevelEnabled=true by default (PIP-391, #24203)

    // --- admin REST (§7) ---
    AdminStrategyResolution adminStrategyResolution = AdminStrategyResolution::fullHardcoded;
    // §7.3: POST /compatibility used namespace explicit -> auto-update (no broker) in 2.5.0-2.9.x.
    bool adminCompatibilityUsesBroker = false;
    bool adminSchemaIdStripsPartition = false;  // §3.1/§7.1 (#4751)
    bool adminHasCompatibilityAndVersion = false;  // §7.1 (#4800): POST /compatibility and /version
    int adminPostSchemaSuccessStatus = 202;      // §7.4: 200 from 2.11.0 (#15733)
    // §7.2: Jetty 12 (#25100, 4.2.0; #25534 on branch-4.0) sends no custom reason phrase: a bare
    // refusal (the 409/422 of POST …/schema) reads as the status's own phrase ("Conflict").
    bool adminReasonPhraseIsStandard = false;
    int adminIncompatibleStatus = 500;           // §7.4: 409 from 2.4.2 (derived 500 in 2.4.0)
    int adminInvalidDefinitionStatus = 500;      // §7.4: 422 from 2.11.0 (derived 500 before)
    bool adminNotFoundReason = false;            // §7.4: 404 reason `Schema not found` from 2.10
    // §7.5: up to 2.10 the schema GETs, POST version and POST schema check tenant-admin
    // access, which reads the tenant (404 `Tenant does not exist`); from 2.11.0 they
    // check a topic operation instead (#15956, #18074), which reads no tenant.
    bool adminSchemaTopicOperationCheck = false;
    AdminErrorText adminErrorText = AdminErrorText::none;  // §7.4
    int adminVersionSuccessStatus = 202;         // §7.4: POST /version 200 from 2.11.0
    // §7.2/§7.4 (#21645, #21632): POST /compatibility and /version convert a KEY_VALUE
    // payload's {"key","value"} JSON to the binary KV layout. Before, the JSON text was
    // used as KV data: /compatibility 500 (`Java heap space`), /version -1.
    bool adminConvertsKeyValuePayload = false;
    // The namespace and topic policy endpoints (admin/v2 Namespaces, PersistentTopics).
    // GET namespaces/{t}/{ns}/schemaCompatibilityStrategy answers the stored field
    // (UNDEFINED included) from #13938; before, an UNDEFINED field fell back to the
    // converted auto-update strategy (from the PR's description: UNCONFIRMED in code).
    bool adminNamespaceStrategyGetRaw = false;
    // GET namespaces/{t}/{ns}/schemaValidationEnforced takes ?applied (#12349; the
    // release, 2.9.0, is inferred from the merge date: UNCONFIRMED).
    bool adminValidationEnforcedApplied = false;
    bool adminTopicStrategyEndpoint = false;    // topic-level schemaCompatibilityStrategy GET/PUT/DELETE (#13297)
    bool adminTopicValidationEndpoint = false;  // topic-level schemaValidationEnforced GET/POST (#15712)
    // POST …/partitions (#19166, 3.0.0): the same count is a 204 that changes nothing,
    // fewer partitions a 422, a topic that is not partitioned a 409 naming it; before,
    // anything but more partitions was a 409.
    bool adminUpdatePartitionsAsync = false;
    // GET …/partitions answers PartitionedTopicMetadata with its `deleted` flag (#18193,
    // 3.0.0): `{"partitions":N,"deleted":false}`; before, `{"partitions":N}`.
    bool adminPartitionedMetadataHasDeleted = false;

    // --- topics, producers, subscriptions (issue 41) ---
    // PIP-124 (#13355, 2.10.0): PRODUCER's initial_subscription_name creates that durable
    // subscription (at Earliest) on a persistent topic that lacks it, or refuses the producer
    // with NotAllowedError when allowAutoSubscriptionCreation is off (ServerCnx.handleProducer).
    bool producerCreatesInitialSubscription = false;
    // #19086 (3.0.0): a persistent `-partition-N` with N >= the partitioned topic's count is
    // refused (NotAllowedError "Illegal topic partition name ...", BrokerService.getTopic).
    bool rejectsPartitionBeyondCount = false;
    // PIP-344 (#22206; 3.0.7, 3.3.1, 4.0.0): CONNECTED carries feature flag
    // supports_get_partitioned_metadata_without_auto_creation, and a PARTITIONED_METADATA with
    // metadata_auto_creation_enabled=false (or on a broker that may not auto-create) answers
    // TopicNotFound for a topic that does not exist (ServerCnx.handlePartitionMetadataRequest).
    bool partitionedMetadataWithoutAutoCreation = false;

    // --- checkers (§6) ---
    compat::CheckOptions checkOptions;

    /// The known gaps (gaps.h) a decision on this release can meet: where one is
    /// met, the trace says `not modelled: #NNNN (...)`.
    std::vector<Gap> gaps;

    /// Which PR set each switch (switch name -> "#PR §section"), for `profiles --diff`.
    std::map<std::string, std::string> provenance;
};

/// One switch of the profile, for listings and diffs.
struct SwitchView {
    std::string name;
    std::string value;
};

/// Every switch of `p` with its value, in declaration order.
std::vector<SwitchView> switchesOf(const BehaviourProfile& p);

/// The release lines modelled (one profile each, at the line's newest
/// modelled release), oldest first.
std::span<const BehaviourProfile> allProfiles();

/// The newest profile: the default when a scenario names no version.
const BehaviourProfile& newestProfile();

/// The profile of release `version` ("2.10" = the line's newest modelled
/// release, "2.10.4" = that exact release); nullptr with `error` set when no
/// release of that number is modelled.
const BehaviourProfile* profileFor(std::string_view version, std::string* error = nullptr);

}  // namespace cnx
