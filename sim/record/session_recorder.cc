#include "sim/record/session_recorder.h"

#include "sim/record/session_state.h"

#include "broker_model/profile/profile.h"
#include "sim/clients/client_library.h"
#include "sim/scenario/accept_outcomes.h"

namespace cnx::record {

SessionRecorder::SessionRecorder(RecorderOptions options) : state_(std::make_unique<State>()) {
    state_->options = std::move(options);
}

SessionRecorder::~SessionRecorder() = default;

void SessionRecorder::setBrokerVersion(const std::string& version) { state_->options.brokerVersion = version; }

void SessionRecorder::setSetup(const sim::Scenario& setup) {
    auto& s = *state_;
    s.header.brokerConfig = setup.brokerConfig;
    s.header.namespaces = setup.namespaces;
    s.header.topics = setup.topics;
    for (const auto& t : setup.topics)
        if (t.partitions > 0) s.partitionsOf[t.name] = t.partitions;
    s.aliases.seed(setup.schemas);
    for (const auto& step : setup.steps) {
        RecordedStep r;
        r.step = step;
        r.step.expect = {};
        if (r.step.action == "set-policy" || r.step.action == "set-broker-config") r.observed.httpStatus = 204;
        s.addStep(std::move(r), {"", std::nullopt, true, false});
    }
}

void SessionRecorder::opened(std::uint64_t connection, const std::string& /*peer*/) {
    auto& cn = state_->conn(connection);
    cn.app.clear();
}

void SessionRecorder::closed(std::uint64_t connection, const std::string& /*reason*/) { state_->closed(connection); }

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
        }
    }
    state_->received(connection, command);
}

void SessionRecorder::sent(std::uint64_t connection, const BaseCommand& command, const Trace* /*trace*/) {
    state_->sent(connection, command);
}

void SessionRecorder::admin(const serve::AdminExchange& exchange) { state_->adminExchange(exchange); }


namespace {

bool isReconnectStep(const sim::Step& s, const std::string& topic, const Observed& o) {
    if (s.action == "upgrade-broker" || s.action == "restart-broker") return true;
    if (s.action != "unload" || !o.ok) return false;
    auto t = TopicName::parse(std::get<sim::UnloadStep>(s.body).topic);
    return t && t->partitionedBase().toString() == topic;
}

bool deletes(const sim::Step& s, const std::string& topic, const Observed& o) {
    if (s.action != "delete-topic" || !o.ok) return false;
    auto t = TopicName::parse(std::get<sim::DeleteTopicStep>(s.body).topic);
    return t && t->partitionedBase().toString() == topic;
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
    const auto& s = *state_;
    Recording out;
    out.header = s.header;
    out.steps = s.steps;
    // Reconnects: the outcome of the upgrade, restart or unload in front of each.
    for (const auto& rc : s.reconnects) {
        if (rc.answers.empty()) continue;
        const auto& h = s.handles[rc.handle];
        auto outcome = combined(rc.answers);
        std::optional<std::size_t> step;
        bool givenUp = false;
        for (std::size_t i = rc.openedBefore; i < out.steps.size() && !step && !givenUp; ++i) {
            const auto& st = out.steps[i];
            if (deletes(st.step, h.topic, st.observed)) givenUp = true;
            else if (isReconnectStep(st.step, h.topic, st.observed)) step = i;
        }
        if (step) {
            out.steps[*step].observed.perClient.emplace(h.name, std::move(outcome));
            continue;
        }
        std::string text = sim::renderAccepted(outcome, out.steps[h.step].step, out.header);
        out.trailingNotes.push_back(h.name + (givenUp ? " reconnected after its topic was deleted" :
                                                        " reconnected after its connection dropped") +
                                    " (no upgrade, restart or unload in front, so no step): " + text);
    }
    for (std::size_t i = 0; i < out.steps.size(); ++i) {
        if (s.meta[i].answered) continue;
        out.steps[i].expect = false;
        out.steps[i].notes.push_back("no answer was seen before the recording ended");
    }
    // Clients: declared when more than one application, or one the default client does not model, took part.
    std::string release = modelledRelease(s.options.brokerVersion);
    const auto* profile = release.empty() ? nullptr : profileFor(release);
    std::vector<std::string> used;
    for (const auto& m : s.meta)
        if (!m.app.empty() && std::find(used.begin(), used.end(), m.app) == used.end()) used.push_back(m.app);
    std::map<std::string, sim::ClientDecl> decls;
    bool declare = used.size() > 1;
    for (const auto& app : used) {
        auto it = s.apps.find(app);
        sim::ClientDecl d;
        if (it != s.apps.end()) {
            const auto& [clientVersion, protocol] = it->second;
            if (clientVersion.find("CPP") != std::string::npos || clientVersion.find("cpp") != std::string::npos)
                d.library = "cpp";
            if (profile && protocol > 0 && protocol < profile->maxProtocolVersion) d.version = clientLineOf(protocol);
        }
        declare = declare || d.library != "java" || !d.version.empty();
        decls[app] = d;
    }
    if (declare) {
        std::map<std::string, std::string> names;
        for (std::size_t i = 0; i < used.size(); ++i) {
            names[used[i]] = "app-" + std::to_string(i + 1);
            out.header.clients[names[used[i]]] = decls[used[i]];
        }
        for (std::size_t i = 0; i < out.steps.size(); ++i) {
            auto& body = out.steps[i].step.body;
            const auto& app = s.meta[i].app;
            if (app.empty()) continue;
            if (auto* p = std::get_if<sim::ProducerStep>(&body)) p->client = names[app];
            if (auto* c = std::get_if<sim::SubscribeStep>(&body)) c->client = names[app];
        }
    }
    // Partitioned topics the clients found (PARTITIONED_METADATA) are declared.
    for (const auto& found : s.partitionsOf) {
        const auto& topic = found.first;  // not a structured binding: clang 14 cannot capture one
        int partitions = found.second;
        auto it = std::find_if(out.header.topics.begin(), out.header.topics.end(),
                               [&](const sim::TopicDecl& t) { return t.name == topic; });
        if (it == out.header.topics.end()) out.header.topics.push_back({topic, partitions, {}, {}});
        else it->partitions = std::max(it->partitions, partitions);
    }
    out.header.schemas = s.aliases.table();
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
    // Publishes whose every message was resent after a reconnect are counted there instead.
    std::vector<RecordedStep> kept;
    for (std::size_t i = 0; i < out.steps.size(); ++i)
        if (!s.meta[i].dropped) kept.push_back(std::move(out.steps[i]));
    out.steps = std::move(kept);
    return out;
}

}  // namespace cnx::record
