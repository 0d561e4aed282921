#pragma once
// Every refusal the model raises, by kind (issue 9 item 3). A kind fixes the
// wire code (ServerError) and, where the broker's root exception is always
// the same Java class, that class; the admin REST status of a kind is mapped
// in broker_model/admin/status_mapping.h. Code that asks "what kind of
// refusal is this?" compares kinds, never class names or codes.

#include <array>
#include <string_view>

#include "proto/PulsarApi.pb.h"

namespace cnx {

using ServerError = pulsar::proto::ServerError;

enum class RefusalKind {
    // --- schema admission (§1.3-§1.5, §2.2, §3.4-§3.5, §4) ---
    incompatibleSchema,    // IncompatibleSchemaException: the checker, the type check or a rule said "no"
    checkerErrorWrapped,   // the validator threw on the "all" path (§4.6): wrapped as IncompatibleSchemaException
    checkerError,          // the validator (or the Avro parser of §4.5) threw and the exception escaped: UnknownError
    invalidSchemaData,     // InvalidSchemaDataException: the definition validator (§6.7)
    schemaNotFound,        // NotExistSchemaException: the consumer check found no schema (§4.7)
    // --- topics, producers, consumers (§1.1, §2.1, AbstractTopic) ---
    topicNotFound,         // TopicNotFoundException (or the handler's own "Topic not found" answer)
    topicFenced,           // TopicFencedException: the topic is temporarily unavailable
    subscriptionNotFound,  // SubscriptionNotFoundException: auto subscription creation is off
    producerNameTaken,     // NamingException: a producer of that name is connected
    producerBusy,          // ProducerBusyException: an exclusive producer holds the topic
    producerFenced,        // ProducerFencedException: exclusive access refused
    subscriptionBusy,      // SubscriptionBusyException: a different subscription type is active
    consumerBusy,          // ConsumerBusyException: the exclusive subscription has a consumer
    consumerAssign,        // ConsumerAssignException: a Key_Shared consumer's hash ranges cannot be assigned
    topicTerminated,       // TopicTerminatedException: the topic was terminated (admin terminate)
    // --- the connection's own answers (no exception behind them) ---
    invalidTopicName,      // the topic name does not parse
    requestPending,        // a producer/consumer with that id is still being created (ServiceNotReady)
    producerNotFound,      // SEND for a producer that is not ready (NotAllowedError)
    emptySchemaVersion,    // GET_SCHEMA with a schema_version that is not 8 bytes (§1.9)
    schemaOrTopicNotFound, // GET_SCHEMA found no live schema (§1.9)
    // --- issue 41: the SUBSCRIBE / PRODUCER paths' other refusals ---
    notAllowed,            // NotAllowedException: NotAllowedError (BrokerService.getTopic, NonPersistentTopic.subscribe, ...)
    subscriptionNameEmpty, // NamingException "Empty subscription name" (PersistentTopic/NonPersistentTopic.subscribe)
};

/// Every kind, in declaration order (tests loop over it).
inline constexpr std::array kAllRefusalKinds{
    RefusalKind::incompatibleSchema,   RefusalKind::checkerErrorWrapped, RefusalKind::checkerError,
    RefusalKind::invalidSchemaData,    RefusalKind::schemaNotFound,      RefusalKind::topicNotFound,
    RefusalKind::topicFenced,          RefusalKind::subscriptionNotFound, RefusalKind::producerNameTaken,
    RefusalKind::producerBusy,         RefusalKind::producerFenced,      RefusalKind::subscriptionBusy,
    RefusalKind::consumerBusy,         RefusalKind::consumerAssign,      RefusalKind::topicTerminated,
    RefusalKind::invalidTopicName,     RefusalKind::requestPending,
    RefusalKind::producerNotFound,     RefusalKind::emptySchemaVersion,  RefusalKind::schemaOrTopicNotFound,
    RefusalKind::notAllowed,           RefusalKind::subscriptionNameEmpty,
};

/// The kind's name, e.g. "incompatibleSchema".
std::string_view to_string_view(RefusalKind kind);

/// The wire code of a refusal of `kind` (the only kind -> ServerError mapping).
ServerError serverErrorOf(RefusalKind kind);

/// The fully-qualified Java class of the root exception a refusal of `kind`
/// carries; empty when the kind has no fixed class (the validator's thrown
/// exceptions vary, the connection's own answers have none).
std::string_view exceptionClassOf(RefusalKind kind);

}  // namespace cnx
