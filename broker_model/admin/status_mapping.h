#pragma once
// The HTTP status of an admin REST answer that carries a refusal (reference
// §7.4): the one kind -> status mapping. Where releases differ the behaviour
// profile's switches decide (adminIncompatibleStatus, adminInvalidDefinitionStatus).

#include "broker_model/core/refusal.h"
#include "broker_model/profile/profile.h"

namespace cnx {

/// The admin endpoints that answer with a refusal of the registry.
enum class AdminEndpoint {
    postSchema,         // POST .../schema
    testCompatibility,  // POST .../compatibility
};

/// The status `endpoint` answers a refusal of `kind` with on `profile`.
int adminStatusOf(const BehaviourProfile& profile, AdminEndpoint endpoint, RefusalKind kind);

/// Whether that answer is a bare status and reason phrase, no body (the 409/422 of POST …/schema, §7.2).
bool adminAnswerIsBare(AdminEndpoint endpoint, RefusalKind kind);

}  // namespace cnx
