#include "sim/run/race_driver.h"

#include <algorithm>

#include "broker_model/core/topic_name.h"
#include "sim/run/scenario_run.h"

namespace cnx::sim {
namespace {

// A turn's own footprint: it reads the schema and topic it is about and
// writes its client's handles; `global` for steps that change everything.
Footprint turnFootprint(const std::string& topic, const std::string* client, bool global = false) {
    Footprint f;
    f.global = global;
    if (!topic.empty()) f.read(schemaKey(TopicName::parse(topic) ? TopicName::parse(topic)->schemaId() : topic));
    if (client) f.write(clientKey(*client));
    return f;
}

std::string schemaIdOfTopic(const std::string& topic) {
    auto name = TopicName::parse(topic);
    return name ? name->schemaId() : topic;
}

// "putSchemaIfAbsent: re-run the decision": the rule of the last trace line and what it decided.
std::string decisionOf(const TraceEntry& e) {
    auto arrow = e.detail.rfind("-> ");
    return e.rule.str() + ": " + (arrow == std::string::npos ? e.detail : e.detail.substr(arrow + 3));
}

}  // namespace

std::uint64_t schemaKey(const std::string& schemaId) { return keyOf("schema:" + schemaId); }
std::uint64_t clientKey(const std::string& client) { return keyOf("client:" + client); }


RaceDriver::RaceDriver(ScenarioRun& run, const ConcurrentlyStep& step) : run_(run), step_(step) {
    results_.resize(step.branches.size());
    // Connections and first-connect order as written, whatever the schedule,
    // so that equivalent schedules are equal to the byte.
    for (const auto& branch : step.branches) {
        if (const auto* p = std::get_if<ProducerStep>(&branch.body)) {
            run_.session(p->client);
            run_.reserveOrder("p/" + p->name);
        } else if (const auto* c = std::get_if<SubscribeStep>(&branch.body)) {
            run_.session(c->client);
            run_.reserveOrder("c/" + c->consumer);
        }
    }
    for (std::size_t b = 0; b < step.branches.size(); ++b) {
        const auto& branch = step.branches[b];
        int f = addFiber(whoOf(branch), static_cast<int>(b), 0, -1, mixIds(keyOf("branch"), b),
                         footprintOfBranch(branch), [this, b] { results_[b] = run_.run(step_.branches[b]); });
        auto& state = *fibers_[static_cast<std::size_t>(f)];
        if (const auto* p = std::get_if<ProducerStep>(&branch.body)) state.client = p->client;
        else if (const auto* c = std::get_if<SubscribeStep>(&branch.body)) state.client = c->client;
        else if (const auto* cl = std::get_if<CloseStep>(&branch.body)) state.client = handleClient(cl->name);
        else if (const auto* pub = std::get_if<PublishStep>(&branch.body)) state.client = handleClient(pub->producer);
        else state.admin = true;
    }
}

RaceDriver::~RaceDriver() {
    // A fiber that did not finish (a stuck race) is unwound before the run goes.
    for (auto it = fibers_.rbegin(); it != fibers_.rend(); ++it) (*it)->fiber.reset();
}

int RaceDriver::addFiber(std::string who, int branch, int ordinal, int parent, std::uint64_t key,
                         Footprint footprint, std::function<void()> body) {
    auto f = std::make_unique<FiberState>();
    f->who = std::move(who);
    f->branch = branch;
    f->ordinal = ordinal;
    f->parent = parent;
    f->key = key;
    f->footprint = std::move(footprint);
    f->fiber = std::make_unique<race::Fiber>(std::move(body));
    fibers_.push_back(std::move(f));
    return static_cast<int>(fibers_.size() - 1);
}

std::string RaceDriver::whoOf(const Step& step) const {
    return std::visit(
        [&](const auto& s) -> std::string {
            using T = std::decay_t<decltype(s)>;
            if constexpr (std::is_same_v<T, ProducerStep>) return s.name;
            else if constexpr (std::is_same_v<T, SubscribeStep>) return s.consumer;
            else if constexpr (std::is_same_v<T, CloseStep>) return "close " + s.name;
            else if constexpr (std::is_same_v<T, PublishStep>) return "publish " + s.producer;
            else return step.id.empty() ? step.action : step.id;
        },
        step.body);
}

std::string RaceDriver::handleClient(const std::string& name) const {
    for (const auto* map : {&run_.producers_, &run_.consumers_})
        if (auto it = map->find(name); it != map->end()) return it->second.client;
    return {};
}

Footprint RaceDriver::footprintOfBranch(const Step& step) const {
    auto handle = [&](const std::string& name) -> Footprint {
        for (const auto* map : {&run_.producers_, &run_.consumers_}) {
            if (auto it = map->find(name); it != map->end())
                return turnFootprint(it->second.topic(), &it->second.client);
        }
        return turnFootprint({}, nullptr, true);
    };
    return std::visit(
        [&](const auto& s) -> Footprint {
            using T = std::decay_t<decltype(s)>;
            if constexpr (std::is_same_v<T, ProducerStep> || std::is_same_v<T, SubscribeStep>)
                return turnFootprint(s.topic, &s.client);
            else if constexpr (std::is_same_v<T, CloseStep>) return handle(s.name);
            else if constexpr (std::is_same_v<T, PublishStep>) return handle(s.producer);
            else if constexpr (std::is_same_v<T, GetSchemaStep>)  // via wire: a turn of its client
                return turnFootprint(s.topic, s.via == "wire" ? &s.client : nullptr);
            else if constexpr (std::is_same_v<T, UploadSchemaStep> ||
                               std::is_same_v<T, GetSchemaVersionStep> || std::is_same_v<T, DeleteSchemaStep> ||
                               std::is_same_v<T, DeleteTopicStep> || std::is_same_v<T, TestCompatibilityStep>)
                return turnFootprint(s.topic, nullptr);
            else return turnFootprint({}, nullptr, true);  // policies, broker config, unload, restart, upgrade
        },
        step.body);
}

// What a continuation touches besides what the model reports: its schema id
// (read). The connection it answers on is not shared state between requests:
// answers go to their own request ids, and a request's continuations are
// ordered anyway; the client's turns write the client.
Footprint RaceDriver::footprintOfStage(const Stage& stage) const {
    Footprint f;
    std::string id = !stage.schemaId.empty() ? stage.schemaId
                     : !stage.topic.empty()  ? schemaIdOfTopic(stage.topic)
                                             : std::string();
    if (!id.empty()) f.read(schemaKey(id));
    return f;
}


bool RaceDriver::turnEnabled(std::size_t fiber) const {
    const auto& f = *fibers_[fiber];
    switch (f.wait) {
        case Wait::start: return true;
        case Wait::settle: return run_.scheduler_.pendingOf(static_cast<int>(fiber)) == 0;
        case Wait::join:
            return std::all_of(f.children.begin(), f.children.end(),
                               [&](int c) { return fibers_[static_cast<std::size_t>(c)]->wait == Wait::done; });
        case Wait::done: return false;
    }
    return false;
}

std::vector<race::Transition> RaceDriver::enabled() {
    offers_.clear();
    for (const auto& t : run_.scheduler_.readyTasks()) {
        Offer o;
        o.task = true;
        o.fiber = t.fiber;
        int branch = t.fiber >= 0 ? fibers_[static_cast<std::size_t>(t.fiber)]->branch : -1;
        int ordinal = t.fiber >= 0 ? fibers_[static_cast<std::size_t>(t.fiber)]->ordinal : 0;
        o.order = {branch, ordinal, 1, t.seq};
        o.transition.id = t.id;
        if (t.parent != 0) o.transition.after.push_back(t.parent);
        offers_.push_back(std::move(o));
    }
    for (std::size_t i = 0; i < fibers_.size(); ++i) {
        const auto& f = *fibers_[i];
        if (!turnEnabled(i)) continue;
        Offer o;
        o.fiber = static_cast<int>(i);
        o.order = {f.branch, f.ordinal, 0, 0};
        o.transition.id = mixIds(f.key, f.turns);
        o.transition.after = f.after;
        offers_.push_back(std::move(o));
    }
    std::stable_sort(offers_.begin(), offers_.end(), [](const Offer& a, const Offer& b) { return a.order < b.order; });
    std::vector<race::Transition> out;
    out.reserve(offers_.size());
    for (const auto& o : offers_) out.push_back(o.transition);
    return out;
}

const Trace* RaceDriver::requestTrace(const Stage& stage) const {
    if (stage.origin.connection == 0) return nullptr;
    for (const auto& [client, s] : run_.sessions_) {
        if (s->cnx().id() != stage.origin.connection) continue;
        auto t = s->cnx().trace(stage.origin.request);
        return t ? t.get() : nullptr;
    }
    return nullptr;
}

std::string RaceDriver::describeTask(const Offer& offer, const Stage& stage, std::size_t traceBefore,
                                     const std::string& before) const {
    std::string who = offer.fiber >= 0 ? fibers_[static_cast<std::size_t>(offer.fiber)]->who : "broker";
    std::string line = who + ": " + std::string(to_string_view(stage.kind));
    std::string what;
    if (const auto* t = requestTrace(stage); t && t->entries().size() > traceBefore) what = decisionOf(t->entries().back());
    if (!before.empty() || !what.empty())
        line += " (" + before + (!before.empty() && !what.empty() ? "; " : "") + what + ")";
    return line;
}

// "latest v0", "latest v-1" (none live): what a registry stage finds, read
// before it runs (outside any footprint).
std::string RaceDriver::registryStateOf(const Stage& stage) const {
    if (stage.kind != StageKind::registryRead && stage.kind != StageKind::registryWrite) return {};
    std::string id = !stage.schemaId.empty() ? stage.schemaId : schemaIdOfTopic(stage.topic);
    if (id.empty()) return {};
    auto live = run_.broker().registry().liveList(id);
    return "latest v" + std::to_string(live.empty() ? -1 : live.back().version);
}

Footprint RaceDriver::execute(std::size_t index) {
    Offer o = offers_.at(index);
    auto& scheduler = run_.scheduler_;
    if (o.task) {
        Stage stage;
        for (const auto& t : scheduler.readyTasks())
            if (t.id == o.transition.id) stage = *t.stage;
        const auto* before = requestTrace(stage);
        std::size_t traceBefore = before ? before->entries().size() : 0;
        auto registryBefore = registryStateOf(stage);
        scheduler.beginFootprint();
        scheduler.runTask(o.transition.id);
        auto fp = scheduler.endFootprint();
        auto extra = footprintOfStage(stage);
        fp.reads.insert(fp.reads.end(), extra.reads.begin(), extra.reads.end());
        fp.writes.insert(fp.writes.end(), extra.writes.begin(), extra.writes.end());
        fp.finish();
        if (o.fiber >= 0) fibers_[static_cast<std::size_t>(o.fiber)]->after.push_back(o.transition.id);
        log_.push_back(describeTask(o, stage, traceBefore, registryBefore));
        return fp;
    }
    auto& f = *fibers_[static_cast<std::size_t>(o.fiber)];
    bool first = f.turns == 0;
    Footprint fp = f.footprint;
    scheduler.setTransition(o.transition.id, o.fiber);
    scheduler.beginFootprint();
    f.fiber->resume();
    auto touched = scheduler.endFootprint();
    scheduler.setTransition(0, -1);
    fp.reads.insert(fp.reads.end(), touched.reads.begin(), touched.reads.end());
    fp.writes.insert(fp.writes.end(), touched.writes.begin(), touched.writes.end());
    fp.finish();
    ++f.turns;
    f.after = {o.transition.id};
    if (f.fiber->finished()) {
        f.wait = Wait::done;
        if (f.parent >= 0) fibers_[static_cast<std::size_t>(f.parent)]->after.push_back(o.transition.id);
    }
    std::string line = f.who + ": ";
    if (f.wait == Wait::done && f.parent < 0) {
        const auto& r = results_[static_cast<std::size_t>(f.branch)];
        line += "done, " + (r.ok ? std::string("ok") : r.error);
    } else if (f.wait == Wait::done) {
        line += "reconnected";
    } else if (f.wait == Wait::join) {
        line += "the broker closes its clients; they reconnect";
    } else {
        line += first ? "sends its request" : "sends its next request";
    }
    log_.push_back(std::move(line));
    return fp;
}

bool RaceDriver::finished() const {
    return std::all_of(fibers_.begin(), fibers_.end(), [](const auto& f) { return f->wait == Wait::done; });
}

int RaceDriver::currentFiber() const {
    auto* self = race::Fiber::current();
    for (std::size_t i = 0; i < fibers_.size(); ++i)
        if (fibers_[i]->fiber.get() == self) return static_cast<int>(i);
    return -1;
}

bool RaceDriver::onFiber() const { return race::Fiber::current() != nullptr && currentFiber() >= 0; }

void RaceDriver::settle() {
    auto i = static_cast<std::size_t>(currentFiber());
    fibers_[i]->wait = Wait::settle;
    fibers_[i]->fiber->suspend();
}

void RaceDriver::forkJoin(const std::vector<Fork>& forks, const std::function<void(std::size_t)>& body) {
    int parent = currentFiber();
    if (forks.empty()) return;
    auto& p = *fibers_[static_cast<std::size_t>(parent)];
    std::uint64_t parentKey = p.key;
    int branch = p.branch;
    std::uint64_t turnId = mixIds(parentKey, p.turns);
    std::vector<int> children;
    for (std::size_t i = 0; i < forks.size(); ++i) {
        int c = addFiber(forks[i].who, branch, static_cast<int>(i) + 1, parent, mixIds(turnId, i + 1),
                         turnFootprint(forks[i].topic, &forks[i].client), [&body, i] { body(i); });
        auto& child = *fibers_[static_cast<std::size_t>(c)];
        child.after = {turnId};
        child.client = forks[i].client;
        children.push_back(c);
    }
    auto& again = *fibers_[static_cast<std::size_t>(parent)];  // addFiber may have moved the vector's storage
    again.children = children;
    again.wait = Wait::join;
    again.fiber->suspend();
}

}  // namespace cnx::sim
