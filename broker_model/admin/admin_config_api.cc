// The policy and dynamic-configuration endpoints of AdminApi: the answers a
// REST client gets for `namespaces set-…`, `topics set-…` and
// `brokers update-dynamic-config` (§5.2, §5.6). Kept apart from admin_api.cc,
// whose endpoints are the schema resource's (§7).

#include "broker_model/admin/admin_api.h"

#include "broker_model/policy/policy_resolution.h"

namespace cnx {
namespace {

AdminResponse noContent(TracePtr trace) { return AdminResponse::success(std::move(trace), 204, nullptr); }

// RestException(status, message): {"reason": message} and the message as the reason phrase (§7.2).
AdminResponse refused(TracePtr trace, int status, std::string reason) {
    return AdminResponse::failure(std::move(trace), status, std::move(reason));
}

std::string shown(std::optional<std::string_view> value) { return value ? std::string(*value) : std::string("null"); }

}  // namespace

AdminResponse AdminApi::setNamespacePolicy(const std::string& ns, std::string_view field,
                                           std::optional<std::string_view> value) {
    auto trace = broker_.newTrace();
    if (!broker_.metadata().namespaceExists(ns)) {
        trace->add("§5.2", "set-policy", [&] { return "namespace " + ns + " does not exist"; });
        return refused(trace, 404, "Namespace does not exist");
    }
    if (auto err = broker_.policies().namespaceFor(ns).set(field, value)) {
        trace->add("§5.2", "set-policy", [&] { return "namespace " + ns + ": " + *err; });
        return refused(trace, 400, *err);
    }
    trace->add("§5.2", "set-policy", [&] {
        return "namespace " + ns + ": " + std::string(field) + " = " + shown(value);
    });
    return noContent(trace);
}

AdminResponse AdminApi::setTopicPolicy(const TopicName& topic, std::string_view field,
                                       std::optional<std::string_view> value) {
    auto trace = broker_.newTrace();
    auto name = topic.partitionedBase().toString();
    if (!broker_.metadata().namespaceExists(topic.namespaceName())) {
        trace->add("§5.2", "set-policy", [&] { return "namespace " + topic.namespaceName() + " does not exist"; });
        return refused(trace, 404, "Namespace does not exist");
    }
    // The endpoint validates that the topic exists first (a real 4.2.4 broker answers 404
    // for a topic no client or operator created, `cnxsim run --against --explore`, issue 42).
    if (const auto base = topic.partitionedBase(); !broker_.topicExists(base) && broker_.partitionsOf(base) == 0) {
        trace->add("§5.2", "set-policy", [&] { return "topic " + name + " does not exist"; });
        return refused(trace, 404, "Topic " + name + " not found");
    }
    if (auto err = broker_.policies().topics[name].set(field, value)) {
        trace->add("§5.2", "set-policy", [&] { return "topic " + name + ": " + *err; });
        return refused(trace, 400, *err);
    }
    trace->add("§5.2", "set-policy", [&] {
        return "topic " + name + ": " + std::string(field) + " = " + shown(value);
    });
    return noContent(trace);
}

AdminResponse AdminApi::updateDynamicConfig(std::string_view key, std::optional<std::string_view> value) {
    auto trace = broker_.newTrace();
    if (!BrokerConfig::isDynamic(key)) {
        trace->add("§5.6", "set-broker-config", [&] { return std::string(key) + " is not a dynamic configuration"; });
        return refused(trace, 412, "Can't update non-dynamic configuration");
    }
    if (!value) {
        broker_.resetConfig(key);
        trace->add("§5.6", "set-broker-config", [&] { return std::string(key) + " reset to the release default"; });
        return noContent(trace);
    }
    if (auto err = broker_.setConfig(key, *value)) {
        trace->add("§5.6", "set-broker-config", [&] { return std::string(key) + ": " + *err; });
        return refused(trace, 400, *err);
    }
    trace->add("§5.6", "set-broker-config", [&] { return std::string(key) + " = " + std::string(*value); });
    return noContent(trace);
}

}  // namespace cnx
