#include "sim/serve/lifecycle.h"

#include <sstream>
#include <vector>

#include <spdlog/spdlog.h>

#include "broker_model/profile/profile.h"

namespace cnx::serve {
namespace {

std::vector<std::string> wordsOf(std::string_view line) {
    std::vector<std::string> out;
    std::istringstream in{std::string(line)};
    for (std::string w; in >> w;) out.push_back(w);
    return out;
}

}  // namespace

std::string_view Lifecycle::usage() {
    return "status, upgrade-broker VERSION, restart-broker, unload TOPIC";
}

std::string Lifecycle::restart(const BehaviourProfile& profile, const std::string& what) {
    std::size_t connections = server_.connectionCount();
    auto text = what + " (profile " + profile.name + "): every producer and consumer closed, " +
                std::to_string(connections) + " connection(s) dropped; clients reconnect under Pulsar " +
                profile.release.toString() + " rules";
    spdlog::info("{}", text);
    server_.taps().event(text);
    broker_.restart(profile);
    return "ok: " + text;
}

std::string Lifecycle::run(std::string_view line) {
    auto words = wordsOf(line);
    if (words.empty()) return "error: empty command (commands: " + std::string(usage()) + ")";
    const std::string& verb = words[0];
    auto arity = [&](std::size_t n, const char* form) -> std::optional<std::string> {
        if (words.size() == n + 1) return std::nullopt;
        return std::string("error: usage: ") + form;
    };
    if (verb == "status") {
        if (auto e = arity(0, "status")) return *e;
        return "ok: Pulsar " + broker_.profile().release.toString() + " behaviour (profile " + broker_.profile().name +
               "), " + std::to_string(server_.connectionCount()) + " connection(s), " +
               std::to_string(broker_.loadedTopics().size()) + " topic(s) loaded, serving " + broker_.serviceUrl();
    }
    if (verb == "upgrade-broker") {
        if (auto e = arity(1, "upgrade-broker VERSION")) return *e;
        std::string error;
        const auto* profile = profileFor(words[1], &error);
        if (!profile) return "error: " + error;
        return restart(*profile, "upgrade from Pulsar " + broker_.profile().release.toString() + " to " + words[1]);
    }
    if (verb == "restart-broker") {
        if (auto e = arity(0, "restart-broker")) return *e;
        return restart(broker_.profile(), "restart on Pulsar " + broker_.profile().release.toString());
    }
    if (verb == "unload") {
        if (auto e = arity(1, "unload TOPIC")) return *e;
        std::string error;
        auto topic = TopicName::parse(words[1], &error);
        if (!topic) return "error: invalid topic name '" + words[1] + "': " + error;
        auto text = "unload " + topic->partitionedBase().toString() +
                    ": its producers and consumers closed, they reconnect on their connections";
        server_.taps().event(text);
        auto response = admin_.unloadTopic(*topic);
        if (!response.ok()) return "error: " + std::to_string(response.status) + " " + response.reason;
        spdlog::info("{}", text);
        return "ok: " + text;
    }
    return "error: unknown command '" + verb + "' (commands: " + std::string(usage()) + ")";
}

}  // namespace cnx::serve
