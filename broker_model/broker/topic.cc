#include "broker_model/broker/topic.h"

#include <algorithm>
#include <cctype>

#include "broker_model/broker/broker.h"
#include "broker_model/core/concat.h"
#include "broker_model/policy/policy_resolution.h"

namespace cnx {
namespace {

const char* yesNo(bool b) { return b ? "true" : "false"; }

BrokerError busy(RefusalKind kind, std::string message) { return {kind, std::move(message)}; }

// `AbstractTopic.checkTopicFenced` / `PersistentTopic.internalSubscribe` on a fenced topic.
BrokerError fencedError() { return busy(RefusalKind::topicFenced, "Topic is temporarily unavailable"); }

}  // namespace

Topic::Topic(TopicName name, Broker& broker)
    : name_(std::move(name)), schemaId_(name_.schemaId()), broker_(broker) {
    // Durable cursors survive unloads and restarts: their subscriptions come
    // back without consumers.
    if (const auto* ledger = broker_.findLedger(name_)) {
        for (const auto& [sub, type] : ledger->durableCursors) {
            auto& s = subscriptions_[sub];
            s = Subscription{};
            s.name = sub;
            s.subType = type;
            s.durable = true;
            // The acknowledged state survives; what was dispatched and not acknowledged is read again.
            if (auto it = ledger->cursorState.find(sub); it != ledger->cursorState.end()) s.cursor = it->second;
            s.cursor.readPosition = s.cursor.markDelete;
        }
    }
    if (!persistent()) {
        liveLog_.ledgerId = broker_.nextLedgerId();
        liveLog_.setBudget(broker_.logBudget());
    }
}

void Topic::touched(bool write) const { broker_.scheduler().touch("topic", name_.toString(), write); }

void Topic::whenLoaded(Continuation&& next) {
    if (loadStarted_) {
        next();
        return;
    }
    loadStarted_ = true;
    broker_.scheduler().post(stage(StageKind::topicLoad), std::move(next));
}

bool Topic::hasSchema() const { return broker_.registry().hasSchema(schemaId_); }

// §3.3 / §4.8: auto-update allowed -> putSchemaIfAbsent with the effective
// strategy; otherwise the lookup-only path (no validation, no check).
void Topic::addSchema(const SchemaData& schema, TracePtr trace, VersionCallback done) {
    const auto& profile = broker_.profile();
    const auto& store = broker_.policies();
    const auto& id = schemaId_;
    if (!effectiveAutoUpdate(profile, store, name_, trace.get())) {
        broker_.registry().findExistingVersion(id, schema, std::move(trace), std::move(done));
        return;
    }
    auto strategy = effectiveStrategy(profile, store, name_, trace.get());
    broker_.registry().putSchemaIfAbsent(id, schema, strategy, std::move(trace), std::move(done));
}

int Topic::consumerCount() const {
    touched(false);
    int n = 0;
    for (const auto& [_, sub] : subscriptions_) n += static_cast<int>(sub.consumers.size());
    return n;
}

// §3.5, per profile: which attachments and data make the topic "not idle".
bool Topic::notIdle(std::string* why) const {
    touched(false);
    const auto& profile = broker_.profile();
    bool schema = hasSchema();
    std::uint64_t data = 0;
    if (persistent()) {
        const auto* ledger = broker_.findLedger(name_);
        data = ledger ? ledger->retainedBytes : 0;
    } else {
        data = entriesAdded_;
    }
    std::string dataName = persistent() ? "ledgerSize" : "messagesAdded";
    switch (profile.idleRule) {
        case IdleRule::activeUsageOrSubscriptions: {
            int usage = static_cast<int>(producers_.size()) + consumerCount();
            bool active = usage != 0 || !subscriptions_.empty();
            if (why)
                *why = concat("hasSchema=", yesNo(schema), " usageCount=", std::to_string(usage),
                              " subscriptions=", std::to_string(subscriptions_.size()), " ", dataName, "=",
                              std::to_string(data));
            return schema || active || data != 0;
        }
        case IdleRule::producersOrConnectedConsumers: break;
    }
    int producers = 0;
    bool excludeReplicators = persistent() && profile.idleIgnoresReplicatorProducersPersistent;
    for (const auto& p : producers_) producers += (excludeReplicators && p.replicator) ? 0 : 1;
    int consumers = 0;
    for (const auto& [_, sub] : subscriptions_) {
        for (const auto& c : sub.consumers) {
            bool autoConsume = c.schemaType == SchemaType::AUTO_CONSUME;
            consumers += (profile.idleIgnoresAutoConsumeConsumers && autoConsume) ? 0 : 1;
        }
    }
    if (why) {
        *why = concat("hasSchema=", yesNo(schema), excludeReplicators ? " userProducers=" : " producers=",
                      std::to_string(producers),
                      profile.idleIgnoresAutoConsumeConsumers ? " consumers(non-AUTO_CONSUME)=" : " consumers=",
                      std::to_string(consumers), " ", dataName, "=", std::to_string(data));
    }
    return schema || producers > 0 || consumers > 0 || data != 0;
}

bool Topic::isIdleForSchema(std::string* why) const { return !notIdle(why); }

void Topic::addSchemaIfIdleOrCheckCompatible(const SchemaData& schema, TracePtr trace, CheckCallback done) {
    // It holds the schema: it goes to the heap, posted as a Continuation (Continuation::inPlace).
    Continuation next([self = shared_from_this(), schema, trace = std::move(trace), done = std::move(done)]() mutable {
        self->idleOrCheck(schema, trace, std::move(done));  // run once: the callback is handed on
    });
    broker_.scheduler().post(stage(StageKind::schemaLookup), std::move(next));
}

// The "schema lookup" stage of §3.5: the idle test, then register or check.
void Topic::idleOrCheck(const SchemaData& schema, const TracePtr& trace, CheckCallback done) {
    std::string why;  // the idle test's inputs, written only when the trace keeps them
    if (!notIdle(trace->detailed() ? &why : nullptr)) {
        trace->add("§3.5", "addSchemaIfIdleOrCheckCompatible", [&] { return "idle: " + why + " -> register"; });
        addSchema(schema, trace, [done = std::move(done)](Result<SchemaVersion> r) {
            done(r.ok() ? std::nullopt : std::optional<BrokerError>(r.error()));
        });
        return;
    }
    trace->add("§3.5", "addSchemaIfIdleOrCheckCompatible", [&] { return "not idle: " + why + " -> check"; });
    auto strategy = effectiveStrategy(broker_.profile(), broker_.policies(), name_, trace.get());
    if (!broker_.profile().pip44ConsumerCheck) {
        checkConsumerLegacy(schema, strategy, trace, std::move(done));
        return;
    }
    bool convert = broker_.profile().activeTopicEmptySchemaMessage;
    auto type = std::string(to_string_view(schema.type));
    broker_.registry().checkConsumerCompatibility(
        schemaId_, schema, strategy, trace,
        [done = std::move(done), convert, type = std::move(type), trace](std::optional<BrokerError> err) {
            if (err && convert && err->kind == RefusalKind::schemaNotFound) {
                // §3.5 (#22974): NotExistSchemaException becomes this IncompatibleSchemaException.
                trace->add("§3.5", "addSchemaIfIdleOrCheckCompatible", "NotExistSchemaException -> rephrased (#22974)");
                err->kind = RefusalKind::incompatibleSchema;
                err->message = "Failed to add schema to an active topic with empty(BYTES) schema: new schema type " + type;
            }
            done(err);
        });
}

// §3.4 / §2.2 v2.4.x: the producer's boolean check; no live schema, or a
// false answer, refuses with one message.
void Topic::checkConsumerLegacy(const SchemaData& schema, CompatibilityStrategy strategy, TracePtr trace,
                                CheckCallback done) {
    // It holds the schema: it goes to the heap, posted as a Continuation (Continuation::inPlace).
    Continuation next([self = shared_from_this(), schema, strategy, trace = std::move(trace), done = std::move(done)] {
        self->checkConsumerLegacyNow(schema, strategy, trace, done);
    });
    broker_.scheduler().post(stage(StageKind::registryRead), std::move(next));
}

void Topic::checkConsumerLegacyNow(const SchemaData& schema, CompatibilityStrategy strategy, const TracePtr& trace,
                                   const CheckCallback& done) {
    auto& registry = broker_.registry();
    bool live = registry.latest(schemaId_).has_value();
    std::vector<Problem> problems;
    bool ok = live && registry.legacyIsCompatible(schemaId_, schema, strategy, *trace, &problems);
    if (!live) trace->add("§3.4", "isSchemaCompatible (2.4)", "no live schema -> false");
    if (ok) {
        done(std::nullopt);
        return;
    }
    BrokerError refusal{RefusalKind::incompatibleSchema, "Trying to subscribe with incompatible schema"};
    SchemaRegistry::recordProblems(refusal, std::move(problems), schema.type, *trace);
    done(refusal);
}

// Producer-name conflicts and access modes (AbstractTopic, 4.x; not schema
// logic, but they run after the schema step and decide the final answer).
std::optional<BrokerError> Topic::addProducer(const AttachedProducer& producer) {
    touched(true);
    if (fenced_) return fencedError();
    // PersistentTopic.addProducer: a terminated ledger, then the producer limit
    // (AbstractTopic.internalAddProducer / isProducersExceeded).
    if (const auto* ledger = persistent() ? broker_.findLedger(name_) : nullptr; ledger && ledger->terminated)
        return busy(RefusalKind::topicTerminated, "Topic was already terminated");
    if (auto limit = broker_.policies().namespaceOf(name_).max_producers_per_topic; limit && *limit > 0) {
        auto users = std::count_if(producers_.begin(), producers_.end(), [](const AttachedProducer& p) { return !p.replicator; });
        if (users >= *limit) return busy(RefusalKind::producerBusy, "Topic reached max producers limit");
    }
    if (producerNames_.count(producer.name)) {
        return busy(RefusalKind::producerNameTaken,
                    "Producer with name '" + producer.name + "' is already connected to topic '" + name_.toString() +
                        "'");
    }
    const AttachedProducer* holder = exclusiveHolder();
    const std::string& mode = producer.accessMode;
    if (mode == "Shared" && holder) {
        return busy(RefusalKind::producerBusy,
                    "Topic has an existing exclusive producer: " + holder->name);
    }
    if (mode == "Exclusive" || mode == "WaitForExclusive") {
        // WaitForExclusive would queue instead of failing; the model does not queue
        // producers, so it answers as Exclusive does (documented in doc/scenario-format.md).
        if (holder)
            return busy(RefusalKind::producerFenced,
                        "Topic has an existing exclusive producer: " + holder->name);
        if (!producers_.empty())
            return busy(RefusalKind::producerFenced, "Topic has existing shared producers");
    }
    if (mode == "ExclusiveWithFencing") fenceProducers();
    attachProducer(producer);
    return std::nullopt;
}

const AttachedProducer* Topic::exclusiveHolder() const {
    touched(false);
    if (nonSharedProducers_ == 0) return nullptr;
    auto it = std::find_if(producers_.begin(), producers_.end(),
                           [](const AttachedProducer& p) { return p.accessMode != "Shared"; });
    return it == producers_.end() ? nullptr : &*it;
}

void Topic::attachProducer(const AttachedProducer& producer) {
    touched(true);
    producerAt_[{producer.connectionId, producer.producerId}] = producers_.size();
    producers_.push_back(producer);
    producerNames_.insert(producer.name);
    if (producer.accessMode != "Shared") ++nonSharedProducers_;
}

// AbstractTopic.incrementTopicEpochIfNeeded, ExclusiveWithFencing: each current
// producer is closed (Producer.close: CLOSE_PRODUCER to its client, which
// reconnects and is refused with ProducerFenced while this one holds the topic).
void Topic::fenceProducers() {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> fenced;
    fenced.reserve(producers_.size());
    for (const auto& p : producers_) fenced.emplace_back(p.connectionId, p.producerId);
    detachProducersIf([](const AttachedProducer&) { return true; });
    for (auto [connection, producer] : fenced)
        if (auto* c = broker_.connections().find(connection)) c->closeProducer(producer);
}

template <typename Pred>
void Topic::detachProducersIf(Pred detach) {
    auto removed = std::erase_if(producers_, [&](const AttachedProducer& p) {
        if (!detach(p)) return false;
        producerNames_.erase(p.name);
        producerAt_.erase({p.connectionId, p.producerId});
        if (p.accessMode != "Shared") --nonSharedProducers_;
        return true;
    });
    if (removed == 0) return;
    for (std::size_t i = 0; i < producers_.size(); ++i)
        producerAt_[{producers_[i].connectionId, producers_[i].producerId}] = i;
}

// One producer: found by its index and replaced by the last one, so that
// closing n producers one by one costs O(n), not O(n^2) (issue 40 item 6).
// The order of producers_ is no part of what the model answers.
void Topic::removeProducer(std::uint64_t connectionId, std::uint64_t producerId) {
    touched(true);
    auto it = producerAt_.find({connectionId, producerId});
    if (it == producerAt_.end()) return;
    std::size_t at = it->second;
    producerAt_.erase(it);
    producerNames_.erase(producers_[at].name);
    if (producers_[at].accessMode != "Shared") --nonSharedProducers_;
    if (at + 1 != producers_.size()) {
        producers_[at] = std::move(producers_.back());
        producerAt_[{producers_[at].connectionId, producers_[at].producerId}] = at;
    }
    producers_.pop_back();
}

// PersistentTopic.internalSubscribe / NonPersistentTopic.subscribe, in their order:
// read_compacted, the fenced topic, the subscription name.
std::optional<BrokerError> Topic::subscribe(const std::string& subscription, const std::string& subType, bool durable,
                                            const AttachedConsumer& consumer, const SubscriptionStart& start) {
    touched(true);
    if (start.readCompacted && !persistent())
        return busy(RefusalKind::notAllowed, "readCompacted only valid on persistent topics");
    if (start.readCompacted && subType != "Exclusive" && subType != "Failover")
        return busy(RefusalKind::notAllowed, "readCompacted only allowed on failover or exclusive subscriptions");
    if (fenced_) return fencedError();
    if (std::all_of(subscription.begin(), subscription.end(), [](unsigned char ch) { return std::isspace(ch); }))
        return busy(RefusalKind::subscriptionNameEmpty, "Empty subscription name");  // StringUtils.isBlank
    auto it = subscriptions_.lower_bound(subscription);
    if (it != subscriptions_.end() && it->first == subscription) {
        auto& sub = it->second;
        // PersistentTopic.getNonDurableSubscription: a reader may not take a durable subscription's name.
        if (!durable && sub.durable && persistent())
            return busy(RefusalKind::notAllowed, "Durable subscription with the same name already exists.");
        if (!sub.consumers.empty() && sub.subType != subType) {
            return busy(RefusalKind::subscriptionBusy,
                        "Subscription is of different type. Active subscription type of '" + sub.subType +
                            "' is different than the connecting consumer's type '" + subType + "'.");
        }
        if (!sub.consumers.empty() && subType == "Exclusive") {
            return busy(RefusalKind::consumerBusy, "Exclusive consumer is already connected");
        }
        if (sub.consumers.empty()) {  // a new dispatcher: the type may change, the ranges start again
            sub.splitRanges.clear();
            sub.active.reset();
        }
        if (subType == "Key_Shared")
            if (auto refused = assignKeyRange(sub, consumer)) return refused;
        sub.subType = subType;
        sub.consumers.push_back(consumer);
        pickActiveConsumer(sub, &sub.consumers.back());
        return std::nullopt;
    }
    // A new subscription: a Key_Shared consumer's range is checked (a sticky
    // one's refused) before the subscription is made.
    Subscription probe;
    if (subType == "Key_Shared")
        if (auto refused = assignKeyRange(probe, consumer)) return refused;
    auto& created = addSubscription(it, subscription, subType, durable, start);
    created.splitRanges = std::move(probe.splitRanges);
    created.consumers.push_back(consumer);
    pickActiveConsumer(created, &created.consumers.back());
    return std::nullopt;
}

void Topic::createSubscription(const std::string& subscription) {
    touched(true);
    auto it = subscriptions_.lower_bound(subscription);
    if (!persistent() || (it != subscriptions_.end() && it->first == subscription)) return;
    SubscriptionStart earliest;
    earliest.earliest = true;
    addSubscription(it, subscription, "", /*durable=*/true, earliest);
}

Subscription& Topic::addSubscription(std::map<std::string, Subscription>::iterator hint, const std::string& name,
                                     const std::string& subType, bool durable, const SubscriptionStart& start) {
    // Built in its node; a persistent topic's log is its ledger's, found once.
    auto& created = subscriptions_.emplace_hint(hint, name, Subscription{})->second;
    created.name = name;
    created.subType = subType;
    created.durable = durable;
    ManagedLedgerState* ledger = persistent() ? &broker_.ledger(name_) : nullptr;
    auto kept = durable ? keptReaderCursors_.end() : keptReaderCursors_.find(name);
    if (kept != keptReaderCursors_.end()) {
        created.cursor = std::move(kept->second);
        keptReaderCursors_.erase(kept);
        return created;
    }
    auto begin = startEntry(ledger ? ledger->log : liveLog_, durable, start);
    created.cursor.markDelete = begin;
    created.cursor.readPosition = begin;
    if (durable && ledger) {
        ledger->durableCursors[name] = subType;
        persistCursor(created, *ledger);
    }
    return created;
}

// PersistentTopic.getNonDurableSubscription and NonDurableCursorImpl (managed-ledger):
// ServerCnx.handleSubscribe makes start_message_id a BatchMessageIdImpl, so a valid
// id (ledger and entry >= 0) steps back one entry and the start entry is read again
// (the client drops it when its start is exclusive: ConsumerImpl's startMessageId
// check). The stepped-back position is the cursor's mark-delete position; reading
// starts at the next entry. A position past the last entry (MessageId.latest) falls
// back to initialPosition; ledger -1 (MessageId.earliest), or an older ledger, reads
// from the first entry held. A durable subscription and a non-persistent topic
// (NonPersistentTopic.subscribe) ignore the id.
std::uint64_t Topic::startEntry(const MessageLog& entries, bool durable, const SubscriptionStart& start) const {
    std::uint64_t initial = start.earliest ? entries.first() : entries.size();  // the oldest entry not trimmed
    if (durable || !start.messageId || !persistent()) return initial;
    auto ledger = start.messageId->ledgerId;
    auto entry = start.messageId->entryId;
    if (ledger >= 0 && entry >= 0) --entry;
    auto logLedger = static_cast<std::int64_t>(entries.ledgerId);
    auto lastEntry = static_cast<std::int64_t>(entries.size()) - 1;  // the ledger's lastConfirmedEntry
    if (std::pair(ledger, entry) > std::pair(logLedger, lastEntry)) return initial;
    if (ledger < logLedger) return entries.first();
    return std::max(static_cast<std::uint64_t>(entry + 1), entries.first());
}

const Cursor* Topic::cursorOf(std::uint64_t connectionId, std::uint64_t consumerId) const {
    touched(false);
    for (const auto& [_, sub] : subscriptions_) {
        for (const auto& c : sub.consumers)
            if (c.connectionId == connectionId && c.consumerId == consumerId) return &sub.cursor;
    }
    return nullptr;
}

void Topic::removeConsumer(std::uint64_t connectionId, std::uint64_t consumerId) {
    touched(true);
    for (auto it = subscriptions_.begin(); it != subscriptions_.end();) {
        auto& consumers = it->second.consumers;
        for (auto& c : consumers)
            if (c.connectionId == connectionId && c.consumerId == consumerId) {
                releasePending(it->second, c, false);
                consumerLeaving(it->second, c);
            }
        auto removed = std::erase_if(consumers, [&](const AttachedConsumer& c) {
            return c.connectionId == connectionId && c.consumerId == consumerId;
        });
        if (removed) consumersLeft(it->second);
        if (!consumers.empty()) dispatch(it->second);
        // A non-durable subscription (reader) goes with its last consumer; a SEEK keeps its cursor.
        bool drop = consumers.empty() && !it->second.durable;
        if (drop && it->second.resetting) keptReaderCursors_[it->first] = std::move(it->second.cursor);
        it = drop ? subscriptions_.erase(it) : std::next(it);
    }
}

void Topic::removeConnection(std::uint64_t connectionId) {
    touched(true);
    detachProducersIf([&](const AttachedProducer& p) { return p.connectionId == connectionId; });
    for (auto& [_, sub] : subscriptions_) {
        for (auto& c : sub.consumers)
            if (c.connectionId == connectionId) {
                releasePending(sub, c, false);
                consumerLeaving(sub, c);
            }
        auto removed =
            std::erase_if(sub.consumers, [&](const AttachedConsumer& c) { return c.connectionId == connectionId; });
        if (removed) consumersLeft(sub);
        if (!sub.consumers.empty()) dispatch(sub);
    }
    std::erase_if(subscriptions_, [](const auto& kv) { return kv.second.consumers.empty() && !kv.second.durable; });
}

std::optional<Position> Topic::publish(std::size_t bytes, const pulsar::proto::MessageMetadata& metadata,
                                      std::string_view payload) {
    touched(true);
    MessageLog* l = &liveLog_;
    ManagedLedgerState* ledger = persistent() ? &broker_.ledger(name_) : nullptr;  // log() is the ledger's: found once
    if (ledger) l = &ledger->log;
    // The broker's bound on what the logs hold (Broker::setMaxLogBytes): over
    // it the entry is not stored, as when the managed ledger's add fails.
    std::uint64_t held = payload.size() + metadata.ByteSizeLong() + sizeof(Entry);
    if (!l->admits(held)) trimAcknowledged();            // this topic's acknowledged entries first,
    if (!l->admits(held))                                // then every loaded topic's
        for (const auto& [_, other] : broker_.loadedTopics()) other->trimAcknowledged();
    if (!l->admits(held)) return std::nullopt;
    ++entriesAdded_;
    if (ledger) ledger->retainedBytes += bytes;
    auto position = l->append(metadata, payload, held);
    for (auto& [_, sub] : subscriptions_) dispatch(sub);
    return position;
}

std::uint64_t Topic::backlogOf(const Subscription& sub) const {
    touched(false);
    const auto& c = sub.cursor;
    std::uint64_t end = log().size();
    if (c.markDelete >= end) return 0;
    auto acked = std::count_if(c.acked.lower_bound(c.markDelete), c.acked.end(), [end](std::uint64_t id) { return id < end; });
    return end - c.markDelete - static_cast<std::uint64_t>(acked);
}

}  // namespace cnx
