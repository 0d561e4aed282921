// What the client's test files take from elsewhere in its pulsar-tests binary,
// for building one of them alone (CMakeLists.txt, "the client's own gtest
// programs"): InterceptorsTest.cc and others declare `extern std::string
// unique_str();`, defined in BasicEndToEndTest.cc, which is not built here.
#include <atomic>
#include <chrono>
#include <string>

std::string unique_str() {
    static std::atomic_int counter{0};
    auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count();
    return std::to_string(counter++) + "_" + std::to_string(millis);
}
