#include "broker_model/admin/status_mapping.h"

namespace cnx {

int adminStatusOf(const BehaviourProfile& profile, AdminEndpoint endpoint, RefusalKind kind) {
    switch (endpoint) {
        case AdminEndpoint::testCompatibility:
            // §7.4: the registry fails instead of answering false: 500 with the text. An
            // invalid definition is 500 too: unlike POST /schema, this endpoint maps no
            // exception to 422 (derived; §6.7 #24103 "admin test-compatibility 500").
            return 500;
        case AdminEndpoint::postSchema: break;
    }
    switch (kind) {
        case RefusalKind::invalidSchemaData: return profile.adminInvalidDefinitionStatus;  // 422 from 2.11.0
        case RefusalKind::incompatibleSchema:
        case RefusalKind::checkerErrorWrapped:
        case RefusalKind::schemaNotFound:
        case RefusalKind::emptySchemaVersion: return profile.adminIncompatibleStatus;  // 409 from 2.4.2
        case RefusalKind::checkerError:
        case RefusalKind::topicNotFound:
        case RefusalKind::topicFenced:
        case RefusalKind::subscriptionNotFound:
        case RefusalKind::producerNameTaken:
        case RefusalKind::producerBusy:
        case RefusalKind::producerFenced:
        case RefusalKind::subscriptionBusy:
        case RefusalKind::consumerBusy:
        case RefusalKind::consumerAssign:
        case RefusalKind::topicTerminated:
        case RefusalKind::invalidTopicName:
        case RefusalKind::requestPending:
        case RefusalKind::producerNotFound:
        case RefusalKind::notAllowed:
        case RefusalKind::subscriptionNameEmpty:
        case RefusalKind::schemaOrTopicNotFound: return 500;  // an exception the resource does not map
    }
    return 500;
}

bool adminAnswerIsBare(AdminEndpoint endpoint, RefusalKind kind) {
    if (endpoint != AdminEndpoint::postSchema) return false;
    switch (kind) {
        case RefusalKind::invalidSchemaData:
        case RefusalKind::incompatibleSchema:
        case RefusalKind::checkerErrorWrapped:
        case RefusalKind::schemaNotFound:
        case RefusalKind::emptySchemaVersion: return true;
        default: return false;
    }
}

}  // namespace cnx
