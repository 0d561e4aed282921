#pragma once
// A stage: one asynchronous step of the real broker (reference §4.11), as the
// model posts it on the scheduler. It says what the continuation touches, so
// that a chooser or a race explorer can tell stages apart and a schedule can
// be printed and replayed: its kind, the client connection and request it
// serves, and the topic and schema id it reads or writes.

#include <cstdint>
#include <string>
#include <string_view>

namespace cnx {

enum class StageKind : std::uint8_t {
    topicLoad,      // the topic's first load (`getOrCreateTopic`'s future), which a connect waits for (§1.1, §2.1)
    schemaLookup,   // `hasSchema` / the topic's schema read before a decision (§1.3, §3.3)
    registryRead,   // the schema locator and history read (§4.11)
    registryWrite,  // the conditional write of a new version or a delete marker (§4.11)
    subscribe,      // attaching a consumer to its subscription (§2.1)
    delivery,       // a delayed message's delivery time is reached (DelayedDeliveryTracker's timer, issue 41)
    authRefresh,    // ServerCnx's authentication refresh check (authenticationRefreshCheckSeconds, issue 44)
};

inline constexpr StageKind kAllStageKinds[] = {StageKind::topicLoad, StageKind::schemaLookup,
                                               StageKind::registryRead, StageKind::registryWrite,
                                               StageKind::subscribe, StageKind::delivery,
                                               StageKind::authRefresh};

/// "topic load", "schema lookup", "registry read", "registry write", "subscribe".
std::string_view to_string_view(StageKind kind);

/// Who a stage works for: a client connection and one of its requests, or
/// (connection 0) the admin API and the broker itself.
struct Origin {
    std::uint64_t connection = 0;
    std::uint64_t request = 0;
};

struct Stage {
    StageKind kind = StageKind::schemaLookup;
    Origin origin;         // filled in by the scheduler from the request being handled, when left empty
    std::string topic;     // full topic name; empty when the stage is not on a topic
    std::string schemaId;  // registry key read or written; empty when none
};

/// A stage as the model posts it: its names are views, valid during the post
/// call only. The scheduler copies them into the Stage it keeps when anyone
/// will read them (Scheduler::keepsStageNames); a run that only needs the
/// continuations to run in order does not pay for two strings a stage.
struct StageRef {
    StageKind kind = StageKind::schemaLookup;
    std::string_view topic;     // as Stage::topic
    std::string_view schemaId;  // as Stage::schemaId
};

/// One line for schedules and logs: "cnx 2 req 5: registry write public/default/t".
std::string describe(const Stage& stage);

}  // namespace cnx
