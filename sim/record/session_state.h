#pragma once
// The session recorder's state (session_recorder.h): handles (one producer or
// consumer over its partitions), connections, requests waiting for answers,
// and the steps recorded so far. Internal to sim/record.

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "broker_model/core/topic_name.h"
#include "broker_model/wire/frame.h"
#include "broker_model/wire/schema_wire.h"
#include "sim/record/admin_steps.h"
#include "sim/record/session_recorder.h"

namespace cnx::record {

using pulsar::proto::BaseCommand;
using sim::Observed;

namespace detail {

// One producer or consumer as the client sees it: one step, over all partitions.
struct Handle {
    bool producer = true;
    std::string name;          // the step's name ("" until the broker names it)
    std::string topic;         // the partitioned base, full name
    std::string subscription;  // consumers
    std::string app;           // the application (connection) that made it
    std::size_t step = 0;      // the creating step
    std::set<std::string> wireNames;              // its names as on the wire (a reconnect sends one again)
    std::map<int, Observed> answers;              // per partition (-1: not partitioned)
    std::map<std::uint64_t, int> pendingParts;    // request id -> partition asked for
    bool failed = false;
    bool awaiting = false;          // closed by the broker or dropped: a re-sent PRODUCER is a reconnect
    std::size_t openedAt = 0;       // steps recorded when it last opened
    std::optional<std::size_t> closeStep;
    std::optional<std::size_t> reconnect;  // the reconnect being collected (index into reconnects)
    // Sends: the highest sequence id counted per partition, and the ones to count
    // again (refused while the broker had closed the producer: the client resends them).
    std::map<int, std::uint64_t> highestSequence;
    std::set<std::pair<int, std::uint64_t>> resendable;
};

struct Reconnect {
    std::size_t handle = 0;
    std::size_t openedBefore = 0;
    std::map<int, Observed> answers;
    // Where its outcome goes, as far as the steps were searched (steps are only
    // appended, and the ones searched for never change): see State::targetOf.
    std::size_t searchedTo = 0;
    std::optional<std::size_t> target;
    bool givenUp = false;  // its topic was deleted first
};

enum class Kind { producer, subscribe, close, metadata, getOrCreateSchema };

struct Request {
    Kind kind = Kind::producer;
    std::size_t handle = 0;
    int partition = -1;
    bool reconnect = false;
    std::string topic;          // metadata, getOrCreateSchema
    sim::SchemaRef schema;      // getOrCreateSchema
};

struct Part {
    std::size_t handle = 0;
    int partition = -1;
};

struct Conn {
    std::string app;
    std::string clientVersion;
    int protocol = 0;
    std::map<std::uint64_t, Request> requests;
    std::map<std::uint64_t, Part> producers, consumers;
    struct Sent {
        std::size_t step = 0;
        std::int64_t messages = 1;
    };
    std::map<std::pair<std::uint64_t, std::uint64_t>, Sent> sends;  // (producer, sequence) -> its publish
    std::map<std::string, std::pair<sim::SchemaRef, std::optional<std::int64_t>>> schemaFor;  // topic -> GOCS result
};

struct StepMeta {
    std::string app;                     // producer / subscribe: who
    std::optional<std::size_t> handle;   // publish / close: whose
    bool answered = false;
    bool mergeable = false;              // a publish later sends may join
    bool dropped = false;                // a publish all of whose sends were resent later
    std::int64_t messages = 0;           // a publish's messages as the SENDs counted them (64 bits: they claim any int32)
};

// First failure in partition order, else partition 0's (or the only) version.
inline Observed combined(const std::map<int, Observed>& answers) {
    for (const auto& [_, o] : answers)
        if (!o.ok) return o;
    return answers.empty() ? Observed::success() : answers.begin()->second;
}

// An upgrade, restart, or a successful unload of `topic` (its partitioned base): where reconnects report.
inline bool isReconnectStep(const sim::Step& s, const std::string& topic, const Observed& o) {
    if (s.is<sim::UpgradeBrokerStep>() || s.is<sim::RestartBrokerStep>()) return true;
    if (!s.is<sim::UnloadStep>() || !o.ok) return false;
    auto t = TopicName::parse(std::get<sim::UnloadStep>(s.body).topic);
    return t && t->partitionedBase().toString() == topic;
}

inline bool deletes(const sim::Step& s, const std::string& topic, const Observed& o) {
    if (!s.is<sim::DeleteTopicStep>() || !o.ok) return false;
    auto t = TopicName::parse(std::get<sim::DeleteTopicStep>(s.body).topic);
    return t && t->partitionedBase().toString() == topic;
}

// Whether a scenario can name namespace `ns`: tenant/namespace of [A-Za-z0-9-_.=:]
// (the loader's rule, which TopicName applies to the first two parts of tenant/ns/topic).
inline bool formatNamespace(const std::string& ns) {
    return std::count(ns.begin(), ns.end(), '/') == 1 && TopicName::parse(ns + "/t").has_value();
}

inline std::string versionIn(const std::string& text) {
    std::smatch m;
    static const std::regex kVersion(R"((\d+\.\d+(\.\d+)?))");
    return std::regex_search(text, m, kVersion) ? m[1].str() : std::string();
}

}  // namespace detail

using namespace detail;

struct SessionRecorder::State {
    RecorderOptions options;
    sim::Scenario header;
    std::vector<RecordedStep> steps;
    std::vector<StepMeta> meta;
    std::vector<Handle> handles;
    std::vector<Reconnect> reconnects;
    std::map<std::uint64_t, Conn> conns;
    std::map<std::string, std::pair<std::string, int>> apps;  // app -> (client_version, protocol)
    std::map<std::string, int> partitionsOf;  // base topic -> partitions (from metadata and admin)
    std::set<std::string> namesTaken;
    std::map<std::string, int> nextSuffix;  // uniqueName: the next "-N" to try for a wanted name
    std::map<std::pair<bool, std::string>, std::vector<std::size_t>> handlesOn;  // (producer?, base topic) -> handles
    std::vector<std::string> appOrder;  // applications in the order of their first step
    std::map<std::string, std::size_t> appIndex;  // application -> its place in appOrder
    std::map<std::string, std::size_t> namespaceAt, topicAt;  // header.namespaces / header.topics index by name
    std::size_t firstDirty = 0;  // the first step changed since the recording file last caught up
    std::uint64_t headerVersion = 0;  // counts changes of what the header writes
    std::uint64_t tailVersion = 0;    // counts changes of the notes after the last step
    SchemaAliases aliases;
    std::vector<std::string> notes;  // header comments: namespaces and topics created mid-session
    int unnamedConsumers = 0;

    // The step a reconnect's outcome goes to: the first upgrade, restart or unload
    // of its topic from where its handle last opened, unless the topic was
    // deleted first (then none: a trailing note). The search goes on from where
    // it stopped, so each step is looked at once per reconnect.
    std::optional<std::size_t> targetOf(Reconnect& rc) {
        const auto& topic = handles[rc.handle].topic;
        rc.searchedTo = std::max(rc.searchedTo, rc.openedBefore);
        for (; rc.searchedTo < steps.size() && !rc.target && !rc.givenUp; ++rc.searchedTo) {
            const auto& st = steps[rc.searchedTo];
            if (deletes(st.step, topic, st.observed)) rc.givenUp = true;
            else if (isReconnectStep(st.step, topic, st.observed)) rc.target = rc.searchedTo;
        }
        return rc.target;
    }

    // Step `i` changed: the recording file rewrites it and what follows.
    void touch(std::size_t i) { firstDirty = std::min(firstDirty, i); }
    void headerChanged() { ++headerVersion; }

    void setPartitions(const std::string& topic, int partitions) {
        auto [it, added] = partitionsOf.try_emplace(topic, partitions);
        if (added || it->second != partitions) headerChanged();
        it->second = partitions;
    }

    std::size_t addStep(RecordedStep s, StepMeta m) {
        touch(steps.size());
        if (!m.app.empty() && appIndex.emplace(m.app, appOrder.size()).second) {
            appOrder.push_back(m.app);
            headerChanged();  // `clients:` (and every step's `client`) may change
        }
        steps.push_back(std::move(s));
        meta.push_back(std::move(m));
        return steps.size() - 1;
    }

    // A step name that later steps can use: unique, and never read as a version
    // range when it is a key of a reconnect map (a first key starting with a
    // digit, '<', '>' or '=', or `default`, makes the map a per-version one).
    std::string uniqueName(const std::string& wanted, const char* prefix) {
        bool rangeLike = wanted == "default" || wanted.empty() || std::isdigit(static_cast<unsigned char>(wanted[0])) ||
                         wanted[0] == '<' || wanted[0] == '>' || wanted[0] == '=';
        std::string base = rangeLike ? std::string(prefix) + wanted : wanted;
        std::string name = base;
        if (namesTaken.count(name)) {
            // Each wanted name remembers how far its suffixes went: 20,000 producers named `p`
            // cost one probe each, not one per earlier `p` (issue 40, item 15).
            int& n = nextSuffix.try_emplace(base, 2).first->second;
            do name = base + "-" + std::to_string(n++);
            while (namesTaken.count(name));
        }
        namesTaken.insert(name);
        return name;
    }

    sim::SchemaRef refOf(const pulsar::proto::Schema* schema, const std::string& topic) {
        sim::SchemaRef ref;
        if (!schema) return ref;
        if (schema->type() == pulsar::proto::Schema::AutoConsume) {
            ref.kind = sim::SchemaRef::Kind::autoConsume;
            return ref;
        }
        auto known = aliases.table().size();
        auto named = aliases.refFor(wire::fromProto(*schema), topic);
        if (aliases.table().size() != known) headerChanged();
        return named;
    }

    Conn& conn(std::uint64_t id) { return conns[id]; }

    std::size_t addHandle(Handle h) {
        handlesOn[{h.producer, h.topic}].push_back(handles.size());
        handles.push_back(std::move(h));
        return handles.size() - 1;
    }

    void setName(Handle& h, const std::string& name) {
        h.name = name;
        touch(h.step);
        auto& body = steps[h.step].step.body;
        if (auto* p = std::get_if<sim::ProducerStep>(&body)) p->name = name;
        if (auto* c = std::get_if<sim::SubscribeStep>(&body)) c->consumer = name;
    }

    // A re-sent PRODUCER / SUBSCRIBE of a handle waiting to reconnect.
    std::optional<std::size_t> reconnecting(bool producer, const std::string& topic, const std::string& name,
                                            const std::string& subscription) {
        if (name.empty()) return std::nullopt;
        auto on = handlesOn.find({producer, topic});
        if (on == handlesOn.end()) return std::nullopt;
        for (auto k = on->second.size(); k-- > 0;) {
            std::size_t i = on->second[k];
            const auto& h = handles[i];
            if (!h.awaiting || h.failed) continue;
            bool same = h.wireNames.count(name) > 0 && (producer || h.subscription == subscription);
            if (same) return i;
        }
        return std::nullopt;
    }

    // A partition request that joins the handle being created on this connection.
    std::optional<std::size_t> joining(std::uint64_t c, bool producer, const std::string& topic, int partition,
                                       const std::string& key) {
        if (partition < 0) return std::nullopt;
        auto on = handlesOn.find({producer, topic});
        if (on == handlesOn.end()) return std::nullopt;
        for (auto k = on->second.size(); k-- > 0;) {
            std::size_t i = on->second[k];
            auto& h = handles[i];
            if (h.app != conns[c].app || h.closeStep) continue;
            if (h.answers.count(partition) || std::any_of(h.pendingParts.begin(), h.pendingParts.end(),
                                                          [&](const auto& p) { return p.second == partition; }))
                continue;
            if ((producer ? steps[h.step].step.is<sim::ProducerStep>() : h.subscription == key)) return i;
        }
        return std::nullopt;
    }

    void onProducer(std::uint64_t c, const pulsar::proto::CommandProducer& p) {
        auto parsed = TopicName::parse(p.topic());
        if (!parsed) return;
        std::string base = parsed->partitionedBase().toString();
        int partition = parsed->partitionIndex();
        auto& cn = conn(c);
        Request r;
        r.kind = Kind::producer;
        r.partition = partition;
        if (auto h = reconnecting(true, base, p.producer_name(), "")) {
            r.handle = *h;
            r.reconnect = true;
            if (cn.app.empty()) cn.app = handles[*h].app;
            auto& handle = handles[*h];
            if (!handle.reconnect) {
                reconnects.push_back({*h, handle.openedAt, {}, 0, std::nullopt, false});
                handle.reconnect = reconnects.size() - 1;
            }
        } else if (auto j = joining(c, true, base, partition, "")) {
            r.handle = *j;
        } else {
            Handle h;
            h.producer = true;
            h.topic = base;
            h.app = cn.app;
            sim::ProducerStep body;
            body.topic = base;
            body.schema = refOf(p.has_schema() ? &p.schema() : nullptr, base);
            body.accessMode = pulsar::proto::ProducerAccessMode_Name(p.producer_access_mode());
            RecordedStep s;
            s.step.action = "producer";
            s.step.body = body;
            h.step = addStep(std::move(s), {cn.app, std::nullopt, false, false});
            r.handle = addHandle(std::move(h));
            if (!p.producer_name().empty()) setName(handles.back(), uniqueName(p.producer_name(), "p-"));
        }
        handles[r.handle].pendingParts[p.request_id()] = partition;
        cn.producers[p.producer_id()] = {r.handle, partition};
        cn.requests[p.request_id()] = r;
    }

    void onSubscribe(std::uint64_t c, const pulsar::proto::CommandSubscribe& s) {
        auto parsed = TopicName::parse(s.topic());
        if (!parsed) return;
        std::string base = parsed->partitionedBase().toString();
        int partition = parsed->partitionIndex();
        auto& cn = conn(c);
        Request r;
        r.kind = Kind::subscribe;
        r.partition = partition;
        if (auto h = reconnecting(false, base, s.consumer_name(), s.subscription())) {
            r.handle = *h;
            r.reconnect = true;
            if (cn.app.empty()) cn.app = handles[*h].app;
            auto& handle = handles[*h];
            if (!handle.reconnect) {
                reconnects.push_back({*h, handle.openedAt, {}, 0, std::nullopt, false});
                handle.reconnect = reconnects.size() - 1;
            }
        } else if (auto j = joining(c, false, base, partition, s.subscription())) {
            r.handle = *j;
        } else {
            Handle h;
            h.producer = false;
            h.topic = base;
            h.subscription = s.subscription();
            h.app = cn.app;
            sim::SubscribeStep body;
            body.topic = base;
            body.subscription = s.subscription();
            body.schema = refOf(s.has_schema() ? &s.schema() : nullptr, base);
            body.subType = pulsar::proto::CommandSubscribe::SubType_Name(s.subtype());
            body.durable = s.durable();
            RecordedStep st;
            st.step.action = "subscribe";
            st.step.body = body;
            h.step = addStep(std::move(st), {cn.app, std::nullopt, false, false});
            r.handle = addHandle(std::move(h));
            std::string name = s.consumer_name().empty() ? "consumer-" + std::to_string(++unnamedConsumers) : s.consumer_name();
            handles.back().wireNames.insert(s.consumer_name());
            setName(handles.back(), uniqueName(name, "c-"));
        }
        handles[r.handle].pendingParts[s.request_id()] = partition;
        cn.consumers[s.consumer_id()] = {r.handle, partition};
        cn.requests[s.request_id()] = r;
    }

    // CLOSE_PRODUCER / CLOSE_CONSUMER / UNSUBSCRIBE from the client: one close step per handle.
    void onClose(std::uint64_t c, bool producer, std::uint64_t id, std::uint64_t requestId, bool unsubscribe) {
        auto& cn = conn(c);
        auto& parts = producer ? cn.producers : cn.consumers;
        auto it = parts.find(id);
        if (it == parts.end()) return;
        auto& h = handles[it->second.handle];
        if (h.failed || h.name.empty()) return;  // the client giving up the partitions that did open
        if (!h.closeStep) {
            RecordedStep s;
            s.step.action = "close";
            s.step.body = sim::CloseStep{h.name};
            if (unsubscribe) s.notes.push_back("unsubscribed (the format has no unsubscribe: written as close)");
            h.closeStep = addStep(std::move(s), {h.app, it->second.handle, false, false});
            Request r;
            r.kind = Kind::close;
            r.handle = it->second.handle;
            cn.requests[requestId] = r;
        }
        h.awaiting = false;
    }

    void onSend(std::uint64_t c, const pulsar::proto::CommandSend& send) {
        auto& cn = conn(c);
        auto it = cn.producers.find(send.producer_id());
        if (it == cn.producers.end()) return;
        auto& h = handles[it->second.handle];
        if (h.name.empty() || h.failed) return;
        // A client resends what the broker did not acknowledge once it has reconnected
        // (same sequence ids): a message is counted once, and not while the producer is closed.
        int partition = it->second.partition;
        std::uint64_t seq = send.sequence_id();
        if (h.awaiting) return;
        auto highest = h.highestSequence.find(partition);
        bool again = h.resendable.erase({partition, seq}) > 0;
        if (highest != h.highestSequence.end() && seq <= highest->second && !again) return;
        std::uint64_t last = std::max(seq, send.highest_sequence_id());
        if (highest == h.highestSequence.end() || highest->second < last) h.highestSequence[partition] = last;
        std::int64_t count = send.has_num_messages() ? std::max(1, send.num_messages()) : 1;
        auto schema = cn.schemaFor.find(h.topic);
        std::size_t at = steps.size();
        bool merge = schema == cn.schemaFor.end() && !steps.empty() && meta.back().mergeable &&
                     meta.back().handle == it->second.handle;
        if (merge) {
            at = steps.size() - 1;
            touch(at);
            meta[at].messages += count;
        } else {
            sim::PublishStep body{h.name, 1, std::nullopt};
            RecordedStep s;
            s.step.action = "publish";
            if (schema != cn.schemaFor.end()) {
                body.schema = schema->second.first;
                s.observed.schemaVersion = schema->second.second;
                cn.schemaFor.erase(schema);
            }
            s.step.body = body;
            at = addStep(std::move(s), {h.app, it->second.handle, true, !body.schema});
            meta[at].messages = count;
        }
        cn.sends[{send.producer_id(), seq}] = {at, count};
    }

    void received(std::uint64_t c, const BaseCommand& cmd) {
        auto& cn = conn(c);
        switch (cmd.type()) {
            case BaseCommand::CONNECT:
                cn.clientVersion = cmd.connect().client_version();
                cn.protocol = cmd.connect().protocol_version();
                return;
            case BaseCommand::PARTITIONED_METADATA: {
                auto t = TopicName::parse(cmd.partitionmetadata().topic());
                if (t) cn.requests[cmd.partitionmetadata().request_id()] = {Kind::metadata, 0, -1, false, t->toString(), {}};
                return;
            }
            case BaseCommand::PRODUCER: return onProducer(c, cmd.producer());
            case BaseCommand::SUBSCRIBE: return onSubscribe(c, cmd.subscribe());
            case BaseCommand::CLOSE_PRODUCER:
                return onClose(c, true, cmd.close_producer().producer_id(), cmd.close_producer().request_id(), false);
            case BaseCommand::CLOSE_CONSUMER:
                return onClose(c, false, cmd.close_consumer().consumer_id(), cmd.close_consumer().request_id(), false);
            case BaseCommand::UNSUBSCRIBE:
                return onClose(c, false, cmd.unsubscribe().consumer_id(), cmd.unsubscribe().request_id(), true);
            case BaseCommand::SEND: return onSend(c, cmd.send());
            case BaseCommand::GET_OR_CREATE_SCHEMA: {
                auto t = TopicName::parse(cmd.getorcreateschema().topic());
                if (!t) return;
                Request r;
                r.kind = Kind::getOrCreateSchema;
                r.topic = t->partitionedBase().toString();
                r.schema = refOf(&cmd.getorcreateschema().schema(), r.topic);
                cn.requests[cmd.getorcreateschema().request_id()] = r;
                return;
            }
            default: return;  // LOOKUP, PING, FLOW, ACK, ...: not steps
        }
    }

    void answerOpen(std::uint64_t requestId, const Request& r, Observed o, const std::string& brokerName) {
        auto& h = handles[r.handle];
        h.pendingParts.erase(requestId);
        if (o.ok && h.producer && !brokerName.empty()) h.wireNames.insert(brokerName);
        if (r.reconnect) {
            auto& rc = reconnects[*h.reconnect];
            if (auto target = targetOf(rc)) touch(*target);
            else ++tailVersion;  // a note after the last step
            rc.answers[r.partition] = o;
            if (h.pendingParts.empty()) {
                h.reconnect.reset();
                h.awaiting = !combined(rc.answers).ok;  // a refused reconnect is retried by the client
                if (!h.awaiting) h.openedAt = steps.size();
            }
            return;
        }
        if (h.producer && h.name.empty() && o.ok && !brokerName.empty()) setName(h, uniqueName(brokerName, "p-"));
        h.answers[r.partition] = o;
        auto all = combined(h.answers);
        h.failed = !all.ok;
        h.openedAt = steps.size();
        touch(h.step);
        steps[h.step].observed = all;
        meta[h.step].answered = true;
    }

    // An ERROR or SUCCESS that answers request `id`.
    void answer(std::uint64_t c, std::uint64_t id, Observed o) {
        auto& cn = conn(c);
        auto it = cn.requests.find(id);
        if (it == cn.requests.end()) return;
        Request r = it->second;
        cn.requests.erase(it);
        switch (r.kind) {
            case Kind::producer:
            case Kind::subscribe: return answerOpen(id, r, std::move(o), "");
            case Kind::close: {
                auto& h = handles[r.handle];
                touch(*h.closeStep);
                steps[*h.closeStep].observed = std::move(o);
                meta[*h.closeStep].answered = true;
                return;
            }
            case Kind::getOrCreateSchema: {
                // A refused schema ends the publish before any message: the step of the topic's last producer.
                auto on = handlesOn.find({true, r.topic});
                if (on == handlesOn.end()) return;
                for (auto k = on->second.size(); k-- > 0;) {
                    std::size_t i = on->second[k];
                    const auto& h = handles[i];
                    if (h.name.empty() || h.closeStep || h.app != cn.app) continue;
                    RecordedStep s;
                    s.step.action = "publish";
                    s.step.body = sim::PublishStep{h.name, 1, r.schema};
                    s.observed = std::move(o);
                    addStep(std::move(s), {h.app, i, true, false});
                    return;
                }
                return;
            }
            case Kind::metadata: return;
        }
    }

    void sent(std::uint64_t c, const BaseCommand& cmd) {
        auto& cn = conn(c);
        switch (cmd.type()) {
            case BaseCommand::CONNECTED:
                if (options.brokerVersion.empty()) {
                    options.brokerVersion = versionIn(cmd.connected().server_version());
                    headerChanged();
                }
                return;
            case BaseCommand::PARTITIONED_METADATA_RESPONSE: return sentPartitions(cn, cmd.partitionmetadataresponse());
            case BaseCommand::PRODUCER_SUCCESS: return sentProducerSuccess(cn, cmd.producer_success());
            case BaseCommand::SUCCESS: return answer(c, cmd.success().request_id(), Observed::success());
            case BaseCommand::ERROR:
                return answer(c, cmd.error().request_id(),
                              Observed::failure(pulsar::proto::ServerError_Name(cmd.error().error()), cmd.error().message()));
            case BaseCommand::GET_OR_CREATE_SCHEMA_RESPONSE: return sentSchema(c, cn, cmd.getorcreateschemaresponse());
            case BaseCommand::SEND_ERROR: return sentSendError(cn, cmd.send_error());
            case BaseCommand::SEND_RECEIPT:
                cn.sends.erase({cmd.send_receipt().producer_id(), cmd.send_receipt().sequence_id()});
                return;
            case BaseCommand::CLOSE_PRODUCER:
            case BaseCommand::CLOSE_CONSUMER: {  // the broker closing it: the client reconnects
                bool producer = cmd.type() == BaseCommand::CLOSE_PRODUCER;
                auto& parts = producer ? cn.producers : cn.consumers;
                auto it = parts.find(producer ? cmd.close_producer().producer_id() : cmd.close_consumer().consumer_id());
                if (it != parts.end() && !handles[it->second.handle].closeStep) handles[it->second.handle].awaiting = true;
                return;
            }
            default: return;
        }
    }

    // sent()'s answers with more to them than one call.
    void sentPartitions(Conn& cn, const pulsar::proto::CommandPartitionedTopicMetadataResponse& m) {
        auto it = cn.requests.find(m.request_id());
        if (it == cn.requests.end()) return;
        if (m.partitions() > 0 && !m.has_error()) setPartitions(it->second.topic, static_cast<int>(m.partitions()));
        cn.requests.erase(it);
    }

    void sentProducerSuccess(Conn& cn, const pulsar::proto::CommandProducerSuccess& s) {
        if (s.has_producer_ready() && !s.producer_ready()) return;  // a second PRODUCER_SUCCESS follows
        auto it = cn.requests.find(s.request_id());
        if (it == cn.requests.end()) return;
        Request r = it->second;
        cn.requests.erase(it);
        Observed o;
        o.schemaVersion = wire::decodeSchemaVersion(s.schema_version());
        return answerOpen(s.request_id(), r, std::move(o), s.producer_name());
    }

    void sentSchema(std::uint64_t c, Conn& cn, const pulsar::proto::CommandGetOrCreateSchemaResponse& g) {
        auto it = cn.requests.find(g.request_id());
        if (it == cn.requests.end()) return;
        if (g.has_error_code())
            return answer(c, g.request_id(),
                          Observed::failure(pulsar::proto::ServerError_Name(g.error_code()), g.error_message()));
        cn.schemaFor[it->second.topic] = {it->second.schema, wire::decodeSchemaVersion(g.schema_version())};
        cn.requests.erase(it);
    }

    void sentSendError(Conn& cn, const pulsar::proto::CommandSendError& e) {
        auto it = cn.sends.find({e.producer_id(), e.sequence_id()});
        if (it == cn.sends.end()) return;
        auto [step, messages] = it->second;
        cn.sends.erase(it);
        touch(step);
        auto part = cn.producers.find(e.producer_id());
        if (part != cn.producers.end() && handles[part->second.handle].awaiting) {
            // Refused because the broker had just closed the producer: the client
            // resends it after reconnecting, so it is counted then instead.
            meta[step].messages -= messages;
            meta[step].dropped = meta[step].messages <= 0;
            handles[part->second.handle].resendable.insert({part->second.partition, e.sequence_id()});
            return;
        }
        steps[step].observed = Observed::failure(pulsar::proto::ServerError_Name(e.error()), e.message());
        meta[step].mergeable = false;
    }

    void closed(std::uint64_t c) {
        auto it = conns.find(c);
        if (it == conns.end()) return;
        for (const auto* parts : {&it->second.producers, &it->second.consumers}) {
            for (const auto& [_, part] : *parts) {
                auto& h = handles[part.handle];
                if (!h.closeStep && !h.failed) h.awaiting = true;
                h.pendingParts.clear();
                h.reconnect.reset();
            }
        }
        conns.erase(it);
    }

    void adminExchange(const serve::AdminExchange& x) {
        auto known = aliases.table().size();
        auto e = adminEffect(x, aliases);
        if (aliases.table().size() != known) headerChanged();
        if (e.createdNamespace) declareNamespace(*e.createdNamespace);
        if (e.createdTopic) declareTopic(*e.createdTopic, e.partitions);
        if (!e.step) return;
        const auto* policy = std::get_if<sim::SetPolicyStep>(&e.step->step.body);
        if (policy && policy->namespaceName && !formatNamespace(*policy->namespaceName)) {
            notes.push_back("not recorded: " + e.step->step.action + " of namespace " + *policy->namespaceName +
                            " (a scenario's namespace names take [A-Za-z0-9-_.=:])");
            headerChanged();
            return;
        }
        addStep(std::move(*e.step), {"", std::nullopt, true, false});
    }

    void declareNamespace(const std::string& ns) {
        if (!formatNamespace(ns)) {
            notes.push_back("namespace " + ns + " is not declared: a scenario's namespace names take [A-Za-z0-9-_.=:]");
            headerChanged();
            return;
        }
        if (!namespaceAt.emplace(ns, header.namespaces.size()).second) return;
        if (!steps.empty()) notes.push_back("namespace " + ns + " was created after step " + std::to_string(steps.size()) +
                                            "; a scenario declares it up front");
        header.namespaces.push_back({ns, {}, {}});
        headerChanged();
    }

    void declareTopic(const std::string& topic, int partitions) {
        if (partitions > 0) setPartitions(topic, partitions);
        if (auto at = topicAt.find(topic); at != topicAt.end()) {
            auto& t = header.topics[at->second];
            if (partitions > t.partitions) headerChanged();
            t.partitions = std::max(t.partitions, partitions);
            return;
        }
        topicAt.emplace(topic, header.topics.size());
        headerChanged();
        if (!steps.empty()) notes.push_back("topic " + topic + " was created after step " + std::to_string(steps.size()) +
                                            "; a scenario declares it up front");
        header.topics.push_back({topic, partitions, {}, {}});
    }
};


}  // namespace cnx::record
