#include "sim/serve/setup.h"

#include <type_traits>

#include "sim/run/broker_setup.h"
#include "sim/scenario/loader.h"

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

std::optional<std::string> applyServeSetup(const sim::Scenario& setup, Broker& broker, AdminApi& admin,
                                           boost::asio::io_context& io) {
    if (auto e = sim::applyBrokerSetup(setup, broker, admin)) return *e;
    for (const auto& step : setup.steps) {
        std::optional<std::string> failure;
        auto check = [&](const AdminResponse& r) {
            if (!r.ok() && !failure) failure = step.action + " refused: " + refused(r);
        };
        std::visit(
            [&](const auto& body) {
                using T = std::decay_t<decltype(body)>;
                if constexpr (std::is_same_v<T, sim::UploadSchemaStep>) {
                    auto topic = TopicName::parse(body.topic);
                    if (!topic) {
                        failure = "upload-schema: invalid topic '" + body.topic + "'";
                        return;
                    }
                    bool answered = false;
                    admin.postSchema(*topic, body.schema.data, [&](AdminResponse r) {
                        answered = true;
                        check(r);
                    });
                    io.restart();
                    io.run();  // until the registry has answered
                    if (!answered && !failure) failure = "upload-schema got no answer";
                } else if constexpr (std::is_same_v<T, sim::SetPolicyStep>) {
                    for (const auto& s : body.settings) {
                        std::optional<std::string_view> value;
                        if (s.value) value = *s.value;
                        if (body.namespaceName) check(admin.setNamespacePolicy(*body.namespaceName, s.key, value));
                        else check(admin.setTopicPolicy(*TopicName::parse(*body.topic), s.key, value));
                    }
                } else if constexpr (std::is_same_v<T, sim::SetBrokerConfigStep>) {
                    for (const auto& s : body.settings) {
                        std::optional<std::string_view> value;
                        if (s.value) value = *s.value;
                        check(admin.updateDynamicConfig(s.key, value));
                    }
                }
            },
            step.body);
        if (failure) return at(step.pos) + *failure;
    }
    io.restart();
    return std::nullopt;
}

}  // namespace cnx::serve
