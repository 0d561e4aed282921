#include "sim/record/recording_file.h"

#include <chrono>
#include <ctime>
#include <system_error>

#include "sim/io/file_write.h"
#include "sim/record/scenario_writer.h"

namespace cnx::record {

std::optional<std::string> checkRecordTarget(const std::filesystem::path& file) {
    std::error_code ec;
    auto folder = file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
    if (!std::filesystem::is_directory(folder, ec)) return file.string() + ": the folder " + folder.string() + " does not exist";
    if (std::filesystem::exists(std::filesystem::symlink_status(file, ec))) return sim::refuseToReplace(file);
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

std::optional<std::string> writeRecording(const std::filesystem::path& file, const SessionRecorder& recorder) {
    return sim::writeFileAtomically(file, writeScenario(recorder.recording()));
}

}  // namespace cnx::record
