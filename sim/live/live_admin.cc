#include "sim/live/live_admin.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>

#include "broker_model/admin/schema_payload.h"

namespace cnx::sim::live {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

http::verb verbOf(const std::string& method) {
    if (method == "PUT") return http::verb::put;
    if (method == "POST") return http::verb::post;
    if (method == "DELETE") return http::verb::delete_;
    return http::verb::get;
}

AdminResponse unreachable(std::string why) {
    AdminResponse r;
    r.status = 0;
    r.reason = std::move(why);
    return r;
}

}  // namespace

AdminResponse LiveAdmin::call(const std::string& method, const std::string& target,
                              const std::optional<std::string>& jsonBody) const {
    asio::io_context io;
    beast::tcp_stream stream(io);
    asio::ip::tcp::resolver resolver(io);
    boost::system::error_code ec;
    auto results = resolver.resolve(admin_.host, std::to_string(admin_.port), ec);
    if (ec) return unreachable("cannot resolve " + admin_.text() + ": " + ec.message());

    http::request<http::string_body> req{verbOf(method), target, 11};
    req.set(http::field::host, admin_.text());
    req.set(http::field::user_agent, "cnxsim run --against");
    req.set(http::field::accept, "application/json");
    if (jsonBody) {
        req.set(http::field::content_type, "application/json");
        req.body() = *jsonBody;
    }
    req.prepare_payload();
    req.keep_alive(false);

    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.body_limit(kMaxAdminBody);
    std::string failure;
    stream.expires_after(timeout_);
    stream.async_connect(results, [&](beast::error_code e, auto) {
        if (e) {
            failure = "cannot connect to " + admin_.text() + ": " + e.message();
            return;
        }
        http::async_write(stream, req, [&](beast::error_code w, std::size_t) {
            if (w) {
                failure = "writing the request failed: " + w.message();
                return;
            }
            http::async_read(stream, buffer, parser, [&](beast::error_code r, std::size_t) {
                if (r) failure = "reading the answer failed: " + r.message();
            });
        });
    });
    io.run();
    stream.socket().close(ec);
    if (!failure.empty()) return unreachable(failure + " (" + method + " " + target + ")");

    const auto& res = parser.get();
    AdminResponse out;
    out.status = static_cast<int>(res.result_int());
    const auto& text = res.body();
    if (!text.empty()) {
        auto parsed = parseAdminJson(text);
        if (auto* j = std::get_if<nlohmann::json>(&parsed)) out.body = std::move(*j);
        else out.reason = text;
    }
    if (!out.ok()) {
        // Pulsar's RestException body: {"reason": "..."}; else (no body, or a server's error
        // page) what a REST client reads: the reason phrase.
        if (out.body.is_object() && out.body.contains("reason") && out.body["reason"].is_string())
            out.reason = out.body["reason"].get<std::string>();
        else
            out.reason = std::string(res.reason());
    }
    return out;
}

}  // namespace cnx::sim::live
