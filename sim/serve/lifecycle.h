#pragma once
// What a running `cnxsim serve` can be told to do to its broker while clients
// are connected, one text line per command (the control socket,
// control_socket.h, and `cnxsim ctl` carry them):
//
//   status                    the release served, connections, loaded topics
//   upgrade-broker VERSION    a restart on another release's behaviour
//   restart-broker            a restart on the same release
//   unload TOPIC              the admin unload of one topic
//
// A restart closes every producer and consumer (CLOSE_PRODUCER /
// CLOSE_CONSUMER) and drops every connection, as a broker's graceful shutdown
// does; the clients reconnect on their own and are admitted again under the
// new release's rules. An unload closes the topic's producers and consumers,
// which reconnect on the same connection. The answer is one line, `ok: ...`
// or `error: ...`.

#include <string>
#include <string_view>

#include "broker_model/admin/admin_api.h"
#include "broker_model/broker/broker.h"
#include "sim/serve/server.h"

namespace cnx::serve {

class Lifecycle {
public:
    /// Every reference outlives this. Events go to the server's taps.
    Lifecycle(Broker& broker, AdminApi& admin, Server& server) : broker_(broker), admin_(admin), server_(server) {}

    /// Runs one command line; its one-line answer.
    std::string run(std::string_view line);

    static std::string_view usage();

private:
    std::string restart(const BehaviourProfile& profile, const std::string& what);

    Broker& broker_;
    AdminApi& admin_;
    Server& server_;
};

}  // namespace cnx::serve
