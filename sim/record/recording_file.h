#pragma once
// Writing a recording to its file (`cnxsim serve --record`, `cnxsim record -o`):
// the target is checked and created before the session starts, so a bad path
// fails at once instead of after the session, and the file is kept up to date
// as the session goes, so a killed process leaves what happened until then.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "sim/record/session_recorder.h"

namespace cnx::record {

/// Why `file` cannot be the recording's file: its folder does not exist or is
/// read-only, or it exists and is not a regular writable file (a symbolic link
/// is refused: the file is replaced, never written through a link). nullopt
/// when it can be written. Write permission is judged on the mode bits too,
/// so that root is refused a read-only folder as everyone else is.
std::optional<std::string> checkRecordTarget(const std::filesystem::path& file);

/// The header comment: "<what> at <UTC time>".
std::string recordedHow(const std::string& what);

/// The recording's file while the session goes (doc/recording.md, "The file"):
/// created at start, then brought up to date after every change. A change of
/// the header (a new schema alias, topic, namespace or client) replaces the
/// whole file atomically; any other change truncates the file where the first
/// changed step starts and writes the steps from there (and the notes after
/// the last one). Most changes touch the newest step, so each costs the size
/// of the header's check and of the steps rewritten, not of the session. At
/// every moment between two writes the file holds whole steps and loads.
/// Definitions too long for one YAML value go to files in FILE.schemas/ beside
/// it (scenario_writer.h, definitionFiles), each written once, atomically,
/// before the recording names it.
/// The writes are not synced one by one (a killed process loses nothing the
/// kernel has); finish() writes the whole file once more, atomically and synced.
class RecordingFile {
public:
    /// Checks `file` (checkRecordTarget) and writes `recorder`'s recording so far to it; the error text when not.
    /// From then on it follows `recorder` (its onChange) until finish() or its end; a failed
    /// update is logged once (spdlog) until one succeeds again.
    static std::variant<std::unique_ptr<RecordingFile>, std::string> create(const std::filesystem::path& file,
                                                                            SessionRecorder& recorder);
    ~RecordingFile();
    RecordingFile(const RecordingFile&) = delete;
    RecordingFile& operator=(const RecordingFile&) = delete;

    /// Brings the file up to date with `recorder`; the error text when a write failed (the next call rewrites all).
    std::optional<std::string> update(SessionRecorder& recorder);
    /// The whole recording, written atomically and synced: the session ended (the file stops following).
    std::optional<std::string> finish(SessionRecorder& recorder);

private:
    explicit RecordingFile(std::filesystem::path file) : path_(std::move(file)) {}
    std::optional<std::string> rewriteAll(SessionRecorder& recorder);
    std::optional<std::string> rewriteFrom(SessionRecorder& recorder, std::size_t first);
    std::optional<std::string> writeDefinitions(const Recording& recording);
    void closeFile();

    std::filesystem::path path_;
    SessionRecorder* following_ = nullptr;
    bool warned_ = false;
    int fd_ = -1;
    std::vector<std::uint64_t> offsets_;  // where step i starts; the last: where the notes after the steps start
    SessionRecorder::Changes written_;     // the header and tail versions on disk
    bool broken_ = true;                   // the file is not known to match: the next update rewrites it all
    std::set<std::string> definitionsWritten_;
};

}  // namespace cnx::record
