#pragma once
// The parts of `cnxsim compat` (compat_command.h): its arguments
// (compat_args.cc) and its schema files (compat_files.cc). Internal to the command.

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "broker_model/compat/compatibility_check.h"
#include "broker_model/core/schema_data.h"
#include "broker_model/core/compatibility_strategy.h"
#include "broker_model/profile/profile.h"

namespace cnx::sim::compat_cli {

/// An input problem: printed as "cnxsim compat: <text>", exit 2.
struct Failure {
    std::string text;
};

struct CompatArgs {
    std::optional<std::string> strategy;
    std::vector<std::string> existing;
    std::optional<std::string> newFile;
    std::optional<std::string> avro;
    std::optional<std::string> brokerVersion;
    std::optional<std::string> rootMessage;
    std::optional<std::string> rootFile;
    bool help = false;
    bool verbose = false;
};

/// Reads the words after "compat" into `out`; the first problem, if any.
std::optional<Failure> parseArgs(const std::vector<std::string>& in, CompatArgs& out);

/// The Avro releases `--avro` names (and their major.minor shorthands).
std::vector<std::string> avroVersionNames();

/// A strategy a producer's registration can run with (§5.1), case-insensitive; not UNDEFINED.
std::variant<CompatibilityStrategy, Failure> strategyFrom(const std::string& text);

/// An Avro release the model knows (§6.3), or its major.minor shorthand.
std::variant<compat::AvroVersion, Failure> avroVersionFrom(const std::string& text);

struct DescOptions {
    std::optional<std::string> rootMessage;
    std::optional<std::string> rootFile;
};

using Loaded = std::variant<SchemaData, Failure>;

/// A schema file: a .desc FileDescriptorSet, a pulsar-admin definition, or an Avro schema.
Loaded loadSchemaFile(const std::string& path, const DescOptions& o);

/// §6.7, with the Avro parser's reason for Avro-based types.
std::optional<Failure> invalidDefinition(const BehaviourProfile& profile, const SchemaData& s);

/// A stored schema (--existing): the broker never validates it again (§6.7 validates only
/// the schema being registered), so it is refused only when no modelled release's
/// validator accepts it, i.e. no broker could have stored it; `profile`'s reason then.
std::optional<Failure> unstorableDefinition(const BehaviourProfile& profile, const SchemaData& s);

}  // namespace cnx::sim::compat_cli
