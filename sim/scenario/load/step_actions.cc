// Each step kind's action, bound through its table in format.h; the kinds
// whose keys are not fixed (close, set-policy, set-broker-config) read by hand.
#include "sim/scenario/load/format.h"
#include "sim/scenario/load/names.h"

namespace cnx::sim::load {

std::optional<Action> DocumentLoader::producerOf(const Entry& e) { return bound(e, kProducerFields); }
std::optional<Action> DocumentLoader::subscribeOf(const Entry& e) { return bound(e, kSubscribeFields); }
std::optional<Action> DocumentLoader::publishOf(const Entry& e) { return bound(e, kPublishFields); }
std::optional<Action> DocumentLoader::uploadSchemaOf(const Entry& e) {
    return bound(e, kTopicSchemaFields<UploadSchemaStep>);
}
// `client` names who sends GET_SCHEMA, so it means something only `via: wire`.
std::optional<Action> DocumentLoader::getSchemaOf(const Entry& e) {
    auto action = bound(e, kGetSchemaFields);
    if (!action) return std::nullopt;
    const auto& step = std::get<GetSchemaStep>(*action);
    if (step.via != "wire" && !step.client.empty()) {
        auto fields = entriesOf(ctx_, e.value);
        const Entry* client = fields ? findEntry(*fields, "client") : nullptr;
        ctx_.error(client ? client->keyPos : e.keyPos,
                   "'client' of get-schema needs 'via: wire' (the admin call has no client)");
        return std::nullopt;
    }
    return action;
}
std::optional<Action> DocumentLoader::getSchemaVersionOf(const Entry& e) {
    return bound(e, kTopicSchemaFields<GetSchemaVersionStep>);
}
std::optional<Action> DocumentLoader::deleteSchemaOf(const Entry& e) { return bound(e, kDeleteSchemaFields); }
std::optional<Action> DocumentLoader::deleteTopicOf(const Entry& e) { return bound(e, kDeleteTopicFields); }
std::optional<Action> DocumentLoader::testCompatibilityOf(const Entry& e) {
    return bound(e, kTopicSchemaFields<TestCompatibilityStep>);
}
std::optional<Action> DocumentLoader::upgradeBrokerOf(const Entry& e) {
    return boundOrShorthand(e, kUpgradeBrokerFields, "version");
}
std::optional<Action> DocumentLoader::unloadOf(const Entry& e) { return boundOrShorthand(e, kUnloadFields, "topic"); }

// `restart-broker:` takes nothing (null or `{}`).
std::optional<Action> DocumentLoader::restartBrokerOf(const Entry& e) {
    if (e.value.node.IsNull()) return RestartBrokerStep{};
    return bound(e, kRestartBrokerFields);
}

std::optional<Action> DocumentLoader::checkOf(const Entry& e) {
    auto f = actionFields(e, kCheckKeys);
    if (!f || !requireFields(ctx_, kCheckFields, *f, e.keyPos, e.key)) return std::nullopt;
    if (f->size() == 1) {
        ctx_.error(e.keyPos, "check asserts nothing (add one of " + joined(Names(kCheckKeys).subspan(1)) + ")");
        return std::nullopt;
    }
    CheckStep c;
    if (!readFields(*this, kCheckFields, *f, c)) return std::nullopt;
    return c;
}

// `schema_versions: 3` or `schema_versions: [user-v1, user-v2]`.
bool DocumentLoader::checkSchemaVersions(const Value& v, CheckStep& step) {
    if (v.node.IsScalar()) {
        auto n = integerOf(ctx_, v, 0);
        if (n) step.schemaVersionCount = static_cast<int>(*n);
        return n.has_value();
    }
    auto items = sequenceOf(ctx_, v);
    if (!items) return false;
    bool ok = true;
    step.schemaVersionAliases.emplace();
    for (const Value& item : *items) {
        bool isNone = false;
        auto data = schemaByName(item, false, isNone);
        ok = ok && data.has_value();
        if (!data) continue;
        step.schemaVersionAliases->push_back(item.node.Scalar());
        step.schemaVersionData.push_back(*data);
    }
    return ok;
}

bool bindSchemaVersions(DocumentLoader& loader, const ValueSpec&, const Entry& e, CheckStep& step) {
    return loader.checkSchemaVersions(e.value, step);
}

// `latest_schema: user-v2`, or `none` for a topic without schema.
bool bindLatestSchema(DocumentLoader& loader, const ValueSpec&, const Entry& e, CheckStep& step) {
    bool isNone = false;
    step.latestSchemaData = loader.schemaByName(e.value, true, isNone);
    if (e.value.node.IsScalar()) step.latestSchema = e.value.node.Scalar();
    return isNone || step.latestSchemaData;
}

std::optional<Action> DocumentLoader::closeOf(const Entry& e) {
    auto name = knownName(e.value, openedNames(), "producer or consumer");
    if (!name) return std::nullopt;
    return CloseStep{*name};
}

std::optional<Action> DocumentLoader::setPolicyOf(const Entry& e) {
    auto f = entriesOf(ctx_, e.value);
    if (!f) return std::nullopt;
    const Entry* ns = findEntry(*f, "namespace");
    const Entry* topic = findEntry(*f, "topic");
    if (ns && topic) {
        ctx_.error(topic->keyPos, "set-policy takes 'namespace' or 'topic', not both");
        return std::nullopt;
    }
    if (!ns && !topic) {
        ctx_.error(e.keyPos, "missing required key 'namespace' or 'topic' in set-policy");
        return std::nullopt;
    }
    SetPolicyStep step;
    bool ok = true;
    if (ns) {
        auto text = scalarOf(ctx_, ns->value);
        step.namespaceName = text ? namespaceOf(ctx_, *text, ns->value.pos) : std::nullopt;
        ok = step.namespaceName.has_value();
    } else {
        step.topic = topicOf(ctx_, topic->value);
        ok = step.topic.has_value();
    }
    Entries settings;
    for (const Entry& x : *f) {
        if (x.key != "namespace" && x.key != "topic") settings.push_back(x);
    }
    if (settings.empty()) {
        ctx_.error(e.keyPos, "set-policy sets no policy field");
        return std::nullopt;
    }
    std::size_t before = ctx_.errors.size();
    step.settings = settingsOf(ctx_, settings, ns ? SettingScope::namespacePolicy : SettingScope::topicPolicy);
    if (!ok || ctx_.errors.size() != before) return std::nullopt;
    return step;
}

std::optional<Action> DocumentLoader::setBrokerConfigOf(const Entry& e) {
    auto f = entriesOf(ctx_, e.value);
    if (!f) return std::nullopt;
    if (f->empty()) {
        ctx_.error(e.keyPos, "set-broker-config sets no key");
        return std::nullopt;
    }
    std::size_t before = ctx_.errors.size();
    SetBrokerConfigStep step{settingsOf(ctx_, *f, SettingScope::broker)};
    if (ctx_.errors.size() != before) return std::nullopt;
    return step;
}

}  // namespace cnx::sim::load
