#include "sim/serve/broker_conf.h"

#include <algorithm>

#include "broker_model/policy/policies.h"
#include "sim/io/file_read.h"
#include "sim/scenario/did_you_mean.h"
#include "sim/scenario/tls_settings.h"

namespace cnx::serve {
namespace {

constexpr sim::FileKind kBrokerConfFile{"broker.conf files", std::uintmax_t{1} << 20};

std::string_view trim(std::string_view s) {
    auto ws = [](char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\r'; };
    while (!s.empty() && ws(s.front())) s.remove_prefix(1);
    while (!s.empty() && ws(s.back())) s.remove_suffix(1);
    return s;
}

}  // namespace

BrokerConf parseBrokerConf(std::string_view text, const std::string& name) {
    BrokerConf out;
    auto keys = BrokerConfig::keys();
    int lineNo = 0;
    std::string logical;
    int logicalStart = 0;
    std::size_t at = 0;
    while (at <= text.size()) {
        auto end = text.find('\n', at);
        if (end == std::string_view::npos) end = text.size();
        std::string_view raw = text.substr(at, end - at);
        at = end + 1;
        ++lineNo;
        std::string_view line = trim(raw);
        if (logical.empty()) {
            if (line.empty() || line.front() == '#' || line.front() == '!') {
                if (end == text.size()) break;
                continue;
            }
            logicalStart = lineNo;
        }
        // A line ending in an odd number of backslashes continues on the next.
        std::size_t slashes = 0;
        while (slashes < line.size() && line[line.size() - 1 - slashes] == '\\') ++slashes;
        if (slashes % 2 == 1 && end != text.size()) {
            logical.append(line.substr(0, line.size() - 1));
            continue;
        }
        logical.append(line);
        std::string_view entry = logical;
        auto sep = entry.find_first_of("=: \t");
        std::string key(trim(entry.substr(0, sep)));
        std::string value;
        if (sep != std::string_view::npos) {
            std::string_view rest = trim(entry.substr(sep));
            if (!rest.empty() && (rest.front() == '=' || rest.front() == ':')) rest = trim(rest.substr(1));
            value = std::string(rest);
        }
        bool isKnown = std::find(keys.begin(), keys.end(), key) != keys.end();
        if (TlsSettings::isKey(key)) {
            out.transport.push_back({key, value, logicalStart});
        } else if (isKnown) {
            if (!value.empty()) out.known.push_back({key, value, logicalStart});
        } else {
            out.ignored.push_back({key, value, logicalStart});
            // A near miss of a key the model reads (a couple of letters off), not
            // another Pulsar key that shares a stem (allowAutoTopicCreationType).
            auto hint = sim::closestMatch(key, keys);
            auto gap = hint ? (hint->size() > key.size() ? hint->size() - key.size() : key.size() - hint->size()) : 99;
            if (hint && gap <= 2)
                out.warnings.push_back(name + ":" + std::to_string(logicalStart) + ": '" + key +
                                       "' is not a setting the model reads (ignored); did you mean '" + *hint + "'?");
        }
        logical.clear();
        if (end == text.size()) break;
    }
    return out;
}

std::variant<BrokerConf, std::string> readBrokerConf(const std::filesystem::path& path) {
    auto read = sim::readFileBounded(path, kBrokerConfFile);
    if (auto* e = std::get_if<sim::FileReadError>(&read)) return e->message();
    return parseBrokerConf(std::get<std::string>(read), path.string());
}

std::optional<std::string> configValueText(const BrokerConfig& c, std::string_view key) {
    auto flag = [](bool b) { return std::string(b ? "true" : "false"); };
    if (key == "isSchemaValidationEnforced") return flag(c.isSchemaValidationEnforced);
    if (key == "schemaCompatibilityStrategy") return std::string(to_string_view(c.schemaCompatibilityStrategy));
    if (key == "systemTopicSchemaCompatibilityStrategy")
        return std::string(to_string_view(c.systemTopicSchemaCompatibilityStrategy));
    if (key == "isAllowAutoUpdateSchemaEnabled") return flag(c.isAllowAutoUpdateSchemaEnabled);
    if (key == "replicatorPrefix") return c.replicatorPrefix;
    if (key == "topicLevelPoliciesEnabled") return flag(c.topicLevelPoliciesEnabled);
    if (key == "systemTopicEnabled") return flag(c.systemTopicEnabled);
    if (key == "schemaJsonAllowLegacyJacksonFormat") return flag(c.schemaJsonAllowLegacyJacksonFormat);
    if (key == "allowAutoTopicCreation") return flag(c.allowAutoTopicCreation);
    if (key == "allowAutoSubscriptionCreation") return flag(c.allowAutoSubscriptionCreation);
    if (key == "acknowledgmentAtBatchIndexLevelEnabled") return flag(c.acknowledgmentAtBatchIndexLevelEnabled);
    if (key == "delayedDeliveryEnabled") return flag(c.delayedDeliveryEnabled);
    if (key == "maxMessageSize") return std::to_string(c.maxMessageSize);
    if (key == "advertisedAddress") return c.advertisedAddress;
    if (key == "advertisedListeners") return c.advertisedListeners;
    if (key == "internalListenerName") return c.internalListenerName;
    return c.auth.valueText(key);
}

}  // namespace cnx::serve
