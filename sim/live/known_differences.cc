#include "sim/live/known_differences.h"

namespace cnx::sim::live {
namespace {

constexpr KnownDifference kTable[] = {
    {"delete-topic-drops-schema",
     "deleting a topic that holds only an admin-uploaded schema (or a deleted one) answers 404 and still drops "
     "the schema's history: later registrations start again at version 0 and a later GET_SCHEMA finds nothing; the "
     "model keeps the history (doc/broker-behaviour.md §3.6 reads otherwise: to be confirmed in Pulsar's source)",
     "4.2.4: differential search seed 42, sessions 48, 158, 170, 348, 414"},
    {"fenced-producer-connection",
     "a producer fenced by an ExclusiveWithFencing producer loses its whole connection (the broker closes it), so "
     "its next send gets no receipt, and the fencing producer on that connection goes too (a later producer is "
     "admitted); the model closes the fenced producer only",
     "4.2.4: differential search seed 42, sessions 49, 400 (two runs)"},
    {"non-durable-subscription-conflict",
     "a durable consumer on a subscription name a non-durable reader holds is refused NotAllowedError \"NonDurable "
     "subscription with the same name already exists.\"; the model answers ConsumerBusy",
     "4.2.4: differential search seed 42, session 309"},
    {"delete-topic-404-text",
     "a second deletion of a topic that does not exist answers \"Topic <name> not found.\" (with a full stop), "
     "the first one without; the model answers the first form",
     "4.2.4: differential search seed 42, session 128"},
    {"wait-for-exclusive-queue",
     "a WaitForExclusive producer on a topic with other producers is queued (PRODUCER_SUCCESS with producer_ready "
     "false) until they close; the model refuses it at once (issue 41 left WaitForExclusive queueing undone)",
     "4.2.4: differential search seed 42, session 77"},
    {"definition-parse-cause",
     "a struct definition that does not parse is refused with \"Invalid schema definition data for AVRO schema "
     "caused by org.apache.avro.SchemaParseException: <Jackson's text>\": the model answers the message without "
     "its cause (the parser's exception and wording)",
     "4.2.4 and 3.0.7: scenarios/producer/producer-invalid-definition-refused.yaml step 4"},
    {"idle-consumer-validation",
     "a consumer whose definition the validator refuses (INT32 with data, a top-level Avro union) subscribes to an "
     "idle topic on 4.2.4 without error, where 3.0.7 and the model refuse it; the change in Pulsar has not been "
     "found yet",
     "4.2.4: scenarios/idle-topic/idle-consumer-invalid-definition-refused.yaml step 1, "
     "scenarios/issues/pulsar-24103-top-level-union-refused.yaml step 6"},
    {"system-topic-broker-schema",
     "a namespace's __change_events topic already holds the broker's own TopicPolicies schema (registered when topic "
     "policies load for the namespace), so a client's first schema there is version 1, not 0",
     "4.2.4 and 3.0.7: scenarios/policies/system-topic-uses-system-strategy.yaml, "
     "scenarios/policies/system-topic-always-allows-auto-update.yaml, "
     "scenarios/producer/producer-system-topic-exempt-from-auto-update-disabled.yaml, "
     "scenarios/issues/pulsar-17979-system-topic-checked-under-full-on-2-9-2-and-2-9-3.yaml"},
};

constexpr std::string_view kServerError = "\n --- An unexpected error occurred in the server ---\n\nMessage: ";
constexpr std::string_view kStacktrace = "\n\nStacktrace:";
constexpr std::string_view kJackson = "com.fasterxml.jackson.core.JsonParseException";

template <class Body>
std::string topicOf(const Body& b) {
    if constexpr (requires { b.topic; }) {
        if constexpr (std::is_same_v<std::decay_t<decltype(b.topic)>, std::string>) return b.topic;
    }
    return "";
}

const KnownDifference* row(std::string_view id) {
    for (const auto& d : kTable)
        if (d.id == id) return &d;
    return nullptr;
}

}  // namespace

std::span<const KnownDifference> knownDifferences() { return kTable; }

std::string comparableMessage(const std::string& message) {
    std::string m = message;
    if (m.rfind(kServerError, 0) == 0) {
        m = m.substr(kServerError.size());
        if (auto end = m.find(kStacktrace); end != std::string::npos) m = m.substr(0, end);
    }
    if (auto at = m.find(kJackson); at != std::string::npos) m = m.substr(0, at + kJackson.size());
    return m;
}

// The topic of step `i`, as written.
static std::string stepTopic(const Scenario& scenario, std::size_t i) {
    return std::visit([](const auto& b) { return topicOf(b); }, scenario.steps[i].body);
}

// Whether a step before `index` on `topic` satisfies `match`.
template <class Match>
static bool earlier(const Scenario& scenario, std::size_t index, const std::string& topic, Match&& match) {
    for (std::size_t i = 0; i < index && i < scenario.steps.size(); ++i)
        if (stepTopic(scenario, i) == topic && match(scenario.steps[i])) return true;
    return false;
}

const KnownDifference* explain(const Scenario& scenario, std::size_t index, const Observed& real,
                               const Observed& model) {
    const Step& step = scenario.steps[index];
    std::string topic = stepTopic(scenario, index);
    if (const auto* pub = std::get_if<PublishStep>(&step.body)) {
        // The producer's topic: the step that opened it.
        for (std::size_t i = 0; i < index; ++i)
            if (const auto* p = std::get_if<ProducerStep>(&scenario.steps[i].body); p && p->name == pub->producer)
                topic = p->topic;
    }
    auto isProducerWith = [](const char* mode) {
        return [mode](const Step& s) {
            const auto* p = std::get_if<ProducerStep>(&s.body);
            return p && p->accessMode == mode;
        };
    };
    // A client's schema on a system topic: versions shifted by the broker's own schema.
    if (topic.find("/__change_events") != std::string::npos && real.ok && model.ok && real.schemaVersion &&
        model.schemaVersion && *real.schemaVersion == *model.schemaVersion + 1)
        return row("system-topic-broker-schema");
    if (!real.ok && !model.ok && real.error == model.error && real.error == "IncompatibleSchema" &&
        real.message.find("caused by org.apache.avro.SchemaParseException") != std::string::npos &&
        real.message.rfind(model.message, 0) == 0)
        return row("definition-parse-cause");
    if (const auto* p = std::get_if<ProducerStep>(&step.body);
        (p && p->accessMode == "WaitForExclusive" && !real.ok && real.error == "NoResponse" && real.message.find("WaitForExclusive") != std::string::npos) ||
        (p && earlier(scenario, index, topic, isProducerWith("WaitForExclusive"))))
        return row("wait-for-exclusive-queue");
    if ((std::holds_alternative<PublishStep>(step.body) || std::holds_alternative<ProducerStep>(step.body)) &&
        earlier(scenario, index, topic, isProducerWith("ExclusiveWithFencing")))
        return row("fenced-producer-connection");
    if (std::holds_alternative<DeleteTopicStep>(step.body) && !real.ok && !model.ok && real.error == "404" &&
        real.message == model.message + ".")
        return row("delete-topic-404-text");
    if (!std::holds_alternative<DeleteTopicStep>(step.body) &&
        earlier(scenario, index, topic, [](const Step& s) { return std::holds_alternative<DeleteTopicStep>(s.body); }))
        return row("delete-topic-drops-schema");
    if (std::holds_alternative<SubscribeStep>(step.body) && !real.ok && real.error == "NotAllowedError" &&
        real.message.find("NonDurable subscription") != std::string::npos)
        return row("non-durable-subscription-conflict");
    if (std::holds_alternative<SubscribeStep>(step.body) && real.ok && !model.ok && model.error == "IncompatibleSchema" &&
        (model.message.find("Invalid schema definition data") != std::string::npos ||
         model.message.find("is not supported") != std::string::npos))
        return row("idle-consumer-validation");
    return nullptr;
}

}  // namespace cnx::sim::live
