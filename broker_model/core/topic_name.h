#pragma once
// Pulsar topic names: `persistent://tenant/namespace/local`, short forms
// expanded as Pulsar's TopicName does (`orders` ->
// `persistent://public/default/orders`, `t/n/x` -> `persistent://t/n/x`), and
// the schema-id of reference §3.1.

#include <optional>
#include <string>
#include <string_view>

namespace cnx {

class TopicName {
public:
    /// Parses `text`; on failure returns nullopt and sets `error` to the
    /// broker's "Invalid topic name" wording.
    static std::optional<TopicName> parse(std::string_view text, std::string* error = nullptr);

    bool persistent() const { return persistent_; }
    const std::string& tenant() const { return tenant_; }
    const std::string& namespacePortion() const { return namespace_; }
    const std::string& localName() const { return local_; }
    /// `tenant/namespace`.
    std::string namespaceName() const { return tenant_ + "/" + namespace_; }
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
    /// System topics (`__change_events`, `__transaction_*`, ...) of §5.3.
    bool isSystemTopic() const;

    friend bool operator==(const TopicName&, const TopicName&) = default;
    friend auto operator<=>(const TopicName&, const TopicName&) = default;

private:
    void complete();  // sets full_ from the parts

    bool persistent_ = true;
    std::string tenant_;
    std::string namespace_;
    std::string local_;
    int partition_ = -1;
    std::string full_;  // derived from the members above: equal parts, equal full_
};

}  // namespace cnx
