// ServerCnx: CONNECT and what hangs on it (issue 44): authentication when the
// connection opens, the credentials' refresh while it lives, and the
// authorization every topic command asks for.

#include "broker_model/protocol/server_cnx.h"

#include <algorithm>

#include "broker_model/wire/commands.h"

namespace cnx {

using pulsar::proto::BaseCommand;

// §8.6: CONNECTED with min(client, broker) protocol version. With authentication
// on (issue 44), as ServerCnx.handleConnect of 4.2: the provider of CONNECT's
// auth_method_name (or the legacy auth_method enum's name, else "none"); no
// such provider: the anonymous role, else refused. One stage: every provider
// cnxsim has (token, basic, tls) decides on the first data, no AUTH_CHALLENGE.
void ServerCnx::handleConnect(const pulsar::proto::CommandConnect& cmd) {
    const auto& authentication = broker_.authentication();
    if (!authentication.enabled()) return completeConnect(cmd);
    if (cmd.has_auth_method_name()) authMethod_ = cmd.auth_method_name();
    else if (cmd.has_auth_method()) authMethod_ = auth::legacyAuthMethodName(pulsar::proto::AuthMethod_Name(cmd.auth_method()));
    else authMethod_ = "none";
    supportsAuthRefresh_ = cmd.has_feature_flags() && cmd.feature_flags().supports_auth_refresh();
    auto result = authentication.authenticate(authMethod_, cmd.auth_data(), peer_, broker_.scheduler().nowMs());
    if (!result.ok) return authenticationFailed(result.error);
    authRole_ = result.role;
    authExpiresAtMs_ = result.expiresAtMs;
    authCheckOriginMs_ = broker_.scheduler().nowMs();
    completeConnect(cmd);
    scheduleAuthRefreshCheck();
}

void ServerCnx::completeConnect(const pulsar::proto::CommandConnect& cmd) {
    connected_ = true;
    protocolVersion_ = std::min(cmd.protocol_version(), broker_.profile().maxProtocolVersion);
    clientVersion_ = cmd.client_version();
    // ServerCnx.handleConnect: max_message_size is the broker's maxMessageSize (issue 41 item 5).
    auto connected = wire::connected("Pulsar Server" + broker_.profile().release.toString(), protocolVersion_,
                                     broker_.policies().broker.maxMessageSize);
    // Commands.newConnectedCommand (PIP-344): the Java client asks for partitions without
    // auto-creation only of a broker that says it can (BinaryProtoLookupService).
    if (broker_.profile().partitionedMetadataWithoutAutoCreation)
        connected->mutable_connected()->mutable_feature_flags()->set_supports_get_partitioned_metadata_without_auto_creation(true);
    send(std::move(connected));
}

std::optional<std::string> ServerCnx::refuseTopicOperation(const TopicName& topic, auth::TopicOperation op,
                                                           const std::string& denied, Trace& trace,
                                                           std::string_view subscription,
                                                           const std::string& failed) const {
    auto authorizer = broker_.authorizer();
    if (!authorizer.enabled()) return std::nullopt;
    auto verdict = authorizer.allowTopicOperation(topic, op, authRole_, subscription);
    trace.add("§11", "authorization", [&] {
        return std::string(auth::to_string_view(op)) + " on " + topic.toString() + " by role '" + authRole_ + "': " +
               (verdict.error ? "failed: " + *verdict.error : verdict.allowed ? "allowed" : "not allowed");
    });
    // A check that fails (the tenant does not exist: validateTenantAdminAccess's
    // RestException NOT_FOUND): handleProducer and handleSubscribe answer the
    // exception's text, "org.apache.pulsar.common.util.RestException: HTTP 404 Not
    // Found" (seen on a real 4.2.4 broker); each lookup command has its own text.
    if (verdict.error) return failed.empty() ? "org.apache.pulsar.common.util.RestException: HTTP 404 Not Found" : failed;
    if (!verdict.allowed) return denied;
    return std::nullopt;
}

// ServerCnx.authenticationFailed (4.2): ERROR with request id -1, AuthenticationError and
// "Failed to authenticate" whatever the cause (the cause goes to the broker's log only),
// then the connection closes once that is written (writeAndFlushWithClosePromise).
void ServerCnx::authenticationFailed(const std::string& why) {
    (void)why;  // the broker logs it; the client is told nothing more
    send(wire::error(static_cast<std::uint64_t>(-1), pulsar::proto::AuthenticationError, "Failed to authenticate"));
    disconnect();
}

// ServerCnx.maybeScheduleAuthenticationCredentialsRefresh runs the check every
// authenticationRefreshCheckSeconds from CONNECT; a check before the credentials
// expire does nothing, so the model posts only the first tick past the expiry
// (TokenAuthenticationState.isExpired: exp < now), and none for credentials that
// never expire: a simulated run is never kept going by the timer.
void ServerCnx::scheduleAuthRefreshCheck() {
    if (authRefreshScheduled_ || closed_) return;
    std::int64_t period = std::int64_t{broker_.policies().broker.auth.authenticationRefreshCheckSeconds} * 1000;
    std::int64_t now = broker_.scheduler().nowMs();
    std::int64_t due = 0;
    if (pendingAuthChallengeResponse_) {
        due = now + period;  // the next tick: the client had a whole period to answer
    } else {
        if (!authExpiresAtMs_) return;
        std::int64_t after = std::max(now, *authExpiresAtMs_ + 1);
        std::int64_t ticks = (after - authCheckOriginMs_ + period - 1) / period;
        due = authCheckOriginMs_ + std::max<std::int64_t>(ticks, 1) * period;
    }
    authRefreshScheduled_ = true;
    broker_.scheduler().postAt(due, StageRef{StageKind::authRefresh, {}, {}}, [self = lifetime_.guard()] {
        if (auto* connection = self.get()) {
            connection->authRefreshScheduled_ = false;
            connection->refreshAuthenticationCredentials();
        }
    });
}

// ServerCnx.refreshAuthenticationCredentials (4.2): expired credentials of a client
// without supports_auth_refresh, or a challenge left unanswered for a period, close
// the connection (no ERROR); otherwise AUTH_CHALLENGE with the method and
// AuthData.REFRESH_AUTH_DATA ("PulsarAuthRefresh"), and the client answers AUTH_RESPONSE.
void ServerCnx::refreshAuthenticationCredentials() {
    if (closed_) return;
    if (!pendingAuthChallengeResponse_ &&
        (!authExpiresAtMs_ || *authExpiresAtMs_ >= broker_.scheduler().nowMs())) {
        scheduleAuthRefreshCheck();
        return;
    }
    if (!supportsAuthRefresh_ || pendingAuthChallengeResponse_) {
        disconnect();
        return;
    }
    wire::PooledCommand challenge;
    challenge->set_type(BaseCommand::AUTH_CHALLENGE);
    auto* c = challenge->mutable_authchallenge();
    // Commands.newAuthChallenge: the version advertised is min(broker's, client's).
    c->set_protocol_version(protocolVersion_);
    c->mutable_challenge()->set_auth_method_name(authMethod_);
    c->mutable_challenge()->set_auth_data("PulsarAuthRefresh");
    send(std::move(challenge));
    pendingAuthChallengeResponse_ = true;
    scheduleAuthRefreshCheck();
}

// ServerCnx.handleAuthResponse / authChallengeSuccessCallback (4.2): the new data
// goes to the connection's own provider; a failure is authenticationFailed, a
// different role closes the connection ("Principal cannot change during an
// authentication refresh"), a success keeps the role with the new expiry.
void ServerCnx::handleAuthResponse(const pulsar::proto::CommandAuthResponse& cmd) {
    // checkArgument: an IllegalArgumentException, outside the handler's try: the channel closes.
    if (!cmd.has_response() || !cmd.response().has_auth_data() || !cmd.response().has_auth_method_name()) {
        disconnect();
        return;
    }
    pendingAuthChallengeResponse_ = false;
    const auto& authentication = broker_.authentication();
    // No auth state (authentication off, or the anonymous role): doAuthentication fails.
    if (!authentication.enabled() || !authentication.hasProvider(authMethod_))
        return authenticationFailed("no authentication state to refresh");
    auto result = authentication.authenticate(authMethod_, cmd.response().auth_data(), peer_, broker_.scheduler().nowMs());
    if (!result.ok) return authenticationFailed(result.error);
    if (!authRole_.empty() && result.role != authRole_) {
        disconnect();
        return;
    }
    authExpiresAtMs_ = result.expiresAtMs;
    scheduleAuthRefreshCheck();
}

}  // namespace cnx
