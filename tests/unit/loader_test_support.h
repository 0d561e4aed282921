#pragma once
// Helpers shared by the loader unit tests that read scenario files from disk
// (loader_test, loader_imports_test): a scratch folder per test, files written
// into it, and a load's errors as the lines `lint` prints.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/scenario/loader.h"

namespace cnx::testing {

/// An empty folder under the temp directory, unique to this process and `name`.
inline std::filesystem::path scratchDir(const std::string& prefix, const std::string& name) {
    auto dir = std::filesystem::temp_directory_path() / (prefix + std::to_string(::getpid())) / name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

/// Writes `text` to `path`, creating its folders.
inline void writeFile(const std::filesystem::path& path, const std::string& text) {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

/// Every error of a load, one formatted line each.
inline std::string errorsOf(const sim::LoadResult& r) {
    std::string out;
    for (const auto& e : r.errors) out += e.format() + "\n";
    return out;
}

}  // namespace cnx::testing
