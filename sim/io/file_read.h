#pragma once
// Reading the files cnxsim is given (scenario files, the schema files they
// name, `cnxsim compat` schema files, the file `--accept` rewrites) with one
// bounded reader: only regular files, never more than a stated limit, never
// blocking on a fifo or reading a device forever. Errors are values.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <variant>

namespace cnx::sim {

/// What a file is read as: the plural used in messages and its size limit.
struct FileKind {
    std::string_view what;  // "scenario files"
    std::uintmax_t limitBytes;
};

/// Scenario YAML files (and imported ones): see doc/scenario-format.md "Limits".
inline constexpr FileKind kScenarioFile{"scenario files", std::uintmax_t{8} << 20};
/// Schema files: a scenario's `file:` definitions, `cnxsim compat` inputs.
inline constexpr FileKind kSchemaFile{"schema files", std::uintmax_t{16} << 20};

/// Why a file was not read. `reason` is a phrase without the path
/// ("not a regular file", "70 MiB is over the 64 MiB limit for scenario files").
struct FileReadError {
    std::string path;
    std::string reason;

    /// Exactly `<path>: <reason>`.
    std::string message() const { return path + ": " + reason; }
};

/// The whole content of a regular file, or why not. Follows symlinks; refuses
/// directories, devices, fifos and sockets without reading them (a fifo is
/// opened non-blocking), and files larger than `kind.limitBytes`: at most
/// `limitBytes + 1` bytes are ever read, whatever the file's size claims.
std::variant<std::string, FileReadError> readFileBounded(const std::filesystem::path& path, const FileKind& kind);

/// `bytes` for messages: "512 bytes", "3 KiB", "70 MiB", "1.5 MiB".
std::string sizeText(std::uintmax_t bytes);

/// "70 MiB is over the 64 MiB limit for scenario files" for a `size` over
/// `kind.limitBytes`; exact bytes when rounding would hide the difference.
std::string overLimitReason(std::uintmax_t size, const FileKind& kind);

}  // namespace cnx::sim
