// Each step kind's action, bound through its table in format.h; the kinds
// whose keys are not fixed (close, set-policy, set-broker-config) read by hand.
#include <vector>

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

// `check` takes `topic` (any key) or `namespace` (only `policies`).
std::optional<Action> DocumentLoader::checkOf(const Entry& e) {
    auto f = actionFields(e, kCheckKeys);
    if (!f) return std::nullopt;
    const Entry* topic = findEntry(*f, "topic");
    const Entry* ns = findEntry(*f, "namespace");
    if (topic && ns) {
        ctx_.error(ns->keyPos, "check takes 'topic' or 'namespace', not both");
        return std::nullopt;
    }
    if (!topic && !ns) {
        ctx_.error(e.keyPos, "missing required key 'topic' or 'namespace' in check");
        return std::nullopt;
    }
    if (f->size() == 1) {
        std::vector<std::string_view> assertions;  // every key but the target (topic or namespace)
        for (std::string_view k : kCheckKeys)
            if (k != "topic" && k != "namespace") assertions.push_back(k);
        ctx_.error(e.keyPos, "check asserts nothing (add one of " + joined(assertions) + ")");
        return std::nullopt;
    }
    bool ok = true;
    if (ns) {
        for (const Entry& x : *f) {
            if (x.key != "namespace" && x.key != "policies") {
                ctx_.error(x.keyPos, inQuotes(x.key) + " needs 'topic'; a namespace check takes only 'policies'");
                ok = false;
            }
        }
    }
    CheckStep c;
    Entries fixed, varying;
    for (const Entry& x : *f) (x.key == "topic" || x.key == "namespace" || !isPerVersion(x.value) ? fixed : varying).push_back(x);
    ok = readFields(*this, kCheckFields, fixed, c) && ok;
    for (const Entry& x : varying) ok = checkPerVersionOf(x, c) && ok;
    if (!ok) return std::nullopt;
    return c;
}

bool bindCheckNamespace(DocumentLoader& loader, const ValueSpec&, const Entry& e, CheckStep& step) {
    auto text = scalarOf(loader.ctx(), e.value);
    step.namespaceName = text ? namespaceOf(loader.ctx(), *text, e.value.pos) : std::nullopt;
    return step.namespaceName.has_value();
}

// `policies: { schema_compatibility_strategy: BACKWARD, is_allow_auto_update_schema: null }`:
// the namespace's or the topic's fields as set; `null` is unset.
bool bindCheckPolicies(DocumentLoader& loader, const ValueSpec&, const Entry& e, CheckStep& step) {
    auto entries = entriesOf(loader.ctx(), e.value);
    if (!entries) return false;
    if (entries->empty()) {
        loader.ctx().error(e.keyPos, "policies: name at least one policy field");
        return false;
    }
    std::size_t before = loader.ctx().errors.size();
    step.policies = settingsOf(loader.ctx(), *entries,
                               step.namespaceName ? SettingScope::namespacePolicy : SettingScope::topicPolicy);
    return loader.ctx().errors.size() == before;
}

// A mapping whose first key is a version range (`{ "<3.0": ..., default: ... }`);
// no check value is a mapping otherwise.
bool DocumentLoader::isPerVersion(const Value& v) {
    if (!v.node.IsMap() || v.node.size() == 0) return false;
    const auto& first = v.node.pairs().front();
    return first.first.IsScalar() && looksLikeRange(first.first.Scalar());
}

// `strategy: { "<3.0": ALWAYS_COMPATIBLE, default: FULL }`: each range's value
// is read as the key itself would be; `~` is deliberately not asserted.
bool DocumentLoader::checkPerVersionOf(const Entry& e, CheckStep& step) {
    auto entries = entriesOf(ctx_, e.value);
    if (!entries) return false;
    CheckPerVersion pv;
    pv.key = e.key;
    pv.pos = e.keyPos;
    bool ok = true;
    for (const Entry& x : *entries) {
        auto range = rangeKeyOf(x);
        if (!range) {
            ok = false;
            continue;
        }
        CheckStep value;
        value.namespaceName = step.namespaceName;  // the scope of `policies`
        bool skip = x.value.node.IsNull();
        if (!skip) ok = readFields(*this, kCheckFields, Entries{Entry{e.key, x.keyPos, x.value, x.keyNode}}, value) && ok;
        pv.ranges.push_back(*range);
        pv.values.push_back(std::move(value));
        pv.notAsserted.push_back(skip);
    }
    step.perVersion.push_back(std::move(pv));
    return ok;
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
