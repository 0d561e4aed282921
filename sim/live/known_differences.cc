#include "sim/live/known_differences.h"

namespace cnx::sim::live {
namespace {

constexpr KnownDifference kTable[] = {
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

const KnownDifference* explain(const Step& step, const Observed& real, const Observed& model) {
    const std::string topic = std::visit([](const auto& b) { return topicOf(b); }, step.body);
    // A client's schema on a system topic: versions shifted by the broker's own schema.
    if (topic.find("/__change_events") != std::string::npos && real.ok && model.ok && real.schemaVersion &&
        model.schemaVersion && *real.schemaVersion == *model.schemaVersion + 1)
        return row("system-topic-broker-schema");
    if (!real.ok && !model.ok && real.error == model.error && real.error == "IncompatibleSchema" &&
        real.message.find("caused by org.apache.avro.SchemaParseException") != std::string::npos &&
        real.message.rfind(model.message, 0) == 0)
        return row("definition-parse-cause");
    if (const auto* p = std::get_if<ProducerStep>(&step.body);
        p && p->accessMode == "WaitForExclusive" && !real.ok && real.error == "ProducerQueued")
        return row("wait-for-exclusive-queue");
    if (std::holds_alternative<SubscribeStep>(step.body) && real.ok && !model.ok && model.error == "IncompatibleSchema" &&
        (model.message.find("Invalid schema definition data") != std::string::npos ||
         model.message.find("is not supported") != std::string::npos))
        return row("idle-consumer-validation");
    return nullptr;
}

}  // namespace cnx::sim::live
