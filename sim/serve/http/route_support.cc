#include "sim/serve/http/route_support.h"

#include <cctype>

#include "sim/serve/http/admin_routes.h"

namespace cnx::serve::http::detail {
namespace {

/// A reason phrase may not hold CR or LF: the first line, as Jetty sends it.
std::string phraseOf(const std::string& reason) {
    auto nl = reason.find_first_of("\r\n");
    std::string line = reason.substr(0, nl);
    if (line.empty() && nl != std::string::npos) {  // a 500's text starts with a newline
        auto rest = reason.find_first_not_of("\r\n -");
        if (rest != std::string::npos) line = reason.substr(rest, reason.find_first_of("\r\n", rest) - rest);
    }
    return line;
}

}  // namespace

std::string reasonBody(const std::string& reason) { return Json{{"reason", reason}}.dump(); }

Response fromAdmin(const Request& req, const AdminResponse& r) {
    std::string body = r.body.is_null() ? std::string() : r.body.dump(-1, ' ', false, Json::error_handler_t::replace);
    return makeResponse(req.version(), req.keep_alive(), r.status, std::move(body), "application/json",
                        r.reason.empty() ? std::string() : phraseOf(r.reason));
}

Response error(const Request& req, int status, const std::string& reason) {
    return makeResponse(req.version(), req.keep_alive(), status, reasonBody(reason), "application/json", phraseOf(reason));
}

Response methodNotAllowed(const Request& req, const std::string& allow) {
    auto res = error(req, 405, "HTTP 405 Method Not Allowed");
    res.set(beast_http::field::allow, allow);
    return res;
}

std::optional<Json> jsonBody(const Request& req, Response* refusal) {
    try {
        return Json::parse(req.body());
    } catch (const Json::parse_error& e) {
        *refusal = error(req, 400, std::string("Failed to parse the request body as JSON: ") + e.what());
        return std::nullopt;
    }
}

}  // namespace cnx::serve::http::detail
