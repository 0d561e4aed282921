#include "sim/serve/http/route_support.h"

#include <cctype>

#include "broker_model/admin/schema_payload.h"
#include "sim/serve/http/admin_routes.h"

namespace cnx::serve::http::detail {
namespace {

/// The reason phrase of a model answer: its first line, as Jetty sends a
/// RestException's reason, when that is printable ASCII; otherwise empty (the
/// status's standard phrase). A phrase never carries a control character or a
/// byte a client chose past ASCII (issue 40 item 3: NUL and ESC from the path
/// reached the status line).
std::string phraseOf(const std::string& reason) {
    auto nl = reason.find_first_of("\r\n");
    std::string line = reason.substr(0, nl);
    if (line.empty() && nl != std::string::npos) {  // a 500's text starts with a newline
        auto rest = reason.find_first_not_of("\r\n -");
        if (rest != std::string::npos) line = reason.substr(rest, reason.find_first_of("\r\n", rest) - rest);
    }
    for (char c : line)
        if (c < 0x20 || c > 0x7e) return {};
    return line;
}

}  // namespace

std::string dumpJson(const Json& json) { return json.dump(-1, ' ', false, Json::error_handler_t::replace); }

std::string reasonBody(const std::string& reason) { return dumpJson(Json{{"reason", reason}}); }

Response fromAdmin(const Request& req, const AdminResponse& r) {
    std::string body = r.body.is_null() ? std::string() : dumpJson(r.body);
    return makeResponse(req.version(), req.keep_alive(), r.status, std::move(body), "application/json",
                        r.reason.empty() ? std::string() : phraseOf(r.reason));
}

Response error(const Request& req, int status, const std::string& reason) {
    // The HTTP layer's own answers quote the path or the body: a fixed phrase (issue 40 item 3).
    return makeResponse(req.version(), req.keep_alive(), status, reasonBody(reason));
}

Response methodNotAllowed(const Request& req, const std::string& allow) {
    auto res = error(req, 405, "HTTP 405 Method Not Allowed");
    res.set(beast_http::field::allow, allow);
    return res;
}

std::optional<Json> jsonBody(const Request& req, Response* refusal) {
    auto parsed = parseAdminJson(req.body());  // bounded: issue 40 item 1
    if (auto* e = std::get_if<PayloadError>(&parsed)) {
        *refusal = error(req, e->status, e->reason);
        return std::nullopt;
    }
    return std::get<Json>(std::move(parsed));
}

}  // namespace cnx::serve::http::detail
