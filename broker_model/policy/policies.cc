#include "broker_model/policy/policies.h"

#include <array>
#include <charconv>

#include <limits>

#include "broker_model/policy/advertised_listeners.h"

namespace cnx {
namespace {

std::optional<bool> parseBool(std::string_view v) {
    if (v == "true") return true;
    if (v == "false") return false;
    return std::nullopt;
}

std::string expected(std::string_view key, std::string_view what, std::string_view value) {
    return std::string(key) + " expects " + std::string(what) + ", got '" + std::string(value) + "'";
}

std::optional<std::string> setBool(bool& out, std::string_view key, std::string_view value) {
    auto b = parseBool(value);
    if (!b) return expected(key, "true or false", value);
    out = *b;
    return std::nullopt;
}

std::optional<std::string> setStrategy(CompatibilityStrategy& out, std::string_view key, std::string_view value) {
    auto s = compatibilityStrategyFromName(value);
    if (!s) return expected(key, "a SchemaCompatibilityStrategy name", value);
    out = *s;
    return std::nullopt;
}

// Commands.MESSAGE_SIZE_FRAME_PADDING, added to maxMessageSize by the frame decoder.
constexpr long long kFramePadding = 10 * 1024;
constexpr long long kMaxMessageSizeLimit = std::numeric_limits<int>::max() - kFramePadding;

std::optional<std::string> setText(std::string& out, std::string_view value) {
    out = std::string(value);
    return std::nullopt;
}

// ServiceConfiguration.maxMessageSize is an int; the frame decoder adds
// Commands.MESSAGE_SIZE_FRAME_PADDING (10 KiB) to it, so a value whose sum
// passes an int could not be a frame length.
std::optional<std::string> setMaxMessageSize(int& out, std::string_view key, std::string_view value) {
    long long n = 0;
    auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc() || p != value.data() + value.size() || n < 1 || n > kMaxMessageSizeLimit)
        return expected(key, "a number of bytes from 1 to " + std::to_string(kMaxMessageSizeLimit), value);
    out = static_cast<int>(n);
    return std::nullopt;
}

constexpr std::array<std::string_view, 16> kBrokerKeys{
    "isSchemaValidationEnforced",     "schemaCompatibilityStrategy",
    "systemTopicSchemaCompatibilityStrategy", "isAllowAutoUpdateSchemaEnabled",
    "replicatorPrefix",               "topicLevelPoliciesEnabled",
    "systemTopicEnabled",             "schemaJsonAllowLegacyJacksonFormat",
    "allowAutoTopicCreation",         "allowAutoSubscriptionCreation",
    "acknowledgmentAtBatchIndexLevelEnabled", "delayedDeliveryEnabled",
    "maxMessageSize",                 "advertisedAddress",
    "advertisedListeners",            "internalListenerName",
};

constexpr std::array<std::string_view, 5> kNamespaceFields{
    "schema_compatibility_strategy",
    "schema_auto_update_compatibility_strategy",
    "is_allow_auto_update_schema",
    "schema_validation_enforced",
    "max_producers_per_topic",
};

constexpr std::array<std::string_view, 4> kTopicFields{
    "schema_compatibility_strategy",
    "schema_validation_enforced",
    "schemaCompatibilityStrategy",
    "schemaValidationEnforced",
};

}  // namespace

std::optional<std::string> BrokerConfig::set(std::string_view key, std::string_view value) {
    if (key == "isSchemaValidationEnforced") return setBool(isSchemaValidationEnforced, key, value);
    if (key == "schemaCompatibilityStrategy") return setStrategy(schemaCompatibilityStrategy, key, value);
    if (key == "systemTopicSchemaCompatibilityStrategy")
        return setStrategy(systemTopicSchemaCompatibilityStrategy, key, value);
    if (key == "isAllowAutoUpdateSchemaEnabled") return setBool(isAllowAutoUpdateSchemaEnabled, key, value);
    if (key == "replicatorPrefix") {
        if (value.empty()) return expected(key, "a non-empty prefix", value);
        replicatorPrefix = std::string(value);
        return std::nullopt;
    }
    if (key == "topicLevelPoliciesEnabled") return setBool(topicLevelPoliciesEnabled, key, value);
    if (key == "systemTopicEnabled") return setBool(systemTopicEnabled, key, value);
    if (key == "schemaJsonAllowLegacyJacksonFormat") return setBool(schemaJsonAllowLegacyJacksonFormat, key, value);
    if (key == "allowAutoTopicCreation") return setBool(allowAutoTopicCreation, key, value);
    if (key == "allowAutoSubscriptionCreation") return setBool(allowAutoSubscriptionCreation, key, value);
    if (key == "acknowledgmentAtBatchIndexLevelEnabled")
        return setBool(acknowledgmentAtBatchIndexLevelEnabled, key, value);
    if (key == "delayedDeliveryEnabled") return setBool(delayedDeliveryEnabled, key, value);
    if (key == "maxMessageSize") return setMaxMessageSize(maxMessageSize, key, value);
    if (key == "advertisedAddress") return setText(advertisedAddress, value);
    if (key == "advertisedListeners") {
        // MultipleListenerValidator: every entry is `name:url`; a broker refuses to start otherwise.
        if (auto bad = advertisedListenersProblem(value, {})) return std::string(key) + ": " + *bad;
        return setText(advertisedListeners, value);
    }
    if (key == "internalListenerName") return setText(internalListenerName, value);
    if (AuthSettings::owns(key)) return auth.set(key, value);
    return "unknown broker configuration key '" + std::string(key) + "'";
}

std::span<const std::string_view> BrokerConfig::keys() {
    // The model's keys, then AuthSettings' (issue 44), in one list built once.
    static const std::vector<std::string_view> all = [] {
        std::vector<std::string_view> v(kBrokerKeys.begin(), kBrokerKeys.end());
        auto auth = AuthSettings::keys();
        v.insert(v.end(), auth.begin(), auth.end());
        return v;
    }();
    return all;
}

// ServiceConfiguration (4.x): of the schema keys only isAllowAutoUpdateSchemaEnabled
// is dynamic; isSchemaValidationEnforced, schemaCompatibilityStrategy and
// systemTopicSchemaCompatibilityStrategy need a restart.
bool BrokerConfig::isDynamic(std::string_view key) {
    return key == "isAllowAutoUpdateSchemaEnabled" || key == "allowAutoTopicCreation" ||
           key == "allowAutoSubscriptionCreation";
}

std::optional<std::string> NamespacePolicies::set(std::string_view field, std::optional<std::string_view> value) {
    if (field == "max_producers_per_topic") {
        if (!value) {
            max_producers_per_topic.reset();
            return std::nullopt;
        }
        // NamespacesBase.internalSetMaxProducersPerTopic: "maxProducersPerTopic must be 0 or more".
        int n = 0;
        auto [p, ec] = std::from_chars(value->data(), value->data() + value->size(), n);
        if (ec != std::errc() || p != value->data() + value->size() || n < 0)
            return expected(field, "a whole number, 0 or more", *value);
        max_producers_per_topic = n;
        return std::nullopt;
    }
    if (field == "schema_compatibility_strategy") {
        if (!value) {
            schema_compatibility_strategy = CompatibilityStrategy::UNDEFINED;
            return std::nullopt;
        }
        return setStrategy(schema_compatibility_strategy, field, *value);
    }
    if (field == "schema_auto_update_compatibility_strategy") {
        if (!value) {
            schema_auto_update_compatibility_strategy.reset();
            return std::nullopt;
        }
        auto s = autoUpdateStrategyFromName(*value);
        if (!s) return expected(field, "a SchemaAutoUpdateCompatibilityStrategy name", *value);
        schema_auto_update_compatibility_strategy = *s;
        return std::nullopt;
    }
    if (field == "is_allow_auto_update_schema") {
        if (!value) {
            is_allow_auto_update_schema.reset();
            return std::nullopt;
        }
        bool b = false;
        if (auto err = setBool(b, field, *value)) return err;
        is_allow_auto_update_schema = b;
        return std::nullopt;
    }
    if (field == "schema_validation_enforced") {
        if (!value) {
            schema_validation_enforced = false;
            return std::nullopt;
        }
        return setBool(schema_validation_enforced, field, *value);
    }
    return "unknown namespace policy '" + std::string(field) + "'";
}

std::span<const std::string_view> NamespacePolicies::fields() { return kNamespaceFields; }

std::optional<std::string> TopicPolicies::set(std::string_view field, std::optional<std::string_view> value) {
    if (field == "schema_compatibility_strategy" || field == "schemaCompatibilityStrategy") {
        if (!value) {
            schemaCompatibilityStrategy.reset();
            return std::nullopt;
        }
        CompatibilityStrategy s{};
        if (auto err = setStrategy(s, field, *value)) return err;
        schemaCompatibilityStrategy = s;
        return std::nullopt;
    }
    if (field == "schema_validation_enforced" || field == "schemaValidationEnforced") {
        if (!value) {
            schemaValidationEnforced.reset();
            return std::nullopt;
        }
        bool b = false;
        if (auto err = setBool(b, field, *value)) return err;
        schemaValidationEnforced = b;
        return std::nullopt;
    }
    return "unknown topic policy '" + std::string(field) + "'";
}

std::span<const std::string_view> TopicPolicies::fields() { return kTopicFields; }

}  // namespace cnx
