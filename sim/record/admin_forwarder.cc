#include "sim/record/admin_forwarder.h"

#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <charconv>
#include <memory>

#include <nlohmann/json.hpp>

#include "sim/serve/http/admin_routes.h"

namespace cnx::record {

namespace asio = boost::asio;
namespace beast = boost::beast;
using serve::http::Request;
using serve::http::Response;

std::variant<HttpUpstream, std::string> parseHttpUpstream(const std::string& url) {
    std::string rest = url;
    if (rest.rfind("http://", 0) == 0) rest = rest.substr(7);
    else return "--admin-upstream takes http://HOST:PORT (got '" + url + "')";
    while (!rest.empty() && rest.back() == '/') rest.pop_back();
    auto colon = rest.rfind(':');
    if (colon == std::string::npos || colon == 0) return "--admin-upstream takes http://HOST:PORT (got '" + url + "')";
    unsigned port = 0;
    auto p = rest.substr(colon + 1);
    auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), port);
    if (ec != std::errc() || end != p.data() + p.size() || port == 0 || port > 65535)
        return "--admin-upstream: '" + p + "' is not a port";
    std::string host = rest.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
    return HttpUpstream{host, static_cast<std::uint16_t>(port)};
}

namespace {

// One request's trip: resolve, connect, write, read, each under the time limit.
struct Trip : std::enable_shared_from_this<Trip> {
    Trip(asio::io_context& io, Request r, std::function<void(Response)> d)
        : resolver(io), stream(io), request(std::move(r)), done(std::move(d)) {}

    void fail(const std::string& what) {
        if (!done) return;
        auto res = serve::http::makeResponse(request.version(), request.keep_alive(), 502,
                                             nlohmann::json{{"reason", "upstream: " + what}}.dump(), "application/json",
                                             "Bad Gateway");
        auto d = std::move(done);
        done = nullptr;
        d(std::move(res));
    }

    void start(const HttpUpstream& up) {
        auto self = shared_from_this();
        stream.expires_after(AdminForwarder::kTimeout);
        resolver.async_resolve(up.host, std::to_string(up.port), [self](beast::error_code e, auto results) {
            if (e) return self->fail(e.message());
            self->stream.async_connect(results, [self](beast::error_code c, auto) {
                if (c) return self->fail(c.message());
                beast::http::async_write(self->stream, self->request, [self](beast::error_code w, std::size_t) {
                    if (w) return self->fail(w.message());
                    self->parser.body_limit(serve::http::HttpServer::kMaxBody * 4);
                    beast::http::async_read(self->stream, self->buffer, self->parser, [self](beast::error_code r, std::size_t) {
                        if (r) return self->fail(r.message());
                        auto d = std::move(self->done);
                        self->done = nullptr;
                        beast::error_code ignored;
                        self->stream.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ignored);
                        d(self->parser.release());
                    });
                });
            });
        });
    }

    asio::ip::tcp::resolver resolver;
    beast::tcp_stream stream;
    beast::flat_buffer buffer;
    beast::http::response_parser<beast::http::string_body> parser;
    Request request;
    std::function<void(Response)> done;
};

}  // namespace

void AdminForwarder::fetch(Request request, std::function<void(Response)> done) {
    request.set(beast::http::field::host, upstream_.host + ":" + std::to_string(upstream_.port));
    request.keep_alive(false);
    request.prepare_payload();
    auto trip = std::make_shared<Trip>(io_, std::move(request), std::move(done));
    trip->start(upstream_);
}

void AdminForwarder::handle(const Request& request, std::function<void(Response)> reply) {
    // `request` lives until `reply` is gone (the session holds it).
    fetch(request, [this, &request, reply = std::move(reply)](Response response) {
        tap_.admin(serve::http::exchangeOf(request, response, nullptr));
        response.version(request.version());
        response.keep_alive(request.keep_alive());
        response.erase(beast::http::field::transfer_encoding);
        response.prepare_payload();
        reply(std::move(response));
    });
}

}  // namespace cnx::record
