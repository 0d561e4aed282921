#include "sim/scenario/load/settings.h"

#include "broker_model/policy/policies.h"
#include "sim/scenario/did_you_mean.h"
#include "sim/scenario/tls_settings.h"

namespace cnx::sim::load {

Names settingKeys(SettingScope scope) {
    switch (scope) {
        case SettingScope::broker: return BrokerConfig::keys();
        case SettingScope::namespacePolicy: return NamespacePolicies::fields();
        case SettingScope::topicPolicy: return TopicPolicies::fields();
    }
    return {};
}

namespace {

std::string_view settingNoun(SettingScope scope) {
    switch (scope) {
        case SettingScope::broker: return "broker configuration key";
        case SettingScope::namespacePolicy: return "namespace policy";
        case SettingScope::topicPolicy: return "topic policy";
    }
    return "";
}

// Values a field accepts, for "did you mean".
Names valueCandidates(std::string_view field) {
    if (field == "schema_auto_update_compatibility_strategy") return autoUpdateStrategyNames();
    if (field.find("ompatibilityStrategy") != std::string_view::npos ||
        field.find("compatibility_strategy") != std::string_view::npos)
        return compatibilityStrategyNames();
    if (field == "replicatorPrefix") return {};
    return kBooleans;
}

std::optional<std::string> applySetting(SettingScope scope, std::string_view key, std::optional<std::string_view> v) {
    switch (scope) {
        case SettingScope::broker: {
            if (!v) return std::nullopt;  // null: back to the default
            BrokerConfig config;
            return config.set(key, *v);
        }
        case SettingScope::namespacePolicy: {
            NamespacePolicies policies;
            return policies.set(key, v);
        }
        case SettingScope::topicPolicy: {
            TopicPolicies policies;
            return policies.set(key, v);
        }
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::vector<std::string_view>> settingChoices(SettingScope scope, std::string_view key) {
    if (!applySetting(scope, key, "not-a-choice-value")) return std::nullopt;
    std::vector<std::string_view> out;
    for (Names names : {Names(kBooleans), compatibilityStrategyNames(), autoUpdateStrategyNames()}) {
        for (std::string_view v : names) {
            if (!applySetting(scope, key, v) && !contains(out, v)) out.push_back(v);
        }
    }
    // A key that takes none of them takes a number or a structured text
    // (maxMessageSize, advertisedListeners): left to the model's own check.
    if (out.empty()) return std::nullopt;
    return out;
}

namespace {

std::optional<Setting> settingOf(Ctx& ctx, const Entry& e, SettingScope scope) {
    // A serve setup file's broker config also takes serve's TLS listener keys
    // (sim/scenario/tls_settings.h): the server reads them, not the model.
    if (ctx.setupFile && scope == SettingScope::broker && serve::TlsSettings::isKey(e.key)) {
        Setting s{e.key, std::nullopt, e.keyPos};
        if (!e.value.node.IsNull()) {
            auto text = scalarOf(ctx, e.value);
            if (!text) return std::nullopt;
            s.value = *text;
            s.pos = e.value.pos;
            serve::TlsSettings check;
            if (auto why = check.set(e.key, *s.value)) {
                ctx.error(e.value.pos, *why);
                return std::nullopt;
            }
        }
        return s;
    }
    Names keys = settingKeys(scope);
    if (!contains(keys, e.key)) {
        ctx.error(e.keyPos, "unknown " + std::string(settingNoun(scope)) + " " + inQuotes(e.key) +
                                didYouMeanSuffix(e.key, keys));
        return std::nullopt;
    }
    Setting s{e.key, std::nullopt, e.keyPos};
    if (!e.value.node.IsNull()) {
        auto text = scalarOf(ctx, e.value);
        if (!text) return std::nullopt;
        s.value = *text;
        s.pos = e.value.pos;
    }
    if (auto why = applySetting(scope, e.key, s.value)) {
        std::string suffix = s.value ? didYouMeanSuffix(*s.value, valueCandidates(e.key)) : "";
        ctx.error(e.value.pos, *why + suffix);
        return std::nullopt;
    }
    return s;
}

}  // namespace

std::vector<Setting> settingsOf(Ctx& ctx, const Entries& entries, SettingScope scope) {
    std::vector<Setting> out;
    for (const Entry& e : entries) {
        if (auto s = settingOf(ctx, e, scope)) out.push_back(std::move(*s));
    }
    return out;
}

std::optional<std::vector<Setting>> settingsMapOf(Ctx& ctx, const Value& v, SettingScope scope) {
    if (v.node.IsNull()) return std::vector<Setting>{};
    auto entries = entriesOf(ctx, v);
    if (!entries) return std::nullopt;
    return settingsOf(ctx, *entries, scope);
}

}  // namespace cnx::sim::load
