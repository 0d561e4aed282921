#pragma once
// What a running `cnxsim serve` can be told to do to its broker while clients
// are connected, from cnxsim's own admin paths (/cnxsim/status, upgrade,
// restart, reset; admin_routes.h):
//
//   status             the release served, connections, loaded topics
//   upgrade VERSION    a restart on another release's behaviour
//   restart            a restart on the same release
//   reset              a fresh broker: the state serve started with
//
// A restart closes every producer and consumer (CLOSE_PRODUCER /
// CLOSE_CONSUMER) and drops every connection, as a broker's graceful shutdown
// does; the clients reconnect on their own and are admitted again under the
// new release's rules. A reset does the same, then forgets every schema,
// policy, namespace and topic and applies the start-up state again (the
// release serve started on, broker.conf, the setup file, --set).

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "broker_model/broker/broker.h"
#include "sim/serve/server.h"

namespace cnx::serve {

struct LifecycleAnswer {
    bool ok = false;
    std::string text;  // what was done, or why not
};

class Lifecycle {
public:
    using Done = std::function<void(std::optional<std::string>)>;
    /// Puts a fresh broker into its start-up state; calls its argument with the error, if any.
    using Prepare = std::function<void(Done)>;

    /// Every reference outlives this. Events go to the server's taps.
    Lifecycle(Broker& broker, Server& server, const BehaviourProfile& startProfile, Prepare prepare)
        : broker_(broker), server_(server), startProfile_(startProfile), prepare_(std::move(prepare)) {}

    nlohmann::json status() const;
    LifecycleAnswer upgrade(std::string_view version);
    LifecycleAnswer restart();
    /// Answers once the start-up state is back (its setup uploads run on the scheduler).
    void reset(std::function<void(LifecycleAnswer)> done);

private:
    LifecycleAnswer restartOn(const BehaviourProfile& profile, const std::string& what);

    Broker& broker_;
    Server& server_;
    const BehaviourProfile& startProfile_;
    Prepare prepare_;
};

}  // namespace cnx::serve
