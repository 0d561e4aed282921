#include "broker_model/broker/broker.h"

namespace cnx {

Broker::Broker(const BehaviourProfile& profile, Scheduler& scheduler, FastPaths fastPaths)
    : profile_(&profile), fastPaths_(fastPaths), scheduler_(scheduler), registry_(profile, scheduler, fastPaths) {
    // Namespaces exist from the start (cluster set-up) with this release's defaults.
    policies_.createdNamespace = namespaceCreatedOn(profile);
    applyConfig();
}

Broker::~Broker() {
    // Registry, admin and connection continuations capture parts of this broker.
    scheduler_.discardPending();
    // The topics go first, so no connection detaches from them one by one
    // (which would also dispatch to the consumers of the others); then the
    // connections still open let go of the broker.
    topics_.clear();
    for (auto* c : connections_.snapshot()) c->brokerGone();
}

// §5.6: the release's defaults, then the scenario's broker.conf lines.
void Broker::applyConfig() {
    BrokerConfig config;
    config.schemaCompatibilityStrategy = profile_->brokerStrategyDefault;
    config.acknowledgmentAtBatchIndexLevelEnabled = profile_->brokerBatchIndexAckDefault;
    for (const auto& [key, value] : configOverrides_) config.set(key, value);
    policies_.broker = config;
    registry_.setAllowLegacyJsonFormat(config.schemaJsonAllowLegacyJacksonFormat);
    if (!authentication_ || config.auth != authenticationSettings_) rebuildAuthentication(config.auth);
    authorization_ = {config.auth.authenticationEnabled, config.auth.authorizationEnabled, config.auth.superUserRoles,
                      config.auth.authorizationAllowWildcardsMatching};
}

// Keys and files are read here, once per change of the settings, as a broker reads them at start.
void Broker::rebuildAuthentication(const AuthSettings& settings) {
    authenticationSettings_ = settings;
    authenticationProblem_.reset();
    auto made = auth::AuthenticationService::create(settings);
    if (auto* service = std::get_if<std::shared_ptr<const auth::AuthenticationService>>(&made)) {
        authentication_ = std::move(*service);
        return;
    }
    authenticationProblem_ = std::get<std::string>(made);
    authentication_ = auth::AuthenticationService::refusingAll();
}

std::optional<std::string> Broker::setConfig(std::string_view key, std::string_view value) {
    BrokerConfig probe;
    if (auto err = probe.set(key, value)) return err;
    configOverrides_[std::string(key)] = std::string(value);
    applyConfig();
    return std::nullopt;
}

void Broker::resetConfig(std::string_view key) {
    configOverrides_.erase(std::string(key));
    applyConfig();
}

void Broker::restart(const BehaviourProfile& profile) {
    for (auto* c : connections_.snapshot()) c->closeAll();
    for (auto* c : connections_.snapshot()) c->disconnect();
    for (auto& [_, topic] : topics_) topic->fence();
    topics_.clear();
    profile_ = &profile;
    registry_.setProfile(profile);
    applyConfig();
}

void Broker::reset(const BehaviourProfile& profile) {
    restart(profile);
    configOverrides_.clear();
    policies_ = PolicyStore{};
    policies_.createdNamespace = namespaceCreatedOn(profile);
    metadata_ = ClusterMetadata{};
    registry_.clear();
    declared_.clear();
    partitioned_.clear();
    ledgers_.clear();
    applyConfig();
}

void Broker::setListenAddress(ListenAddress address) {
    bool v6 = address.host.find(':') != std::string::npos;
    serviceUrl_ = "pulsar://" + (v6 ? "[" + address.host + "]" : address.host) + ":" + std::to_string(address.port);
    listenAddress_ = std::move(address);
}

// PulsarService.brokerUrl / webAddress: ServiceConfigurationUtils.getInternalListener
// (advertisedAddress, else the host's name; cnxsim: the address it listens on),
// and NamespaceService.findBrokerServiceUrl for a named listener.
std::variant<LookupData, std::string> Broker::lookupData(std::string_view listenerName) const {
    const auto& config = policies_.broker;
    std::string host = config.advertisedAddress.empty() ? listenAddress_.host : config.advertisedAddress;
    if (host.find(':') != std::string::npos) host = "[" + host + "]";
    LookupData data;
    data.brokerUrl = listenAddress_.port != 0 ? "pulsar://" + host + ":" + std::to_string(listenAddress_.port) : serviceUrl_;
    data.httpUrl = "http://" + host + ":" + std::to_string(listenAddress_.webPort);
    // PulsarService.brokerUrlTls: set when brokerServicePortTls is.
    if (listenAddress_.tlsPort != 0) data.brokerUrlTls = "pulsar+ssl://" + host + ":" + std::to_string(listenAddress_.tlsPort);
    auto parsed = parseAdvertisedListeners(config.advertisedListeners, config.internalListenerName);
    if (auto* e = std::get_if<std::string>(&parsed)) return *e;  // refused at start-up; never reached by a served broker
    const auto& listeners = std::get<AdvertisedListeners>(parsed);
    auto pick = [&](const AdvertisedListener& l) {
        if (l.brokerUrl) data.brokerUrl = *l.brokerUrl;
        data.brokerUrlTls = l.brokerUrlTls;
    };
    if (!listenerName.empty()) {
        auto it = listeners.byName.find(listenerName);
        if (it == listeners.byName.end()) return "the broker do not have " + std::string(listenerName) + " listener";
        pick(it->second);
        return data;
    }
    if (auto internal = listeners.byName.find(listeners.internal); internal != listeners.byName.end()) pick(internal->second);
    return data;
}

Topic* Broker::findTopic(const TopicName& name) { return findTopic(name.toString()); }

Topic* Broker::findTopic(const std::string& fullName) {
    auto it = topics_.find(fullName);
    return it == topics_.end() ? nullptr : it->second.get();
}

bool Broker::topicExists(const TopicName& name) const {
    const auto& full = name.toString();
    if (topics_.count(full) || declared_.count(full) || ledgers_.count(full)) return true;
    if (name.partitionIndex() < 0) return false;
    auto it = partitioned_.find(name.partitionedBase().toString());
    return it != partitioned_.end() && name.partitionIndex() < it->second;
}

std::shared_ptr<Topic> Broker::loadTopic(const TopicName& name, bool create) {
    const auto& full = name.toString();
    // Finding the topic loaded reads "loaded"; creating it, unloading and
    // deleting it write it.
    if (auto it = topics_.find(full); it != topics_.end()) {
        scheduler_.touch("loaded", full, false);
        return it->second;
    }
    scheduler_.touch("loaded", full, true);
    if (!topicExists(name) && !create) return nullptr;
    declared_.insert(full);
    auto topic = std::make_shared<Topic>(name, *this);
    if (name.persistent()) ledger(name);  // a managed ledger exists from creation on
    topics_.emplace(full, topic);
    return topic;
}

void Broker::dropLoaded(const std::string& full) {
    scheduler_.touch("loaded", full, true);
    auto it = topics_.find(full);
    if (it == topics_.end()) return;
    it->second->fence();
    topics_.erase(it);
}

void Broker::declareTopic(const TopicName& name, int partitions) {
    metadata_.declareNamespace(name.namespaceName());
    if (partitions > 0) {
        partitioned_[name.partitionedBase().toString()] = partitions;
        for (int i = 0; i < partitions; ++i) declared_.insert(name.partition(i).toString());
        return;
    }
    declared_.insert(name.toString());
}

int Broker::partitionsOf(const TopicName& name) const {
    if (name.partitionIndex() >= 0) return 0;
    auto it = partitioned_.find(name.toString());
    return it == partitioned_.end() ? 0 : it->second;
}

// BrokerService.getTopic (#19086): a topic already loaded is returned as it is;
// otherwise a partition index at or past the count PARTITIONED_METADATA reports
// fails with NotAllowedException. A name whose base is not partitioned may end
// in `-partition-N` and is loaded as a topic of its own.
std::optional<BrokerError> Broker::partitionBeyondCount(const TopicName& name) const {
    if (!profile_->rejectsPartitionBeyondCount || !name.persistent() || name.partitionIndex() < 0) return std::nullopt;
    if (topics_.count(name.toString())) return std::nullopt;
    int partitions = partitionsOf(name.partitionedBase());
    if (partitions == 0 || name.partitionIndex() < partitions) return std::nullopt;
    // ServerCnx answers the exception's message alone (getClientErrorCode(cause), cause.getMessage()).
    return BrokerError{RefusalKind::notAllowed,
                       "Illegal topic partition name " + name.toString() + " with max allowed " +
                           std::to_string(partitions) + " partitions",
                       std::string()};
}

void Broker::unload(const TopicName& name) {
    for (auto* c : connections_.snapshot()) c->closeTopic(name.partitionedBase());
    dropLoaded(name.toString());
    for (int i = 0, n = partitionsOf(name); i < n; ++i) dropLoaded(name.partition(i).toString());
}

void Broker::deleteTopicState(const TopicName& name) {
    for (auto* c : connections_.snapshot()) c->closeTopic(name.partitionedBase());
    auto drop = [this](const TopicName& t) {
        dropLoaded(t.toString());
        declared_.erase(t.toString());
        ledgers_.erase(t.toString());
    };
    int n = partitionsOf(name);
    for (int i = 0; i < n; ++i) drop(name.partition(i));
    partitioned_.erase(name.toString());
    drop(name);
}

Position Broker::terminate(Topic& topic) {
    ledger(topic.name()).terminated = true;
    // PersistentTopic.terminate: once the ledger is terminated every producer is disconnected.
    for (auto* c : connections_.snapshot()) c->closeProducers(topic.name());
    return topic.lastPosition();
}

std::vector<std::string> Broker::topicsOfNamespace(const std::string& ns, bool persistent, bool nonPersistent) const {
    std::set<std::string> found;
    auto consider = [&](const std::string& full) {
        auto name = TopicName::parse(full);
        if (!name || name->namespaceName() != ns) return;
        if (name->persistent() ? persistent : nonPersistent) found.insert(full);
    };
    for (const auto& [full, _] : topics_) consider(full);
    for (const auto& full : declared_) consider(full);
    for (const auto& [full, _] : ledgers_) consider(full);
    return {found.begin(), found.end()};
}

std::vector<std::string> Broker::partitionedTopicsOfNamespace(const std::string& ns, bool persistent) const {
    std::vector<std::string> out;  // partitioned_ is ordered by name
    for (const auto& [full, _] : partitioned_) {
        auto name = TopicName::parse(full);
        if (name && name->namespaceName() == ns && name->persistent() == persistent) out.push_back(full);
    }
    return out;
}

ManagedLedgerState& Broker::ledger(const TopicName& name) {
    auto [it, created] = ledgers_.try_emplace(name.toString());
    if (created) {
        it->second.log.ledgerId = nextLedgerId();
        it->second.log.setBudget(logBudget_);
    }
    return it->second;
}

const ManagedLedgerState* Broker::findLedger(const TopicName& name) const {
    auto it = ledgers_.find(name.toString());
    return it == ledgers_.end() ? nullptr : &it->second;
}

}  // namespace cnx
