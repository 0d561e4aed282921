#pragma once
// `cnxsim serve --config broker.conf`: a Pulsar broker.conf (Java properties:
// `key=value`, `key: value` or `key value`, `#` and `!` comments, `\` line
// continuations) read for the settings the model knows. A stock broker.conf
// holds hundreds of keys the model has no use for (ports, storage, auth):
// those are ignored and counted, and one that looks like a misspelt known key
// is warned about with the key it resembles. A key given without a value
// (`schemaCompatibilityStrategy=`) keeps the release's default, as it does in
// Pulsar.

#include <filesystem>
#include <optional>
#include <string_view>
#include <string>
#include <variant>
#include <vector>

#include "broker_model/policy/policies.h"

namespace cnx::serve {

struct ConfEntry {
    std::string key;
    std::string value;
    int line = 0;
};

struct BrokerConf {
    std::vector<ConfEntry> known;     // settings the model reads, with a value, in file order
    std::vector<ConfEntry> transport; // serve's own (TLS listeners, tls_settings.h), in file order
    std::vector<ConfEntry> ignored;   // keys the model does not read
    std::vector<std::string> warnings;  // `file:line: ...` for likely misspellings
};

/// Reads `path` (at most 1 MiB); the error text (`path: reason`) when it cannot.
std::variant<BrokerConf, std::string> readBrokerConf(const std::filesystem::path& path);

/// The same for text already read; `name` is used in warnings.
BrokerConf parseBrokerConf(std::string_view text, const std::string& name);

/// The text of `key` in `config` as Pulsar's `GET /admin/v2/brokers/configuration/runtime`
/// writes it (`true`, `FULL`, `5242880`); nullopt for a key BrokerConfig does not have.
std::optional<std::string> configValueText(const BrokerConfig& config, std::string_view key);

}  // namespace cnx::serve
