#include "sim/serve/http/auth_filter.h"

namespace cnx::serve::http {
namespace {

bool underPrefix(std::string_view path, std::string_view prefix) {
    if (path.rfind(prefix, 0) != 0) return false;
    return path.size() == prefix.size() || path[prefix.size()] == '/';
}

std::string htmlEscape(std::string_view text) {
    std::string out;
    for (char c : text) {
        switch (c) {
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '&': out += "&amp;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

std::optional<std::string> header(const Request& request, std::string_view name) {
    auto it = request.find(boost::beast::string_view(name.data(), name.size()));
    if (it == request.end()) return std::nullopt;
    return std::string(it->value());
}

}  // namespace

bool requiresAuthentication(const Broker& broker, std::string_view path) {
    if (underPrefix(path, "/metrics")) return broker.policies().broker.auth.authenticateMetricsEndpoint;
    return underPrefix(path, "/admin") || underPrefix(path, "/lookup") || underPrefix(path, "/topics") ||
           underPrefix(path, "/cnxsim");
}

// AuthenticationFilter.doFilter (4.2): any AuthenticationException ends in
// `httpResponse.sendError(HttpServletResponse.SC_UNAUTHORIZED, "Authentication required")`;
// Jetty's ErrorHandler writes its HTML error page. The page as a real 4.2.4 broker
// (tests/oracle/run-broker with token authentication, 2026-12-06) answered it; its
// SERVLET row names the Jersey servlet with its identity hash, which changes from
// run to run (a fixed one here), and the Jetty release is 4.2.4's.
Response authenticationRequired(const Request& request) {
    std::string_view target(request.target().data(), request.target().size());
    std::string uri(target.substr(0, target.find('?')));
    std::string body =
        "<html>\n<head>\n<meta http-equiv=\"Content-Type\" content=\"text/html;charset=ISO-8859-1\"/>\n"
        "<title>Error 401 Authentication required</title>\n</head>\n"
        "<body><h2>HTTP ERROR 401 Authentication required</h2>\n<table>\n"
        "<tr><th>URI:</th><td>" + htmlEscape(uri) + "</td></tr>\n"
        "<tr><th>STATUS:</th><td>401</td></tr>\n"
        "<tr><th>MESSAGE:</th><td>Authentication required</td></tr>\n"
        "<tr><th>SERVLET:</th><td>org.glassfish.jersey.servlet.ServletContainer-62ea8931</td></tr>\n"
        "</table>\n<hr/><a href=\"https://jetty.org/\">Powered by Jetty:// 12.1.11</a><hr/>\n\n</body>\n</html>\n";
    auto res = makeResponse(request.version(), request.keep_alive(), 401, std::move(body),
                            "text/html;charset=iso-8859-1", "Unauthorized");
    res.set(beast_http::field::cache_control, "must-revalidate,no-cache,no-store");
    return res;
}

std::variant<std::string, Response> authenticateRequest(Broker& broker, const Request& request,
                                                        const auth::PeerCertificate& peer) {
    const auto& service = broker.authentication();
    if (!service.enabled()) return std::string();
    std::string_view target(request.target().data(), request.target().size());
    if (!requiresAuthentication(broker, target.substr(0, target.find('?')))) return std::string();
    auth::HttpCredentials credentials{header(request, "Authorization"), header(request, "X-Pulsar-Auth-Method-Name")};
    auto result = service.authenticateHttp(credentials, peer, broker.scheduler().nowMs());
    if (!result.ok) return authenticationRequired(request);
    return result.role;
}

}  // namespace cnx::serve::http
