#pragma once
// A request target as the admin routes and the recorder read it: the decoded
// path segments (empty ones dropped) and the decoded query. One parser, so a
// recorded admin call means what the server took it to mean.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cnx::serve::http {

struct RequestTarget {
    std::vector<std::string> segments;          // decoded path segments, empty ones dropped
    std::map<std::string, std::string> query;   // decoded; a key without `=` has an empty value
};

/// nullopt for a bad `%`-escape anywhere in the path or query.
std::optional<RequestTarget> parseRequestTarget(std::string_view target);

/// `?key=true` as Jersey parses a boolean: `true` in any case.
bool queryIsTrue(const RequestTarget& target, const char* key);

/// `%XX` decoded, `+` as a space; nullopt for a bad escape.
std::optional<std::string> percentDecode(std::string_view text);

}  // namespace cnx::serve::http
