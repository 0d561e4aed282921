#pragma once
// Pulsar topic names: `persistent://tenant/namespace/local`, short forms
// expanded as Pulsar's TopicName does (`orders` ->
// `persistent://public/default/orders`, `t/n/x` -> `persistent://t/n/x`), and
// the schema-id of reference §3.1.

#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cnx {

class TopicName {
public:
    /// Parses `text`; on failure returns nullopt and sets `error` to the
    /// broker's "Invalid topic name" wording.
    static std::optional<TopicName> parse(std::string_view text, std::string* error = nullptr);
    /// Pulsar's NamedEntity.checkName: a tenant or namespace name is
    /// [-=:.A-Za-z0-9_]+ (Java's `\w` is ASCII), so no byte past ASCII (no
    /// invalid UTF-8 either) is ever part of one.
    static bool validNamePart(std::string_view part);

    bool persistent() const { return persistent_; }
    /// The parts are views into the full name: valid while this name is.
    std::string_view tenant() const { return part(tenantAt_, nsAt_ - 1); }
    std::string_view namespacePortion() const { return part(nsAt_, localAt_ - 1); }
    std::string_view localName() const { return part(localAt_, full_.size()); }
    /// `tenant/namespace/local`: the full name less its domain, any partition suffix kept.
    std::string_view withoutDomain() const { return part(tenantAt_, full_.size()); }
    /// `tenant/namespace`.
    std::string namespaceName() const { return std::string(namespaceView()); }
    /// namespaceName() as a view into the full name: valid while this name is.
    std::string_view namespaceView() const { return part(tenantAt_, localAt_ - 1); }
    /// Full name, `persistent://tenant/namespace/local` (made once, when the name is).
    const std::string& toString() const { return full_; }
    /// -1 unless the local name ends in `-partition-<n>`.
    int partitionIndex() const { return partition_; }
    /// The partitioned base name (partition suffix removed), full form.
    TopicName partitionedBase() const;
    /// The name of partition `i` of this (base) topic.
    TopicName partition(int i) const;
    /// §3.1: `tenant/namespace/local` of the partitioned base, no domain.
    std::string schemaId() const;
    /// schemaId() as a view into the full name: valid while this name is.
    std::string_view schemaIdView() const;
    /// System topics (`__change_events`, `__transaction_*`, ...) of §5.3.
    bool isSystemTopic() const;

    /// Equal names have equal full texts; the order is that of (persistent,
    /// tenant, namespace, local name).
    friend bool operator==(const TopicName& a, const TopicName& b) { return a.full_ == b.full_; }
    friend std::strong_ordering operator<=>(const TopicName& a, const TopicName& b);

private:
    /// Sets full_ and the offsets from the parts.
    void assign(bool persistent, std::string_view tenant, std::string_view ns, std::string_view local);
    std::string_view part(std::size_t from, std::size_t to) const {
        return std::string_view(full_).substr(from, to - from);
    }
    /// The local name without its partition suffix.
    std::string_view baseLocalName() const;

    std::string full_;  // `<domain>://tenant/namespace/local`; the parts are ranges of it
    std::uint32_t tenantAt_ = 0;
    std::uint32_t nsAt_ = 0;
    std::uint32_t localAt_ = 0;
    int partition_ = -1;
    bool persistent_ = true;
};

}  // namespace cnx
