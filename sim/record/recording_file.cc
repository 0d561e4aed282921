#include "sim/record/recording_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>
#include <system_error>

#include <spdlog/spdlog.h>

#include "sim/io/file_write.h"
#include "sim/record/scenario_writer.h"

namespace cnx::record {
namespace {

std::string reason(int error) { return std::strerror(error); }

// A folder the recording can be created in: writable by its mode bits (root
// passes access(2) on any folder, and would only fail at the end) and by access(2)
// (another user's folder, a read-only mount).
std::optional<std::string> folderRefusal(const std::filesystem::path& file, const std::filesystem::path& folder) {
    struct stat st {};
    if (::stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        return file.string() + ": the folder " + folder.string() + " does not exist";
    bool writable = (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) != 0 && ::access(folder.c_str(), W_OK | X_OK) == 0;
    if (!writable)
        return file.string() + ": the folder " + folder.string() + " is read-only; the recording could not be written";
    return std::nullopt;
}

// Writes all of `text` at `offset`.
std::optional<std::string> writeAt(int fd, std::string_view text, std::uint64_t offset) {
    std::size_t done = 0;
    while (done < text.size()) {
        ssize_t n = ::pwrite(fd, text.data() + done, text.size() - done, static_cast<off_t>(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return reason(errno);
        done += static_cast<std::size_t>(n);
    }
    return std::nullopt;
}

}  // namespace

std::optional<std::string> checkRecordTarget(const std::filesystem::path& file) {
    std::error_code ec;
    auto folder = file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
    if (auto e = folderRefusal(file, folder)) return e;
    auto status = std::filesystem::symlink_status(file, ec);
    if (std::filesystem::is_symlink(status))
        return "refusing to write " + file.string() + ": it is a symbolic link (cnxsim does not write through links)";
    if (std::filesystem::exists(status)) return sim::refuseToReplace(file);
    return std::nullopt;
}

std::string recordedHow(const std::string& what) {
    auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
    return "Recorded by " + what + " at " + text + ".";
}

std::variant<std::unique_ptr<RecordingFile>, std::string> RecordingFile::create(const std::filesystem::path& file,
                                                                                SessionRecorder& recorder) {
    if (auto e = checkRecordTarget(file)) return *e;
    std::unique_ptr<RecordingFile> out(new RecordingFile(file));
    recorder.setDefinitionFolder(file.filename().string() + ".schemas");
    if (auto e = out->rewriteAll(recorder)) return *e;
    out->following_ = &recorder;
    recorder.setOnChange([file = out.get(), &recorder] {
        auto e = file->update(recorder);
        if (e && !file->warned_) spdlog::warn("{} (the whole file is written again at the next change)", *e);
        file->warned_ = e.has_value();
    });
    return out;
}

RecordingFile::~RecordingFile() {
    if (following_) following_->setOnChange(nullptr);
    closeFile();
}

void RecordingFile::closeFile() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

std::optional<std::string> RecordingFile::update(SessionRecorder& recorder) {
    auto changes = recorder.takeChanges();
    if (broken_ || changes.header != written_.header) return rewriteAll(recorder);
    std::size_t first = std::min(changes.firstStep, offsets_.size() - 1);
    if (first == offsets_.size() - 1 && recorder.stepCount() == first && changes.tail == written_.tail)
        return std::nullopt;
    if (auto e = rewriteFrom(recorder, first)) {
        broken_ = true;
        return e;
    }
    written_.tail = changes.tail;
    return std::nullopt;
}

// The file replaced atomically by the whole recording, then opened for the next partial rewrites.
std::optional<std::string> RecordingFile::rewriteAll(SessionRecorder& recorder) {
    broken_ = true;
    written_ = recorder.takeChanges();
    Recording r = recorder.recordingFrom(0, true);
    if (auto e = writeDefinitions(r)) return e;
    std::string text = writeHead(r);
    offsets_.clear();
    for (const auto& s : r.steps) {
        offsets_.push_back(text.size());
        text += writeStep(s, r.header);
    }
    offsets_.push_back(text.size());
    text += writeTail(r, offsets_.back() > offsets_.front());
    closeFile();
    if (auto e = sim::writeFileAtomically(path_, text)) return e;
    fd_ = ::open(path_.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd_ < 0) return "cannot open " + path_.string() + ": " + reason(errno);
    broken_ = false;
    return std::nullopt;
}

// Steps `first`... and the notes after them: the file is cut where step `first`
// starts before they are written, so a process killed in between leaves whole steps.
std::optional<std::string> RecordingFile::rewriteFrom(SessionRecorder& recorder, std::size_t first) {
    Recording r = recorder.recordingFrom(first, false);
    std::uint64_t at = offsets_[first];
    std::string text;
    offsets_.resize(first);
    for (const auto& s : r.steps) {
        offsets_.push_back(at + text.size());
        text += writeStep(s, r.header);
    }
    offsets_.push_back(at + text.size());
    text += writeTail(r, offsets_.back() > offsets_.front());
    if (::ftruncate(fd_, static_cast<off_t>(at)) != 0) return "cannot write " + path_.string() + ": " + reason(errno);
    if (auto e = writeAt(fd_, text, at)) return "cannot write " + path_.string() + ": " + *e;
    return std::nullopt;
}

std::optional<std::string> RecordingFile::finish(SessionRecorder& recorder) {
    if (following_) following_->setOnChange(nullptr);
    following_ = nullptr;
    closeFile();
    broken_ = true;
    Recording r = recorder.recording();
    if (auto e = writeDefinitions(r)) return e;
    return sim::writeFileAtomically(path_, writeScenario(r));
}

std::optional<std::string> RecordingFile::writeDefinitions(const Recording& r) {
    auto folder = path_.parent_path().empty() ? std::filesystem::path(".") : path_.parent_path();
    for (const auto& file : definitionFiles(r)) {
        if (definitionsWritten_.count(file.path)) continue;
        auto target = folder / file.path;
        auto dir = target.parent_path();
        struct stat st {};
        if (::lstat(dir.c_str(), &st) != 0) {
            if (::mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST) return "cannot create " + dir.string() + ": " + reason(errno);
        } else if (!S_ISDIR(st.st_mode)) {
            return "refusing to write into " + dir.string() + ": it is not a folder (cnxsim does not write through links)";
        }
        if (auto e = sim::writeFileAtomically(target, file.json)) return e;
        definitionsWritten_.insert(file.path);
    }
    return std::nullopt;
}

}  // namespace cnx::record
