// The behaviour profiles as data (reference §9.1 timeline, §10 profiles).
//
// The baseline is Pulsar 2.4.0. Every later change is a Fix: the PR, the
// reference section, the first release of each line that carries it, and the
// switches it sets. A release carries a fix when the fix lists a release of
// the same line no later than it, or — for lines the fix does not list — when
// the fix reached an earlier line's first (.0) release, i.e. it was on master
// before this line branched.
#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "broker_model/profile/profile.h"
#include "broker_model/profile/protocol.h"

namespace cnx {
namespace {

using S = CompatibilityStrategy;
using compat::AvroVersion;

struct Fix {
    const char* pr;
    const char* section;
    ReleaseList firstReleases;
    InlineList<const char*, 8> switches;  // the switches it sets, for provenance
    void (*apply)(BehaviourProfile&);
};

constexpr ReleaseVersion v(int major, int minor, int patch) { return {major, minor, patch}; }

// §9.1, in the order the changes reached master (a later fix setting the same
// switch overrides an earlier one). A constant: no code builds it.
constexpr Fix kFixes[]{
    {"#4669", "§3.2", {v(2, 4, 1), v(2, 5, 0)}, {"softDeleteMarkerIsSchema"},
     [](BehaviourProfile& p) { p.softDeleteMarkerIsSchema = false; }},
    {"#4731", "§4.4", {v(2, 4, 1), v(2, 5, 0)}, {"dedupRule"},
     [](BehaviourProfile& p) { p.dedupRule = DedupRule::storageHashAfterLastDelete; }},
    {"#4950", "§7.3", {v(2, 4, 2), v(2, 5, 0)}, {"adminStrategyResolution", "adminIncompatibleStatus"},
     [](BehaviourProfile& p) {
         p.adminStrategyResolution = AdminStrategyResolution::namespaceAutoUpdate;
         p.adminIncompatibleStatus = 409;
     }},
    {"#4751", "§7.1", {v(2, 4, 2), v(2, 5, 0)}, {"adminSchemaIdStripsPartition"},
     [](BehaviourProfile& p) { p.adminSchemaIdStripsPartition = true; }},
    {"#4800", "§7.1", {v(2, 4, 2), v(2, 5, 0)}, {"adminHasCompatibilityAndVersion"},
     [](BehaviourProfile& p) { p.adminHasCompatibilityAndVersion = true; }},
    {"#5165 (PIP-43)", "§1.3 §1.8", {v(2, 5, 0)}, {"producerWithoutSchemaMessage", "maxProtocolVersion"},
     [](BehaviourProfile& p) {
         p.producerWithoutSchemaMessage =
             "Producers cannot connect or send message without a schema to topics with a schema";
         p.maxProtocolVersion = 15;
     }},
    {"#5227 (PIP-44)", "§4.3 §4.7 §5.3 §5.4", {v(2, 5, 0)},
     {"pip44Registry", "pip44ConsumerCheck", "dedupRule", "strategyResolution", "autoUpdateResolution",
      "adminStrategyResolution", "adminErrorText", "namespaceCreatedWithAllowAutoUpdate"},
     [](BehaviourProfile& p) {
         p.adminErrorText = AdminErrorText::wrapped;
         p.namespaceCreatedWithAllowAutoUpdate = true;
         p.pip44Registry = true;
         p.pip44ConsumerCheck = true;
         p.dedupRule = DedupRule::dataHashAnyType;
         p.strategyResolution = StrategyResolution::namespaceThenAutoUpdate;
         p.autoUpdateResolution = AutoUpdateResolution::namespaceOnly;
         p.adminStrategyResolution = AdminStrategyResolution::namespaceThenAutoUpdate;
     }},
    {"#5051, #5103", "§4.6", {v(2, 5, 0)}, {"typeCheckRule"},
     [](BehaviourProfile& p) { p.typeCheckRule = TypeCheckRule::primitiveOnly; }},
    {"#6764", "§4.1", {v(2, 5, 2), v(2, 6, 0)}, {"getByVersionLiveOnly"},
     [](BehaviourProfile& p) { p.getByVersionLiveOnly = true; }},
    {"#6052 (PIP-54)", "issue 41", {v(2, 6, 0)}, {"batchIndexAck"},
     [](BehaviourProfile& p) { p.batchIndexAck = true; }},
    {"Avro 1.9.1", "§6.3", {v(2, 6, 0)}, {"checkOptions.avro"},
     [](BehaviourProfile& p) { p.checkOptions.avro = AvroVersion::v1_9_1; }},
    {"#7708", "§1.9", {v(2, 6, 1), v(2, 7, 0)}, {"getSchemaStripsPartition"},
     [](BehaviourProfile& p) { p.getSchemaStripsPartition = true; }},
    {"#8167", "§3.6", {v(2, 6, 2), v(2, 7, 0)}, {"topicDeleteSchema"},
     [](BehaviourProfile& p) { p.topicDeleteSchema = TopicDeleteSchema::hardWhenAsked; }},
    {"#9612", "§4.5", {v(2, 7, 1), v(2, 8, 0)}, {"dedupRule"},
     [](BehaviourProfile& p) { p.dedupRule = DedupRule::avroStructuralAnyType; }},
    {"#9853", "§3.5", {v(2, 7, 2), v(2, 8, 0)}, {"idleRule"},
     [](BehaviourProfile& p) { p.idleRule = IdleRule::producersOrConnectedConsumers; }},
    {"#9797, #10367, #10386", "§4.5 §4.6", {v(2, 7, 2), v(2, 8, 0)},
     {"typeCheckRule", "alwaysCompatibleShortCircuit", "dedupRule"},
     [](BehaviourProfile& p) {
         p.typeCheckRule = TypeCheckRule::strict;
         p.alwaysCompatibleShortCircuit = true;
         p.dedupRule = DedupRule::avroStructuralTypedParseAll;
     }},
    // 2.9.0, not 2.9.2: pulsar-2.9.0.md lists #12598 (labels release/2.8.2, release/2.9.0).
    {"#12598", "§5.3", {v(2, 7, 4), v(2, 8, 2), v(2, 9, 0), v(2, 10, 0)}, {"systemTopicStrategy"},
     [](BehaviourProfile& p) { p.systemTopicStrategy = true; }},
    {"#10573", "§4.5 §4.6", {v(2, 8, 0)}, {"dedupRule", "hashIncludesType"},
     [](BehaviourProfile& p) {
         p.dedupRule = DedupRule::typedStructural;
         p.hashIncludesType = true;
     }},
    {"#9544", "§1.5", {v(2, 8, 0)}, {"producerErrorCausedBy"},
     [](BehaviourProfile& p) { p.producerErrorCausedBy = true; }},
    {"ProtocolVersion v17", "§8.5", {v(2, 8, 0)}, {"maxProtocolVersion"},
     [](BehaviourProfile& p) { p.maxProtocolVersion = 17; }},
    {"Avro 1.10.2", "§6.3", {v(2, 8, 0)}, {"checkOptions.avro"},
     [](BehaviourProfile& p) { p.checkOptions.avro = AvroVersion::v1_10_2; }},
    {"#11856", "§5.3 §5.6", {v(2, 8, 2), v(2, 9, 0)}, {"strategyResolution", "brokerHasStrategyKey", "brokerStrategyDefault"},
     [](BehaviourProfile& p) {
         p.strategyResolution = StrategyResolution::namespaceBrokerAutoUpdate;
         p.brokerHasStrategyKey = true;
         p.brokerStrategyDefault = S::UNDEFINED;
     }},
    // 2.8.3, not 2.8.2: the 2.8.3 section of the legacy release-notes.md lists it, 2.8.2's
    // notes do not. The 2.9 line's 2.9.2 rests on the reference (label release/2.9.1,
    // absent from pulsar-2.9.1.md): UNCONFIRMED.
    {"#12786", "§5.2 §5.4", {v(2, 8, 3), v(2, 9, 2), v(2, 10, 0)},
     {"autoUpdateResolution", "namespaceCreatedWithAllowAutoUpdate"},
     [](BehaviourProfile& p) {
         p.autoUpdateResolution = AutoUpdateResolution::namespaceThenBroker;
         p.namespaceCreatedWithAllowAutoUpdate = false;
     }},
    {"#12721", "§4.7", {v(2, 8, 2), v(2, 9, 2), v(2, 10, 0)}, {"consumerAlwaysCompatibleShortcut"},
     [](BehaviourProfile& p) { p.consumerAlwaysCompatibleShortcut = true; }},
    {"#13938", "§5.1 §5.3", {v(2, 8, 3), v(2, 9, 2), v(2, 10, 0)},
     {"strategyResolution", "brokerStrategyDefault", "namespaceCreatedWithAutoUpdateFull",
      "nullAutoUpdateIsAlwaysIncompatible", "adminNamespaceStrategyGetRaw"},
     [](BehaviourProfile& p) {
         p.adminNamespaceStrategyGetRaw = true;
         p.strategyResolution = StrategyResolution::namespaceAutoUpdateBroker;
         p.brokerStrategyDefault = S::FULL;
         p.namespaceCreatedWithAutoUpdateFull = false;
         p.nullAutoUpdateIsAlwaysIncompatible = false;
     }},
    // #13557 ("Allow both limit and limitsize be null", listed in pulsar-2.9.2.md) as
    // cherry-picked to branch-2.9: AbstractTopic#setSchemaCompatibilityStrategy is no longer
    // called for system topics, whose field keeps its initial FULL (#17979; PR #17986: "This
    // bug only exists in branch 2.9 after #13557 merged. The master code is fine.").
    {"#13557 (branch-2.9)", "§5.3", {v(2, 9, 2)}, {"systemTopicsCheckedUnderFull"},
     [](BehaviourProfile& p) { p.systemTopicsCheckedUnderFull = true; }},
    {"ProtocolVersion v19", "§8.5", {v(2, 9, 0)}, {"maxProtocolVersion"},
     [](BehaviourProfile& p) { p.maxProtocolVersion = 19; }},
    // 2.9.0 is inferred from the PR's merge date (October 2021): UNCONFIRMED.
    {"#12349", "§5.5", {v(2, 9, 0)}, {"adminValidationEnforcedApplied"},
     [](BehaviourProfile& p) { p.adminValidationEnforcedApplied = true; }},
    {"#11856 (admin)", "§7.3", {v(2, 9, 0)}, {"adminStrategyResolution"},
     [](BehaviourProfile& p) { p.adminStrategyResolution = AdminStrategyResolution::namespaceBrokerAutoUpdate; }},
    // 2.7.5 through #15754 (pulsar-2.7.5.md), 2.8.4 through #15759 (label release/2.8.4).
    {"#14809", "§3.3 §4.8", {v(2, 7, 5), v(2, 8, 4), v(2, 9, 3), v(2, 10, 1), v(2, 11, 0)},
     {"systemTopicsAlwaysAutoUpdate"},
     [](BehaviourProfile& p) { p.systemTopicsAlwaysAutoUpdate = true; }},
    {"#14626", "§1.9", {v(2, 9, 3), v(2, 10, 1), v(2, 11, 0)}, {"getSchemaEmptyVersionIsError"},
     [](BehaviourProfile& p) { p.getSchemaEmptyVersionIsError = true; }},
    // Label release/2.9.4 (the 2.9.4 notes do not list it): the AbstractTopic constructor sets a
    // system topic's strategy to systemTopicSchemaCompatibilityStrategy again.
    {"#17986", "§5.3", {v(2, 9, 4)}, {"systemTopicsCheckedUnderFull"},
     [](BehaviourProfile& p) { p.systemTopicsCheckedUnderFull = false; }},
    {"#18701, #18760, #18762", "§4.11", {v(2, 9, 4), v(2, 10, 3), v(2, 11, 0)},
     {"registryRetriesWholeDecision", "softDeleteConflictFails"},
     [](BehaviourProfile& p) {
         p.registryRetriesWholeDecision = true;
         p.softDeleteConflictFails = true;
     }},
    // PIP-124: PRODUCER's initial_subscription_name (ServerCnx.handleProducer), merged 2022-01.
    {"#13355 (PIP-124)", "§1.1", {v(2, 10, 0)}, {"producerCreatesInitialSubscription"},
     [](BehaviourProfile& p) { p.producerCreatesInitialSubscription = true; }},
    {"#13297", "§5.3 §7.3", {v(2, 10, 0)},
     {"strategyResolution", "adminStrategyResolution", "adminCompatibilityUsesBroker", "adminNotFoundReason",
      "adminTopicStrategyEndpoint"},
     [](BehaviourProfile& p) {
         p.adminTopicStrategyEndpoint = true;
         p.strategyResolution = StrategyResolution::hierarchy;
         p.adminStrategyResolution = AdminStrategyResolution::hierarchy;
         p.adminCompatibilityUsesBroker = true;
         p.adminNotFoundReason = true;
     }},
    {"#15712", "§5.5", {v(2, 11, 0)}, {"enforcementSource", "adminTopicValidationEndpoint"},
     [](BehaviourProfile& p) {
         p.enforcementSource = EnforcementSource::topicThenNamespace;
         p.adminTopicValidationEndpoint = true;
     }},
    {"#14655", "§4.9", {v(2, 11, 0)}, {"forceDeleteSupported"},
     [](BehaviourProfile& p) { p.forceDeleteSupported = true; }},
    {"#14608", "§3.6", {v(2, 11, 0)}, {"topicDeleteSchema"},
     [](BehaviourProfile& p) { p.topicDeleteSchema = TopicDeleteSchema::hardAlways; }},
    {"#15733, #15821", "§7.4", {v(2, 11, 0)},
     {"adminPostSchemaSuccessStatus", "adminInvalidDefinitionStatus", "adminVersionSuccessStatus", "adminErrorText"},
     [](BehaviourProfile& p) {
         p.adminErrorText = AdminErrorText::root;
         p.adminPostSchemaSuccessStatus = 200;
         p.adminInvalidDefinitionStatus = 422;
         p.adminVersionSuccessStatus = 200;
     }},
    {"#15956, #18074", "§7.5", {v(2, 11, 0)}, {"adminSchemaTopicOperationCheck"},
     [](BehaviourProfile& p) { p.adminSchemaTopicOperationCheck = true; }},
    // BrokerService.getTopic, merged 2022-12-28 (release/important-notice); a backport to
    // 2.10/2.11 is UNCONFIRMED.
    {"#19086", "§1.1 §2.1", {v(3, 0, 0)}, {"rejectsPartitionBeyondCount"},
     [](BehaviourProfile& p) { p.rejectsPartitionBeyondCount = true; }},
    {"#19502", "issue 41", {v(3, 0, 0)}, {"failoverNonPartitionedHashRing"},
     [](BehaviourProfile& p) { p.failoverNonPartitionedHashRing = true; }},
    {"#19166", "§7", {v(3, 0, 0)}, {"adminUpdatePartitionsAsync"},
     [](BehaviourProfile& p) { p.adminUpdatePartitionsAsync = true; }},
    // PartitionedTopicMetadata.deleted: in the 3.0.7 and 4.2.4 jars (pulsar-client-admin-api),
    // not in 2.10.5's or 2.11.0's; a backport to a later 2.11.x is UNCONFIRMED. A real 4.2.4
    // answers {"partitions":3,"deleted":false} (tests/clients/python, test_partitioned_topic).
    {"#18193", "§7", {v(3, 0, 0)}, {"adminPartitionedMetadataHasDeleted"},
     [](BehaviourProfile& p) { p.adminPartitionedMetadataHasDeleted = true; }},
    {"#17449 (PIP-236)", "§2.3 §3.5 §8.5", {v(3, 0, 0)},
     {"autoConsumeSkipsSchema", "idleIgnoresAutoConsumeConsumers", "maxProtocolVersion"},
     [](BehaviourProfile& p) {
         p.autoConsumeSkipsSchema = true;
         p.idleIgnoresAutoConsumeConsumers = true;
         p.maxProtocolVersion = 21;
     }},
    {"#20888", "§3.5", {v(2, 10, 6), v(2, 11, 3), v(3, 0, 2), v(3, 1, 0)}, {"idleIgnoresReplicatorProducersPersistent"},
     [](BehaviourProfile& p) { p.idleIgnoresReplicatorProducersPersistent = true; }},
    // The releases whose unloaded-topic deletion keeps the schema are issue 40's (3.0.1, 3.1.0);
    // which change brought the bug to them is UNCONFIRMED.
    {"#21075", "§3.6", {v(3, 0, 1), v(3, 1, 0)}, {"topicDeleteUnloadedKeepsSchema"},
     [](BehaviourProfile& p) { p.topicDeleteUnloadedKeepsSchema = true; }},
    // pulsar-3.0.2.md and pulsar-3.1.1.md list it; 3.2.0 from master (merged 2023-08-30).
    {"#21093", "§3.6", {v(3, 0, 2), v(3, 1, 1), v(3, 2, 0)},
     {"topicDeleteUnloadedKeepsSchema", "topicDeleteUnloadedDeletesPolicies"},
     [](BehaviourProfile& p) {
         p.topicDeleteUnloadedKeepsSchema = false;
         p.topicDeleteUnloadedDeletesPolicies = true;
     }},
    // 3.1.2, not 3.1.3: pulsar-3.1.2.md lists it ("fix the vague response if topic not found").
    {"#20932", "§1.8 §1.9", {v(2, 10, 6), v(2, 11, 4), v(3, 0, 3), v(3, 1, 2), v(3, 2, 0)},
     {"getSchemaNotFoundIncludesTopic", "getOrCreateNotFoundIncludesTopic"},
     [](BehaviourProfile& p) {
         p.getSchemaNotFoundIncludesTopic = true;
         p.getOrCreateNotFoundIncludesTopic = true;
     }},
    // #21341: the 2.10.6, 2.11.4 and 3.0.2 notes list the upgrade too; the 3.1 line's is UNCONFIRMED.
    {"Avro 1.11.3 (#21341)", "§6.3", {v(2, 10, 6), v(2, 11, 4), v(3, 0, 2), v(3, 2, 0)}, {"checkOptions.avro"},
     [](BehaviourProfile& p) { p.checkOptions.avro = AvroVersion::v1_11_3; }},
    // The 2.10.6 and 2.11.4 notes list neither PR (PR labels only); #21632 is in the 3.0.3,
    // 3.1.3 and 3.2.0 notes, #21645 in 3.0.3 and 3.1.3 (3.2.0 by release-commit ancestry).
    {"#21645, #21632", "§7.2 §7.4", {v(2, 10, 6), v(2, 11, 4), v(3, 0, 3), v(3, 1, 3), v(3, 2, 0)},
     {"adminConvertsKeyValuePayload"},
     [](BehaviourProfile& p) { p.adminConvertsKeyValuePayload = true; }},
    // Not 3.2.4 (its notes list #22974 only) and in no 3.3.x notes.
    // Its "Optimize incompatible exception msg" part changed the Avro and PROTOBUF_NATIVE
    // incompatibility texts on the same releases (§6.3, §6.5).
    {"#22720", "§4.6 §6.3 §6.5 §7.4", {v(3, 0, 6), v(4, 0, 0)},
     {"checkWithLatestPassesWithoutSchema", "checkOptions.avroValidationMessageWithStrategy",
      "checkOptions.protobufNativeRootMessageWithStrategy"},
     [](BehaviourProfile& p) {
         p.checkWithLatestPassesWithoutSchema = true;
         p.checkOptions.avroValidationMessageWithStrategy = true;
         p.checkOptions.protobufNativeRootMessageWithStrategy = true;
     }},
    {"#22974", "§3.5", {v(3, 0, 6), v(3, 2, 4), v(3, 3, 1), v(4, 0, 0)}, {"activeTopicEmptySchemaMessage"},
     [](BehaviourProfile& p) { p.activeTopicEmptySchemaMessage = true; }},
    {"#23394 (Avro 1.11.4)", "§6.3", {v(3, 0, 7), v(3, 3, 2), v(4, 0, 0)}, {"checkOptions.avro"},
     [](BehaviourProfile& p) { p.checkOptions.avro = AvroVersion::v1_11_4; }},
    // PIP-344: Commands.newConnectedCommand sets the flag in pulsar-common 3.0.7, 3.3.1 and
    // 4.0.7/4.2.4, not in 3.0.6, 3.2.4 or 3.3.0 (javap of the jars on Maven Central).
    {"#22206 (PIP-344)", "§2.1", {v(3, 0, 7), v(3, 3, 1), v(4, 0, 0)}, {"partitionedMetadataWithoutAutoCreation"},
     [](BehaviourProfile& p) { p.partitionedMetadataWithoutAutoCreation = true; }},
    {"#23344", "§1.3", {v(4, 0, 0)}, {"producerWithoutSchemaMessage"},
     [](BehaviourProfile& p) {
         // Two Java literals concatenated without a space.
         p.producerWithoutSchemaMessage =
             "Producers cannot connect or send message without a schema to topics with a schemawhen "
             "SchemaValidationEnforced is enabled";
     }},
    // Confirmed by the 3.0.12, 3.3.7, 4.0.5 and 4.1.0 release notes.
    {"#24103", "§6.7 §7.4", {v(3, 0, 12), v(3, 3, 7), v(4, 0, 5), v(4, 1, 0)},
     {"validatorRefusesAvroTopLevelUnion"},
     [](BehaviourProfile& p) { p.validatorRefusesAvroTopLevelUnion = true; }},
    {"#24617 (Avro 1.12.0)", "§6.3", {v(4, 1, 0)}, {"checkOptions.avro"},
     [](BehaviourProfile& p) { p.checkOptions.avro = AvroVersion::v1_12_0; }},
    {"#25193, #25255", "§4.5 §6.7", {v(4, 2, 0)}, {"checkOptions.avroNamesAllowDollar"},
     [](BehaviourProfile& p) { p.checkOptions.avroNamesAllowDollar = true; }},
    {"#25362 (PIP-464)", "§6.4 §6.7", {v(4, 2, 0)}, {"checkOptions.jsonAllowLegacyJacksonFormat"},
     [](BehaviourProfile& p) { p.checkOptions.jsonAllowLegacyJacksonFormat = false; }},
    // PIP-391 (#24203, merged 2025-04, released in 4.1.0): ServiceConfiguration's
    // acknowledgmentAtBatchIndexLevelEnabled defaults to true. Seen on a real 4.2.4 broker
    // (GET /admin/v2/brokers/configuration/runtime, `cnxsim run --against`, issue 42).
    {"#24203 (PIP-391)", "§5.6", {v(4, 1, 0)}, {"brokerBatchIndexAckDefault"},
     [](BehaviourProfile& p) { p.brokerBatchIndexAckDefault = true; }},
    // Jetty 9 -> 12 (#25100 on master, 4.2.0; #25534 on branch-4.0: 4.0.11 carries Jetty 12,
    // the branch's log shows it before "Release 4.0.11"; 4.0.10 is UNCONFIRMED). Jetty 12 no
    // longer sends a custom reason phrase. Seen on a real 4.2.4 broker: POST …/schema answers
    // "409 Conflict" and "422 Unprocessable Entity"; 3.0.7 still sends the text (issue 42).
    {"#25100, #25534 (Jetty 12)", "§7.2 §7.4", {v(4, 0, 11), v(4, 2, 0)}, {"adminReasonPhraseIsStandard"},
     [](BehaviourProfile& p) { p.adminReasonPhraseIsStandard = true; }},
};

// The newest modelled patch of each release line (§9: patches named by the reference).
struct Line {
    int major, minor, lastPatch;
};
// The newest patch of each line in the release notes (apache/pulsar-site
// release-notes/versioned/, read 2026-12): 3.0.17 (2026-04-27), 3.3.9
// (2025-09-27), 4.0.14 (2026-10-05), 4.1.3 (2026-02-19), 4.2.5; after 4.2 came
// 5.0.0 (2026-10-05), not a 4.3. Patches after the reference's newest touch the
// modelled paths only through the changes listed as gaps (profiles --gaps).
constexpr std::array<Line, 16> kLines{{
    {2, 4, 2}, {2, 5, 2}, {2, 6, 4}, {2, 7, 5}, {2, 8, 4}, {2, 9, 5}, {2, 10, 6}, {2, 11, 4},
    {3, 0, 17}, {3, 1, 3}, {3, 2, 4}, {3, 3, 9}, {4, 0, 14}, {4, 1, 3}, {4, 2, 5}, {5, 0, 0},
}};

bool sameLine(const ReleaseVersion& a, const ReleaseVersion& b) { return a.major == b.major && a.minor == b.minor; }

// §10's profile names; the releases between them keep the nearest older name.
std::pair<std::string, std::string> profileName(const ReleaseVersion& r) {
    auto at = [&](int ma, int mi, int pa) { return r >= v(ma, mi, pa); };
    if (at(5, 0, 0)) return {"P50", "5.0.x"};
    if (at(4, 1, 0)) return {"P42", "4.1.x - 4.2.x"};
    if (at(4, 0, 0)) return {"P40", "4.0.x LTS"};
    bool tail = (sameLine(r, v(3, 0, 0)) && r.patch >= 6) || (sameLine(r, v(3, 2, 0)) && r.patch >= 4) ||
                (sameLine(r, v(3, 3, 0)) && r.patch >= 1);
    if (tail) return {"P30z", "3.0.6+ LTS tail, 3.2.4, 3.3.1+"};
    if (at(3, 1, 0)) return {"P31", "3.1.x - 3.3.0 (between P30a and P30z)"};
    if (at(3, 0, 0)) return {"P30a", "3.0.0 - 3.0.5"};
    if (at(2, 11, 0)) return {"P211", "2.11.x"};
    if (at(2, 8, 2)) return {"P210", "2.8.2 - 2.10.x"};
    if (at(2, 7, 2)) return {"P28", "2.7.2 - 2.8.1 (between P27 and P210)"};
    if (at(2, 5, 0)) return {"P27", "2.5.0 - 2.7.1"};
    return {"P24", "2.4.0 - 2.4.2"};
}

BehaviourProfile build(const ReleaseVersion& release) {
    BehaviourProfile p;
    p.checkOptions.avro = AvroVersion::v1_8_2;
    p.checkOptions.jsonAllowLegacyJacksonFormat = true;
    p.checkOptions.avroNamesAllowDollar = false;
    p.checkOptions.avroValidationMessageWithStrategy = false;
    p.checkOptions.protobufNativeRootMessageWithStrategy = false;
    for (const auto& fix : kFixes) {
        if (!carriedBy(release, fix.firstReleases)) continue;
        fix.apply(p);
        for (const char* name : fix.switches) p.provenance[name] = std::string(fix.pr) + " " + fix.section;
    }
    p.gaps = triggeredGapsOf(release);
    auto [name, releases] = profileName(release);
    p.name = name;
    p.releases = releases;
    p.release = release;
    return p;
}

// Every modelled release's profile, built once, at the first ask, and kept for
// the program's life (profiles are referenced by address): line after line in
// kLines order, each line's patches from 0 up. The one table every lookup reads;
// nothing is cached per thread.
class ProfileTable {
public:
    ProfileTable() {
        std::size_t count = 0;
        for (const auto& l : kLines) count += static_cast<std::size_t>(l.lastPatch) + 1;
        profiles_.reserve(count);
        for (std::size_t i = 0; i < kLines.size(); ++i) {
            firstOfLine_[i] = profiles_.size();
            for (int patch = 0; patch <= kLines[i].lastPatch; ++patch)
                profiles_.push_back(build(v(kLines[i].major, kLines[i].minor, patch)));
        }
    }
    /// The profile of the exact release `r` (a missing patch: the line's newest), or nullptr.
    const BehaviourProfile* find(const ReleaseVersion& r) const {
        for (std::size_t i = 0; i < kLines.size(); ++i) {
            const auto& l = kLines[i];
            if (l.major != r.major || l.minor != r.minor) continue;
            if (r.patch > l.lastPatch) return nullptr;
            const int patch = r.patch < 0 ? l.lastPatch : r.patch;
            return &profiles_[firstOfLine_[i] + static_cast<std::size_t>(patch)];
        }
        return nullptr;
    }

private:
    std::vector<BehaviourProfile> profiles_;  // never resized after the constructor
    std::array<std::size_t, kLines.size()> firstOfLine_{};
};

const ProfileTable& profileTable() {
    static const ProfileTable table;
    return table;
}

// The newest patch of `l`.
const BehaviourProfile& newestOf(const Line& l) { return *profileTable().find(v(l.major, l.minor, l.lastPatch)); }

const std::vector<BehaviourProfile>& lineProfiles() {
    static const std::vector<BehaviourProfile> all = [] {
        std::vector<BehaviourProfile> out;
        for (const auto& l : kLines) out.push_back(newestOf(l));
        return out;
    }();
    return all;
}

// The text of a switch's value, by the switch's type.
std::string valueText(bool b) { return b ? "true" : "false"; }
std::string valueText(int n) { return std::to_string(n); }
std::string valueText(const std::string& s) { return s; }
std::string valueText(CompatibilityStrategy s) { return std::string(to_string_view(s)); }
std::string valueText(compat::AvroVersion a) { return std::string(compat::to_string_view(a)); }

std::string valueText(IdleRule r) {
    switch (r) {
        case IdleRule::activeUsageOrSubscriptions: return "activeUsageOrSubscriptions";
        case IdleRule::producersOrConnectedConsumers: return "producersOrConnectedConsumers";
    }
    return "?";
}

std::string valueText(DedupRule r) {
    switch (r) {
        case DedupRule::storageHashWholeHistory: return "storageHashWholeHistory";
        case DedupRule::storageHashAfterLastDelete: return "storageHashAfterLastDelete";
        case DedupRule::dataHashAnyType: return "dataHashAnyType";
        case DedupRule::avroStructuralAnyType: return "avroStructuralAnyType";
        case DedupRule::avroStructuralTypedParseAll: return "avroStructuralTypedParseAll";
        case DedupRule::typedStructural: return "typedStructural";
    }
    return "?";
}

std::string valueText(TypeCheckRule r) {
    switch (r) {
        case TypeCheckRule::none: return "none";
        case TypeCheckRule::primitiveOnly: return "primitiveOnly";
        case TypeCheckRule::strict: return "strict";
    }
    return "?";
}

std::string valueText(StrategyResolution r) {
    switch (r) {
        case StrategyResolution::namespaceAutoUpdateOnly: return "namespaceAutoUpdateOnly";
        case StrategyResolution::namespaceThenAutoUpdate: return "namespaceThenAutoUpdate";
        case StrategyResolution::namespaceBrokerAutoUpdate: return "namespaceBrokerAutoUpdate";
        case StrategyResolution::namespaceAutoUpdateBroker: return "namespaceAutoUpdateBroker";
        case StrategyResolution::hierarchy: return "hierarchy";
    }
    return "?";
}

std::string valueText(AdminStrategyResolution r) {
    switch (r) {
        case AdminStrategyResolution::fullHardcoded: return "fullHardcoded";
        case AdminStrategyResolution::namespaceAutoUpdate: return "namespaceAutoUpdate";
        case AdminStrategyResolution::namespaceThenAutoUpdate: return "namespaceThenAutoUpdate";
        case AdminStrategyResolution::namespaceBrokerAutoUpdate: return "namespaceBrokerAutoUpdate";
        case AdminStrategyResolution::hierarchy: return "hierarchy";
    }
    return "?";
}

std::string valueText(AutoUpdateResolution r) {
    switch (r) {
        case AutoUpdateResolution::absent: return "absent";
        case AutoUpdateResolution::namespaceOnly: return "namespaceOnly";
        case AutoUpdateResolution::namespaceThenBroker: return "namespaceThenBroker";
    }
    return "?";
}

std::string valueText(EnforcementSource r) {
    switch (r) {
        case EnforcementSource::namespaceOnly: return "namespaceOnly";
        case EnforcementSource::topicThenNamespace: return "topicThenNamespace";
    }
    return "?";
}

std::string valueText(AdminErrorText r) {
    switch (r) {
        case AdminErrorText::none: return "none";
        case AdminErrorText::wrapped: return "wrapped";
        case AdminErrorText::root: return "root";
    }
    return "?";
}

std::string valueText(TopicDeleteSchema r) {
    switch (r) {
        case TopicDeleteSchema::softWhenAsked: return "softWhenAsked";
        case TopicDeleteSchema::hardWhenAsked: return "hardWhenAsked";
        case TopicDeleteSchema::hardAlways: return "hardAlways";
    }
    return "?";
}

// The value of the switch `Member` (of the profile, or of its checkOptions) as text.
template <auto Member>
std::string field(const BehaviourProfile& p) {
    return valueText(p.*Member);
}
template <auto Member>
std::string option(const BehaviourProfile& p) {
    return valueText(p.checkOptions.*Member);
}

struct SwitchRow {
    const char* name;  // as `profiles` prints it and provenance keys it
    std::string (*value)(const BehaviourProfile&);
};

// Every switch that `profiles` lists and `profiles --diff` compares, in the order printed.
constexpr SwitchRow kSwitches[]{
    {"maxProtocolVersion", field<&BehaviourProfile::maxProtocolVersion>},
    {"producerWithoutSchemaMessage", field<&BehaviourProfile::producerWithoutSchemaMessage>},
    {"producerErrorCausedBy", field<&BehaviourProfile::producerErrorCausedBy>},
    {"getOrCreateNotFoundIncludesTopic", field<&BehaviourProfile::getOrCreateNotFoundIncludesTopic>},
    {"getSchemaStripsPartition", field<&BehaviourProfile::getSchemaStripsPartition>},
    {"getSchemaEmptyVersionIsError", field<&BehaviourProfile::getSchemaEmptyVersionIsError>},
    {"getSchemaNotFoundIncludesTopic", field<&BehaviourProfile::getSchemaNotFoundIncludesTopic>},
    {"pip44ConsumerCheck", field<&BehaviourProfile::pip44ConsumerCheck>},
    {"autoConsumeSkipsSchema", field<&BehaviourProfile::autoConsumeSkipsSchema>},
    {"consumerAlwaysCompatibleShortcut", field<&BehaviourProfile::consumerAlwaysCompatibleShortcut>},
    {"activeTopicEmptySchemaMessage", field<&BehaviourProfile::activeTopicEmptySchemaMessage>},
    {"idleRule", field<&BehaviourProfile::idleRule>},
    {"idleIgnoresAutoConsumeConsumers", field<&BehaviourProfile::idleIgnoresAutoConsumeConsumers>},
    {"idleIgnoresReplicatorProducersPersistent", field<&BehaviourProfile::idleIgnoresReplicatorProducersPersistent>},
    {"systemTopicsAlwaysAutoUpdate", field<&BehaviourProfile::systemTopicsAlwaysAutoUpdate>},
    {"softDeleteMarkerIsSchema", field<&BehaviourProfile::softDeleteMarkerIsSchema>},
    {"topicDeleteSchema", field<&BehaviourProfile::topicDeleteSchema>},
    {"topicDeleteUnloadedKeepsSchema", field<&BehaviourProfile::topicDeleteUnloadedKeepsSchema>},
    {"topicDeleteUnloadedDeletesPolicies", field<&BehaviourProfile::topicDeleteUnloadedDeletesPolicies>},
    {"pip44Registry", field<&BehaviourProfile::pip44Registry>},
    {"dedupRule", field<&BehaviourProfile::dedupRule>},
    {"typeCheckRule", field<&BehaviourProfile::typeCheckRule>},
    {"hashIncludesType", field<&BehaviourProfile::hashIncludesType>},
    {"alwaysCompatibleShortCircuit", field<&BehaviourProfile::alwaysCompatibleShortCircuit>},
    {"checkWithLatestPassesWithoutSchema", field<&BehaviourProfile::checkWithLatestPassesWithoutSchema>},
    {"registryRetriesWholeDecision", field<&BehaviourProfile::registryRetriesWholeDecision>},
    {"softDeleteConflictFails", field<&BehaviourProfile::softDeleteConflictFails>},
    {"getByVersionLiveOnly", field<&BehaviourProfile::getByVersionLiveOnly>},
    {"forceDeleteSupported", field<&BehaviourProfile::forceDeleteSupported>},
    {"validatorRefusesAvroTopLevelUnion", field<&BehaviourProfile::validatorRefusesAvroTopLevelUnion>},
    {"strategyResolution", field<&BehaviourProfile::strategyResolution>},
    {"systemTopicStrategy", field<&BehaviourProfile::systemTopicStrategy>},
    {"systemTopicsCheckedUnderFull", field<&BehaviourProfile::systemTopicsCheckedUnderFull>},
    {"autoUpdateResolution", field<&BehaviourProfile::autoUpdateResolution>},
    {"enforcementSource", field<&BehaviourProfile::enforcementSource>},
    {"namespaceCreatedWithAutoUpdateFull", field<&BehaviourProfile::namespaceCreatedWithAutoUpdateFull>},
    {"namespaceCreatedWithAllowAutoUpdate", field<&BehaviourProfile::namespaceCreatedWithAllowAutoUpdate>},
    {"nullAutoUpdateIsAlwaysIncompatible", field<&BehaviourProfile::nullAutoUpdateIsAlwaysIncompatible>},
    {"brokerStrategyDefault", field<&BehaviourProfile::brokerStrategyDefault>},
    {"brokerHasStrategyKey", field<&BehaviourProfile::brokerHasStrategyKey>},
    {"adminStrategyResolution", field<&BehaviourProfile::adminStrategyResolution>},
    {"adminCompatibilityUsesBroker", field<&BehaviourProfile::adminCompatibilityUsesBroker>},
    {"adminSchemaIdStripsPartition", field<&BehaviourProfile::adminSchemaIdStripsPartition>},
    {"adminHasCompatibilityAndVersion", field<&BehaviourProfile::adminHasCompatibilityAndVersion>},
    {"adminPostSchemaSuccessStatus", field<&BehaviourProfile::adminPostSchemaSuccessStatus>},
    {"adminReasonPhraseIsStandard", field<&BehaviourProfile::adminReasonPhraseIsStandard>},
    {"brokerBatchIndexAckDefault", field<&BehaviourProfile::brokerBatchIndexAckDefault>},
    {"adminIncompatibleStatus", field<&BehaviourProfile::adminIncompatibleStatus>},
    {"adminInvalidDefinitionStatus", field<&BehaviourProfile::adminInvalidDefinitionStatus>},
    {"adminNotFoundReason", field<&BehaviourProfile::adminNotFoundReason>},
    {"adminSchemaTopicOperationCheck", field<&BehaviourProfile::adminSchemaTopicOperationCheck>},
    {"adminErrorText", field<&BehaviourProfile::adminErrorText>},
    {"adminVersionSuccessStatus", field<&BehaviourProfile::adminVersionSuccessStatus>},
    {"adminConvertsKeyValuePayload", field<&BehaviourProfile::adminConvertsKeyValuePayload>},
    {"adminNamespaceStrategyGetRaw", field<&BehaviourProfile::adminNamespaceStrategyGetRaw>},
    {"adminValidationEnforcedApplied", field<&BehaviourProfile::adminValidationEnforcedApplied>},
    {"adminTopicStrategyEndpoint", field<&BehaviourProfile::adminTopicStrategyEndpoint>},
    {"adminTopicValidationEndpoint", field<&BehaviourProfile::adminTopicValidationEndpoint>},
    {"adminUpdatePartitionsAsync", field<&BehaviourProfile::adminUpdatePartitionsAsync>},
    {"adminPartitionedMetadataHasDeleted", field<&BehaviourProfile::adminPartitionedMetadataHasDeleted>},
    {"producerCreatesInitialSubscription", field<&BehaviourProfile::producerCreatesInitialSubscription>},
    {"rejectsPartitionBeyondCount", field<&BehaviourProfile::rejectsPartitionBeyondCount>},
    {"partitionedMetadataWithoutAutoCreation", field<&BehaviourProfile::partitionedMetadataWithoutAutoCreation>},
    {"checkOptions.avro", option<&compat::CheckOptions::avro>},
    {"checkOptions.jsonAllowLegacyJacksonFormat", option<&compat::CheckOptions::jsonAllowLegacyJacksonFormat>},
    {"checkOptions.avroNamesAllowDollar", option<&compat::CheckOptions::avroNamesAllowDollar>},
    {"checkOptions.avroValidationMessageWithStrategy",
     option<&compat::CheckOptions::avroValidationMessageWithStrategy>},
    {"checkOptions.protobufNativeRootMessageWithStrategy",
     option<&compat::CheckOptions::protobufNativeRootMessageWithStrategy>},
};

}  // namespace

std::span<const BehaviourProfile> allProfiles() { return lineProfiles(); }

int protocol::protocolVersionOfRelease(const ReleaseVersion& release) {
    // Every client session asks (`cnxsim run`: once a scenario): a modelled
    // release reads its profile; another (a client's) applies the fixes that set
    // maxProtocolVersion, the only switch that matters here.
    if (const auto* known = profileTable().find(release); known && release.patch >= 0) return known->maxProtocolVersion;
    BehaviourProfile p;
    for (const auto& fix : kFixes) {
        if (carriedBy(release, fix.firstReleases)) fix.apply(p);
    }
    return p.maxProtocolVersion;
}

const BehaviourProfile& newestProfile() { return newestOf(kLines.back()); }

const BehaviourProfile* profileFor(std::string_view version, std::string* error) {
    auto parsed = ReleaseVersion::parse(version);
    if (!parsed) {
        if (error) *error = "'" + std::string(version) + "' is not a Pulsar release number (expected e.g. \"4.2\" or \"4.2.0\")";
        return nullptr;
    }
    if (const auto* p = profileTable().find(*parsed)) return p;
    if (error) {
        *error = "no behaviour profile models Pulsar " + parsed->toString() + " (modelled: 2.4.0 - 2.4.2";
        for (std::size_t i = 1; i < kLines.size(); ++i) {
            const auto& l = kLines[i];
            *error += ", " + std::to_string(l.major) + "." + std::to_string(l.minor) + ".0 - " + std::to_string(l.major) +
                      "." + std::to_string(l.minor) + "." + std::to_string(l.lastPatch);
        }
        *error += ")";
    }
    return nullptr;
}

std::vector<SwitchView> switchesOf(const BehaviourProfile& p) {
    std::vector<SwitchView> out;
    out.reserve(std::size(kSwitches));
    for (const auto& row : kSwitches) out.push_back({row.name, row.value(p)});
    return out;
}

}  // namespace cnx
