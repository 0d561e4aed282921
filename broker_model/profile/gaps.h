#pragma once
// The known gaps of the model: changes of real Pulsar on the paths of
// doc/broker-behaviour.md that the model does not implement (the "not
// modelled" rows of §9.1). One table, `knownGaps()`; `cnxsim profiles --gaps`
// lists it.
//
// A gap is never silent. Where a modelled decision passes through a path a
// gap touches, on a release the gap affects, the model adds a trace entry
// `not modelled: #NNNN (...)` (`noteGap`), and the runner reports the step's
// answer as unverified instead of answering confidently. Gaps whose path the
// model never takes (storage failures, authorization, races) are listed with
// the reason no step reaches them.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "broker_model/core/release_version.h"
#include "broker_model/core/trace.h"

namespace cnx {

struct BehaviourProfile;

/// The gaps a decision can pass through (each has a trigger in the model).
enum class Gap {
    replicatorValidationEnforced,    // #25012
    replicatorAutoUpdateDisabled,    // #25461
    getSchemaNotFoundRecycledField,  // #22377
    topicDeleteKeepsTopicPolicies,   // #21093, #24350: a partitioned topic's policies
    partitionedTopicSchemaDeletion,  // #21574, #21977
    nonPersistentTopicPoliciesLoad,  // #26134
    keyValueAdminPayloadBeforePip44, // #21645/#21632 on 2.4.x
    unreachable,                     // every listed gap no modelled step can reach
};

/// Which releases a gap affects, relative to the change it describes.
enum class GapAffects {
    carrying,  // releases that carry the change (the model answers as before it)
    lacking,   // releases that lack the fix (the model answers as after it)
};

struct GapInfo {
    Gap id;
    std::string_view pr;       // "#25012", "PIP-420"
    std::string_view section;  // doc/broker-behaviour.md section(s)
    std::string_view change;   // what real Pulsar does there
    std::string_view paths;    // the modelled paths it touches, or why no step reaches it
    ReleaseList releases;  // first releases per line of the change
    GapAffects affects;
    ReleaseList onlyLines = {};  // when non-empty, only these lines are affected
    ReleaseList since = {};      // when non-empty, only releases carrying this (a bug's origin)
};

/// Every known gap, in the order of the §9.1 timeline.
std::span<const GapInfo> knownGaps();

/// Whether `gap` affects `release`.
bool gapAffects(const GapInfo& gap, const ReleaseVersion& release);

/// The triggered gaps that affect `release` (the ones a decision can meet).
std::vector<Gap> triggeredGapsOf(const ReleaseVersion& release);

/// The table row of a triggered gap.
const GapInfo& gapInfo(Gap gap);

/// The `not modelled: #NNNN (...)` text of a gap.
std::string notModelledText(const GapInfo& gap);

/// Adds `not modelled: #NNNN (...)` to `trace` when `profile`'s release is
/// affected by `gap`; `why` says which inputs made the decision meet it.
/// Returns whether it did.
bool noteGap(const BehaviourProfile& profile, Gap gap, Trace* trace, std::string_view why);

}  // namespace cnx
