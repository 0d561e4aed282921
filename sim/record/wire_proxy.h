#pragma once
// The binary-protocol side of `cnxsim record`: a transparent proxy in front of
// one broker. Each accepted client connection gets its own upstream
// connection; bytes are cut into frames (sizes checked, at most
// wire::kMaxFrameSize, parsed with wire::parseFrameBody) and forwarded
// byte-exact, except LOOKUP_RESPONSE, whose brokerServiceUrl (and
// brokerServiceUrlTls) are rewritten to the address the client reached the
// proxy at, so it keeps talking through the proxy. Every frame is shown to
// the tap: client commands as received(), broker commands as sent(). Each
// direction reads its next chunk only once the last one has been written, so
// memory per connection is bounded by one frame; a malformed stream or an I/O
// error closes that pair only.

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "sim/net/session_tap.h"

namespace cnx::record {

class WireProxy {
public:
    /// `io` and `tap` outlive the proxy.
    WireProxy(boost::asio::io_context& io, serve::SessionTap& tap, std::string upstreamHost, std::uint16_t upstreamPort);
    ~WireProxy();
    WireProxy(const WireProxy&) = delete;
    WireProxy& operator=(const WireProxy&) = delete;

    /// Listens on `address:port` (0: a free one); the error text when it cannot.
    std::optional<std::string> listen(const std::string& address, std::uint16_t port);
    std::uint16_t port() const;
    /// The `pulsar://host:port` lookups are rewritten to (set after listen).
    const std::string& ownUrl() const { return ownUrl_; }
    /// Stops accepting and closes every pair.
    void stop();

    class Pair;

private:
    friend class Pair;
    void accept();

    boost::asio::io_context& io_;
    serve::SessionTap& tap_;
    std::string upstreamHost_;
    std::uint16_t upstreamPort_;
    boost::asio::ip::tcp::acceptor acceptor_;
    boost::asio::steady_timer retry_;  // accept again after an accept error
    std::string ownUrl_;
    std::map<std::uint64_t, std::shared_ptr<Pair>> pairs_;
    std::uint64_t nextId_ = 1;
    bool stopped_ = false;
};

}  // namespace cnx::record
