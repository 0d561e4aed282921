#include "broker_model/core/topic_name.h"

#include <array>
#include <charconv>

namespace cnx {
namespace {

constexpr std::string_view kPartitionSuffix = "-partition-";

// The characters a tenant or namespace may hold: [A-Za-z0-9-_.=:]. A table,
// not a chain of comparisons: every admission parses its topic's name.
constexpr auto kSegmentChars = [] {
    std::array<bool, 256> t{};
    for (int c = 'a'; c <= 'z'; ++c) t[static_cast<unsigned char>(c)] = true;
    for (int c = 'A'; c <= 'Z'; ++c) t[static_cast<unsigned char>(c)] = true;
    for (int c = '0'; c <= '9'; ++c) t[static_cast<unsigned char>(c)] = true;
    for (char c : std::string_view("-_.=:")) t[static_cast<unsigned char>(c)] = true;
    return t;
}();

bool validSegment(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!kSegmentChars[static_cast<unsigned char>(c)]) return false;
    return true;
}

int parsePartition(std::string_view local) {
    // A partition's name ends in a digit; most names do not, and need no search.
    if (local.empty() || local.back() < '0' || local.back() > '9') return -1;
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

bool TopicName::validNamePart(std::string_view part) { return validSegment(part); }

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
    const auto domain = static_cast<std::uint32_t>(text.size() - rest.size());
    if (domain == 0) {  // `tenant/namespace/local`: the domain is added
        t.assign(persistent, tenant, ns, local);
        return t;
    }
    // The text is the full name already: kept as it is, the parts found in it.
    t.persistent_ = persistent;
    t.full_.assign(text);
    t.tenantAt_ = domain;
    t.nsAt_ = static_cast<std::uint32_t>(domain + first + 1);
    t.localAt_ = static_cast<std::uint32_t>(domain + second + 1);
    t.partition_ = parsePartition(local);
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

std::string TopicName::schemaId() const { return std::string(schemaIdView()); }

std::string_view TopicName::schemaIdView() const {
    // `tenant/namespace/local` is the full name's tail, less any partition suffix.
    return part(tenantAt_, localAt_ + baseLocalName().size());
}

bool TopicName::isSystemTopic() const {
    std::string_view local = baseLocalName();
    return local == "__change_events" || local.starts_with("__transaction_") || local.starts_with("__tc_") ||
           local.starts_with("__pulsar-") || namespacePortion() == "__system" ||
           local.ends_with("__transaction_buffer_snapshot");
}

}  // namespace cnx
