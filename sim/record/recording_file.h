#pragma once
// Writing a recording to its file (`cnxsim serve --record`, `cnxsim record -o`):
// the target is checked before the session starts, so a bad path fails at
// once instead of after the session, and written atomically when it ends.

#include <filesystem>
#include <optional>
#include <string>

#include "sim/record/session_recorder.h"

namespace cnx::record {

/// Why `file` cannot be the recording's file: its folder does not exist, or it
/// exists and is not a regular writable file. nullopt when it can be written.
std::optional<std::string> checkRecordTarget(const std::filesystem::path& file);

/// The header comment: "<what> at <UTC time>".
std::string recordedHow(const std::string& what);

/// Writes the recording's YAML to `file` atomically (sim/io/file_write.h); the error text when it cannot.
std::optional<std::string> writeRecording(const std::filesystem::path& file, const SessionRecorder& recorder);

}  // namespace cnx::record
