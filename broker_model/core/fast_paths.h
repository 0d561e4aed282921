#pragma once
// The one switch of every fast path (issue 45 item 4). Each fast path is a
// quicker way to the answer its reference gives (the same answer: tests hold
// them equal); `off` takes the reference everywhere:
//  - the quick Avro parser (compat/avro/avro_quick_parse.h) -> the full parser;
//  - JsonTape's own reader (compat/avro/json_tape.h) -> nlohmann::json;
//  - the Avro fast pass (compat/avro/avro_fast_pass.h) -> the full resolver;
//  - the YAML quick tree (sim/scenario/load/yaml_quick_tree.h) -> yaml-cpp;
//  - the in-process hand-off (protocol/server_cnx.h) -> every command encoded
//    into its frame and decoded, as on a socket.
// It is a value the caller passes down (the CLI reads `--no-fast-paths` and
// CNXSIM_FAST_PATHS once, at the start of a command), never state the model
// looks up. doc/speed.md "One switch" says where each path is.

#include <optional>
#include <string_view>

namespace cnx {

enum class FastPaths : bool { off = false, on = true };

constexpr bool enabled(FastPaths f) { return f == FastPaths::on; }

constexpr std::string_view to_string_view(FastPaths f) { return enabled(f) ? "on" : "off"; }

/// The value of CNXSIM_FAST_PATHS: "on"/"1" or "off"/"0" (unset or empty: on);
/// nullopt for anything else, which the CLI refuses.
constexpr std::optional<FastPaths> fastPathsFromText(std::string_view text) {
    if (text.empty() || text == "on" || text == "1") return FastPaths::on;
    if (text == "off" || text == "0") return FastPaths::off;
    return std::nullopt;
}

}  // namespace cnx
