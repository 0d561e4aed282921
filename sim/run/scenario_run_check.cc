// The `check` step: assertions on the modelled state (live versions, latest
// schema, attached producers and consumers, the idle rule, the effective strategy).

#include "sim/run/scenario_run.h"

#include <map>
#include <span>
#include <string>
#include <vector>

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

// The failures of one check step, each "key: expected …, found …"; the key of
// a per-version value is followed by the release it was picked for
// ("idle on 2.10 (\"<3.0\"): …"), so a failure names the version.
class CheckFailures {
public:
    explicit CheckFailures(const std::map<std::string, std::string>& labels) : labels_(labels) {}

    void add(std::string what) {
        auto colon = what.find(':');
        if (colon != std::string::npos) {
            auto it = labels_.find(what.substr(0, colon));
            if (it != labels_.end()) what.insert(colon, " " + it->second);
        }
        failures_.push_back(std::move(what));
    }

    // Makes `o` the step's CheckFailed, all failures in one message, when there is one.
    void reportInto(Observed& o) const {
        if (failures_.empty()) return;
        o.ok = false;
        o.error = "CheckFailed";
        for (const auto& f : failures_) o.checkFailure += (o.checkFailure.empty() ? "" : "; ") + f;
        o.message = o.checkFailure;
    }

private:
    const std::map<std::string, std::string>& labels_;
    std::vector<std::string> failures_;
};

// policies: one policy as set, read back as the admin getter without ?applied answers it.
void checkPolicy(const Setting& want, const AdminResponse& r, Observed& o, CheckFailures& failures) {
    o.trace.append(*r.trace, "");
    std::string got = answered(r);
    if (!r.ok() || !answerIs(got, want))
        failures.add("policies: expected " + want.key + ": " + want.value.value_or("null") + ", found " + got);
}

bool sameSchema(const SchemaData& stored, const SchemaData& want) {
    return stored.type == want.type && stored.data == want.data;
}

std::string describe(const StoredSchema& e) {
    return "v" + std::to_string(e.version) + " " + std::string(to_string_view(e.schema.type));
}

// schema_versions: how many versions are live and, when the schemas are listed, which, in order.
void checkLiveVersions(const CheckStep& st, std::span<const StoredSchema> live, CheckFailures& failures) {
    if (st.schemaVersionCount && static_cast<int>(live.size()) != *st.schemaVersionCount) {
        failures.add("schema_versions: expected " + std::to_string(*st.schemaVersionCount) + " live versions, found " +
                     std::to_string(live.size()));
    }
    if (!st.schemaVersionAliases) return;
    const auto& want = st.schemaVersionData;
    bool equal = want.size() == live.size();
    for (std::size_t i = 0; equal && i < want.size(); ++i) equal = sameSchema(live[i].schema, want[i]);
    if (equal) return;
    std::string found;
    for (const auto& e : live) found += (found.empty() ? "" : ", ") + describe(e);
    failures.add("schema_versions: live versions [" + found + "] do not match the listed schemas");
}

// latest_schema: the registry's latest schema, or `none`.
void checkLatest(const CheckStep& st, const std::optional<StoredSchema>& latest, CheckFailures& failures) {
    const auto& want = st.latestSchemaData;  // nullopt: `none`
    bool ok = want ? (latest && sameSchema(latest->schema, *want)) : !latest.has_value();
    if (!ok)
        failures.add("latest_schema: expected " + *st.latestSchema + ", found " + (latest ? describe(*latest) : "none"));
}

// What is attached to a topic, partition by partition, and whether the idle
// rule (§3.5) finds every partition idle.
struct Attachments {
    int producers = 0;
    int consumers = 0;
    bool idle = true;
    std::string why;  // the idle rule's reasons of the loaded partitions

    // A partition that is not loaded is idle when the topic has no schema and
    // its ledger keeps no data.
    void add(Broker& broker, const TopicName& topic, const TopicName& part) {
        if (const auto* t = broker.findTopic(part)) {
            producers += static_cast<int>(t->producers().size());
            consumers += t->consumerCount();
            std::string w;
            idle = t->isIdleForSchema(&w) && idle;
            why += (why.empty() ? "" : "; ") + w;
        } else {
            bool hasSchema = broker.registry().hasSchema(topic.schemaId());
            const auto* ledger = broker.findLedger(part);
            idle = idle && !hasSchema && (!ledger || ledger->retainedBytes == 0);
        }
    }
};

// producers, consumers, idle.
void checkAttachments(const CheckStep& st, const Attachments& a, CheckFailures& failures) {
    if (st.producers && a.producers != *st.producers)
        failures.add("producers: expected " + std::to_string(*st.producers) + ", found " + std::to_string(a.producers));
    if (st.consumers && a.consumers != *st.consumers)
        failures.add("consumers: expected " + std::to_string(*st.consumers) + ", found " + std::to_string(a.consumers));
    if (st.idle && a.idle != *st.idle)
        failures.add(std::string("idle: expected ") + (*st.idle ? "true" : "false") + ", found " +
                     (a.idle ? "true" : "false") + (a.why.empty() ? "" : " (" + a.why + ")"));
}

}  // namespace

Observed ScenarioRun::check(const CheckStep& written) {
    Observed o;
    std::map<std::string, std::string> labels;
    CheckStep st = resolvedCheck(written, startRelease_, labels, o);
    CheckFailures failures(labels);
    // Policies as set: what `pulsar-admin namespaces get-…` / `topicPolicies get-…`
    // answer without --applied (GET …/schemaCompatibilityStrategy etc.).
    if (st.policies) {
        for (const auto& want : *st.policies) {
            auto r = st.namespaceName ? admin_->getNamespacePolicy(*st.namespaceName, want.key, false)
                                      : admin_->getTopicPolicy(topicOf(st.topic), want.key, false);
            checkPolicy(want, r, o, failures);
        }
    }
    if (!st.namespaceName) {
        const auto& topic = topicOf(st.topic);
        checkLiveVersions(st, broker_->registry().liveList(topic.schemaId()), failures);
        if (st.latestSchema) checkLatest(st, broker_->registry().latest(topic.schemaId()), failures);
        Attachments attached;
        forEachPartition(topic, [&](const TopicName& part) {
            attached.add(*broker_, topic, part);
            return true;
        });
        checkAttachments(st, attached, failures);
        if (st.strategy) {
            auto s = effectiveStrategy(*profile_, broker_->policies(), topic, &o.trace);
            if (s != *st.strategy)
                failures.add("strategy: expected " + std::string(to_string_view(*st.strategy)) + ", found " +
                             std::string(to_string_view(s)));
        }
        if (!attached.why.empty()) o.trace.add("§3.5", "check idle", attached.why);
    }
    failures.reportInto(o);
    return o;
}

}  // namespace cnx::sim
