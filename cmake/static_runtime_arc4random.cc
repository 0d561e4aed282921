// Linked into cnxsim by -DCNXSIM_STATIC_RUNTIME=ON only (cmake/static_runtime.cmake).
//
// Debian 12's libstdc++.a implements std::random_device with arc4random(),
// which glibc has from 2.36 on; linked statically, that reference alone would
// keep the release binary off Ubuntu 22.04 (glibc 2.35). This definition in the
// executable takes its place (the executable's symbol wins, as malloc's does),
// with the same contract: 32 random bits from the kernel (getrandom(2), glibc 2.25).
#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>

extern "C" uint32_t arc4random(void) noexcept {
  uint32_t value = 0;
  auto* bytes = reinterpret_cast<unsigned char*>(&value);
  size_t filled = 0;
  while (filled < sizeof value) {
    const ssize_t got = getrandom(bytes + filled, sizeof value - filled, 0);
    if (got > 0) {
      filled += static_cast<size_t>(got);
    } else if (got < 0 && errno != EINTR) {
      std::abort();  // no entropy source at all: as arc4random, never return a predictable value
    }
  }
  return value;
}
