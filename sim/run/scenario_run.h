#pragma once
// One run of one scenario on one behaviour profile: a fresh modelled broker,
// the scenario's configuration, and the steps turned into wire commands (via
// modelled client libraries) or admin calls. Each step runs the simulated
// scheduler until no continuation is pending (continuations chosen FIFO, or
// at random from the run's seed) and returns what the broker answered.

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "broker_model/admin/admin_api.h"
#include "broker_model/core/fast_paths.h"
#include "broker_model/broker/broker.h"
#include "broker_model/wire/command_pool.h"
#include "sim/runtime/sim_scheduler.h"
#include "sim/clients/admin_client.h"
#include "sim/clients/client_session.h"
#include "sim/scenario/observed.h"
#include "sim/run/topic_name_cache.h"
#include "sim/scenario/scenario.h"

namespace cnx::sim {

class RaceDriver;

class ScenarioRun {
public:
    /// `scenario`, `profile` and `topicNames` must outlive the run. `version` is
    /// the release the scenario asked for (clients default to it). `topicNames`
    /// parses the scenario's topics once; runs of one thread may share it.
    /// `fastPaths` is the broker's (core/fast_paths.h).
    ScenarioRun(const Scenario& scenario, const BehaviourProfile& profile, std::string version,
                TopicNameCache& topicNames, ScheduleMode mode = ScheduleMode::fifo, std::uint64_t seed = 1,
                FastPaths fastPaths = FastPaths::on);
    ~ScenarioRun();

    /// Applies broker config, namespace and topic declarations. An error text
    /// when the scenario cannot be set up (the input is invalid).
    std::optional<std::string> setUp();

    /// Runs one step (not `concurrently`) and returns its outcome.
    Observed run(const Step& step);
    /// What the traces of the steps run from now on keep (every detail by
    /// default): the broker's requests and admin calls and the run's own notes.
    void setTraceDetail(TraceDetail detail);

    const Broker& broker() const { return *broker_; }
    /// The release the broker runs now (after any upgrade-broker); per-version
    /// keys still match the starting one (doc/scenario-format.md "Versions after upgrade-broker").
    const ReleaseVersion& currentRelease() const { return profile_->release; }
    /// Continuations executed so far (for benchmarks).
    std::size_t continuationsRun() const { return scheduler_.executed(); }
    const SimScheduler& scheduler() const { return scheduler_; }

    /// Races run through `driver` from now on (nullptr: steps run sequentially).
    /// The driver runs branches on fibers; see sim/run/race_driver.h.
    /// A race's driver reads the stages' names (SimScheduler::readyTasks);
    /// steps run one at a time do not, and post stages without them.
    void setRace(RaceDriver* driver) {
        race_ = driver;
        scheduler_.keepStageNames(driver != nullptr);
    }
    /// Clients of the run, for invariants: every session's unanswered requests.
    std::vector<std::string> unansweredRequests() const;
    /// Admin calls whose callback did not run exactly once.
    const std::vector<std::string>& unansweredAdminCalls() const { return adminUnanswered_; }
    /// Open producers of the run (name -> whether it connected without a schema, and its topic).
    struct OpenProducer {
        std::string topic;
        bool schemaless = false;
    };
    std::vector<OpenProducer> openProducers() const;
    /// The topic of the open producer or consumer `name`, if one is open.
    std::optional<std::string> topicOfHandle(const std::string& name) const;

private:
    friend class RaceDriver;

    /// Waits for the broker: on a race's fiber, until this branch's
    /// continuations ran (the explorer interleaves them); otherwise runs the
    /// scheduler until nothing is pending.
    void settle();
    /// Fixes the first-connect order of a handle before it connects (a race's branches: as written).
    void reserveOrder(const std::string& key);

    /// An open producer or consumer: what the client asked for (replayed on
    /// reconnects) and where it is attached.
    struct OpenHandle {
        bool producer = true;
        std::string client;
        std::string name;
        // The step that opened it, in the Scenario this run was made for
        // (which outlives the run): one of the two, by `producer`.
        const ProducerStep* producerStep = nullptr;
        const SubscribeStep* subscribeStep = nullptr;
        // Producers: the schema field the client sends. Shared: a handle moves
        // (into open, into the map) and a protobuf message moved is built,
        // swapped and destroyed.
        std::shared_ptr<const pulsar::proto::Schema> wireSchema;
        std::vector<std::pair<std::string, std::uint64_t>> parts;  // (partition topic, producer/consumer id)
        std::string schemaVersion;  // producers: wire bytes of partition 0
        std::uint64_t nextSequence = 0;
        std::uint64_t order = 0;  // first-connect order among the open handles (remember)

        const std::string& topic() const { return producer ? producerStep->topic : subscribeStep->topic; }
        TopicName firstPart() const { return *TopicName::parse(parts.front().first); }
    };

    Observed producer(const ProducerStep& s);
    Observed subscribe(const SubscribeStep& s);
    Observed close(const CloseStep& s);
    Observed publish(const PublishStep& s);
    Observed uploadSchema(const UploadSchemaStep& s);
    Observed getSchema(const GetSchemaStep& s);
    Observed getSchemaOnWire(const GetSchemaStep& s, const TopicName& topic);
    Observed getSchemaVersion(const GetSchemaVersionStep& s);
    Observed deleteSchema(const DeleteSchemaStep& s);
    Observed deleteTopic(const DeleteTopicStep& s);
    Observed testCompatibility(const TestCompatibilityStep& s);
    Observed setPolicy(const SetPolicyStep& s);
    Observed setBrokerConfig(const SetBrokerConfigStep& s);
    Observed check(const CheckStep& s);
    Observed upgradeBroker(const UpgradeBrokerStep& s);
    Observed restartBroker();
    Observed unload(const UnloadStep& s);

    wire::PooledCommand openCommand(OpenHandle& h, ClientSession& s, const TopicName& part, Trace& trace);
    Observed open(OpenHandle h, Trace trace);
    void closeParts(const OpenHandle& h);
    void remember(OpenHandle&& h);  // takes `h` over: the handle is moved once, into its map
    void forget(bool producer, const std::string& name);
    Observed reconnect(const std::function<bool(const OpenHandle&)>& which, Trace trace);
    Observed reconnectOne(OpenHandle h);
    /// The keys ("p/<name>", "c/<name>") of the open handles the broker closed
    /// since the last call: a CLOSE_PRODUCER / CLOSE_CONSUMER for one of their
    /// ids, or their connection dropped. A handle whose connection was already
    /// gone before the broker acted counts when `onGone` selects it.
    std::set<std::string> closedByBroker(const std::set<std::string>& goneBefore,
                                         const std::function<bool(const OpenHandle&)>& onGone);
    /// Clients whose connection is closed now.
    std::set<std::string> closedSessions() const;
    Observed restartOn(const BehaviourProfile& profile, const std::string& why);

    ClientSession& session(const std::string& client);
    /// Visits the topic's partitions in order, or the topic itself when it is
    /// not partitioned (nearly every one; its name is then not copied). Stops
    /// at the first partition `visit` returns false for.
    template <class Visit>
    void forEachPartition(const TopicName& topic, Visit&& visit) const {
        const int n = broker_->partitionsOf(topic);
        if (n == 0) {
            visit(topic);
            return;
        }
        for (int i = 0; i < n; ++i)
            if (!visit(topic.partition(i))) return;
    }
    std::optional<pulsar::proto::Schema> autoProduceSchema(ClientSession& s, const TopicName& topic, Trace& trace);
    Observed admin(AdminCall what, const std::function<void(AdminApi::Callback)>& call);
    Observed adminSequence(AdminCall what, const std::vector<Setting>& settings,
                           const std::function<AdminResponse(const Setting&)>& call);
    std::string describeClient(const std::string& client) const;

    /// A topic of the scenario, parsed once (the loader checked the name).
    const TopicName& topicOf(const std::string& name) const;
    /// An outcome to fill, its trace keeping what setTraceDetail said.
    Observed observed() const;

    TopicNameCache& topicNames_;
    const Scenario& scenario_;
    const BehaviourProfile* profile_;  // changes with upgrade-broker
    ReleaseVersion startRelease_;      // the release per-version keys are matched against
    std::string version_;
    Rng rng_;
    RandomChooser random_{rng_};
    SimScheduler scheduler_;
    // Before the broker: the sessions' connections outlive it, which lets them
    // go as it is destroyed (Broker::~Broker), after its topics.
    std::map<std::string, std::unique_ptr<ClientSession>> sessions_;  // by client name; "" = default
    std::unique_ptr<Broker> broker_;
    std::unique_ptr<AdminApi> admin_;
    std::map<std::string, OpenHandle> producers_;
    std::map<std::string, OpenHandle> consumers_;
    // First-connect order: an open handle keeps its own (OpenHandle::order);
    // a race's branches reserve theirs before they connect ("p/<name>",
    // "c/<name>" -> order) and take it when they are remembered.
    std::map<std::string, std::uint64_t> reservedOrder_;
    std::uint64_t nextOrder_ = 0;
    std::map<std::string, ClientModel> clientModels_;      // fixed at a client's first connect
    RaceDriver* race_ = nullptr;
    std::vector<std::string> adminUnanswered_;
};

}  // namespace cnx::sim
