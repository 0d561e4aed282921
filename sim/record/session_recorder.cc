#include "sim/record/session_recorder.h"

#include "sim/record/session_state.h"

#include "broker_model/profile/profile.h"
#include "sim/clients/client_library.h"
#include "sim/accept/accept_outcomes.h"
#include "sim/scenario/format_limits.h"

namespace cnx::record {

SessionRecorder::SessionRecorder(RecorderOptions options) : state_(std::make_unique<State>()) {
    state_->options = std::move(options);
}

SessionRecorder::~SessionRecorder() = default;

void SessionRecorder::setBrokerVersion(const std::string& version) {
    state_->options.brokerVersion = version;
    state_->headerChanged();
    changed();
}

void SessionRecorder::setBrokerConfig(std::vector<sim::Setting> settings) {
    state_->header.brokerConfig = std::move(settings);
    state_->headerChanged();
    changed();
}

void SessionRecorder::setDefinitionFolder(const std::string& folder) {
    state_->options.definitionFolder = folder;
    state_->headerChanged();
}

void SessionRecorder::setOnChange(std::function<void()> onChange) { onChange_ = std::move(onChange); }

void SessionRecorder::changed() {
    if (onChange_) onChange_();
}

void SessionRecorder::setSetup(const sim::Scenario& setup) {
    auto& s = *state_;
    s.header.brokerConfig = setup.brokerConfig;
    s.header.namespaces = setup.namespaces;
    s.header.topics = setup.topics;
    for (std::size_t i = 0; i < setup.namespaces.size(); ++i) s.namespaceAt.emplace(setup.namespaces[i].name, i);
    for (std::size_t i = 0; i < setup.topics.size(); ++i) s.topicAt.emplace(setup.topics[i].name, i);
    for (const auto& t : setup.topics)
        if (t.partitions > 0) s.partitionsOf[t.name] = t.partitions;
    s.aliases.seed(setup.schemas);
    s.headerChanged();
    for (const auto& step : setup.steps) {
        RecordedStep r;
        r.step = step;
        r.step.expect = {};
        if (r.step.is<sim::SetPolicyStep>() || r.step.is<sim::SetBrokerConfigStep>()) r.observed.httpStatus = 204;
        s.addStep(std::move(r), {"", std::nullopt, true, false});
    }
    changed();
}

void SessionRecorder::opened(std::uint64_t connection, const std::string& /*peer*/) {
    auto& cn = state_->conn(connection);
    cn.app.clear();
}

void SessionRecorder::closed(std::uint64_t connection, const std::string& /*reason*/) { state_->closed(connection); }

namespace {

// Commands that never change a recording (doc/recording.md "Not steps"): no need to look at the file.
bool neverRecorded(BaseCommand::Type type) {
    switch (type) {
        case BaseCommand::PING:
        case BaseCommand::PONG:
        case BaseCommand::FLOW:
        case BaseCommand::ACK:
        case BaseCommand::ACK_RESPONSE:
        case BaseCommand::MESSAGE:
        case BaseCommand::SEND_RECEIPT:
        case BaseCommand::LOOKUP:
        case BaseCommand::LOOKUP_RESPONSE:
        case BaseCommand::GET_SCHEMA:
        case BaseCommand::GET_SCHEMA_RESPONSE:
        case BaseCommand::REDELIVER_UNACKNOWLEDGED_MESSAGES:
            return true;
        default:
            return false;
    }
}

}  // namespace

void SessionRecorder::received(std::uint64_t connection, const BaseCommand& command) {
    auto& cn = state_->conn(connection);
    if (command.type() == BaseCommand::PRODUCER || command.type() == BaseCommand::SUBSCRIBE) {
        // An application is known by the first connection that opened something; a reconnect names it again.
        bool producer = command.type() == BaseCommand::PRODUCER;
        auto topic = TopicName::parse(producer ? command.producer().topic() : command.subscribe().topic());
        bool isReconnect = topic && state_->reconnecting(producer, topic->partitionedBase().toString(),
                                                         producer ? command.producer().producer_name()
                                                                  : command.subscribe().consumer_name(),
                                                         producer ? "" : command.subscribe().subscription());
        if (cn.app.empty() && !isReconnect) {
            cn.app = "c" + std::to_string(connection);
            state_->apps[cn.app] = {cn.clientVersion, cn.protocol};
            state_->headerChanged();
        }
    }
    state_->received(connection, command);
    if (!neverRecorded(command.type())) changed();
}

void SessionRecorder::sent(std::uint64_t connection, const BaseCommand& command, const Trace* /*trace*/) {
    state_->sent(connection, command);
    if (!neverRecorded(command.type())) changed();
}

void SessionRecorder::admin(const serve::AdminExchange& exchange) {
    state_->adminExchange(exchange);
    changed();
}


namespace {

// A publish's count as the format takes it: at most kMaxPublishCount (the
// loader's bound), with a note when the SENDs claimed more (a batch's
// num_messages is any int32: three of 2^31-1 pass 2^32).
void publishCount(RecordedStep& step, std::int64_t messages) {
    auto& count = std::get<sim::PublishStep>(step.step.body).count;
    count = static_cast<int>(std::min<std::int64_t>(messages, sim::kMaxPublishCount));
    if (messages > sim::kMaxPublishCount)
        step.notes.push_back("the SENDs claimed " + std::to_string(messages) + " messages; a publish counts at most " +
                             std::to_string(sim::kMaxPublishCount) + ", so the replay sends that many");
}

// The client release whose protocol a CONNECT's protocol_version is: the newest line advertising at most that.
std::string clientLineOf(int protocol) {
    std::string line = "2.4";
    for (const char* l : {"2.4", "2.7", "2.8", "2.11", "3.0"})
        if (sim::protocolVersionOfRelease(l) <= protocol) line = l;
    return line;
}

}  // namespace

std::string modelledRelease(const std::string& reported) {
    if (reported.empty()) return {};
    if (profileFor(reported)) return reported;
    auto first = reported.find('.');
    auto second = first == std::string::npos ? first : reported.find('.', first + 1);
    std::string line = reported.substr(0, second);
    return profileFor(line) ? line : std::string();
}

Recording SessionRecorder::recording() const {
    Recording out = recordingFrom(0, true);
    std::erase_if(out.steps, [](const RecordedStep& s) { return s.dropped; });
    return out;
}

std::size_t SessionRecorder::stepCount() const { return state_->steps.size(); }

SessionRecorder::Changes SessionRecorder::takeChanges() {
    auto& s = *state_;
    return {std::exchange(s.firstDirty, s.steps.size()), s.headerVersion, s.tailVersion};
}

namespace {

// recordingFrom's parts: `out` holds the steps from out.firstStep on.
RecordedStep& stepAt(Recording& out, std::size_t i) { return out.steps[i - out.firstStep]; }

// Reconnects: the outcome of the upgrade, restart or unload in front of each.
void addReconnects(SessionRecorder::State& s, Recording& out) {
    for (auto& rc : s.reconnects) {
        if (rc.answers.empty()) continue;
        const auto& h = s.handles[rc.handle];
        auto step = s.targetOf(rc);
        if (step && *step < out.firstStep) continue;
        auto outcome = combined(rc.answers);
        if (step) {
            stepAt(out, *step).observed.perClient.emplace(h.name, std::move(outcome));
            continue;
        }
        std::string text = sim::renderAccepted(outcome, s.steps[h.step].step, out.header);
        out.trailingNotes.push_back(h.name + (rc.givenUp ? " reconnected after its topic was deleted" :
                                                           " reconnected after its connection dropped") +
                                    " (no upgrade, restart or unload in front, so no step): " + text);
    }
}

// What the steps' bookkeeping says of each: dropped, its messages, no answer seen.
void markSteps(const SessionRecorder::State& s, Recording& out) {
    for (std::size_t i = out.firstStep; i < s.steps.size(); ++i) {
        const auto& m = s.meta[i];
        auto& step = stepAt(out, i);
        step.dropped = m.dropped;
        if (m.messages > 0) publishCount(step, m.messages);
        if (m.answered) continue;
        step.expect = false;
        step.notes.push_back("no answer was seen before the recording ended");
    }
}

// Clients: declared when more than one application, or one the default client does not model, took part.
// (Costs the applications only when the header is written: the steps need each one's number.)
void declareClients(const SessionRecorder::State& s, Recording& out, bool withHeader, const BehaviourProfile* profile) {
    auto declOf = [&](const std::string& app) {
        auto it = s.apps.find(app);
        sim::ClientDecl d;
        if (it != s.apps.end()) {
            const auto& [clientVersion, protocol] = it->second;
            if (clientVersion.find("CPP") != std::string::npos || clientVersion.find("cpp") != std::string::npos)
                d.library = "cpp";
            if (profile && protocol > 0 && protocol < profile->maxProtocolVersion) d.version = clientLineOf(protocol);
        }
        return d;
    };
    auto nameOf = [&](std::size_t index) { return "app-" + std::to_string(index + 1); };
    bool declare = s.appOrder.size() > 1;
    if (s.appOrder.size() == 1) {
        auto only = declOf(s.appOrder.front());
        declare = only.library != "java" || !only.version.empty();
    }
    if (!declare) return;
    if (withHeader)
        for (std::size_t i = 0; i < s.appOrder.size(); ++i) out.header.clients[nameOf(i)] = declOf(s.appOrder[i]);
    for (std::size_t i = out.firstStep; i < s.steps.size(); ++i) {
        auto& body = stepAt(out, i).step.body;
        const auto& app = s.meta[i].app;
        if (app.empty()) continue;
        auto name = nameOf(s.appIndex.at(app));
        if (auto* p = std::get_if<sim::ProducerStep>(&body)) p->client = name;
        if (auto* c = std::get_if<sim::SubscribeStep>(&body)) c->client = name;
    }
}

// The header's own part: partitioned topics, schemas, name, release and comments.
void completeHeader(const SessionRecorder::State& s, Recording& out, const std::string& release) {
    // Partitioned topics the clients found (PARTITIONED_METADATA) are declared.
    std::map<std::string, std::size_t> declared;
    for (std::size_t i = 0; i < out.header.topics.size(); ++i) declared.emplace(out.header.topics[i].name, i);
    for (const auto& [topic, partitions] : s.partitionsOf) {
        auto it = declared.find(topic);
        if (it == declared.end()) out.header.topics.push_back({topic, partitions, {}, {}});
        else out.header.topics[it->second].partitions = std::max(out.header.topics[it->second].partitions, partitions);
    }
    out.header.schemas = s.aliases.table();
    out.definitionFolder = s.options.definitionFolder;
    out.header.name = s.options.name.empty() ? "recorded session" : s.options.name;
    if (!release.empty()) {
        out.header.brokerVersions = {release};
    } else if (!s.options.brokerVersion.empty()) {
        out.header.brokerVersions = {s.options.brokerVersion};
        out.headerComments.push_back("cnxsim models no release " + s.options.brokerVersion +
                                     " nor its line: give broker.version a modelled one (cnxsim profiles)");
    }
    if (!s.options.how.empty()) out.headerComments.push_back(s.options.how);
    out.headerComments.push_back("Every expect is the answer the broker gave; `cnxsim run` on this file replays it.");
    for (const auto& n : s.notes) out.headerComments.push_back(n);
}

}  // namespace

Recording SessionRecorder::recordingFrom(std::size_t first, bool withHeader) const {
    auto& s = *state_;  // const in what it records; only the reconnects' search positions move on
    first = std::min(first, s.steps.size());
    Recording out;
    out.firstStep = first;
    out.steps.assign(s.steps.begin() + static_cast<std::ptrdiff_t>(first), s.steps.end());
    if (!withHeader) {
        // What the steps' own text needs of the header: the aliases a get-schema result is named by.
        bool getSchema = std::any_of(out.steps.begin(), out.steps.end(),
                                     [](const RecordedStep& r) { return r.step.is<sim::GetSchemaStep>(); });
        if (getSchema) out.header.schemas = s.aliases.table();
    } else {
        out.header = s.header;
    }
    addReconnects(s, out);
    markSteps(s, out);
    std::string release = modelledRelease(s.options.brokerVersion);
    const auto* profile = release.empty() ? nullptr : profileFor(release);
    declareClients(s, out, withHeader, profile);
    if (withHeader) completeHeader(s, out, release);
    return out;
}

}  // namespace cnx::record
