#pragma once
// The one way cnxsim writes a file (reports, JUnit XML, `--accept`): atomic,
// and impossible to redirect.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace cnx::sim {

/// Replaces `target` with `text` atomically: a temporary file with a unique
/// name is created exclusively (O_CREAT|O_EXCL|O_NOFOLLOW) in the target's
/// folder, written, fsync'ed, renamed over `target`, and the folder fsync'ed.
/// An existing target must be a regular file (a symbolic link, directory,
/// fifo, socket or device is refused and left alone), and writable (a
/// read-only file is refused as refuseToReplace says, root included); its
/// permission bits are kept, and its owner where the process may set it. A new target gets
/// 0666 minus the umask. Returns nullopt on success, otherwise an error text
/// naming the file and the system's reason; the temporary file is then
/// removed and `target` is untouched.
std::optional<std::string> writeFileAtomically(const std::filesystem::path& target, std::string_view text);

/// Why `file` (an existing path) cannot be replaced by `--accept`: not a
/// regular file, or read-only (no write permission bit set, or no write
/// access for this process; checked on the mode bits so that root is refused
/// too). nullopt when it may be replaced.
std::optional<std::string> refuseToReplace(const std::filesystem::path& file);

/// What writeFileAtomically would refuse about `target` before writing
/// anything: an existing target that is not a regular file (a symbolic link
/// included) or is read-only. nullopt when it is absent or may be replaced.
/// `run` checks its --junit, --report and --json targets with it before
/// running anything (the same check as the writer's, made early).
std::optional<std::string> checkWriteTarget(const std::filesystem::path& target);

}  // namespace cnx::sim
