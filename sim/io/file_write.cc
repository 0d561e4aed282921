#include "sim/io/file_write.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

namespace cnx::sim {
namespace {

std::string reason(int error) { return std::strerror(error); }

std::string octal(mode_t mode) {
    char text[8];
    std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
    return text;
}

// What a non-regular file is, for error messages.
std::string kindOf(mode_t mode) {
    if (S_ISLNK(mode)) return "a symbolic link";
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a fifo";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    return "a special file";
}

// The existing target's status, or nullopt when there is none; an error text
// when it exists and is not a regular file, or cannot be examined.
struct Existing {
    std::optional<struct stat> st;
    std::optional<std::string> error;
};

// Why the regular file `file` (its status `st`) may not be replaced: read-only
// (no write permission bit set, or no write access for this process). The
// mode bits are checked as well as access(2): root passes access(2) on any
// file, and a file nobody may write is one its owner meant to keep.
std::optional<std::string> readOnly(const std::filesystem::path& file, const struct stat& st) {
    bool writable = (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) != 0 && ::access(file.c_str(), W_OK) == 0;
    if (writable) return std::nullopt;
    return "refusing to write " + file.string() + ": the file is read-only (mode " + octal(st.st_mode) +
           "); make it writable, or name another file";
}

Existing examine(const std::filesystem::path& target) {
    struct stat st {};
    if (::lstat(target.c_str(), &st) != 0) {
        int error = errno;
        if (error == ENOENT) return {};
        return {std::nullopt, "cannot write " + target.string() + ": " + reason(error)};
    }
    if (S_ISREG(st.st_mode)) return {st, readOnly(target, st)};
    std::string why = kindOf(st.st_mode) + ", not a regular file";
    if (S_ISLNK(st.st_mode)) why += " (cnxsim does not write through links)";
    return {std::nullopt, "refusing to write " + target.string() + ": it is " + why};
}

std::optional<std::string> writeAll(int fd, std::string_view text) {
    std::size_t done = 0;
    while (done < text.size()) {
        ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return reason(errno);
        done += static_cast<std::size_t>(n);
    }
    return std::nullopt;
}

/// A temporary file created exclusively beside the target; removed on
/// destruction unless released (after the rename).
class TempFile {
public:
    explicit TempFile(const std::filesystem::path& dir, const std::string& base) {
        std::random_device random;
        for (int attempt = 0; attempt < 100; ++attempt) {
            std::string name = ".";  // built stepwise: GCC 12 warns (-Wrestrict) on "." + string
            name += base;
            name += ".cnxsim-";
            name += std::to_string(random());
            path_ = dir / name;
            fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
            if (fd_ >= 0 || errno != EEXIST) break;
        }
        if (fd_ < 0) error_ = errno;
    }
    ~TempFile() {
        if (fd_ >= 0) ::close(fd_);
        if (!released_ && error_ == 0) ::unlink(path_.c_str());
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;

    int fd() const { return fd_; }
    int error() const { return error_; }
    const std::filesystem::path& path() const { return path_; }
    /// Closes the descriptor; the system's reason when that fails.
    std::optional<std::string> close() {
        int fd = fd_;
        fd_ = -1;
        if (::close(fd) != 0) return reason(errno);
        return std::nullopt;
    }
    void release() { released_ = true; }

private:
    std::filesystem::path path_;
    int fd_ = -1;
    int error_ = 0;
    bool released_ = false;
};

// The existing file's mode and (best effort: only root may give a file away) owner.
std::optional<std::string> copyAttributes(int fd, const struct stat& st) {
    if (::fchmod(fd, st.st_mode & 07777) != 0) return reason(errno);
    if (::fchown(fd, st.st_uid, st.st_gid) != 0 && errno != EPERM) return reason(errno);
    return std::nullopt;
}

// Makes the rename durable. Filesystems that cannot sync a folder say EINVAL.
std::optional<std::string> syncFolder(const std::filesystem::path& dir) {
    int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return reason(errno);
    int rc = ::fsync(fd);
    int error = errno;
    ::close(fd);
    if (rc != 0 && error != EINVAL) return reason(error);
    return std::nullopt;
}

std::optional<std::string> fill(TempFile& temp, std::string_view text, const std::optional<struct stat>& existing) {
    if (existing) {
        if (auto e = copyAttributes(temp.fd(), *existing)) return e;
    }
    if (auto e = writeAll(temp.fd(), text)) return e;
    if (::fsync(temp.fd()) != 0) return reason(errno);
    return temp.close();
}

}  // namespace

std::optional<std::string> writeFileAtomically(const std::filesystem::path& target, std::string_view text) {
    auto existing = examine(target);
    if (existing.error) return existing.error;
    std::filesystem::path dir = target.parent_path().empty() ? "." : target.parent_path();
    TempFile temp(dir, target.filename().string());
    if (temp.fd() < 0) return "cannot create a temporary file in " + dir.string() + ": " + reason(temp.error());
    if (auto e = fill(temp, text, existing.st)) return "cannot write " + temp.path().string() + ": " + *e;
    if (::rename(temp.path().c_str(), target.c_str()) != 0) {
        int error = errno;
        return "cannot rename " + temp.path().string() + " to " + target.string() + ": " + reason(error);
    }
    temp.release();
    if (auto e = syncFolder(dir)) return "wrote " + target.string() + " but cannot sync " + dir.string() + ": " + *e;
    return std::nullopt;
}

std::optional<std::string> refuseToReplace(const std::filesystem::path& file) {
    struct stat st {};
    if (::stat(file.c_str(), &st) != 0) {
        int error = errno;
        return "cannot write " + file.string() + ": " + reason(error);
    }
    if (!S_ISREG(st.st_mode))
        return "refusing to write " + file.string() + ": it is " + kindOf(st.st_mode) + ", not a regular file";
    return readOnly(file, st);
}

std::optional<std::string> checkWriteTarget(const std::filesystem::path& target) { return examine(target).error; }

}  // namespace cnx::sim
