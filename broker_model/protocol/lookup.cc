// ServerCnx: where a topic is served and what a namespace holds (LOOKUP,
// PARTITIONED_METADATA, GET_TOPICS_OF_NAMESPACE). One broker serves every
// topic, so a lookup always answers itself: response Connect, authoritative,
// at the broker's advertised URL (Broker::lookupData: advertisedAddress or the
// client's advertised_listener_name).
#include "broker_model/protocol/server_cnx.h"

#include "broker_model/wire/commands.h"

namespace cnx {

void ServerCnx::handleLookup(const pulsar::proto::CommandLookupTopic& cmd) {
    std::string error;
    auto name = TopicName::parse(cmd.topic(), &error);
    if (!name) {
        send(wire::lookupFailed(cmd.request_id(), pulsar::proto::InvalidTopicName, error));
        return;
    }
    // ServerCnx.handleLookup: isTopicOperationAllowed(LOOKUP), AuthorizationError on a lookup response.
    Trace trace(broker_.traceDetail());
    if (auto refused = refuseTopicOperation(*name, auth::TopicOperation::LOOKUP, "Client is not authorized to Lookup", trace, {},
                                            "Exception occurred while trying to authorize lookup")) {
        send(wire::lookupFailed(cmd.request_id(), pulsar::proto::AuthorizationError, *refused));
        return;
    }
    auto data = broker_.lookupData(cmd.advertised_listener_name());
    if (auto* refused = std::get_if<std::string>(&data)) {
        // TopicLookupBase.lookupTopicAsync: the NamespaceService failure arrives
        // wrapped (CompletionException), its message the cause's toString().
        send(wire::lookupFailed(cmd.request_id(), pulsar::proto::ServiceNotReady,
                                "org.apache.pulsar.broker.PulsarServerException: " + *refused));
        return;
    }
    const auto& found = std::get<LookupData>(data);
    auto answer = wire::lookupConnect(cmd.request_id(), found.brokerUrl);
    // Commands.newLookupResponse: brokerServiceUrlTls when the broker has a TLS URL.
    if (found.brokerUrlTls) answer->mutable_lookuptopicresponse()->set_brokerserviceurltls(*found.brokerUrlTls);
    send(std::move(answer));
}

void ServerCnx::handlePartitionedMetadata(const pulsar::proto::CommandPartitionedTopicMetadata& cmd) {
    std::string error;
    auto name = TopicName::parse(cmd.topic(), &error);
    if (!name) {
        send(wire::partitionedMetadataFailed(cmd.request_id(), pulsar::proto::InvalidTopicName, error));
        return;
    }
    // ServerCnx.handlePartitionMetadataRequest: isTopicOperationAllowed(LOOKUP) first; a
    // check that fails with NOT_FOUND (the tenant does not exist) is TopicNotFound.
    if (auto authorizer = broker_.authorizer(); authorizer.enabled()) {
        auto verdict = authorizer.allowTopicOperation(*name, auth::TopicOperation::LOOKUP, authRole());
        if (verdict.error) {
            send(wire::partitionedMetadataFailed(cmd.request_id(), pulsar::proto::TopicNotFound,
                                                 "Tenant or namespace or topic does not exist: " + name->namespaceName()));
            return;
        }
        if (!verdict.allowed) {
            send(wire::partitionedMetadataFailed(cmd.request_id(), pulsar::proto::AuthorizationError,
                                                 "Client is not authorized to Get Partition Metadata"));
            return;
        }
    }
    int partitions = broker_.partitionsOf(*name);
    // ServerCnx.handlePartitionMetadataRequest (PIP-344): without auto-creation (the client's
    // metadata_auto_creation_enabled, default true, and the broker's allowAutoTopicCreation),
    // NamespaceService.checkTopicExists decides: a topic that does not exist is TopicNotFound
    // with an empty message; a partitioned one answers its partitions, any other 0.
    bool autoCreate = cmd.metadata_auto_creation_enabled() && broker_.policies().broker.allowAutoTopicCreation;
    if (broker_.profile().partitionedMetadataWithoutAutoCreation && !autoCreate && partitions == 0 &&
        !broker_.topicExists(*name)) {
        send(wire::partitionedMetadataFailed(cmd.request_id(), pulsar::proto::TopicNotFound, ""));
        return;
    }
    send(wire::partitionedMetadata(cmd.request_id(), static_cast<std::uint32_t>(partitions)));
}

void ServerCnx::handleGetTopicsOfNamespace(const pulsar::proto::CommandGetTopicsOfNamespace& cmd) {
    const std::string& ns = cmd.namespace_();
    auto slash = ns.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == ns.size() || ns.find('/', slash + 1) != std::string::npos) {
        sendError(cmd.request_id(), pulsar::proto::MetadataError, "Invalid namespace name: '" + ns + "'");
        return;
    }
    // ServerCnx.handleGetTopicsOfNamespace: isNamespaceOperationAllowed(GET_TOPICS).
    if (auto authorizer = broker_.authorizer(); authorizer.enabled()) {
        auto verdict = authorizer.allowNamespaceOperation(ns, auth::NamespaceOperation::GET_TOPICS, authRole_);
        if (verdict.error || !verdict.allowed) {
            sendError(cmd.request_id(), pulsar::proto::AuthorizationError,
                      verdict.error ? "Exception occurred while trying to authorize GetTopicsOfNamespace"
                                    : "Client is not authorized to GetTopicsOfNamespace");
            return;
        }
    }
    using Mode = pulsar::proto::CommandGetTopicsOfNamespace;
    bool persistent = cmd.mode() != Mode::NON_PERSISTENT;
    bool nonPersistent = cmd.mode() != Mode::PERSISTENT;
    send(wire::topicsOfNamespace(cmd.request_id(), broker_.topicsOfNamespace(ns, persistent, nonPersistent)));
}

}  // namespace cnx
