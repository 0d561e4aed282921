#pragma once
// A scenario's `broker.config`, `namespaces` and `topics` applied to a broker,
// as an operator sets them up: settings through broker.conf, policies through
// the admin API. `cnxsim run` sets up each scenario run with it and
// `cnxsim serve --setup` its broker, so both start from the same state.

#include <optional>
#include <string>

#include "broker_model/admin/admin_api.h"
#include "broker_model/broker/broker.h"
#include "sim/scenario/scenario.h"

namespace cnx::sim {

/// The error text when a setting or policy is refused (the input is invalid).
std::optional<std::string> applyBrokerSetup(const Scenario& scenario, Broker& broker, AdminApi& admin);

}  // namespace cnx::sim
