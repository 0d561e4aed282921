// LD_PRELOAD shim for running the official client's own tests against a
// `cnxsim serve` on free ports. Those tests hard-code pulsar://localhost:6650
// and http://localhost:8080 (the standalone broker's ports); a fixed port would
// make parallel runs (ctest -j, several checkouts on one machine) collide.
// This library wraps connect(): a connection to a loopback address (127.0.0.0/8
// or ::1) on a port named in CNXSIM_PORT_MAP ("6650=41234,8080=41235") goes to
// the mapped port instead. Every other connect() is passed on unchanged, and
// without CNXSIM_PORT_MAP the library changes nothing.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE  // RTLD_NEXT
#endif
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {

using ConnectFn = int (*)(int, const sockaddr*, socklen_t);

/// The port CNXSIM_PORT_MAP maps `from` to, or 0.
unsigned mappedPort(unsigned from) {
    const char* map = std::getenv("CNXSIM_PORT_MAP");
    if (!map) return 0;
    while (*map) {
        char* end = nullptr;
        unsigned long key = std::strtoul(map, &end, 10);
        if (end == map || *end != '=') return 0;  // malformed: map nothing
        map = end + 1;
        unsigned long value = std::strtoul(map, &end, 10);
        if (end == map || value == 0 || value > 65535) return 0;
        if (key == from) return static_cast<unsigned>(value);
        map = end;
        if (*map == ',') ++map;
        else if (*map) return 0;
    }
    return 0;
}

bool isLoopback(const sockaddr* addr) {
    if (addr->sa_family == AF_INET) {
        const auto* in = reinterpret_cast<const sockaddr_in*>(addr);
        return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
    }
    if (addr->sa_family == AF_INET6) {
        const auto* in6 = reinterpret_cast<const sockaddr_in6*>(addr);
        return IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr);
    }
    return false;
}

}  // namespace

extern "C" int connect(int fd, const sockaddr* addr, socklen_t len) {
    static ConnectFn real = reinterpret_cast<ConnectFn>(dlsym(RTLD_NEXT, "connect"));
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    if (!addr || !isLoopback(addr)) return real(fd, addr, len);
    if (addr->sa_family == AF_INET && len >= sizeof(sockaddr_in)) {
        sockaddr_in copy;
        std::memcpy(&copy, addr, sizeof copy);
        if (unsigned to = mappedPort(ntohs(copy.sin_port))) {
            copy.sin_port = htons(static_cast<std::uint16_t>(to));
            return real(fd, reinterpret_cast<const sockaddr*>(&copy), sizeof copy);
        }
    } else if (addr->sa_family == AF_INET6 && len >= sizeof(sockaddr_in6)) {
        sockaddr_in6 copy;
        std::memcpy(&copy, addr, sizeof copy);
        if (unsigned to = mappedPort(ntohs(copy.sin6_port))) {
            copy.sin6_port = htons(static_cast<std::uint16_t>(to));
            return real(fd, reinterpret_cast<const sockaddr*>(&copy), sizeof copy);
        }
    }
    return real(fd, addr, len);
}
