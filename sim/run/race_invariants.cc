#include "sim/run/race_invariants.h"

#include <set>

#include "broker_model/policy/policy_resolution.h"
#include "broker_model/registry/schema_equality.h"
#include "sim/run/scenario_run.h"

namespace cnx::sim {
namespace {

void compatible(const ScenarioRun& run, const TopicName& topic, std::vector<std::string>& out) {
    const auto& b = run.broker();
    auto strategy = effectiveStrategy(b.profile(), b.policies(), topic, nullptr);
    if (auto bad = b.registry().firstInadmissibleVersion(topic.schemaId(), strategy))
        out.push_back("admitted-schemas-compatible: " + topic.schemaId() + ": " + *bad);
}

void noDuplicates(const ScenarioRun& run, const TopicName& topic, std::vector<std::string>& out) {
    const auto& b = run.broker();
    auto live = b.registry().liveList(topic.schemaId());
    for (std::size_t i = 1; i < live.size(); ++i) {
        auto equal = findEqualSchema(b.profile(), live.first(i), live[i].schema);
        if (equal.version) {
            out.push_back("no-duplicate-versions: " + topic.schemaId() + ": v" + std::to_string(live[i].version) +
                          " equals v" + std::to_string(*equal.version));
            return;
        }
    }
}

void contiguous(const ScenarioRun& run, const TopicName& topic, std::vector<std::string>& out) {
    const auto& history = run.broker().registry().history(topic.schemaId());
    for (std::size_t i = 0; i < history.size(); ++i) {
        if (history[i].version == static_cast<SchemaVersion>(i)) continue;
        out.push_back("versions-contiguous: " + topic.schemaId() + ": entry " + std::to_string(i) + " is version " +
                      std::to_string(history[i].version));
        return;
    }
}

void enforcement(const ScenarioRun& run, std::vector<std::string>& out) {
    const auto& b = run.broker();
    bool brokerFlag = b.policies().broker.isSchemaValidationEnforced;
    for (const auto& p : run.openProducers()) {
        if (!p.schemaless) continue;
        auto topic = TopicName::parse(p.topic);
        if (!topic) continue;
        bool enforced = brokerFlag || topicValidationEnforced(b.profile(), b.policies(), *topic);
        if (enforced && b.registry().hasSchema(topic->schemaId()))
            out.push_back("enforcement-holds: " + topic->toString() +
                          " has a schema and enforcement is on, but a producer without a schema is attached");
    }
}

}  // namespace

std::vector<std::string> brokenInvariants(const ScenarioRun& run, const std::vector<std::string>& names,
                                          const std::vector<std::string>& topics) {
    std::vector<std::string> out;
    std::set<std::string> ids;
    std::vector<TopicName> distinct;
    for (const auto& t : topics) {
        auto name = TopicName::parse(t);
        if (name && ids.insert(name->schemaId()).second) distinct.push_back(name->partitionedBase());
    }
    for (const auto& n : names) {
        if (n == "every-request-answered") {
            for (const auto& line : run.unansweredRequests()) out.push_back("every-request-answered: " + line);
            for (const auto& line : run.unansweredAdminCalls()) out.push_back("every-request-answered: " + line);
        } else if (n == "enforcement-holds") {
            enforcement(run, out);
        } else {
            for (const auto& topic : distinct) {
                if (n == "admitted-schemas-compatible") compatible(run, topic, out);
                else if (n == "no-duplicate-versions") noDuplicates(run, topic, out);
                else if (n == "versions-contiguous") contiguous(run, topic, out);
            }
        }
    }
    return out;
}

}  // namespace cnx::sim
