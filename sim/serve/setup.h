#pragma once
// `cnxsim serve --setup FILE.yaml`: a file in the scenario format whose
// `broker`, `namespaces`, `topics` and `schemas` sections preload the served
// broker as they set up a scenario run (sim/run/broker_setup.h), whose
// `steps` may store schemas and set policies before the first client connects
// (upload-schema, set-policy, set-broker-config: each must succeed), and
// whose `faults` list holds faults as `--fault` takes them (fault.h). `name`
// and `steps` are optional; a client's steps (producer, subscribe, ...) are
// refused: real clients connect instead.

#include <boost/asio/io_context.hpp>
#include <filesystem>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "broker_model/admin/admin_api.h"
#include "broker_model/broker/broker.h"
#include "sim/scenario/scenario.h"
#include "sim/serve/fault.h"
#include <functional>

namespace cnx::serve {

struct ServeSetup {
    sim::Scenario scenario;  // broker config without the TLS keys (in `transport`)
    std::vector<Fault> faults;
    std::vector<sim::Setting> transport;  // `broker: config:`'s TLS listener keys (tls_settings.h)
};

/// Loads and checks the setup file; every problem as `file:line:column: message`.
std::variant<ServeSetup, std::vector<std::string>> loadServeSetup(const std::filesystem::path& path);

/// Applies the setup's sections and runs its steps on `broker`, one after the
/// other (an upload waits for the registry's answer), then calls `done` with
/// nullopt or the error text of the setting, policy or step refused. `setup`,
/// `broker` and `admin` outlive the call. At start-up the caller runs the
/// io_context until `done`; /cnxsim/reset calls it while serving.
void applyServeSetup(const sim::Scenario& setup, Broker& broker, AdminApi& admin,
                     std::function<void(std::optional<std::string>)> done);

}  // namespace cnx::serve
