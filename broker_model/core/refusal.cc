#include "broker_model/core/refusal.h"

namespace cnx {
std::string_view to_string_view(RefusalKind kind) {
    switch (kind) {
        case RefusalKind::incompatibleSchema: return "incompatibleSchema";
        case RefusalKind::checkerErrorWrapped: return "checkerErrorWrapped";
        case RefusalKind::checkerError: return "checkerError";
        case RefusalKind::invalidSchemaData: return "invalidSchemaData";
        case RefusalKind::schemaNotFound: return "schemaNotFound";
        case RefusalKind::topicNotFound: return "topicNotFound";
        case RefusalKind::topicFenced: return "topicFenced";
        case RefusalKind::subscriptionNotFound: return "subscriptionNotFound";
        case RefusalKind::producerNameTaken: return "producerNameTaken";
        case RefusalKind::producerBusy: return "producerBusy";
        case RefusalKind::producerFenced: return "producerFenced";
        case RefusalKind::subscriptionBusy: return "subscriptionBusy";
        case RefusalKind::consumerBusy: return "consumerBusy";
        case RefusalKind::consumerAssign: return "consumerAssign";
        case RefusalKind::topicTerminated: return "topicTerminated";
        case RefusalKind::invalidTopicName: return "invalidTopicName";
        case RefusalKind::requestPending: return "requestPending";
        case RefusalKind::producerNotFound: return "producerNotFound";
        case RefusalKind::emptySchemaVersion: return "emptySchemaVersion";
        case RefusalKind::schemaOrTopicNotFound: return "schemaOrTopicNotFound";
        case RefusalKind::notAllowed: return "notAllowed";
        case RefusalKind::subscriptionNameEmpty: return "subscriptionNameEmpty";
    }
    return "?";
}

ServerError serverErrorOf(RefusalKind kind) {
    switch (kind) {
        case RefusalKind::incompatibleSchema:
        case RefusalKind::checkerErrorWrapped:
        case RefusalKind::invalidSchemaData:  // §6.7: IncompatibleSchema(18) on the binary protocol
        case RefusalKind::schemaNotFound:
        case RefusalKind::emptySchemaVersion: return pulsar::proto::IncompatibleSchema;
        case RefusalKind::checkerError: return pulsar::proto::UnknownError;  // §1.5: an escaped exception
        case RefusalKind::topicNotFound:
        case RefusalKind::schemaOrTopicNotFound: return pulsar::proto::TopicNotFound;
        case RefusalKind::topicFenced:
        case RefusalKind::requestPending: return pulsar::proto::ServiceNotReady;
        case RefusalKind::subscriptionNotFound: return pulsar::proto::SubscriptionNotFound;
        case RefusalKind::producerNameTaken:
        case RefusalKind::subscriptionNameEmpty:  // BrokerServiceException.getClientErrorCode: NamingException
        case RefusalKind::producerBusy: return pulsar::proto::ProducerBusy;
        case RefusalKind::producerFenced: return pulsar::proto::ProducerFenced;
        case RefusalKind::subscriptionBusy:
        case RefusalKind::consumerBusy: return pulsar::proto::ConsumerBusy;
        case RefusalKind::consumerAssign: return pulsar::proto::ConsumerAssignError;  // ServerCnx: ConsumerAssignException
        case RefusalKind::topicTerminated: return pulsar::proto::TopicTerminatedError;
        case RefusalKind::invalidTopicName: return pulsar::proto::InvalidTopicName;
        case RefusalKind::producerNotFound:
        case RefusalKind::notAllowed: return pulsar::proto::NotAllowedError;
    }
    return pulsar::proto::UnknownError;
}

std::string_view exceptionClassOf(RefusalKind kind) {
    switch (kind) {
        case RefusalKind::incompatibleSchema:
        case RefusalKind::checkerErrorWrapped: return "org.apache.pulsar.broker.service.schema.exceptions.IncompatibleSchemaException";
        case RefusalKind::invalidSchemaData: return "org.apache.pulsar.broker.service.schema.exceptions.InvalidSchemaDataException";
        case RefusalKind::schemaNotFound: return "org.apache.pulsar.broker.service.schema.exceptions.NotExistSchemaException";
        case RefusalKind::topicNotFound: return "org.apache.pulsar.broker.service.BrokerServiceException$TopicNotFoundException";
        case RefusalKind::topicFenced: return "org.apache.pulsar.broker.service.BrokerServiceException$TopicFencedException";
        case RefusalKind::subscriptionNotFound: return "org.apache.pulsar.broker.service.BrokerServiceException$SubscriptionNotFoundException";
        case RefusalKind::producerNameTaken:
        case RefusalKind::subscriptionNameEmpty: return "org.apache.pulsar.broker.service.BrokerServiceException$NamingException";
        case RefusalKind::notAllowed: return "org.apache.pulsar.broker.service.BrokerServiceException$NotAllowedException";
        case RefusalKind::producerBusy: return "org.apache.pulsar.broker.service.BrokerServiceException$ProducerBusyException";
        case RefusalKind::producerFenced: return "org.apache.pulsar.broker.service.BrokerServiceException$ProducerFencedException";
        case RefusalKind::subscriptionBusy: return "org.apache.pulsar.broker.service.BrokerServiceException$SubscriptionBusyException";
        case RefusalKind::consumerBusy: return "org.apache.pulsar.broker.service.BrokerServiceException$ConsumerBusyException";
        case RefusalKind::consumerAssign: return "org.apache.pulsar.broker.service.BrokerServiceException$ConsumerAssignException";
        case RefusalKind::topicTerminated:
            return "org.apache.pulsar.broker.service.BrokerServiceException$TopicTerminatedException";
        case RefusalKind::checkerError:  // the thrown class varies: BrokerError carries it
        case RefusalKind::invalidTopicName:
        case RefusalKind::requestPending:
        case RefusalKind::producerNotFound:
        case RefusalKind::emptySchemaVersion:
        case RefusalKind::schemaOrTopicNotFound: return "";
    }
    return "";
}

}  // namespace cnx
