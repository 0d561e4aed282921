// The `check` step: assertions on the modelled state (live versions, latest
// schema, attached producers and consumers, the idle rule, the effective strategy).

#include "sim/run/scenario_run.h"

#include "broker_model/policy/policy_resolution.h"
#include "sim/run/expectation.h"

namespace cnx::sim {
namespace {

// Copies the one key `from` holds into `to`.
void mergeCheckKey(CheckStep& to, const CheckStep& from) {
    if (from.schemaVersionCount) to.schemaVersionCount = from.schemaVersionCount;
    if (from.schemaVersionAliases) {
        to.schemaVersionAliases = from.schemaVersionAliases;
        to.schemaVersionData = from.schemaVersionData;
    }
    if (from.latestSchema) {
        to.latestSchema = from.latestSchema;
        to.latestSchemaData = from.latestSchemaData;
    }
    if (from.producers) to.producers = from.producers;
    if (from.consumers) to.consumers = from.consumers;
    if (from.idle) to.idle = from.idle;
    if (from.strategy) to.strategy = from.strategy;
    if (from.policies) to.policies = from.policies;
}

// An admin policy read's answer as text: "null" for no content (unset), the value, or the refusal.
std::string answered(const AdminResponse& r) {
    if (!r.ok()) return "HTTP " + std::to_string(r.status) + " " + r.reason;
    if (r.body.is_null()) return "null";
    return r.body.is_string() ? r.body.get<std::string>() : r.body.dump();
}

// Whether the answer is the value as written: `null` is unset, which the
// namespace strategy read answers as UNDEFINED.
bool answerIs(const std::string& got, const Setting& want) {
    if (!want.value) return got == "null" || got == "UNDEFINED";
    return got == *want.value;
}

// The check as it applies to `release`: each per-version key takes the value of
// the first range covering the release (`default` last), as `expect` does.
// `labels` gets "on 2.10 (\"<3.0\")" for each key so chosen, to name the version in failures.
CheckStep resolvedCheck(const CheckStep& st, const ReleaseVersion& release, std::map<std::string, std::string>& labels,
                        Observed& o) {
    CheckStep out = st;
    out.perVersion.clear();
    for (const auto& pv : st.perVersion) {
        std::optional<std::size_t> pick, fallback;
        for (std::size_t i = 0; i < pv.ranges.size() && !pick; ++i) {
            if (pv.ranges[i].op == VersionRange::Op::any) {
                if (!fallback) fallback = i;
            } else if (rangeCovers(pv.ranges[i], release)) {
                pick = i;
            }
        }
        if (!pick) pick = fallback;
        std::string on = "on " + release.toString();
        if (!pick) {
            o.checkUncovered.push_back(pv.key);
            o.trace.add("scenario", "check " + pv.key, "not asserted: no value covers " + release.toString());
            continue;
        }
        std::string label = on + " (" + pv.ranges[*pick].text + ")";
        if (pv.notAsserted[*pick]) {
            o.trace.add("scenario", "check " + pv.key, "not asserted " + label + ": ~");
            continue;
        }
        labels[pv.key] = label;
        mergeCheckKey(out, pv.values[*pick]);
    }
    return out;
}

}  // namespace

Observed ScenarioRun::check(const CheckStep& written) {
    Observed o;
    std::map<std::string, std::string> labels;
    CheckStep st = resolvedCheck(written, startRelease_, labels, o);
    std::vector<std::string> failures;
    auto fail = [&failures, &labels](std::string what) {
        auto colon = what.find(':');
        if (colon != std::string::npos) {
            auto it = labels.find(what.substr(0, colon));
            if (it != labels.end()) what.insert(colon, " " + it->second);
        }
        failures.push_back(std::move(what));
    };
    auto finish = [&failures, &o]() {
        if (!failures.empty()) {
            o.ok = false;
            o.error = "CheckFailed";
            for (const auto& f : failures) o.checkFailure += (o.checkFailure.empty() ? "" : "; ") + f;
            o.message = o.checkFailure;
        }
        return o;
    };
    // Policies as set: what `pulsar-admin namespaces get-…` / `topicPolicies get-…`
    // answer without --applied (GET …/schemaCompatibilityStrategy etc.).
    if (st.policies) {
        for (const auto& want : *st.policies) {
            auto r = st.namespaceName ? admin_->getNamespacePolicy(*st.namespaceName, want.key, false)
                                      : admin_->getTopicPolicy(topicOf(st.topic), want.key, false);
            o.trace.append(*r.trace, "");
            std::string got = answered(r);
            if (!r.ok() || !answerIs(got, want))
                fail("policies: expected " + want.key + ": " + want.value.value_or("null") + ", found " + got);
        }
    }
    if (st.namespaceName) return finish();
    const auto& topic = topicOf(st.topic);
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
    forEachPartition(topic, [&](const TopicName& part) {
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
        return true;
    });
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
    return finish();
}

}  // namespace cnx::sim
