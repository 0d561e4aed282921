#pragma once
// broker.conf's `advertisedListeners` (PIP-61, MultipleListenerValidator):
// `name:pulsar://host:port,name:pulsar+ssl://host:port,...`, each name with at
// most one URL per scheme, and `internalListenerName` (default: the first
// name). A client's LOOKUP naming a listener is answered with its URLs; a
// name the broker does not have is refused (NamespaceService: "the broker do
// not have <name> listener").

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace cnx {

struct AdvertisedListener {
    std::optional<std::string> brokerUrl;     // pulsar://
    std::optional<std::string> brokerUrlTls;  // pulsar+ssl://
};

/// LookupData (pulsar-common): where a client is sent for a topic this broker owns.
struct LookupData {
    std::string brokerUrl;
    std::optional<std::string> brokerUrlTls;
    std::string httpUrl;
};

struct AdvertisedListeners {
    std::map<std::string, AdvertisedListener, std::less<>> byName;
    std::string internal;  // internalListenerName, or the first name given
};

/// The listeners `text` names (empty text: none), or why a broker would refuse
/// to start with it. `internalName` non-empty must be one of them.
std::variant<AdvertisedListeners, std::string> parseAdvertisedListeners(std::string_view text,
                                                                        std::string_view internalName);
/// Only the refusal of parseAdvertisedListeners, if any.
std::optional<std::string> advertisedListenersProblem(std::string_view text, std::string_view internalName);

}  // namespace cnx
