#include "broker_model/core/topic_name.h"

#include <charconv>

namespace cnx {
namespace {

constexpr std::string_view kPartitionSuffix = "-partition-";

bool validSegment(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s) {
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
                  c == '_' || c == '.' || c == '=' || c == ':';
        if (!ok) return false;
    }
    return true;
}

int parsePartition(std::string_view local) {
    auto at = local.rfind(kPartitionSuffix);
    if (at == std::string_view::npos) return -1;
    auto digits = local.substr(at + kPartitionSuffix.size());
    int n = -1;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
    if (ec != std::errc() || ptr != digits.data() + digits.size() || digits.empty()) return -1;
    return n;
}

bool fail(std::string* error, std::string_view text, std::string_view why) {
    if (error) *error = "Invalid topic name: " + std::string(text) + " (" + std::string(why) + ")";
    return false;
}

}  // namespace

std::optional<TopicName> TopicName::parse(std::string_view text, std::string* error) {
    TopicName t;
    std::string_view rest = text;
    bool persistent = true;
    if (rest.starts_with("persistent://")) {
        rest.remove_prefix(13);
    } else if (rest.starts_with("non-persistent://")) {
        persistent = false;
        rest.remove_prefix(17);
    } else if (rest.find("://") != std::string_view::npos) {
        fail(error, text, "the domain must be persistent or non-persistent");
        return std::nullopt;
    } else if (rest.find('/') == std::string_view::npos) {
        if (!validSegment(rest)) {
            fail(error, text, "empty name or a character outside [A-Za-z0-9-_.=:]");
            return std::nullopt;
        }
        t.assign(true, "public", "default", rest);
        return t;
    }
    auto first = rest.find('/');
    auto second = first == std::string_view::npos ? first : rest.find('/', first + 1);
    if (first == std::string_view::npos || second == std::string_view::npos) {
        fail(error, text, "expected tenant/namespace/topic");
        return std::nullopt;
    }
    auto tenant = rest.substr(0, first);
    auto ns = rest.substr(first + 1, second - first - 1);
    auto local = rest.substr(second + 1);
    if (!validSegment(tenant) || !validSegment(ns) || local.empty()) {
        fail(error, text, "empty tenant, namespace or topic, or a character outside [A-Za-z0-9-_.=:]");
        return std::nullopt;
    }
    t.assign(persistent, tenant, ns, local);
    return t;
}

void TopicName::assign(bool persistent, std::string_view tenant, std::string_view ns, std::string_view local) {
    std::string_view domain = persistent ? "persistent://" : "non-persistent://";
    persistent_ = persistent;
    full_.clear();
    full_.reserve(domain.size() + tenant.size() + ns.size() + local.size() + 2);
    full_.append(domain).append(tenant).append(1, '/').append(ns).append(1, '/').append(local);
    tenantAt_ = static_cast<std::uint32_t>(domain.size());
    nsAt_ = static_cast<std::uint32_t>(tenantAt_ + tenant.size() + 1);
    localAt_ = static_cast<std::uint32_t>(nsAt_ + ns.size() + 1);
    partition_ = parsePartition(local);
}

std::strong_ordering operator<=>(const TopicName& a, const TopicName& b) {
    if (auto c = a.persistent_ <=> b.persistent_; c != 0) return c;
    if (auto c = a.tenant() <=> b.tenant(); c != 0) return c;
    if (auto c = a.namespacePortion() <=> b.namespacePortion(); c != 0) return c;
    return a.localName() <=> b.localName();
}

std::string_view TopicName::baseLocalName() const {
    auto local = localName();
    return partition_ < 0 ? local : local.substr(0, local.rfind(kPartitionSuffix));
}

TopicName TopicName::partitionedBase() const {
    if (partition_ < 0) return *this;
    TopicName base;
    base.assign(persistent_, tenant(), namespacePortion(), baseLocalName());
    return base;
}

TopicName TopicName::partition(int i) const {
    std::string local(baseLocalName());
    local.append(kPartitionSuffix).append(std::to_string(i));
    TopicName p;
    p.assign(persistent_, tenant(), namespacePortion(), local);
    return p;
}

std::string TopicName::schemaId() const {
    // `tenant/namespace/local` is the full name's tail, less any partition suffix.
    auto base = baseLocalName();
    return std::string(part(tenantAt_, localAt_ + base.size()));
}

bool TopicName::isSystemTopic() const {
    std::string_view local = baseLocalName();
    return local == "__change_events" || local.starts_with("__transaction_") || local.starts_with("__tc_") ||
           local.starts_with("__pulsar-") || namespacePortion() == "__system" ||
           local.ends_with("__transaction_buffer_snapshot");
}

}  // namespace cnx
