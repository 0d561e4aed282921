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
    if (rest.starts_with("persistent://")) {
        rest.remove_prefix(13);
    } else if (rest.starts_with("non-persistent://")) {
        t.persistent_ = false;
        rest.remove_prefix(17);
    } else if (rest.find("://") != std::string_view::npos) {
        fail(error, text, "the domain must be persistent or non-persistent");
        return std::nullopt;
    } else if (rest.find('/') == std::string_view::npos) {
        t.tenant_ = "public";
        t.namespace_ = "default";
        t.local_ = std::string(rest);
        if (!validSegment(rest)) {
            fail(error, text, "empty name or a character outside [A-Za-z0-9-_.=:]");
            return std::nullopt;
        }
        t.partition_ = parsePartition(t.local_);
        t.complete();
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
    t.tenant_ = std::string(tenant);
    t.namespace_ = std::string(ns);
    t.local_ = std::string(local);
    t.partition_ = parsePartition(t.local_);
    t.complete();
    return t;
}

void TopicName::complete() {
    std::string_view domain = persistent_ ? "persistent://" : "non-persistent://";
    full_.clear();
    full_.reserve(domain.size() + tenant_.size() + namespace_.size() + local_.size() + 2);
    full_.append(domain).append(tenant_).append(1, '/').append(namespace_).append(1, '/').append(local_);
}

TopicName TopicName::partitionedBase() const {
    if (partition_ < 0) return *this;
    TopicName base = *this;
    base.local_ = local_.substr(0, local_.rfind(kPartitionSuffix));
    base.partition_ = -1;
    base.complete();
    return base;
}

TopicName TopicName::partition(int i) const {
    TopicName p = partitionedBase();
    p.local_ += std::string(kPartitionSuffix) + std::to_string(i);
    p.partition_ = i;
    p.complete();
    return p;
}

std::string TopicName::schemaId() const {
    std::string_view local = local_;
    if (partition_ >= 0) local = local.substr(0, local.rfind(kPartitionSuffix));
    std::string id;
    id.reserve(tenant_.size() + namespace_.size() + local.size() + 2);
    id.append(tenant_).append(1, '/').append(namespace_).append(1, '/').append(local);
    return id;
}

bool TopicName::isSystemTopic() const {
    std::string_view local = local_;
    if (partition_ >= 0) local = local.substr(0, local.rfind(kPartitionSuffix));
    return local == "__change_events" || local.starts_with("__transaction_") || local.starts_with("__tc_") ||
           local.starts_with("__pulsar-") || namespace_ == "__system" || local.ends_with("__transaction_buffer_snapshot");
}

}  // namespace cnx
