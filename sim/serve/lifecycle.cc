#include "sim/serve/lifecycle.h"

#include <spdlog/spdlog.h>

#include "broker_model/profile/profile.h"

namespace cnx::serve {

nlohmann::json Lifecycle::status() const {
    return {{"release", broker_.profile().release.toString()},
            {"profile", broker_.profile().name},
            {"serviceUrl", broker_.serviceUrl()},
            {"connections", server_.connectionCount()},
            {"loadedTopics", broker_.loadedTopics().size()}};
}

LifecycleAnswer Lifecycle::restartOn(const BehaviourProfile& profile, const std::string& what) {
    std::size_t connections = server_.connectionCount();
    auto text = what + " (profile " + profile.name + "): every producer and consumer closed, " +
                std::to_string(connections) + " connection(s) dropped; clients reconnect under Pulsar " +
                profile.release.toString() + " rules";
    spdlog::info("{}", text);
    server_.taps().event(text);
    broker_.restart(profile);
    return {true, text};
}

LifecycleAnswer Lifecycle::upgrade(std::string_view version) {
    std::string error;
    const auto* profile = profileFor(version, &error);
    if (!profile) return {false, error};
    return restartOn(*profile, "upgrade from Pulsar " + broker_.profile().release.toString() + " to " + std::string(version));
}

LifecycleAnswer Lifecycle::restart() {
    return restartOn(broker_.profile(), "restart on Pulsar " + broker_.profile().release.toString());
}

void Lifecycle::reset(std::function<void(LifecycleAnswer)> done) {
    std::size_t connections = server_.connectionCount();
    auto text = "reset to the start-up state on Pulsar " + startProfile_.release.toString() + ": " +
                std::to_string(connections) + " connection(s) dropped, every schema, policy, namespace and topic forgotten";
    spdlog::info("{}", text);
    server_.taps().event(text);
    broker_.reset(startProfile_);
    prepare_([done = std::move(done), text](std::optional<std::string> error) {
        if (error) return done({false, "reset: the start-up state could not be applied again: " + *error});
        done({true, text});
    });
}

}  // namespace cnx::serve
