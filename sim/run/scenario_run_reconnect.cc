// The steps where the broker closes clients (upgrade-broker, restart-broker,
// unload) and the modelled clients' reconnects on the frames it sends.

#include "sim/run/scenario_run.h"

#include <algorithm>

#include "sim/run/race_driver.h"
#include "sim/run/reconnect_outcome.h"

namespace cnx::sim {

// Every open producer and consumer selected by `which` connects again, in the
// order it first connected, and is admitted again under the broker's current
// rules; a refused one is closed. The step is ok when every reconnect is.
Observed ScenarioRun::reconnect(const std::function<bool(const OpenHandle&)>& which, Trace trace) {
    Observed out = observed();
    out.trace = std::move(trace);
    std::vector<OpenHandle> handles;
    for (const auto* map : {&producers_, &consumers_})
        for (const auto& [_, h] : *map)
            if (which(h)) handles.push_back(h);
    std::sort(handles.begin(), handles.end(), [](const OpenHandle& a, const OpenHandle& b) { return a.order < b.order; });
    std::vector<Observed> results(handles.size());
    if (race_ && race_->onFiber()) {
        // In a race every client reconnects on its own, racing the others.
        std::vector<RaceDriver::Fork> forks;
        for (const auto& h : handles) forks.push_back({h.name + " (reconnect)", h.client, h.topic()});
        race_->forkJoin(forks, [&](std::size_t i) { results[i] = reconnectOne(handles[i]); });
    } else {
        for (std::size_t i = 0; i < handles.size(); ++i) results[i] = reconnectOne(handles[i]);
    }
    for (std::size_t i = 0; i < handles.size(); ++i) {
        auto& o = results[i];
        const auto& name = handles[i].name;
        out.trace.append(o.trace, name + ": ");
        addReconnectOutcome(out, name, std::move(o));
    }
    return out;
}

// A refused reconnect forgets its handle (open() does).
Observed ScenarioRun::reconnectOne(OpenHandle h) {
    session(h.client);  // reconnect first, so the trace names the negotiated protocol
    Trace t(broker_->traceDetail());
    t.add("§9", "reconnect", std::string(h.producer ? "producer '" : "consumer '") + h.name + "' (" +
                                 describeClient(h.client) + ")");
    return open(std::move(h), std::move(t));
}

std::set<std::string> ScenarioRun::closedSessions() const {
    std::set<std::string> out;
    for (const auto& [client, s] : sessions_)
        if (s->disconnected()) out.insert(client);
    return out;
}

std::set<std::string> ScenarioRun::closedByBroker(const std::set<std::string>& goneBefore,
                                                  const std::function<bool(const OpenHandle&)>& onGone) {
    std::set<std::string> keys;
    for (auto& [client, s] : sessions_) {
        auto closes = s->takeBrokerCloses();
        bool gone = goneBefore.count(client) > 0;
        bool dropped = !gone && s->disconnected();
        for (const auto* map : {&producers_, &consumers_}) {
            for (const auto& [name, h] : *map) {
                if (h.client != client) continue;
                bool hit = dropped || (gone && onGone(h));
                for (const auto& c : closes) {
                    for (const auto& [part, id] : h.parts) hit = hit || (c.producer == h.producer && c.id == id);
                }
                if (hit) keys.insert((h.producer ? "p/" : "c/") + name);
            }
        }
    }
    return keys;
}

// A restart, as a graceful shutdown does it: the broker closes every producer
// and consumer (CLOSE_PRODUCER / CLOSE_CONSUMER) and drops every connection;
// the clients keep their handles and reconnect to the restarted broker.
Observed ScenarioRun::restartOn(const BehaviourProfile& profile, const std::string& why) {
    settle();
    auto goneBefore = closedSessions();
    broker_->restart(profile);
    profile_ = &profile;
    auto closed = closedByBroker(goneBefore, [](const OpenHandle&) { return true; });
    Trace t(broker_->traceDetail());
    t.add("§10", "broker restart", why + " (profile " + profile.name + ", Pulsar " + profile.release.toString() + ")");
    return reconnect([&](const OpenHandle& h) { return closed.count((h.producer ? "p/" : "c/") + h.name) > 0; },
                     std::move(t));
}

Observed ScenarioRun::upgradeBroker(const UpgradeBrokerStep& st) {
    std::string error;
    const auto* profile = profileFor(st.version, &error);
    if (!profile) return Observed::failure("InvalidVersion", error);
    return restartOn(*profile, "upgrade from " + profile_->release.toString() + " to " + st.version);
}

Observed ScenarioRun::restartBroker() { return restartOn(*profile_, "restart"); }

// A topic unload (the admin endpoint): the broker closes the topic's
// producers and consumers (CLOSE_PRODUCER / CLOSE_CONSUMER) and the clients
// reconnect them on the same connections.
Observed ScenarioRun::unload(const UnloadStep& st) {
    settle();
    auto base = topicOf(st.topic).partitionedBase();
    auto goneBefore = closedSessions();
    auto response = admin_->unloadTopic(base);
    settle();
    if (!response.ok()) return observeAdmin(AdminCall::unloadTopic, response);
    auto onTopic = [&](const OpenHandle& h) { return topicOf(h.topic()).partitionedBase() == base; };
    auto closed = closedByBroker(goneBefore, onTopic);
    return reconnect([&](const OpenHandle& h) { return closed.count((h.producer ? "p/" : "c/") + h.name) > 0; },
                     *response.trace);
}

}  // namespace cnx::sim
