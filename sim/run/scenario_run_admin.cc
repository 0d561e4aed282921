// The admin steps of a scenario run: each is a call of the modelled admin API,
// observed only through its status and JSON body (sim/clients/admin_client.h).

#include "sim/run/scenario_run.h"

#include "sim/clients/admin_client.h"

namespace cnx::sim {
namespace {

// AdminCall in order, as steps name them.
constexpr const char* kCallNames[] = {"upload-schema", "get-schema",         "get-schema-version",
                                      "delete-schema", "delete-topic",       "test-compatibility",
                                      "set-policy",    "set-broker-config",  "unload"};

}  // namespace

// Every admin step is observed through observeAdmin: the endpoint's status and
// JSON body only, as a REST client sees them (sim/clients/admin_client.h).
Observed ScenarioRun::admin(AdminCall what, const std::function<void(AdminApi::Callback)>& call) {
    std::optional<AdminResponse> response;
    int answers = 0;
    call([&response, &answers](AdminResponse r) {
        ++answers;
        response = std::move(r);
    });
    settle();
    if (answers != 1)
        adminUnanswered_.push_back(std::string(kCallNames[static_cast<std::size_t>(what)]) + ": " +
                                   std::to_string(answers) + " answers");
    if (!response) return Observed::failure("NoResponse", "the admin call did not complete");
    return observeAdmin(what, std::move(*response));
}

Observed ScenarioRun::uploadSchema(const UploadSchemaStep& st) {
    const auto& topic = topicOf(st.topic);
    return admin(AdminCall::uploadSchema,
                 [&](AdminApi::Callback cb) { admin_->postSchema(topic, st.schema.data, std::move(cb)); });
}

Observed ScenarioRun::getSchema(const GetSchemaStep& st) {
    const auto& topic = topicOf(st.topic);
    if (st.via == "wire") return getSchemaOnWire(st, topic);
    std::optional<SchemaVersion> v;
    if (st.version) v = *st.version;
    return admin(AdminCall::getSchema, [&](AdminApi::Callback cb) { admin_->getSchema(topic, v, std::move(cb)); });
}

Observed ScenarioRun::getSchemaVersion(const GetSchemaVersionStep& st) {
    const auto& topic = topicOf(st.topic);
    return admin(AdminCall::getSchemaVersion,
                 [&](AdminApi::Callback cb) { admin_->getVersionBySchema(topic, st.schema.data, std::move(cb)); });
}

Observed ScenarioRun::deleteSchema(const DeleteSchemaStep& st) {
    const auto& topic = topicOf(st.topic);
    return admin(AdminCall::deleteSchema,
                 [&](AdminApi::Callback cb) { admin_->deleteSchema(topic, st.force, std::move(cb)); });
}

Observed ScenarioRun::deleteTopic(const DeleteTopicStep& st) {
    const auto& topic = topicOf(st.topic);
    auto goneBefore = closedSessions();
    auto o = admin(AdminCall::deleteTopic,
                   [&](AdminApi::Callback cb) { cb(admin_->deleteTopic(topic, st.force, st.deleteSchema)); });
    if (!o.ok) return o;
    // A forced deletion closes the topic's producers and consumers
    // (CLOSE_PRODUCER / CLOSE_CONSUMER); the modelled clients give them up.
    auto base = topic.partitionedBase().toString();
    auto onTopic = [&](const OpenHandle& h) {
        for (const auto& [part, id] : h.parts) {
            if (topicOf(part).partitionedBase().toString() == base) return true;
        }
        return false;
    };
    for (const auto& key : closedByBroker(goneBefore, onTopic)) forget(key[0] == 'p', key.substr(2));
    return o;
}

Observed ScenarioRun::testCompatibility(const TestCompatibilityStep& st) {
    const auto& topic = topicOf(st.topic);
    // The endpoint's own answer: {"compatibility": bool, "schemaCompatibilityStrategy": name}.
    return admin(AdminCall::testCompatibility,
                 [&](AdminApi::Callback cb) { admin_->testCompatibility(topic, st.schema.data, std::move(cb)); });
}

// One REST call per setting, as `pulsar-admin` makes them; the first refused one ends the step.
Observed ScenarioRun::adminSequence(AdminCall what, const std::vector<Setting>& settings,
                                    const std::function<AdminResponse(const Setting&)>& call) {
    Observed out = observed();
    out.httpStatus = 204;
    for (const auto& s : settings) {
        auto o = admin(what, [&](AdminApi::Callback cb) { cb(call(s)); });
        out.trace.append(o.trace, "");
        if (!o.ok) {
            o.trace = std::move(out.trace);
            return o;
        }
        out.httpStatus = o.httpStatus;
    }
    return out;
}

Observed ScenarioRun::setPolicy(const SetPolicyStep& st) {
    return adminSequence(AdminCall::setPolicy, st.settings, [&](const Setting& s) {
        std::optional<std::string_view> value;
        if (s.value) value = *s.value;
        if (st.namespaceName) return admin_->setNamespacePolicy(*st.namespaceName, s.key, value);
        return admin_->setTopicPolicy(topicOf(*st.topic), s.key, value);
    });
}

Observed ScenarioRun::setBrokerConfig(const SetBrokerConfigStep& st) {
    return adminSequence(AdminCall::setBrokerConfig, st.settings, [&](const Setting& s) {
        std::optional<std::string_view> value;
        if (s.value) value = *s.value;
        return admin_->updateDynamicConfig(s.key, value);
    });
}

}  // namespace cnx::sim
