#pragma once
// The modelled broker: behaviour profile, configuration and policies, the
// schema registry, loaded topics and the state that outlives a broker restart
// (metadata store and managed ledgers). ServerCnx and the admin API act on it.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "broker_model/auth/authentication.h"
#include "broker_model/policy/cluster_metadata.h"
#include "broker_model/broker/connection_registry.h"
#include "broker_model/broker/message_log.h"
#include "broker_model/runtime/scheduler.h"
#include "broker_model/policy/advertised_listeners.h"
#include "broker_model/policy/authorization.h"
#include "broker_model/policy/policy_resolution.h"
#include "broker_model/profile/profile.h"
#include "broker_model/registry/schema_registry.h"
#include "broker_model/broker/topic.h"

namespace cnx {

/// What a persistent topic keeps in BookKeeper / the metadata store.
struct ManagedLedgerState {
    std::uint64_t retainedBytes = 0;                   // §3.5 "retained ledger size"
    std::map<std::string, std::string> durableCursors;  // subscription -> subType
    MessageLog log;                                     // the entries, as sent
    std::map<std::string, Cursor> cursorState;          // durable subscription -> acknowledged state
    bool terminated = false;                            // admin terminate: no more producers or entries
};

class Broker {
public:
    /// The most partitions a topic may have: cnxsim keeps every partition in
    /// memory, so it always sets what Pulsar's `maxNumPartitionsPerPartitionedTopic`
    /// (0, unbounded, by default) would; scenarios and the admin API refuse more
    /// as the broker does past that key (issue 40 item 4).
    static constexpr int kMaxPartitions = 100'000;

    /// `profile` and `scheduler` must outlive the broker, and the scheduler serves
    /// this broker alone: continuations still pending when the broker is
    /// destroyed are dropped, never run against it. All calls on one thread.
    /// The broker goes away with its topics: the connections still open then
    /// are let go (BrokerConnection::brokerGone) without detaching their
    /// producers and consumers one by one, and may be destroyed after it.
    /// `fastPaths` off: its checks and connections take no fast path, only their
    /// references (core/fast_paths.h); the answers are the same.
    Broker(const BehaviourProfile& profile, Scheduler& scheduler, FastPaths fastPaths = FastPaths::on);
    ~Broker();
    Broker(const Broker&) = delete;
    Broker& operator=(const Broker&) = delete;

    const BehaviourProfile& profile() const { return *profile_; }
    /// Whether the broker's checks and connections take their fast paths (set at construction).
    FastPaths fastPaths() const { return fastPaths_; }
    Scheduler& scheduler() { return scheduler_; }
    PolicyStore& policies() { return policies_; }
    const PolicyStore& policies() const { return policies_; }
    SchemaRegistry& registry() { return registry_; }
    /// Tenants and namespaces (survive a restart, like policies).
    ClusterMetadata& metadata() { return metadata_; }
    /// Authorization over the broker's settings, tenants and namespace policies
    /// (policy/authorization.h); enabled() with `authorizationEnabled`.
    auth::Authorizer authorizer() const { return {authorization_, metadata_, policies_}; }
    const auth::AuthorizationSettings& authorizationSettings() const { return authorization_; }
    const ClusterMetadata& metadata() const { return metadata_; }
    const SchemaRegistry& registry() const { return registry_; }

    /// Applies a broker.conf setting; the error text for an unknown key or bad
    /// value. Settings survive a restart; unset keys take the release's defaults.
    std::optional<std::string> setConfig(std::string_view key, std::string_view value);
    /// Removes a setting: the key goes back to the release's default.
    void resetConfig(std::string_view key);
    /// The authentication the settings describe (issue 44), rebuilt when they
    /// change (a reset forgets them). When they are unusable, one that refuses
    /// every client (as no broker would start with them): see authenticationProblem().
    const auth::AuthenticationService& authentication() const { return *authentication_; }
    /// Why the authentication settings are unusable, naming the setting (`cnxsim serve`
    /// exits 2 with it); nullopt when they are usable.
    const std::optional<std::string>& authenticationProblem() const { return authenticationProblem_; }
    /// The settings given (broker.conf, --set, dynamic updates), by key.
    const std::map<std::string, std::string>& configOverrides() const { return configOverrides_; }

    /// Restarts on `profile` (a broker upgrade or restart): every connection
    /// is told to close its producers and consumers and is then dropped (a
    /// graceful shutdown unloads every topic first), loaded topics go; stored
    /// schemas, policies, settings and managed ledgers stay.
    void restart(const BehaviourProfile& profile);

    /// A fresh broker on `profile`: restarts (every connection dropped), then
    /// forgets the settings, policies, tenants and namespaces, stored schemas,
    /// declared topics and managed ledgers. Connection and ledger ids keep counting.
    void reset(const BehaviourProfile& profile);

    /// The client connections the broker holds.
    ConnectionRegistry& connections() { return connections_; }

    /// What the traces of requests and admin calls keep from now on (core/trace.h):
    /// every detail (the default) or outcomes only. The broker's owner sets it
    /// (the runner, per step); each trace made keeps the mode it was made with.
    void setTraceDetail(TraceDetail detail) { traceDetail_ = detail; }
    TraceDetail traceDetail() const { return traceDetail_; }
    /// A new trace in the mode set.
    TracePtr newTrace() const { return std::make_shared<Trace>(traceDetail_); }

    /// The loaded topic, or nullptr.
    Topic* findTopic(const TopicName& name);
    /// The same by the topic's full name as TopicName::toString() spells it
    /// (what a connection keeps for its producers and consumers): no parse.
    Topic* findTopic(const std::string& fullName);
    /// Loads `name`, creating it when `create` (auto-creation) or when it already exists.
    /// nullptr when it does not exist and may not be created. Continuations keep
    /// the returned reference: a topic unloaded meanwhile stays alive, fenced.
    std::shared_ptr<Topic> loadTopic(const TopicName& name, bool create);
    /// Whether the topic exists (loaded, declared, or with stored state).
    bool topicExists(const TopicName& name) const;
    /// Declares a topic (scenario `topics:`); `partitions` > 0 makes it partitioned.
    void declareTopic(const TopicName& name, int partitions);
    /// Partition count of a partitioned topic's base name, 0 otherwise.
    int partitionsOf(const TopicName& name) const;
    /// #19086 (profile rejectsPartitionBeyondCount): the refusal of a persistent
    /// `-partition-N` that is not loaded, with N at or past its partitioned
    /// topic's count (BrokerService.getTopic); nullopt when it may be loaded.
    std::optional<BrokerError> partitionBeyondCount(const TopicName& name) const;
    /// Every loaded topic, by full name.
    const std::map<std::string, std::shared_ptr<Topic>>& loadedTopics() const { return topics_; }
    /// Unloads one topic (and its partitions): their producers and consumers
    /// are closed through their connections (CLOSE_PRODUCER / CLOSE_CONSUMER),
    /// then each topic is fenced and dropped.
    void unload(const TopicName& name);
    /// Removes a topic and its stored data (admin delete); attached producers
    /// and consumers are closed first, as `unload` closes them. The schema: §3.6.
    void deleteTopicState(const TopicName& name);
    /// Terminates a persistent topic (PersistentTopic.terminate): its managed
    /// ledger takes no more entries, its producers are closed (CLOSE_PRODUCER)
    /// and new ones refused with TopicTerminated. The last entry's position
    /// (entry id -1 as unsigned when the log is empty).
    Position terminate(Topic& topic);

    ManagedLedgerState& ledger(const TopicName& name);
    /// What every topic's message log holds, against the bound below.
    const std::shared_ptr<LogBudget>& logBudget() const { return logBudget_; }
    /// Bytes of messages the logs may hold together (0: no bound); over it a
    /// SEND is refused with PersistenceError (ServerCnx::handleSend).
    void setMaxLogBytes(std::uint64_t bytes) { logBudget_->limit = bytes; }
    /// The default bound: 256 MiB of messages not yet acknowledged by every subscription.
    static constexpr std::uint64_t kDefaultMaxLogBytes = 256ull * 1024 * 1024;
    const ManagedLedgerState* findLedger(const TopicName& name) const;

    std::uint64_t nextConnectionId() { return ++lastConnectionId_; }
    /// A new ledger id (a topic's log; ids are never reused).
    std::uint64_t nextLedgerId() { return ++lastLedgerId_; }

    /// The `pulsar://host:port` URL clients reach this broker at: the answer of
    /// a LOOKUP (a server sets it once it listens; empty in the simulator).
    const std::string& serviceUrl() const { return serviceUrl_; }
    void setServiceUrl(std::string url) { serviceUrl_ = std::move(url); }
    /// Where a server listens: the host it was given (--bind), its binary and web ports.
    struct ListenAddress {
        std::string host;
        std::uint16_t port = 0;
        std::uint16_t webPort = 0;
        std::uint16_t tlsPort = 0;  // brokerServicePortTls (serve's TLS listener); 0: none
    };
    /// Sets the listen address, and serviceUrl() to `pulsar://host:port`.
    void setListenAddress(ListenAddress address);
    /// What a lookup of a topic this broker owns answers (NamespaceService,
    /// PulsarService.brokerUrl): the internal listener's URLs when
    /// `advertisedListeners` is set, else `advertisedAddress` (or the listen
    /// host) with the ports; for `listenerName` (non-empty) that listener's, or
    /// the refusal text when the broker does not have it.
    std::variant<LookupData, std::string> lookupData(std::string_view listenerName) const;
    /// Full names of the topics of `tenant/namespace` (loaded, declared, or with
    /// stored state; a partitioned topic as its partitions), sorted, of the
    /// persistent and/or non-persistent domain.
    std::vector<std::string> topicsOfNamespace(const std::string& ns, bool persistent, bool nonPersistent) const;
    /// Full base names of the partitioned topics of `tenant/namespace` in one domain, sorted.
    std::vector<std::string> partitionedTopicsOfNamespace(const std::string& ns, bool persistent) const;

private:
    void applyConfig();
    void rebuildAuthentication(const AuthSettings& settings);
    /// Fences and drops the loaded topic `full`, if any.
    void dropLoaded(const std::string& full);

    const BehaviourProfile* profile_;
    FastPaths fastPaths_;
    std::map<std::string, std::string> configOverrides_;  // broker.conf lines given by the scenario
    std::shared_ptr<const auth::AuthenticationService> authentication_;
    std::optional<std::string> authenticationProblem_;
    AuthSettings authenticationSettings_;  // what authentication_ was built from
    Scheduler& scheduler_;
    PolicyStore policies_;
    ClusterMetadata metadata_;
    auth::AuthorizationSettings authorization_;  // from policies_.broker, refreshed by applyConfig
    SchemaRegistry registry_;
    std::map<std::string, std::shared_ptr<Topic>> topics_;   // loaded, by full name
    std::set<std::string> declared_;                          // full names of existing non-partitioned topics / partitions
    std::map<std::string, int> partitioned_;                  // base full name -> partitions
    // Before ledgers_: the logs return their bytes to it when they go.
    std::shared_ptr<LogBudget> logBudget_ = std::make_shared<LogBudget>(LogBudget{0, kDefaultMaxLogBytes});
    std::map<std::string, ManagedLedgerState> ledgers_;       // persistent topics, by full name
    std::uint64_t lastConnectionId_ = 0;
    std::uint64_t lastLedgerId_ = 0;
    std::string serviceUrl_;
    ListenAddress listenAddress_;
    ConnectionRegistry connections_;
    TraceDetail traceDetail_ = TraceDetail::all;
};

}  // namespace cnx
