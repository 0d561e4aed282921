#pragma once
// The admin side of `cnxsim record` (`--admin-listen` / `--admin-upstream`):
// each HTTP request the proxy's HttpServer takes (sim/net/http_server.h,
// with its limits) is sent on to the upstream broker's admin URL with a
// Beast client, one connection per request and a time limit, and the answer
// goes back to the caller unchanged (status, reason, headers, body). Each
// exchange is shown to the tap as serve shows its own. An upstream that
// cannot be reached answers 502 with a `{"reason"}` body.

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <variant>

#include "sim/net/http_server.h"
#include "sim/net/session_tap.h"

namespace cnx::record {

struct HttpUpstream {
    std::string host;
    std::uint16_t port = 0;
};

/// Parses `http://HOST:PORT[/]`; the error text otherwise.
std::variant<HttpUpstream, std::string> parseHttpUpstream(const std::string& url);

class AdminForwarder {
public:
    static constexpr std::chrono::seconds kTimeout{30};

    /// `io` and `tap` outlive the forwarder.
    AdminForwarder(boost::asio::io_context& io, serve::SessionTap& tap, HttpUpstream upstream)
        : io_(io), tap_(tap), upstream_(std::move(upstream)) {}

    /// The handler for an HttpServer: forwards, answers, tells the tap.
    void handle(const serve::http::Request& request, std::function<void(serve::http::Response)> reply);

    /// One request to the upstream; `done` gets the answer or a 502.
    void fetch(serve::http::Request request, std::function<void(serve::http::Response)> done);

private:
    boost::asio::io_context& io_;
    serve::SessionTap& tap_;
    HttpUpstream upstream_;
};

}  // namespace cnx::record
