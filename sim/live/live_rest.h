#pragma once
// What LiveRun's wire steps (live_run.cc) and its admin side
// (live_run_admin.cc: set-up, tear-down, admin steps) share.

#include <optional>
#include <string>
#include <string_view>

#include "broker_model/core/topic_name.h"
#include "sim/scenario/observed.h"

namespace cnx::sim::live {

/// Pulsar's Codec.encode of a topic's local name in a REST path (URLEncoder).
std::string encodePathPart(std::string_view s);

inline std::optional<TopicName> parsed(const std::string& full) { return TopicName::parse(full); }

/// /admin/v2/{persistent|non-persistent}/{tenant}/{ns}/{topic}
std::string topicPath(const TopicName& t);

/// A step the live broker cannot be asked to do.
inline Observed notSupported(const std::string& why) { return Observed::failure("NotExecutable", why); }

}  // namespace cnx::sim::live
