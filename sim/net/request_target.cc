#include "sim/net/request_target.h"

#include <cctype>
#include <charconv>

namespace cnx::serve::http {

std::optional<RequestTarget> parseRequestTarget(std::string_view target) {
    RequestTarget out;
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

bool queryIsTrue(const RequestTarget& target, const char* key) {
    auto it = target.query.find(key);
    if (it == target.query.end() || it->second.size() != 4) return false;
    std::string v = it->second;
    for (auto& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return v == "true";
}

std::optional<std::string> percentDecode(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c == '+') {  // a form-encoded space in a query
            out += ' ';
            continue;
        }
        if (c != '%') {
            out += c;
            continue;
        }
        if (i + 2 >= text.size()) return std::nullopt;
        unsigned v = 0;
        auto [p, ec] = std::from_chars(text.data() + i + 1, text.data() + i + 3, v, 16);
        if (ec != std::errc() || p != text.data() + i + 3) return std::nullopt;
        out += static_cast<char>(v);
        i += 2;
    }
    return out;
}

}  // namespace cnx::serve::http
