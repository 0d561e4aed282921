#pragma once
// Files and commands for the tests of `cnxsim serve`: a scratch folder per
// test case, a file's text, and the real binary run to completion.

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>

namespace serve_test {

/// A scratch folder for one test case, removed at the end (its folders made writable first).
struct TempDir {
    std::filesystem::path path;
    TempDir() {
        std::string templ = (std::filesystem::temp_directory_path() / "cnxsim-serve-XXXXXX").string();
        path = mkdtemp(templ.data());
    }
    ~TempDir() {
        namespace fs = std::filesystem;
        std::error_code ec;
        for (const auto& e : fs::recursive_directory_iterator(path, ec))
            if (e.is_directory(ec) && !e.is_symlink(ec))
                fs::permissions(e.path(), fs::perms::owner_all, fs::perm_options::add, ec);
        fs::remove_all(path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    std::filesystem::path write(const std::string& name, const std::string& text) const {
        std::ofstream(path / name) << text;
        return path / name;
    }
};

inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

/// Runs `cnxsim ARGS` to completion, killed after 60 s (a server that listens
/// when it should have refused never ends by itself): (exit status, stdout and stderr).
inline std::pair<int, std::string> cnxsim(const std::string& args) {
    std::string cmd = "timeout -s KILL 60 " + std::string(CNXSIM_BINARY) + " " + args + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return {-1, ""};
    std::string out;
    std::array<char, 512> buf{};
    while (auto n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
    int status = pclose(p);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace serve_test
