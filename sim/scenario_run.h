#pragma once
// One run of one scenario on one behaviour profile: a fresh modelled broker,
// the scenario's configuration, and the steps turned into wire commands (via
// modelled client libraries) or admin calls. Each step runs the executor until
// no continuation is pending and returns what the broker answered.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "broker_model/admin_api.h"
#include "broker_model/broker.h"
#include "broker_model/executor.h"
#include "sim/client_session.h"
#include "sim/observed.h"
#include "sim/scenario.h"

namespace cnx::sim {

class ScenarioRun {
public:
    /// `scenario` and `profile` must outlive the run. `version` is the release
    /// the scenario asked for (clients default to it).
    ScenarioRun(const Scenario& scenario, const BehaviourProfile& profile, std::string version);
    ~ScenarioRun();

    /// Applies broker config, namespace and topic declarations. An error text
    /// when the scenario cannot be set up (the input is invalid).
    std::optional<std::string> setUp();

    /// Runs one step (not `concurrently`) and returns its outcome.
    Observed run(const Step& step);

    const Broker& broker() const { return *broker_; }
    /// Continuations executed so far (for benchmarks).
    std::size_t continuationsRun() const { return executor_.executed(); }

private:
    struct OpenHandle {
        std::string client;
        std::vector<std::pair<std::string, std::uint64_t>> parts;  // (partition topic, producer/consumer id)
        std::string name;
        std::string schemaVersion;  // producers: wire bytes of partition 0
        std::uint64_t nextSequence = 0;
    };

    Observed producer(const ProducerStep& s);
    Observed subscribe(const SubscribeStep& s);
    Observed close(const CloseStep& s);
    Observed publish(const PublishStep& s);
    Observed uploadSchema(const UploadSchemaStep& s);
    Observed getSchema(const GetSchemaStep& s);
    Observed getSchemaVersion(const GetSchemaVersionStep& s);
    Observed deleteSchema(const DeleteSchemaStep& s);
    Observed deleteTopic(const DeleteTopicStep& s);
    Observed testCompatibility(const TestCompatibilityStep& s);
    Observed setPolicy(const SetPolicyStep& s);
    Observed setBrokerConfig(const SetBrokerConfigStep& s);
    Observed check(const CheckStep& s);

    ClientSession& session(const std::string& client);
    std::vector<TopicName> partitionsOf(const TopicName& topic) const;
    std::optional<pulsar::proto::Schema> autoProduceSchema(ClientSession& s, const TopicName& topic, Trace& trace);
    Observed admin(const std::function<void(AdminApi::Callback)>& call);
    std::string describeClient(const std::string& client) const;

    const Scenario& scenario_;
    const BehaviourProfile& profile_;
    std::string version_;
    Executor executor_;
    std::unique_ptr<Broker> broker_;
    std::unique_ptr<AdminApi> admin_;
    std::map<std::string, std::unique_ptr<ClientSession>> sessions_;  // by client name; "" = default
    std::map<std::string, OpenHandle> producers_;
    std::map<std::string, OpenHandle> consumers_;
};

}  // namespace cnx::sim
