#pragma once
// The policy store and the effective values a topic uses (reference §5.3 -
// §5.5, §7.3). Each resolution records what it looked at in the trace.

#include <map>
#include <string>

#include "broker_model/policy/policies.h"
#include "broker_model/profile/profile.h"
#include "broker_model/core/topic_name.h"
#include "broker_model/core/trace.h"

namespace cnx {

/// Broker configuration and the namespace / topic policies (metadata store
/// state: survives broker restarts).
struct PolicyStore {
    BrokerConfig broker;
    std::map<std::string, NamespacePolicies, std::less<>> namespaces;  // by `tenant/namespace`
    std::map<std::string, TopicPolicies> topics;          // by partitioned base full name
    /// What a namespace holds before any policy is set: the defaults of the
    /// release it was created on (namespaceCreatedOn), stored with it.
    NamespacePolicies createdNamespace;

    /// The namespace policies of `topic` (its created defaults when never set).
    NamespacePolicies namespaceOf(const TopicName& topic) const;
    /// The stored policies of namespace `name`, created with the defaults if new.
    NamespacePolicies& namespaceFor(const std::string& name);
    /// The topic-level policies of `topic` (empty when never set).
    TopicPolicies topicOf(const TopicName& topic) const;
};

/// §5.2: the policies a namespace created on `profile`'s release stores.
NamespacePolicies namespaceCreatedOn(const BehaviourProfile& profile);

/// §5.3: the strategy producers, GetOrCreate and consumer checks use.
CompatibilityStrategy effectiveStrategy(const BehaviourProfile& profile, const PolicyStore& store,
                                        const TopicName& topic, Trace* trace);

/// §7.3: the strategy the admin endpoints use; `forCompatibilityCheck` for
/// `POST .../compatibility` (which skipped the broker level before 2.10).
CompatibilityStrategy adminStrategy(const BehaviourProfile& profile, const PolicyStore& store, const TopicName& topic,
                                    Trace* trace, bool forCompatibilityCheck = false);

/// §5.4 (+ §3.3 system topics): whether clients may register new schemas.
bool effectiveAutoUpdate(const BehaviourProfile& profile, const PolicyStore& store, const TopicName& topic,
                         Trace* trace);

/// §5.5 / §3.7: the topic's own enforced flag (the broker flag is OR-ed by ServerCnx).
bool topicValidationEnforced(const BehaviourProfile& profile, const PolicyStore& store, const TopicName& topic);

}  // namespace cnx
