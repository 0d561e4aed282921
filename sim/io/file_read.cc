#include "sim/io/file_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace cnx::sim {
namespace {

// Closes a descriptor on every path out of readFileBounded.
class Fd {
public:
    explicit Fd(int fd) : fd_(fd) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() {
        if (fd_ >= 0) ::close(fd_);
    }
    int get() const { return fd_; }

private:
    int fd_;
};

std::string errnoText(int error) { return std::strerror(error); }

std::string kindOfMode(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a fifo";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

std::string notRegular(mode_t mode) {
    std::string kind = kindOfMode(mode);
    if (kind == "not a regular file") return kind;
    return "not a regular file (it is " + kind + ")";
}


// Reads at most `limit + 1` bytes: one more than allowed tells "too large"
// without trusting st_size (a file can grow, /proc files claim 0).
std::variant<std::string, FileReadError> readUpTo(int fd, const std::string& path, const FileKind& kind) {
    std::string text;
    const std::uintmax_t cap = kind.limitBytes + 1;
    char buffer[1 << 16];
    while (text.size() < cap) {
        std::size_t want = static_cast<std::size_t>(std::min<std::uintmax_t>(sizeof buffer, cap - text.size()));
        ssize_t n = ::read(fd, buffer, want);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return FileReadError{path, "cannot be read: " + errnoText(errno)};
        if (n == 0) return text;
        text.append(buffer, static_cast<std::size_t>(n));
    }
    return FileReadError{path, "more than " + overLimitReason(kind.limitBytes, kind)};
}

}  // namespace

std::string sizeText(std::uintmax_t bytes) {
    constexpr std::uintmax_t kKiB = 1024, kMiB = kKiB * 1024;
    if (bytes < kKiB) return std::to_string(bytes) + (bytes == 1 ? " byte" : " bytes");
    std::uintmax_t unit = bytes < kMiB ? kKiB : kMiB;
    const char* name = bytes < kMiB ? " KiB" : " MiB";
    if (bytes % unit == 0) return std::to_string(bytes / unit) + name;
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", static_cast<double>(bytes) / static_cast<double>(unit));
    std::string number = text;
    if (number.ends_with(".0")) number.resize(number.size() - 2);  // 17.0 MiB reads as 17 MiB
    return number + name;
}

std::string overLimitReason(std::uintmax_t size, const FileKind& kind) {
    std::string limit = sizeText(kind.limitBytes);
    std::string shown = sizeText(size);
    if (shown == limit) shown = std::to_string(size) + " bytes";
    return shown + " is over the " + limit + " limit for " + std::string(kind.what);
}

std::variant<std::string, FileReadError> readFileBounded(const std::filesystem::path& path, const FileKind& kind) {
    const std::string shown = path.string();
    struct stat st {};
    if (::stat(shown.c_str(), &st) != 0)
        return FileReadError{shown, errno == ENOENT ? "does not exist" : "cannot be read: " + errnoText(errno)};
    if (!S_ISREG(st.st_mode)) return FileReadError{shown, notRegular(st.st_mode)};
    // O_NONBLOCK: if the path was swapped for a fifo since stat, open must not wait for a writer.
    Fd fd(::open(shown.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
    if (fd.get() < 0) return FileReadError{shown, "cannot be read: " + errnoText(errno)};
    if (::fstat(fd.get(), &st) != 0) return FileReadError{shown, "cannot be read: " + errnoText(errno)};
    if (!S_ISREG(st.st_mode)) return FileReadError{shown, notRegular(st.st_mode)};
    if (static_cast<std::uintmax_t>(st.st_size) > kind.limitBytes)
        return FileReadError{shown, overLimitReason(static_cast<std::uintmax_t>(st.st_size), kind)};
    return readUpTo(fd.get(), shown, kind);
}

}  // namespace cnx::sim
