#include "sim/serve/setup.h"

#include <type_traits>

#include "sim/run/broker_setup.h"
#include "sim/scenario/loader.h"
#include "sim/scenario/tls_settings.h"

namespace cnx::serve {
namespace {

std::string at(const sim::SourcePos& p) {
    return p.file + ":" + std::to_string(p.line) + ":" + std::to_string(p.column) + ": ";
}

bool isSetupStep(const sim::Action& a) {
    return std::holds_alternative<sim::UploadSchemaStep>(a) || std::holds_alternative<sim::SetPolicyStep>(a) ||
           std::holds_alternative<sim::SetBrokerConfigStep>(a);
}

std::string refused(const AdminResponse& r) {
    return std::to_string(r.status) + (r.reason.empty() ? std::string() : " " + r.reason);
}

}  // namespace

std::variant<ServeSetup, std::vector<std::string>> loadServeSetup(const std::filesystem::path& path) {
    std::vector<std::string> errors;
    auto loaded = sim::loadSetupFile(path);
    for (const auto& e : loaded.errors) errors.push_back(e.format());
    if (!errors.empty()) return errors;
    ServeSetup setup;
    setup.scenario = std::move(loaded.scenarios.front());
    auto& config = setup.scenario.brokerConfig;
    for (auto it = config.begin(); it != config.end();) {
        if (!TlsSettings::isKey(it->key)) {
            ++it;
            continue;
        }
        setup.transport.push_back(std::move(*it));
        it = config.erase(it);
    }
    const auto& s = setup.scenario;
    if (s.brokerVersions.size() > 1)
        errors.push_back(at(s.pos) + "broker.version: a server serves one release; the setup file lists " +
                         std::to_string(s.brokerVersions.size()));
    for (const auto& step : s.steps) {
        if (!isSetupStep(step.body)) {
            errors.push_back(at(step.pos) + "a setup file runs only upload-schema, set-policy and set-broker-config "
                                            "steps; '" + step.action + "' is not one (connect a real client instead)");
            continue;
        }
        bool onlyOk = !step.expect.present || (step.expect.perProfile.empty() && step.expect.single &&
                                               step.expect.single->ok && !step.expect.single->error &&
                                               !step.expect.single->httpStatus);
        if (!onlyOk) errors.push_back(at(step.expect.pos) + "a setup step takes no expectation but ok: each must succeed");
    }
    for (const auto& f : s.faults) {
        auto parsed = parseFault(f.text);
        if (auto* e = std::get_if<std::string>(&parsed)) errors.push_back(at(f.pos) + *e);
        else setup.faults.push_back(std::get<Fault>(std::move(parsed)));
    }
    if (!errors.empty()) return errors;
    return setup;
}

namespace {

/// Runs setup steps from `next` on; each upload continues the chain from its answer.
struct SetupRun : std::enable_shared_from_this<SetupRun> {
    const sim::Scenario& setup;
    Broker& broker;
    AdminApi& admin;
    std::function<void(std::optional<std::string>)> done;

    SetupRun(const sim::Scenario& s, Broker& b, AdminApi& a, std::function<void(std::optional<std::string>)> d)
        : setup(s), broker(b), admin(a), done(std::move(d)) {}

    void run(std::size_t next) {
        for (; next < setup.steps.size(); ++next) {
            const auto& step = setup.steps[next];
            std::optional<std::string> failure;
            auto check = [&](const AdminResponse& r) {
                if (!r.ok() && !failure) failure = step.action + " refused: " + refused(r);
            };
            if (const auto* upload = std::get_if<sim::UploadSchemaStep>(&step.body)) {
                auto topic = TopicName::parse(upload->topic);
                if (!topic) return done(at(step.pos) + "upload-schema: invalid topic '" + upload->topic + "'");
                admin.postSchema(*topic, upload->schema.data, [self = shared_from_this(), next](AdminResponse r) {
                    const auto& s = self->setup.steps[next];
                    if (!r.ok()) return self->done(at(s.pos) + s.action + " refused: " + refused(r));
                    self->run(next + 1);
                });
                return;
            }
            if (const auto* policy = std::get_if<sim::SetPolicyStep>(&step.body)) {
                for (const auto& s : policy->settings) {
                    std::optional<std::string_view> value;
                    if (s.value) value = *s.value;
                    if (policy->namespaceName) check(admin.setNamespacePolicy(*policy->namespaceName, s.key, value));
                    else check(admin.setTopicPolicy(*TopicName::parse(*policy->topic), s.key, value));
                }
            } else if (const auto* config = std::get_if<sim::SetBrokerConfigStep>(&step.body)) {
                for (const auto& s : config->settings) {
                    std::optional<std::string_view> value;
                    if (s.value) value = *s.value;
                    check(admin.updateDynamicConfig(s.key, value));
                }
            }
            if (failure) return done(at(step.pos) + *failure);
        }
        done(std::nullopt);
    }
};

}  // namespace

void applyServeSetup(const sim::Scenario& setup, Broker& broker, AdminApi& admin,
                     std::function<void(std::optional<std::string>)> done) {
    if (auto e = sim::applyBrokerSetup(setup, broker, admin)) return done(*e);
    std::make_shared<SetupRun>(setup, broker, admin, std::move(done))->run(0);
}

}  // namespace cnx::serve
