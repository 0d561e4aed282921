#pragma once
// The session recorder (doc/recording.md): a SessionTap that turns what
// clients did and what the broker answered into scenario steps, each with the
// observed outcome. `cnxsim serve --record` adds it as a tap of the served
// broker; `cnxsim record` feeds it from a proxy in front of any broker, so
// both go through this one class.
//
// What becomes a step: PRODUCER -> producer (its final PRODUCER_SUCCESS, or
// ERROR), SUBSCRIBE -> subscribe, the client's CLOSE_PRODUCER / CLOSE_CONSUMER
// / UNSUBSCRIBE -> close, SENDs -> publish (consecutive sends of one producer
// merged, a batch counting its num_messages; a GET_OR_CREATE_SCHEMA in front
// gives the next publish its schema), and the admin exchanges of
// admin_steps.h. The producers of one partitioned topic are one step on the
// base topic, as the runner creates them; a re-sent PRODUCER / SUBSCRIBE of a
// producer or consumer the broker closed (or whose connection dropped) is a
// reconnect: its outcome goes to the upgrade-broker / restart-broker / unload
// step in front of it, as that step's per-client map. Steps are ordered as
// the broker received the requests. Calls come from one thread.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/record/recording.h"
#include "sim/record/schema_aliases.h"
#include "sim/net/session_tap.h"

namespace cnx::record {

struct RecorderOptions {
    std::string brokerVersion;  // the release served ("4.2.2"); empty: from CONNECTED's server_version if it names one
    std::string how;            // the header comment's "recorded by ..." text
    std::string name;           // the scenario name (default "recorded session")
    std::string definitionFolder = {};  // Recording::definitionFolder (set by RecordingFile)
};

/// The release a recording names for a broker that reported `reported`
/// ("3.0.2"): itself when modelled, else its line ("3.0") when that is, else "".
std::string modelledRelease(const std::string& reported);

class SessionRecorder final : public serve::SessionTap {
public:
    explicit SessionRecorder(RecorderOptions options);
    ~SessionRecorder() override;

    /// A `cnxsim serve --setup` file: its broker config, namespaces, topics and
    /// schemas become the header, its steps the first steps (they succeeded).
    void setSetup(const sim::Scenario& setup);
    void setBrokerVersion(const std::string& version);
    void setDefinitionFolder(const std::string& folder);
    /// The broker's effective settings at start (`serve --config`, the setup file, `--set`): the header's
    /// `broker.config`, so that the replay runs under the same rules (issue 40, item 14).
    void setBrokerConfig(std::vector<sim::Setting> settings);

    /// The recording so far (reconnects attributed, unanswered requests noted).
    Recording recording() const;

    /// For the recording file, written as the session goes (recording_file.h):
    /// the steps from index `first` on, each as recording() writes it (a
    /// publish counted in a later one kept, marked `dropped`), the notes after
    /// them, and the header; without `withHeader` only what the steps' text
    /// needs of it (the aliases, when a get-schema is among them). Costs the
    /// steps from `first`, one look per reconnect, and the header when asked.
    Recording recordingFrom(std::size_t first, bool withHeader) const;
    std::size_t stepCount() const;
    /// What changed since the last call: the first step added or changed
    /// (stepCount() when none), and counters of the header's and the trailing
    /// notes' changes (a different value: rewrite it).
    struct Changes {
        std::size_t firstStep = 0;
        std::uint64_t header = 0;
        std::uint64_t tail = 0;
    };
    Changes takeChanges();
    /// Called after every tap call that may have changed the recording: the recording file catches up.
    void setOnChange(std::function<void()> onChange);

    void opened(std::uint64_t connection, const std::string& peer) override;
    void closed(std::uint64_t connection, const std::string& reason) override;
    void received(std::uint64_t connection, const pulsar::proto::BaseCommand& command) override;
    void sent(std::uint64_t connection, const pulsar::proto::BaseCommand& command, const Trace* trace) override;
    void admin(const serve::AdminExchange& exchange) override;

    struct State;  // session_recorder.cc

private:
    void changed();

    std::unique_ptr<State> state_;
    std::function<void()> onChange_;
};

}  // namespace cnx::record
