#include "broker_model/profile/gaps.h"

#include <algorithm>

#include "broker_model/profile/profile.h"

namespace cnx {
namespace {

constexpr ReleaseVersion v(int major, int minor, int patch) { return {major, minor, patch}; }

constexpr GapAffects carrying = GapAffects::carrying;
constexpr GapAffects lacking = GapAffects::lacking;

// doc/broker-behaviour.md §9.1, the rows marked "not modelled". Release lists
// are the change's first releases per line, as in profiles.cc. A constant: no
// code builds it.
constexpr GapInfo kGaps[]{
    {Gap::unreachable, "#5563, #6683", "§4.11", "lost locator updates are retried (write only)",
     "2.4's answer to a lost locator update (BadVersionException, #4807): concurrent registrations are "
     "raced (`concurrently`), but before #18701 every release retries the write alone, as 2.5.0 does",
     {v(2, 5, 0)}, carrying,
     {}},
    {Gap::unreachable, "#9212", "§4.2", "unreadable schema ledgers are cleaned and the topic loads",
     "storage failures: the modelled storage never fails", {v(2, 7, 1), v(2, 8, 0)}, carrying, {}},
    {Gap::unreachable, "#11606", "§4.9", "a race in concurrent schema deletion is fixed",
     "concurrent topic deletions: a topic deletion is one stage of the model, so no race interleaves two "
     "(the race was between reading a schema and deleting its ledgers, apache/pulsar#11605)",
     {v(2, 8, 2), v(2, 9, 0)}, lacking, {}},
    // The pre-#21645 KEY_VALUE payload answers are modelled from 2.5.0 (the PIP-44
    // registry) on; what 2.4.2's endpoints answered is UNCONFIRMED.
    {Gap::keyValueAdminPayloadBeforePip44, "#21645, #21632 (2.4.x)", "§7.2 §7.4",
     "how 2.4.2's /compatibility and /version endpoints read a KEY_VALUE payload is UNCONFIRMED",
     "admin test-compatibility or get-schema-version with a KEY_VALUE schema", {v(2, 5, 0)}, lacking, {}},
    {Gap::unreachable, "#15956, #18074", "§7.4", "admin schema reads need GET_METADATA, uploads need PRODUCE",
     "authorization: this cnxsim models no roles or permissions", {v(2, 11, 0)}, carrying, {}},
    {Gap::unreachable, "#20730", "§4.2", "non-recoverable storage errors keep the readable entries",
     "storage failures: the modelled storage never fails", {v(2, 10, 6), v(2, 11, 2), v(3, 0, 2), v(3, 1, 0)},
     carrying, {}},
    // Non-partitioned topics are modelled (topicDeleteUnloadedDeletesPolicies); a partitioned
    // topic's deletion depends on which partitions are loaded, #21093 skips partitions and
    // #24350 (3.0.13, 3.3.8, 4.0.6) moved the deletion to the partitioned metadata.
    {Gap::topicDeleteKeepsTopicPolicies, "#21093, #24350", "§3.6",
     "deleting a partitioned topic deletes its topic-level policies, depending on which partitions are loaded",
     "delete-topic of a partitioned topic with topic-level policies (the model keeps them)", {v(2, 10, 0)},
     carrying, {}},
    {Gap::partitionedTopicSchemaDeletion, "#21574, #21977", "§3.6",
     "schema deletion when a partitioned topic (with many partitions) is deleted was fixed; the "
     "failure before the fix is not modelled",
     "delete-topic of a partitioned topic", {v(2, 10, 6), v(3, 0, 3), v(3, 1, 3), v(3, 2, 1), v(3, 3, 0)}, lacking,
     {}},
    // The bug came with #20932's topic name in the message and went with #22377.
    {Gap::getSchemaNotFoundRecycledField, "#22377", "§1.9",
     "between #20932 and this fix the GET_SCHEMA not-found answer read a recycled request field: "
     "racy, likely UnknownError instead of TopicNotFound (UNCONFIRMED)",
     "GET_SCHEMA of a topic without the asked schema", {v(3, 0, 5), v(3, 2, 2), v(3, 3, 0)}, lacking, {},
     {v(2, 10, 6), v(2, 11, 4), v(3, 0, 3), v(3, 1, 2), v(3, 2, 0)}},
    {Gap::unreachable, "#22469", "§2.2", "subscribe tolerates a broken schema ledger",
     "storage failures: the modelled storage never fails", {v(3, 3, 0)}, carrying, {}},
    {Gap::unreachable, "#22685", "§3.5", "non-persistent userCreatedProducerCount bookkeeping (ProducerBusy)",
     "producer-count bookkeeping under failed creations, not schema logic",
     {v(3, 0, 5), v(3, 2, 3), v(3, 3, 1), v(4, 0, 0)}, carrying, {}},
    {Gap::unreachable, "#23074", "§1.1 §2.1", "max producers/consumers are checked before other work",
     "limits: this cnxsim models no maxProducersPerTopic / maxConsumersPerTopic",
     {v(3, 0, 6), v(3, 3, 1), v(4, 0, 0)}, carrying, {}},
    {Gap::unreachable, "#23395, #23428", "§3.2",
     "producer creation with a broken schema ledger; broker flag schemaLedgerForceRecovery",
     "storage failures: the modelled storage never fails", {v(4, 0, 0)}, carrying, {}},
    {Gap::unreachable, "PIP-360", "§7.1", "an admin API for schema metadata",
     "no scenario step calls it", {v(4, 0, 0)}, carrying, {}},
    {Gap::unreachable, "#24178", "§1.7", "replicator producers with several schema versions (AUTO_PRODUCE)",
     "client and replicator side: the broker's answers are unchanged",
     {v(3, 0, 12), v(3, 3, 7), v(4, 0, 5), v(4, 1, 0)}, carrying, {}},
    {Gap::unreachable, "PIP-420", "§2.4 §6.1",
     "the External schema type (proto 22) and its compatibility check; details UNCONFIRMED",
     "no scenario step can name the External type", {v(4, 1, 0)}, carrying, {}},
    {Gap::unreachable, "#24971", "§3.6", "orphan schemas after a partitioned topic is garbage-collected",
     "topic garbage collection is not modelled", {v(4, 0, 8), v(4, 1, 2), v(4, 2, 0)}, carrying, {}},
    {Gap::replicatorValidationEnforced, "#25012", "§1.3",
     "replicator producers vs schemaValidationEnforced in geo-replication; the new rule is UNCONFIRMED",
     "a replicator producer without schema on a topic with a schema",
     {v(3, 0, 16), v(4, 0, 9), v(4, 1, 3), v(4, 2, 0)}, carrying, {}},
    {Gap::unreachable, "PIP-457", "§7.1", "the V1 admin API is removed", "this cnxsim models V2 paths only",
     {v(4, 2, 0)}, carrying, {}},
    {Gap::unreachable, "#25352", "§1.1 §2.1", "a race in ServerCnx producer/consumer callbacks is fixed",
     "thread timing: Java ran an already-completed future's callback at once on the calling thread, out of "
     "the connection's order; the model's stages have no threads, so no raced schedule reproduces it",
     {v(4, 0, 10), v(4, 2, 0)}, lacking, {}},
    {Gap::unreachable, "#25437", "§1.7", "AUTO_PRODUCE producers refresh the schema and retry after IncompatibleSchema",
     "client and replicator side: the broker's answers are unchanged", {v(4, 0, 10), v(4, 2, 5), v(5, 0, 0)},
     carrying, {}},
    {Gap::nonPersistentTopicPoliciesLoad, "#26134", "§3.8 §5.3",
     "non-persistent topics load their topic policies at load time; the effect on schema policies is UNCONFIRMED",
     "a topic-level schema policy of a non-persistent topic", {v(4, 0, 12), v(4, 2, 3), v(5, 0, 0)}, carrying, {}},
    {Gap::unreachable, "#26643", "§1.8 §1.9",
     "binary GET_SCHEMA needs LOOKUP and GET_OR_CREATE_SCHEMA needs PRODUCE permission",
     "authorization: this cnxsim models no roles or permissions", {v(4, 0, 14), v(4, 2, 5), v(5, 0, 0)},
     carrying, {}},
    {Gap::unreachable, "#26472", "§5.5", "the admin getter schemaValidationEnforced?applied=true includes the broker flag",
     "no scenario step reads that getter", {v(4, 0, 14), v(4, 2, 5), v(5, 0, 0)}, carrying, {}},
    {Gap::replicatorAutoUpdateDisabled, "#25461", "§4.8 §5.4",
     "a replicator may register a compatible schema while auto-update is disabled "
     "(namespace is_allow_auto_update_schema_with_replicator)",
     "a replicator producer with a schema while auto-update is disabled", {v(5, 0, 0)}, carrying, {}},
};

bool onLine(const ReleaseVersion& r, const ReleaseList& lines) {
    if (lines.empty()) return true;
    return std::any_of(lines.begin(), lines.end(),
                       [&](const ReleaseVersion& l) { return l.major == r.major && l.minor == r.minor; });
}

}  // namespace

std::span<const GapInfo> knownGaps() { return kGaps; }

bool gapAffects(const GapInfo& gap, const ReleaseVersion& release) {
    if (!onLine(release, gap.onlyLines)) return false;
    if (!gap.since.empty() && !carriedBy(release, gap.since)) return false;
    bool carried = carriedBy(release, gap.releases);
    return gap.affects == GapAffects::carrying ? carried : !carried;
}

std::vector<Gap> triggeredGapsOf(const ReleaseVersion& release) {
    std::vector<Gap> out;
    for (const auto& g : kGaps) {
        if (g.id != Gap::unreachable && gapAffects(g, release)) out.push_back(g.id);
    }
    return out;
}

const GapInfo& gapInfo(Gap gap) {
    auto it = std::find_if(std::begin(kGaps), std::end(kGaps), [&](const GapInfo& g) { return g.id == gap; });
    return it == std::end(kGaps) ? kGaps[0] : *it;  // every triggered Gap has exactly one row (unit test)
}

std::string notModelledText(const GapInfo& gap) {
    return "not modelled: " + std::string(gap.pr) + " (" + std::string(gap.change) + ")";
}

bool noteGap(const BehaviourProfile& profile, Gap gap, Trace* trace, std::string_view why) {
    if (std::find(profile.gaps.begin(), profile.gaps.end(), gap) == profile.gaps.end()) return false;
    if (trace) trace->notModelled(std::string(gapInfo(gap).section), notModelledText(gapInfo(gap)), std::string(why));
    return true;
}

}  // namespace cnx
