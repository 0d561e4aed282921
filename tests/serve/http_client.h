#pragma once
// The serve tests' own HTTP client (Boost.Beast, synchronous), to call the
// admin port of a `cnxsim serve` they started: one request per connection,
// every wait bounded by the socket's timeout. It shares nothing with the
// server's HTTP code.

#include <chrono>
#include <string>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <nlohmann/json.hpp>

namespace serve_test {

using Json = nlohmann::json;
namespace http = boost::beast::http;

struct Answer {
    int status = 0;
    std::string reason;
    std::string body;
    std::string contentType;
    std::string allow;
    Json json() const { return Json::parse(body, nullptr, false); }
};

/// One request on a fresh connection, with an `Authorization` header when
/// `authorization` is not empty; every wait bounded by the socket's timeouts.
inline Answer callAs(std::uint16_t port, http::verb method, const std::string& target, const std::string& authorization,
                     const std::string& body = "", const std::string& contentType = "application/json") {
    boost::asio::io_context io;
    boost::beast::tcp_stream stream(io);
    stream.expires_after(std::chrono::seconds(10));
    stream.connect(boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), port));
    http::request<http::string_body> req{method, target, 11};
    req.set(http::field::host, "127.0.0.1");
    if (!authorization.empty()) req.set(http::field::authorization, authorization);
    if (!body.empty()) req.set(http::field::content_type, contentType);
    req.body() = body;
    req.prepare_payload();
    boost::beast::error_code written;
    http::write(stream, req, written);  // a refused body may be cut short: the answer is still read
    boost::beast::flat_buffer buffer;
    http::response<http::string_body> res;
    http::read(stream, buffer, res);
    Answer a;
    a.status = static_cast<int>(res.result_int());
    a.reason = std::string(res.reason());
    a.body = res.body();
    a.contentType = std::string(res[http::field::content_type]);
    a.allow = std::string(res[http::field::allow]);
    return a;
}

/// The same without credentials.
inline Answer call(std::uint16_t port, http::verb method, const std::string& target, const std::string& body = "",
                   const std::string& contentType = "application/json") {
    return callAs(port, method, target, "", body, contentType);
}

}  // namespace serve_test
