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

std::optional<Target> parseTarget(std::string_view target) {
    Target out;
    auto q = target.find('?');
    std::string_view path = target.substr(0, q);
    std::size_t at = 0;
    while (at <= path.size()) {
        auto slash = path.find('/', at);
        auto seg = path.substr(at, slash == std::string_view::npos ? std::string_view::npos : slash - at);
        if (!seg.empty()) {
            auto decoded = percentDecode(seg);
            if (!decoded) return std::nullopt;
            out.segments.push_back(std::move(*decoded));
        }
        if (slash == std::string_view::npos) break;
        at = slash + 1;
    }
    if (q != std::string_view::npos) {
        std::string_view query = target.substr(q + 1);
        while (!query.empty()) {
            auto amp = query.find('&');
            auto pair = query.substr(0, amp);
            auto eq = pair.find('=');
            auto key = percentDecode(pair.substr(0, eq));
            auto value = percentDecode(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1));
            if (!key || !value) return std::nullopt;
            if (!key->empty()) out.query[*key] = *value;
            if (amp == std::string_view::npos) break;
            query = query.substr(amp + 1);
        }
    }
    return out;
}

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

bool isTrue(const Target& t, const char* key) {
    auto it = t.query.find(key);
    if (it == t.query.end() || it->second.size() != 4) return false;
    std::string v = it->second;
    for (auto& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return v == "true";
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
