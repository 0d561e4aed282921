#pragma once
// What the admission paths of ServerCnx share (producer_commands.cc,
// subscribe_commands.cc): small steps both take for every PRODUCER and
// SUBSCRIBE, defined here so that each path's file inlines them as the one
// file did. Internal to broker_model/protocol.

#include <memory>
#include <optional>
#include <string>

#include "broker_model/protocol/server_cnx.h"

namespace cnx {
namespace server_cnx_internal {

inline BrokerError topicNotFound(const std::string& message) { return {RefusalKind::topicNotFound, message}; }

}  // namespace server_cnx_internal

// A served broker keeps tenants and namespaces explicit (ClusterMetadata); a
// real broker refuses a topic whose namespace does not exist, in its lookup
// and topic load. That refusal is not modelled: the trace says so.
inline void ServerCnx::noteMissingNamespace(const TopicName& name, TraceText section, Trace& trace) const {
    if (broker_.metadata().namespaceExists(name.namespaceView())) return;
    trace.notModelled(section, "not modelled: namespace existence on the binary protocol",
                      "namespace " + name.namespaceName() +
                          " does not exist: a real broker refuses the topic; the model admits it");
}

// A connect waits for the topic's first load (`getOrCreateTopic` completes its
// future later); on a loaded topic it goes on at once, as a completed future's
// callbacks run inline.
inline void ServerCnx::afterTopicLoad(const std::shared_ptr<Topic>& topic, Continuation&& next) {
    topic->whenLoaded(std::move(next));
}

inline const TopicName* ServerCnx::topicNameOf(const std::string& text, std::optional<TopicName>& parsed,
                                               std::string& error) {
    if (const auto* loaded = broker_.findTopic(text)) return &loaded->name();
    parsed = TopicName::parse(text, &error);
    return parsed ? &*parsed : nullptr;
}

}  // namespace cnx
