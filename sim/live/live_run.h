#pragma once
// One scenario executed on a real broker (`cnxsim run --against`): the steps
// become the frames the modelled clients send (sim/clients/client_library.h)
// on TCP connections of their own (live_connection.h), and the admin steps the
// REST calls pulsar-admin makes (live_admin.h). Each step's answer is an
// Observed, read the way the model's runner reads its answers, so the two can
// be compared field by field (against.h).
//
// Isolation: every tenant the scenario names is renamed `<tenant>-<token>` on
// the broker (a fresh token per scenario run), so runs never see each other's
// topics, schemas or policies; the broker's messages are mapped back before
// they are compared. What a live broker cannot do (a `check` of model state, a
// race, a broker upgrade without a launcher) is reported as not executable,
// never as a pass.

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <boost/asio/io_context.hpp>

#include "sim/clients/admin_client.h"
#include "sim/live/live_admin.h"
#include "sim/live/live_connection.h"
#include "sim/scenario/observed.h"
#include "sim/scenario/scenario.h"

namespace cnx::sim::live {

/// How long a producer the broker queued (WaitForExclusive) is waited for.
inline constexpr std::chrono::milliseconds kQueuedProducerWait{3000};

/// How long the run waits after a namespace policy or a dynamic broker setting changed. A
/// real broker answers the admin call once the metadata store holds the change, but its
/// loaded topics take it from the store's notification afterwards (BrokerService
/// handleMetadataChanges -> handlePoliciesUpdates / handleDynamicConfigurationUpdates,
/// 4.2.4): a producer sent at once may still meet the old strategy (seen in CI: seed 42,
/// session 477 checked with FULL after the namespace was set to BACKWARD).
inline constexpr std::chrono::milliseconds kPolicySettle{150};

/// The broker a run talks to.
struct LiveTarget {
    Endpoint broker;
    Endpoint admin;
    std::chrono::milliseconds timeout{30000};
};

/// Renames tenants for one run and maps the broker's texts back.
class NameMap {
public:
    explicit NameMap(std::string token) : token_(std::move(token)) {}
    std::string tenant(const std::string& t) const { return t + "-" + token_; }
    std::string namespaceName(const std::string& ns) const;  // tenant/ns
    std::string topic(const std::string& full) const;        // domain://tenant/ns/local
    /// `text` with every renamed tenant written as the scenario wrote it.
    std::string unmap(std::string text) const;
    const std::string& token() const { return token_; }

private:
    std::string token_;
};

/// What one step did on the live broker.
struct LiveOutcome {
    enum class Kind { executed, notExecutable, error };
    Kind kind = Kind::executed;
    Observed observed;
    std::string why;  // notExecutable / error
};

class LiveRun {
public:
    /// `scenario` and `target` outlive the run. `version` is the release the
    /// broker runs (the modelled clients default to it); `token` makes the names unique.
    LiveRun(const Scenario& scenario, const LiveTarget& target, std::string version, std::string token);
    ~LiveRun();

    /// Creates the scenario's tenants, namespaces and topics and sets its
    /// policies. The reason when that fails (the scenario is then not executable).
    std::optional<std::string> setUp();
    /// Runs one step.
    LiveOutcome run(const Step& step);
    /// Closes every connection and deletes what setUp created (best effort; not when
    /// keepCreated() was asked, as a differential search on a throwaway broker does).
    void tearDown();
    void keepCreated() { keepCreated_ = true; }
    /// The cluster tenants are created for (else asked from GET /admin/v2/clusters).
    void setCluster(std::string cluster) { cluster_ = std::move(cluster); clusterKnown_ = true; }

    /// setUp's answer when the scenario cannot be set up on a live broker at all.
    static constexpr std::string_view kSetUpNotExecutable = "not executable: ";

    const NameMap& names() const { return names_; }

private:
    struct Session {
        std::unique_ptr<LiveConnection> conn;
        ClientModel model;
    };
    struct Handle {
        bool producer = true;
        std::string client;
        std::string name;
        const ProducerStep* producerStep = nullptr;
        const SubscribeStep* subscribeStep = nullptr;
        std::optional<pulsar::proto::Schema> wireSchema;
        std::vector<std::pair<std::string, std::uint64_t>> parts;  // (live partition topic, id)
        std::string schemaVersion;
        std::uint64_t nextSequence = 0;
        std::uint64_t order = 0;
        const std::string& topic() const { return producer ? producerStep->topic : subscribeStep->topic; }
    };

    std::variant<Session*, std::string> session(const std::string& client);
    Observed producer(const ProducerStep& s);
    Observed subscribe(const SubscribeStep& s);
    Observed open(Handle h);
    Observed close(const CloseStep& s);
    Observed publish(const PublishStep& s);
    Observed getSchemaOnWire(const GetSchemaStep& s);
    Observed unload(const UnloadStep& s);
    Observed deleteTopic(const DeleteTopicStep& s);
    /// An admin step's request (admin_client.h) sent as admin() sends it; NotExecutable when none was built.
    Observed send(AdminCall call, const std::optional<AdminRequest>& request);
    Observed admin(int call, const std::string& method, const std::string& target,
                   const std::optional<std::string>& body = std::nullopt);
    Observed setPolicy(const SetPolicyStep& s);
    Observed setBrokerConfig(const SetBrokerConfigStep& s);
    void closeParts(const Handle& h);
    /// setUp's parts: the tenants and namespaces, then the declared topics with their policies.
    std::optional<std::string> createTenantsAndNamespaces();
    std::optional<std::string> createDeclaredTopics();
    /// open's parts: a LOOKUP of each partition, then the answers to its PRODUCER or
    /// SUBSCRIBE requests; each the refusal observed, if any.
    std::optional<Observed> lookUp(Session& s, const std::vector<std::string>& parts);
    std::optional<Observed> awaitOpened(Session& s, Handle& h, const std::vector<std::uint64_t>& requests);
    /// Sends `cmd` and waits for the answer to `requestId`; a send failure, no answer or an
    /// ERROR frame is the Observed refusal (`what` names the command in its text).
    std::variant<wire::Frame, Observed> request(Session& s, const pulsar::proto::BaseCommand& cmd,
                                                std::uint64_t requestId, const char* what);
    /// Partitions of the live topic (PARTITIONED_METADATA), or the error observed.
    std::variant<int, Observed> partitionsOf(Session& s, const std::string& liveTopic);
    /// The handles the broker closed (CLOSE_PRODUCER / CLOSE_CONSUMER or a dropped connection), by key "p/name".
    std::set<std::string> closedByBroker();
    Observed reconnect(const std::set<std::string>& keys);
    std::optional<pulsar::proto::Schema> autoProduceSchema(Session& s, const std::string& liveTopic);
    Observed fromFrame(const wire::Frame& f);

    const Scenario& scenario_;
    const LiveTarget& target_;
    boost::asio::io_context io_;  // every connection of the run: each always reads (PING -> PONG)
    std::string version_;
    NameMap names_;
    LiveAdmin admin_;
    std::map<std::string, Session> sessions_;
    std::map<std::string, ClientModel> clientModels_;
    std::map<std::string, Handle> producers_;
    std::map<std::string, Handle> consumers_;
    std::uint64_t nextOrder_ = 0;
    std::vector<std::string> createdTenants_;     // live names
    std::vector<std::string> createdNamespaces_;  // live names
    std::map<std::string, std::optional<std::string>> changedConfig_;  // key -> value to restore (nullopt: delete)
    std::string cluster_ = "standalone";
    bool clusterKnown_ = false;
    bool keepCreated_ = false;
};

/// The scenario's namespaces that must exist before its steps (tenant/ns, as written).
std::set<std::string> namespacesNamed(const Scenario& scenario);

}  // namespace cnx::sim::live
