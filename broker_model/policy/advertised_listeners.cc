#include "broker_model/policy/advertised_listeners.h"

#include <vector>

namespace cnx {
namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

/// `scheme://host:port` with a host and a decimal port, as java.net.URI reads a listener URL.
bool wellFormed(std::string_view url, std::string_view scheme) {
    if (!url.starts_with(scheme)) return false;
    auto rest = url.substr(scheme.size());
    auto colon = rest.rfind(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 == rest.size()) return false;
    for (char c : rest.substr(colon + 1))
        if (c < '0' || c > '9') return false;
    return rest.substr(0, colon).find('/') == std::string_view::npos;
}

}  // namespace

// MultipleListenerValidator.validateAndAnalysisAdvertisedListener: split on
// ',', each `name:url` (index of the first ':' > 0), the internal listener
// defaults to the first name and must be one of them, and a name has at most
// one pulsar:// and one pulsar+ssl:// URL.
std::variant<AdvertisedListeners, std::string> parseAdvertisedListeners(std::string_view text,
                                                                        std::string_view internalName) {
    AdvertisedListeners out;
    if (trim(text).empty()) return out;
    std::string first;
    std::size_t at = 0;
    while (at <= text.size()) {
        auto comma = text.find(',', at);
        if (comma == std::string_view::npos) comma = text.size();
        auto entry = text.substr(at, comma - at);
        at = comma + 1;
        if (entry.empty()) continue;  // StringUtils.split drops empty tokens
        auto colon = entry.find(':');
        if (colon == std::string_view::npos || colon == 0)
            return "the configure entry `advertisedListeners` is invalid. because " + std::string(entry) +
                   " do not contain listener name";
        std::string name(trim(entry.substr(0, colon)));
        auto url = trim(entry.substr(colon + 1));
        if (first.empty()) first = name;
        auto& listener = out.byName[name];
        bool tls = url.starts_with("pulsar+ssl://");
        if (!wellFormed(url, tls ? "pulsar+ssl://" : "pulsar://"))
            return "the url `" + std::string(url) + "` of listener `" + name + "` is not a pulsar:// or pulsar+ssl:// URL";
        auto& slot = tls ? listener.brokerUrlTls : listener.brokerUrl;
        if (slot) return "there are redundant configure for listener `" + name + "`";
        slot = std::string(url);
    }
    out.internal = internalName.empty() ? first : std::string(internalName);
    if (!out.byName.contains(out.internal))
        return std::string("the `advertisedListeners` configure do not contain `internalListenerName` entry");
    return out;
}

std::optional<std::string> advertisedListenersProblem(std::string_view text, std::string_view internalName) {
    auto parsed = parseAdvertisedListeners(text, internalName);
    if (auto* e = std::get_if<std::string>(&parsed)) return *e;
    return std::nullopt;
}

}  // namespace cnx
