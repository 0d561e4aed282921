#pragma once
// Broker configuration, namespace and topic policies with Pulsar's spellings
// (reference §5.2, §5.6). Values are set from text, as broker.conf and
// `pulsar-admin ... policies` write them; resolution of the effective values a
// topic uses lives in policy_resolution.h.

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "broker_model/policy/auth_settings.h"
#include "broker_model/core/compatibility_strategy.h"

namespace cnx {

/// broker.conf keys that take part in schema admission (§5.6).
struct BrokerConfig {
    bool isSchemaValidationEnforced = false;
    CompatibilityStrategy schemaCompatibilityStrategy = CompatibilityStrategy::FULL;
    CompatibilityStrategy systemTopicSchemaCompatibilityStrategy = CompatibilityStrategy::ALWAYS_COMPATIBLE;
    bool isAllowAutoUpdateSchemaEnabled = true;
    std::string replicatorPrefix = "pulsar.repl";
    bool topicLevelPoliciesEnabled = true;
    bool systemTopicEnabled = true;
    bool schemaJsonAllowLegacyJacksonFormat = false;
    bool allowAutoTopicCreation = true;
    bool allowAutoSubscriptionCreation = true;
    // Delivery (issue 41): batch-index acknowledgement (PIP-54; ServiceConfiguration default false).
    bool acknowledgmentAtBatchIndexLevelEnabled = false;
    // Delayed delivery on Shared subscriptions (ServiceConfiguration default true).
    bool delayedDeliveryEnabled = true;
    // Where clients are sent and how big a frame may be (issue 41 items 4, 5).
    /// ServiceConfiguration.maxMessageSize: Commands.DEFAULT_MAX_MESSAGE_SIZE (5 MiB)
    /// by default; CONNECTED announces it and the frame decoder takes this plus
    /// Commands.MESSAGE_SIZE_FRAME_PADDING (wire::frameLimit).
    int maxMessageSize = 5 * 1024 * 1024;
    /// The host LOOKUP answers (empty: the address the broker listens on).
    std::string advertisedAddress;
    /// `name:pulsar://host:port,...` as broker.conf writes it (advertised_listeners.h).
    std::string advertisedListeners;
    std::string internalListenerName;
    /// Authentication and authorization (issue 44): their keys are this config's too.
    AuthSettings auth;

    /// Sets `key` from its broker.conf text. Returns an error message for an
    /// unknown key or a value of the wrong form; nothing changes then.
    std::optional<std::string> set(std::string_view key, std::string_view value);

    /// Every key `set` accepts.
    static std::span<const std::string_view> keys();

    /// Whether the broker accepts `key` through `brokers update-dynamic-config`
    /// (`@FieldContext(dynamic = true)` in ServiceConfiguration).
    static bool isDynamic(std::string_view key);
};

/// Namespace `Policies` fields of §5.2 (snake_case JSON names).
struct NamespacePolicies {
    CompatibilityStrategy schema_compatibility_strategy = CompatibilityStrategy::UNDEFINED;
    std::optional<AutoUpdateStrategy> schema_auto_update_compatibility_strategy;  // null = unset (2.8.3+)
    std::optional<bool> is_allow_auto_update_schema;                              // null = unset (2.8.2+)
    bool schema_validation_enforced = false;
    std::optional<int> max_producers_per_topic;  // null = unset (the broker's maxProducersPerTopic, 0: no limit)
    /// auth_policies.namespace_auth: role -> actions granted (policy/authorization.h).
    std::map<std::string, std::vector<std::string>> namespace_auth;
    /// auth_policies.destination_auth: topic (full name) -> role -> actions granted.
    std::map<std::string, std::map<std::string, std::vector<std::string>>> destination_auth;
    /// auth_policies.subscription_auth_roles: subscription -> the only roles that may use it.
    std::map<std::string, std::vector<std::string>> subscription_auth_roles;

    /// Sets `field` from text; `value` nullopt resets the field to its default.
    std::optional<std::string> set(std::string_view field, std::optional<std::string_view> value);
    static std::span<const std::string_view> fields();
};

/// Topic-level policies (`TopicPolicies`, 2.10+/2.11+). Unset = inherit.
struct TopicPolicies {
    std::optional<CompatibilityStrategy> schemaCompatibilityStrategy;  // UNDEFINED counts as unset
    std::optional<bool> schemaValidationEnforced;

    /// Accepts the snake_case spelling of namespace policies
    /// (`schema_compatibility_strategy`) and TopicPolicies' own camelCase.
    std::optional<std::string> set(std::string_view field, std::optional<std::string_view> value);
    static std::span<const std::string_view> fields();
};

}  // namespace cnx
