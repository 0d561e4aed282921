// Replays inputs through a fuzz target without libFuzzer, so that the
// regression inputs under tests/fuzz/regressions/ run under ctest with any
// compiler (the libFuzzer build needs clang; this driver does not).
//
//   fuzz_replay_<target> PATH...   every regular file, and every regular file
//                                  directly inside each folder, in name order
//
// Exit 0 when every input ran to completion (a crash, a sanitizer report or
// an uncaught exception ends the process instead); 2 when a path cannot be
// read or no input was found, so an empty regression folder cannot pass.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

// Inputs are small fuzz cases and checked-in crashers; anything bigger is a mistake.
constexpr std::uintmax_t kMaxInputBytes = 16u << 20;

bool collect(const fs::path& path, std::vector<fs::path>& out) {
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        std::vector<fs::path> files;
        for (const auto& entry : fs::directory_iterator(path, ec))
            if (entry.is_regular_file(ec)) files.push_back(entry.path());
        std::sort(files.begin(), files.end());
        out.insert(out.end(), files.begin(), files.end());
        return !ec;
    }
    if (!fs::is_regular_file(path, ec)) {
        std::fprintf(stderr, "%s: not a regular file or folder\n", path.c_str());
        return false;
    }
    out.push_back(path);
    return true;
}

bool readInput(const fs::path& path, std::string& bytes) {
    std::error_code ec;
    auto size = fs::file_size(path, ec);
    if (ec || size > kMaxInputBytes) {
        std::fprintf(stderr, "%s: unreadable or over %ju bytes\n", path.c_str(), kMaxInputBytes);
        return false;
    }
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return static_cast<bool>(in) || in.eof();
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<fs::path> inputs;
    for (int i = 1; i < argc; ++i)
        if (!collect(argv[i], inputs)) return 2;
    if (inputs.empty()) {
        std::fprintf(stderr, "no input files in the given paths\n");
        return 2;
    }
    for (const auto& path : inputs) {
        std::string bytes;
        if (!readInput(path, bytes)) return 2;
        std::fprintf(stderr, "replay %s (%zu bytes)\n", path.c_str(), bytes.size());
        LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    }
    std::printf("%zu inputs replayed\n", inputs.size());
    return 0;
}
