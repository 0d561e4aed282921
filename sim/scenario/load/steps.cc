// Steps: the action key of each, its id, the names it opens, and concurrently.
#include <algorithm>

#include "sim/scenario/did_you_mean.h"
#include "sim/scenario/load/format.h"
#include "sim/scenario/load/names.h"

namespace cnx::sim::load {
namespace {

std::optional<ActionKind> actionKindOf(std::string_view key) {
    for (std::size_t i = 0; i < kActionTable.size(); ++i) {
        if (kActionTable[i].name == key) return static_cast<ActionKind>(i);
    }
    return std::nullopt;
}

}  // namespace

void DocumentLoader::loadSteps(const Value& v) {
    auto items = sequenceOf(ctx_, v);
    if (!items) return;
    if (items->empty()) {
        // A setup file preloads the broker: its steps are optional, so an empty
        // list says the same as none (doc/scenario-format.md "cnxsim serve").
        if (!ctx_.setupFile) ctx_.error(v.pos, "steps: a scenario needs at least one step");
        return;
    }
    for (const Value& item : *items) {
        if (ctx_.exhausted) return;
        Value step = item;
        step.what = "step";
        if (auto s = loadStep(step, false)) s_.steps.push_back(std::move(*s));
    }
}

std::optional<Step> DocumentLoader::loadStep(const Value& v, bool inBranch) {
    auto entries = entriesOf(ctx_, v);
    if (!entries) return std::nullopt;
    Step step;
    step.pos = entries->empty() ? v.pos : entries->front().keyPos;
    const Entry* action = nullptr;
    bool clean = true;
    for (const Entry& e : *entries) {
        if (!contains(kStepKeys, e.key)) {
            ctx_.error(e.keyPos, "unknown step action " + inQuotes(e.key) + didYouMeanSuffix(e.key, kStepKeys));
            clean = false;
        } else if (actionKindOf(e.key) && action) {
            ctx_.error(e.keyPos, "a step has one action, but this one has " + inQuotes(action->key) + " and " +
                                     inQuotes(e.key) + "; split it into two steps");
            clean = false;
        } else if (actionKindOf(e.key)) {
            action = &e;
        }
    }
    if (!action) {
        if (clean) ctx_.error(step.pos, "step has no action (one of " + joined(kActionNames) + ")");
        return std::nullopt;
    }
    ActionKind kind = *actionKindOf(action->key);
    step.action = action->key;
    if (const Entry* id = findEntry(*entries, "id")) registerId(step, *id);
    for (std::string_view key : {"explore", "outcomes", "reachable", "invariant"}) {
        const Entry* e = findEntry(*entries, key);
        if (e && kind != ActionKind::concurrently)
            ctx_.error(e->keyPos, inQuotes(key) + " belongs to a concurrently step");
    }
    ActionRead read = actionInfo(kind).read;
    std::optional<Action> body = read ? (this->*read)(*action) : concurrentlyOf(*action, *entries, inBranch);
    if (const Entry* e = findEntry(*entries, "expect")) {
        if (kind == ActionKind::concurrently)
            ctx_.error(e->keyPos, "a concurrently step lists its results under 'outcomes', not 'expect'");
        else if (inBranch)
            ctx_.error(e->keyPos, "a step inside concurrently cannot have 'expect'; list results under 'outcomes'");
        else
            step.expect = expectSpecOf(*e, kind);
    }
    if (!body) return std::nullopt;
    step.body = std::move(*body);
    registerStep(step);
    return step;
}

void DocumentLoader::registerId(Step& step, const Entry& e) {
    auto id = nonEmptyScalarOf(ctx_, e.value);
    if (!id) return;
    if (auto [it, fresh] = stepIds_.emplace(*id, e.value.pos); !fresh) {
        ctx_.error(e.value.pos, "duplicate step id " + inQuotes(*id) + " (first at " + posText(it->second) + ")");
        return;
    }
    step.id = *id;
}

// Remembers producer and consumer names so later steps can refer to them.
void DocumentLoader::registerStep(const Step& step) {
    if (auto* p = std::get_if<ProducerStep>(&step.body); p && !p->name.empty()) producerNames_.push_back(p->name);
    if (auto* c = std::get_if<SubscribeStep>(&step.body); c && !c->consumer.empty())
        consumerNames_.push_back(c->consumer);
}

std::vector<std::string> DocumentLoader::openedNames() const {
    std::vector<std::string> names = producerNames_;
    names.insert(names.end(), consumerNames_.begin(), consumerNames_.end());
    return names;
}

// The fields mapping of an action, with unknown keys reported.
std::optional<Entries> DocumentLoader::actionFields(const Entry& e, Names allowed) {
    auto fields = entriesOf(ctx_, e.value);
    if (!fields) return std::nullopt;
    if (!rejectUnknown(ctx_, *fields, allowed, e.key)) return std::nullopt;
    return fields;
}

std::optional<std::string> DocumentLoader::clientOf(const Value& v) {
    auto name = scalarOf(ctx_, v);
    if (!name) return std::nullopt;
    if (s_.clients.contains(*name)) return name;
    if (contains(kLibraries, *name)) {
        // `client: cpp` / `client: java` / `client: go` without a declaration: that library,
        // same version as the broker (doc/scenario-format.md).
        ClientDecl implicit;
        implicit.library = *name;
        implicit.pos = v.pos;
        s_.clients.emplace(*name, implicit);
        return name;
    }
    std::vector<std::string> declared;
    for (const auto& [n, c] : s_.clients) declared.push_back(n);
    auto match = closestMatch(*name, declared);
    ctx_.error(v.pos, "unknown client " + inQuotes(*name) +
                          (match ? "; did you mean '" + *match + "'?" : " (declare it under 'clients')"));
    return std::nullopt;
}

// A producer or consumer name opened by an earlier step.
std::optional<std::string> DocumentLoader::knownName(const Value& v, const std::vector<std::string>& names,
                                                     std::string_view noun) {
    auto name = nonEmptyScalarOf(ctx_, v);
    if (!name) return std::nullopt;
    if (std::find(names.begin(), names.end(), *name) != names.end()) return name;
    auto match = closestMatch(*name, names);
    ctx_.error(v.pos, "no earlier step opens a " + std::string(noun) + " named " + inQuotes(*name) +
                          (match ? "; did you mean '" + *match + "'?" : ""));
    return std::nullopt;
}

std::optional<Action> DocumentLoader::concurrentlyOf(const Entry& e, const Entries& stepEntries, bool inBranch) {
    if (inBranch) {
        ctx_.error(e.keyPos, "concurrently steps cannot be nested");
        return std::nullopt;
    }
    auto items = sequenceOf(ctx_, e.value);
    if (!items) return std::nullopt;
    if (items->size() < 2) {
        ctx_.error(e.value.pos, "concurrently needs at least two steps to race");
        return std::nullopt;
    }
    if (items->size() > kMaxRaceBranches) {
        ctx_.error(e.value.pos, "concurrently races at most " + std::to_string(kMaxRaceBranches) + " steps, got " +
                                    std::to_string(items->size()));
        return std::nullopt;
    }
    ConcurrentlyStep c;
    std::vector<ActionKind> kinds;
    std::size_t before = ctx_.errors.size();
    for (const Value& item : *items) {
        if (ctx_.exhausted) return std::nullopt;
        auto branch = loadStep({item.node, item.pos, "step"}, true);
        if (!branch) continue;
        kinds.push_back(*actionKindOf(branch->action));
        c.branches.push_back(std::move(*branch));
    }
    if (const Entry* x = findEntry(stepEntries, "explore")) exploreOf(x->value, c);
    if (const Entry* x = findEntry(stepEntries, "invariant")) {
        c.invariants = scalarListOf(ctx_, x->value).value_or(std::vector<std::string>{});
        // A scalar list's items carry no positions of their own: point at the key.
        for (const auto& name : c.invariants) {
            if (contains(kInvariants, name)) continue;
            auto match = closestMatch(name, Names(kInvariants));
            ctx_.error(x->value.pos, "unknown invariant " + inQuotes(name) +
                                         (match ? "; did you mean '" + *match + "'?"
                                                : " (expected one of " + joined(kInvariants) + ")"));
        }
    }
    if (ctx_.errors.size() != before) return std::nullopt;
    if (const Entry* x = findEntry(stepEntries, "outcomes")) c.outcomes = outcomeSetsOf(*x, kinds);
    if (const Entry* x = findEntry(stepEntries, "reachable")) c.reachable = outcomeSetsOf(*x, kinds);
    if (ctx_.errors.size() != before) return std::nullopt;
    return c;
}

// `explore: exhaustive` or `explore: { random: 200, seed: 7 }`.
void DocumentLoader::exploreOf(const Value& v, ConcurrentlyStep& step) {
    if (v.node.IsScalar()) {
        enumOf(ctx_, v, kExhaustive, "exploration");
        return;
    }
    auto f = entriesOf(ctx_, v);
    if (!f) return;
    if (!rejectUnknown(ctx_, *f, kExploreKeys, "explore")) return;
    if (!requireFields(ctx_, kExploreFields, *f, v.pos, "explore")) return;
    readFields(*this, kExploreFields, *f, step);
}

OutcomeSets DocumentLoader::outcomeSetsOf(const Entry& e, const std::vector<ActionKind>& kinds) {
    OutcomeSets sets;
    sets.present = true;
    sets.pos = e.keyPos;
    const Value& v = e.value;
    if (!v.node.IsMap()) {
        sets.single = resultSetsOf(v, e.key, kinds);
        return sets;
    }
    auto entries = entriesOf(ctx_, v);
    if (!entries) return sets;
    for (const Entry& x : *entries) {
        auto range = rangeKeyOf(x);
        if (!range) continue;
        if (x.value.node.IsNull()) {  // `~`: deliberately not asserted on these versions
            sets.perProfile.emplace_back(*range, std::vector<std::vector<Expect>>{
                                                     std::vector<Expect>(kinds.size(), Expect::notAssertedAt(x.value.pos))});
            continue;
        }
        sets.perProfile.emplace_back(*range, resultSetsOf(x.value, e.key, kinds));
    }
    return sets;
}

std::vector<std::vector<Expect>> DocumentLoader::resultSetsOf(const Value& v, const std::string& key,
                                                              const std::vector<ActionKind>& kinds) {
    std::vector<std::vector<Expect>> out;
    auto sets = sequenceOf(ctx_, v);
    if (!sets) return out;
    for (const Value& set : *sets) {
        auto results = sequenceOf(ctx_, set);
        if (!results) continue;
        if (results->size() != kinds.size()) {
            ctx_.error(set.pos, key + ": this set has " + std::to_string(results->size()) + " result(s), but " +
                                    std::to_string(kinds.size()) + " steps race");
            continue;
        }
        std::vector<Expect> outcome;
        for (std::size_t i = 0; i < results->size(); ++i) {
            if (auto x = outcomeOf((*results)[i], kinds[i], true)) outcome.push_back(std::move(*x));
        }
        if (outcome.size() == kinds.size()) out.push_back(std::move(outcome));
    }
    return out;
}

}  // namespace cnx::sim::load
