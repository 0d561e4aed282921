// The `check` step: assertions on the modelled state (live versions, latest
// schema, attached producers and consumers, the idle rule, the effective strategy).

#include "sim/run/scenario_run.h"

#include "broker_model/policy/policy_resolution.h"

namespace cnx::sim {

Observed ScenarioRun::check(const CheckStep& st) {
    auto topic = topicOf(st.topic);
    Observed o;
    std::vector<std::string> failures;
    auto fail = [&failures](std::string what) { failures.push_back(std::move(what)); };
    auto live = broker_->registry().liveList(topic.schemaId());
    if (st.schemaVersionCount && static_cast<int>(live.size()) != *st.schemaVersionCount) {
        fail("schema_versions: expected " + std::to_string(*st.schemaVersionCount) + " live versions, found " +
             std::to_string(live.size()));
    }
    auto same = [](const SchemaData& stored, const SchemaData& want) {
        return stored.type == want.type && stored.data == want.data;
    };
    auto describe = [](const StoredSchema& e) {
        return "v" + std::to_string(e.version) + " " + std::string(to_string_view(e.schema.type));
    };
    if (st.schemaVersionAliases) {
        const auto& want = st.schemaVersionData;
        bool equal = want.size() == live.size();
        for (std::size_t i = 0; equal && i < want.size(); ++i) equal = same(live[i].schema, want[i]);
        if (!equal) {
            std::string found;
            for (const auto& e : live) found += (found.empty() ? "" : ", ") + describe(e);
            fail("schema_versions: live versions [" + found + "] do not match the listed schemas");
        }
    }
    if (st.latestSchema) {
        auto latest = broker_->registry().latest(topic.schemaId());
        const auto& want = st.latestSchemaData;  // nullopt: `none`
        bool ok = want ? (latest && same(latest->schema, *want)) : !latest.has_value();
        if (!ok) fail("latest_schema: expected " + *st.latestSchema + ", found " + (latest ? describe(*latest) : "none"));
    }
    int producers = 0, consumers = 0;
    bool idle = true;
    std::string why;
    for (const auto& part : partitionsOf(topic)) {
        if (const auto* t = broker_->findTopic(part)) {
            producers += static_cast<int>(t->producers().size());
            consumers += t->consumerCount();
            std::string w;
            idle = t->isIdleForSchema(&w) && idle;
            why += (why.empty() ? "" : "; ") + w;
        } else {
            bool hasSchema = broker_->registry().hasSchema(topic.schemaId());
            const auto* ledger = broker_->findLedger(part);
            idle = idle && !hasSchema && (!ledger || ledger->retainedBytes == 0);
        }
    }
    if (st.producers && producers != *st.producers)
        fail("producers: expected " + std::to_string(*st.producers) + ", found " + std::to_string(producers));
    if (st.consumers && consumers != *st.consumers)
        fail("consumers: expected " + std::to_string(*st.consumers) + ", found " + std::to_string(consumers));
    if (st.idle && idle != *st.idle)
        fail(std::string("idle: expected ") + (*st.idle ? "true" : "false") + ", found " + (idle ? "true" : "false") +
             (why.empty() ? "" : " (" + why + ")"));
    if (st.strategy) {
        auto s = effectiveStrategy(*profile_, broker_->policies(), topic, &o.trace);
        if (s != *st.strategy)
            fail("strategy: expected " + std::string(to_string_view(*st.strategy)) + ", found " + std::string(to_string_view(s)));
    }
    if (!why.empty()) o.trace.add("§3.5", "check idle", why);
    if (!failures.empty()) {
        o.ok = false;
        o.error = "CheckFailed";
        for (const auto& f : failures) o.checkFailure += (o.checkFailure.empty() ? "" : "; ") + f;
        o.message = o.checkFailure;
    }
    return o;
}

}  // namespace cnx::sim
