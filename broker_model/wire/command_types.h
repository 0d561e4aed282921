#pragma once
// Every BaseCommand type of the upstream proto in one list, for the switches
// that must name each type (no `default:`, -Wswitch under -Werror): a type
// added to the proto fails the build until the list, and every switch that
// does not take its place from the list, say what it is.

// X(type, its sub-message field, who sends it: client, broker or either, as
// wire::Sender). The field's number equals the type's value in upstream's proto.
#define CNX_WIRE_COMMANDS(X) \
    X(CONNECT, connect, client) \
    X(CONNECTED, connected, broker) \
    X(SUBSCRIBE, subscribe, client) \
    X(PRODUCER, producer, client) \
    X(SEND, send, client) \
    X(SEND_RECEIPT, send_receipt, broker) \
    X(SEND_ERROR, send_error, broker) \
    X(MESSAGE, message, broker) \
    X(ACK, ack, client) \
    X(FLOW, flow, client) \
    X(UNSUBSCRIBE, unsubscribe, client) \
    X(SUCCESS, success, broker) \
    X(ERROR, error, broker) \
    X(CLOSE_PRODUCER, close_producer, either) \
    X(CLOSE_CONSUMER, close_consumer, either) \
    X(PRODUCER_SUCCESS, producer_success, broker) \
    X(PING, ping, either) \
    X(PONG, pong, either) \
    X(REDELIVER_UNACKNOWLEDGED_MESSAGES, redeliverunacknowledgedmessages, client) \
    X(PARTITIONED_METADATA, partitionmetadata, client) \
    X(PARTITIONED_METADATA_RESPONSE, partitionmetadataresponse, broker) \
    X(LOOKUP, lookuptopic, client) \
    X(LOOKUP_RESPONSE, lookuptopicresponse, broker) \
    X(CONSUMER_STATS, consumerstats, client) \
    X(CONSUMER_STATS_RESPONSE, consumerstatsresponse, broker) \
    X(REACHED_END_OF_TOPIC, reachedendoftopic, broker) \
    X(SEEK, seek, client) \
    X(GET_LAST_MESSAGE_ID, getlastmessageid, client) \
    X(GET_LAST_MESSAGE_ID_RESPONSE, getlastmessageidresponse, broker) \
    X(ACTIVE_CONSUMER_CHANGE, active_consumer_change, broker) \
    X(GET_TOPICS_OF_NAMESPACE, gettopicsofnamespace, client) \
    X(GET_TOPICS_OF_NAMESPACE_RESPONSE, gettopicsofnamespaceresponse, broker) \
    X(GET_SCHEMA, getschema, client) \
    X(GET_SCHEMA_RESPONSE, getschemaresponse, broker) \
    X(AUTH_CHALLENGE, authchallenge, broker) \
    X(AUTH_RESPONSE, authresponse, client) \
    X(ACK_RESPONSE, ackresponse, broker) \
    X(GET_OR_CREATE_SCHEMA, getorcreateschema, client) \
    X(GET_OR_CREATE_SCHEMA_RESPONSE, getorcreateschemaresponse, broker) \
    X(NEW_TXN, newtxn, client) \
    X(NEW_TXN_RESPONSE, newtxnresponse, broker) \
    X(ADD_PARTITION_TO_TXN, addpartitiontotxn, client) \
    X(ADD_PARTITION_TO_TXN_RESPONSE, addpartitiontotxnresponse, broker) \
    X(ADD_SUBSCRIPTION_TO_TXN, addsubscriptiontotxn, client) \
    X(ADD_SUBSCRIPTION_TO_TXN_RESPONSE, addsubscriptiontotxnresponse, broker) \
    X(END_TXN, endtxn, client) \
    X(END_TXN_RESPONSE, endtxnresponse, broker) \
    X(END_TXN_ON_PARTITION, endtxnonpartition, client) \
    X(END_TXN_ON_PARTITION_RESPONSE, endtxnonpartitionresponse, broker) \
    X(END_TXN_ON_SUBSCRIPTION, endtxnonsubscription, client) \
    X(END_TXN_ON_SUBSCRIPTION_RESPONSE, endtxnonsubscriptionresponse, broker) \
    X(TC_CLIENT_CONNECT_REQUEST, tcclientconnectrequest, client) \
    X(TC_CLIENT_CONNECT_RESPONSE, tcclientconnectresponse, broker) \
    X(WATCH_TOPIC_LIST, watchtopiclist, client) \
    X(WATCH_TOPIC_LIST_SUCCESS, watchtopiclistsuccess, broker) \
    X(WATCH_TOPIC_UPDATE, watchtopicupdate, broker) \
    X(WATCH_TOPIC_LIST_CLOSE, watchtopiclistclose, client) \
    X(TOPIC_MIGRATED, topicmigrated, broker) \
    X(SCALABLE_TOPIC_LOOKUP, scalabletopiclookup, client) \
    X(SCALABLE_TOPIC_UPDATE, scalabletopicupdate, broker) \
    X(SCALABLE_TOPIC_CLOSE, scalabletopicclose, client) \
    X(SCALABLE_TOPIC_SUBSCRIBE, scalabletopicsubscribe, client) \
    X(SCALABLE_TOPIC_SUBSCRIBE_RESPONSE, scalabletopicsubscriberesponse, broker) \
    X(SCALABLE_TOPIC_ASSIGNMENT_UPDATE, scalabletopicassignmentupdate, broker) \
    X(WATCH_SCALABLE_TOPICS, watchscalabletopics, client) \
    X(WATCH_SCALABLE_TOPICS_UPDATE, watchscalabletopicsupdate, broker) \
    X(WATCH_SCALABLE_TOPICS_CLOSE, watchscalabletopicsclose, client) \
    X(WATCH_TC_ASSIGNMENTS, watchtcassignments, client) \
    X(WATCH_TC_ASSIGNMENTS_UPDATE, watchtcassignmentsupdate, broker) \
    X(WATCH_TC_ASSIGNMENTS_CLOSE, watchtcassignmentsclose, client)

// The types only a broker sends, as case labels:
// `CNX_WIRE_COMMANDS(CNX_WIRE_BROKER_CASE) return ...;` in a switch over a
// command a client sent (ServerCnx::dispatch refuses them all alike).
#define CNX_WIRE_BROKER_CASE(type, field, sender) CNX_WIRE_BROKER_CASE_##sender(type)
#define CNX_WIRE_BROKER_CASE_broker(type) case ::pulsar::proto::BaseCommand::type:
#define CNX_WIRE_BROKER_CASE_client(type)
#define CNX_WIRE_BROKER_CASE_either(type)
