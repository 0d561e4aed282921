#include "sim/report/scenario_diagram.h"

#include <map>
#include <string_view>
#include <type_traits>
#include <variant>

#include "sim/report/shorten.h"
#include "sim/run/expectation.h"

namespace cnx::sim {
namespace {

std::string schemaText(const SchemaRef& s) {
    switch (s.kind) {
        case SchemaRef::Kind::none: return "no schema";
        case SchemaRef::Kind::autoConsume: return "AUTO_CONSUME";
        case SchemaRef::Kind::autoProduceBytes: return "AUTO_PRODUCE_BYTES";
        case SchemaRef::Kind::definition: break;
    }
    return s.alias.empty() ? std::string("inline schema") : s.alias;
}

// The lifeline of each producer and consumer name: "producer p1" or
// "consumer c1", as the step that opens it draws it. A name both opens is
// the producer's, which a `close` of it closes first (ScenarioRun::close).
using Lifelines = std::map<std::string, std::string>;

void addLifelines(const Step& step, Lifelines& out) {
    if (const auto* p = std::get_if<ProducerStep>(&step.body)) out[p->name] = "producer " + p->name;
    if (const auto* c = std::get_if<SubscribeStep>(&step.body)) out.emplace(c->consumer, "consumer " + c->consumer);
    if (const auto* race = std::get_if<ConcurrentlyStep>(&step.body))
        for (const auto& branch : race->branches) addLifelines(branch, out);
}

// A close is sent on the closed producer's or consumer's lifeline: the one its
// trace names (CLOSE_PRODUCER / CLOSE_CONSUMER), else the one its name opened.
std::string closer(const CloseStep& close, const StepResult* result, const Lifelines& lifelines) {
    if (result) {
        for (const auto& e : result->observed.trace.entries()) {
            if (e.rule.view() == "CLOSE_PRODUCER") return "producer " + close.name;
            if (e.rule.view() == "CLOSE_CONSUMER") return "consumer " + close.name;
        }
    }
    auto it = lifelines.find(close.name);
    return it == lifelines.end() ? close.name : it->second;
}

// Who sends a step's request, and what it says.
std::pair<std::string, std::string> request(const Step& step, const StepResult* result, const Lifelines& lifelines) {
    return std::visit(
        [&](const auto& a) -> std::pair<std::string, std::string> {
            using T = std::decay_t<decltype(a)>;
            if constexpr (std::is_same_v<T, ProducerStep>)
                return {"producer " + a.name, "PRODUCER " + a.topic + " (" + schemaText(a.schema) + ")"};
            else if constexpr (std::is_same_v<T, SubscribeStep>)
                return {"consumer " + a.consumer, "SUBSCRIBE " + a.topic + " (" + schemaText(a.schema) + ")"};
            else if constexpr (std::is_same_v<T, CloseStep>)
                return {closer(a, result, lifelines), "CLOSE " + a.name};
            else if constexpr (std::is_same_v<T, PublishStep>)
                return {"producer " + a.producer,
                        a.schema ? "GET_OR_CREATE_SCHEMA (" + schemaText(*a.schema) + ")"
                                 : "SEND x" + std::to_string(a.count)};
            else if constexpr (std::is_same_v<T, UploadSchemaStep>)
                return {"admin", "POST schema " + a.topic + " (" + schemaText(a.schema) + ")"};
            else if constexpr (std::is_same_v<T, TestCompatibilityStep>)
                return {"admin", "POST compatibility " + a.topic + " (" + schemaText(a.schema) + ")"};
            else if constexpr (std::is_same_v<T, GetSchemaVersionStep>)
                return {"admin", "POST version " + a.topic + " (" + schemaText(a.schema) + ")"};
            else if constexpr (std::is_same_v<T, GetSchemaStep>)
                return {"admin", "GET schema " + a.topic};
            else if constexpr (std::is_same_v<T, DeleteSchemaStep>)
                return {"admin", "DELETE schema " + a.topic};
            else if constexpr (std::is_same_v<T, DeleteTopicStep>)
                return {"admin", "DELETE topic " + a.topic};
            else if constexpr (std::is_same_v<T, SetPolicyStep>)
                return {"admin", "set-policy " + (a.topic ? *a.topic : a.namespaceName.value_or(""))};
            else if constexpr (std::is_same_v<T, SetBrokerConfigStep>)
                return {"operator", "set-broker-config"};
            else if constexpr (std::is_same_v<T, UpgradeBrokerStep>)
                return {"operator", "upgrade-broker " + a.version};
            else if constexpr (std::is_same_v<T, RestartBrokerStep>)
                return {"operator", "restart-broker"};
            else if constexpr (std::is_same_v<T, UnloadStep>)
                return {"operator", "unload " + a.topic};
            else if constexpr (std::is_same_v<T, CheckStep>)
                return {"check", "check " + a.topic};
            else
                return {"race", "concurrently: " + std::to_string(a.branches.size()) + " branches"};
        },
        step.body);
}

// A registry interaction (reference §4): a write stores or deletes versions.
bool registrySection(std::string_view section) { return section.starts_with("§4."); }
bool registryWrite(std::string_view rule) {
    return rule.find("put") != std::string_view::npos || rule.find("append") != std::string_view::npos ||
           rule.find("DELETE") != std::string_view::npos;
}

std::string answer(const StepResult& s) {
    if (s.step->is<CheckStep>()) return s.status == StepStatus::failed ? "does not hold" : "holds";
    const auto& o = s.observed;
    // The one-line forms the failure block prints, without its -v note (the full text is in the trace).
    std::string text = o.ok ? renderObserved(o, *s.step) : o.error + ": " + oneLineMessage(o.message, false);
    if (s.status == StepStatus::failed) text += "  [FAIL: " + oneLineMessage(s.why, false) + "]";
    return text;
}

}  // namespace

SequenceDiagram diagramOf(const ScenarioResult& r) {
    SequenceDiagram d;
    Lifelines lifelines;
    for (const auto& step : r.scenario->steps) addLifelines(step, lifelines);
    // Fixed order: the clients in order of appearance first, then broker and registry.
    for (const auto& s : r.steps) {
        if (s.step && !s.step->is<CheckStep>()) d.participant(request(*s.step, &s, lifelines).first);
    }
    std::size_t broker = d.participant("broker");
    std::size_t registry = d.participant("schema registry");
    for (const auto& s : r.steps) {
        if (!s.step) continue;
        bool failed = s.status == StepStatus::failed;
        auto [who, what] = request(*s.step, &s, lifelines);
        if (s.step->is<CheckStep>()) {
            d.add(broker, registry, what, false, failed);
            d.add(registry, broker, answer(s), true, failed);
            continue;
        }
        std::size_t from = d.participant(who);
        d.add(from, broker, s.label() + ": " + what, false, failed);
        std::string last;
        for (const auto& e : s.observed.trace.entries()) {
            if (!registrySection(e.section)) continue;
            std::string label = std::string(registryWrite(e.rule) ? "write: " : "read: ").append(e.rule.view());
            if (label == last) continue;  // the same call per partition: once
            last = label;
            d.add(broker, registry, label, false, false);
        }
        d.add(broker, from, answer(s), true, failed);
    }
    return d;
}

}  // namespace cnx::sim
