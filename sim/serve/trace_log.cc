#include "sim/serve/trace_log.h"

#include <limits>
#include <sstream>

#include "broker_model/core/text_bound.h"
#include "broker_model/wire/commands.h"
#include "broker_model/wire/frame.h"

namespace cnx::serve {
namespace {

using pulsar::proto::BaseCommand;
using T = BaseCommand;

// A broker's message as a trace line shows it: an Avro refusal embeds both
// schemas, and names come from the client (issue 40 item 5).
constexpr std::size_t kShownMessageBytes = 2048;

std::string idOf(const pulsar::proto::MessageIdData& id) {
    return std::to_string(static_cast<std::int64_t>(id.ledgerid())) + ":" +
           std::to_string(static_cast<std::int64_t>(id.entryid()));
}

std::string versionOf(const std::string& bytes) {
    if (bytes.empty()) return "none";
    auto v = wire::decodeSchemaVersion(bytes);
    return v ? std::to_string(*v) : "(" + std::to_string(bytes.size()) + " bytes)";
}

std::string schemaOf(const pulsar::proto::Schema& s) { return pulsar::proto::Schema::Type_Name(s.type()); }

std::string errorOf(pulsar::proto::ServerError e, const std::string& message) {
    return pulsar::proto::ServerError_Name(e) + " \"" + boundedText(message, kShownMessageBytes) + "\"";
}

// The text after the type of the connection's own commands and the generic answers (describeCommand).
void describeSession(std::ostream& o, const BaseCommand& c) {
    switch (c.type()) {
        case T::CONNECT: o << " " << shownName(c.connect().client_version()) << " protocol " << c.connect().protocol_version(); break;
        case T::CONNECTED:
            o << " " << shownName(c.connected().server_version()) << " protocol " << c.connected().protocol_version();
            break;
        case T::SUCCESS: o << " request " << c.success().request_id(); break;
        case T::ERROR:
            o << " request " << static_cast<std::int64_t>(c.error().request_id()) << " "
              << errorOf(c.error().error(), c.error().message());
            break;
        default: break;
    }
}

// The text after the type of a producer and what it sends (describeCommand).
void describeProducing(std::ostream& o, const BaseCommand& c) {
    switch (c.type()) {
        case T::PRODUCER: {
            const auto& p = c.producer();
            o << " request " << p.request_id() << " producer " << p.producer_id() << " " << shownName(p.topic());
            if (p.has_producer_name()) o << " name " << shownName(p.producer_name());
            o << " schema " << (p.has_schema() ? schemaOf(p.schema()) : "none");
            break;
        }
        case T::PRODUCER_SUCCESS:
            o << " request " << c.producer_success().request_id() << " " << shownName(c.producer_success().producer_name())
              << " schema_version " << versionOf(c.producer_success().schema_version());
            break;
        case T::SEND: o << " producer " << c.send().producer_id() << " sequence " << c.send().sequence_id(); break;
        case T::SEND_RECEIPT:
            o << " producer " << c.send_receipt().producer_id() << " sequence " << c.send_receipt().sequence_id() << " "
              << idOf(c.send_receipt().message_id());
            break;
        case T::SEND_ERROR:
            o << " producer " << c.send_error().producer_id() << " sequence " << c.send_error().sequence_id() << " "
              << errorOf(c.send_error().error(), c.send_error().message());
            break;
        case T::CLOSE_PRODUCER:
            o << " producer " << c.close_producer().producer_id() << " request "
              << static_cast<std::int64_t>(c.close_producer().request_id());
            break;
        default: break;
    }
}

// The text after the type of a consumer and what it receives and acknowledges (describeCommand).
void describeConsuming(std::ostream& o, const BaseCommand& c) {
    switch (c.type()) {
        case T::SUBSCRIBE: {
            const auto& s = c.subscribe();
            o << " request " << s.request_id() << " consumer " << s.consumer_id() << " " << shownName(s.topic()) << " subscription "
              << shownName(s.subscription()) << " "
              << pulsar::proto::CommandSubscribe::SubType_Name(s.subtype()) << " schema "
              << (s.has_schema() ? schemaOf(s.schema()) : "none");
            break;
        }
        case T::MESSAGE:
            o << " consumer " << c.message().consumer_id() << " " << idOf(c.message().message_id());
            if (c.message().redelivery_count()) o << " redelivery " << c.message().redelivery_count();
            break;
        case T::FLOW: o << " consumer " << c.flow().consumer_id() << " permits " << c.flow().messagepermits(); break;
        case T::ACK: {
            o << " consumer " << c.ack().consumer_id() << " "
              << pulsar::proto::CommandAck::AckType_Name(c.ack().ack_type());
            for (const auto& id : c.ack().message_id()) o << " " << idOf(id);
            if (c.ack().has_request_id()) o << " request " << c.ack().request_id();
            break;
        }
        case T::ACK_RESPONSE:
            o << " consumer " << c.ackresponse().consumer_id() << " request " << c.ackresponse().request_id();
            if (c.ackresponse().has_error()) o << " " << errorOf(c.ackresponse().error(), c.ackresponse().message());
            break;
        case T::REDELIVER_UNACKNOWLEDGED_MESSAGES:
            o << " consumer " << c.redeliverunacknowledgedmessages().consumer_id();
            break;
        case T::UNSUBSCRIBE: o << " request " << c.unsubscribe().request_id() << " consumer " << c.unsubscribe().consumer_id(); break;
        case T::SEEK:
            o << " request " << c.seek().request_id() << " consumer " << c.seek().consumer_id();
            if (c.seek().has_message_id()) o << " to " << idOf(c.seek().message_id());
            if (c.seek().has_message_publish_time()) o << " to publish time " << c.seek().message_publish_time();
            break;
        case T::CLOSE_CONSUMER:
            o << " consumer " << c.close_consumer().consumer_id() << " request "
              << static_cast<std::int64_t>(c.close_consumer().request_id());
            break;
        case T::GET_LAST_MESSAGE_ID:
            o << " request " << c.getlastmessageid().request_id() << " consumer " << c.getlastmessageid().consumer_id();
            break;
        case T::GET_LAST_MESSAGE_ID_RESPONSE:
            o << " request " << c.getlastmessageidresponse().request_id() << " "
              << idOf(c.getlastmessageidresponse().last_message_id());
            break;
        default: break;
    }
}

// The text after the type of lookups, partitions and the topics of a namespace (describeCommand).
void describeLookup(std::ostream& o, const BaseCommand& c) {
    switch (c.type()) {
        case T::LOOKUP: o << " request " << c.lookuptopic().request_id() << " " << shownName(c.lookuptopic().topic()); break;
        case T::LOOKUP_RESPONSE: {
            const auto& r = c.lookuptopicresponse();
            o << " request " << r.request_id() << " "
              << pulsar::proto::CommandLookupTopicResponse::LookupType_Name(r.response());
            if (r.has_brokerserviceurl()) o << " " << shownName(r.brokerserviceurl());
            if (r.has_error()) o << " " << errorOf(r.error(), r.message());
            break;
        }
        case T::PARTITIONED_METADATA:
            o << " request " << c.partitionmetadata().request_id() << " " << shownName(c.partitionmetadata().topic());
            break;
        case T::PARTITIONED_METADATA_RESPONSE: {
            const auto& r = c.partitionmetadataresponse();
            o << " request " << r.request_id() << " partitions " << r.partitions();
            if (r.has_error()) o << " " << errorOf(r.error(), r.message());
            break;
        }
        case T::GET_TOPICS_OF_NAMESPACE:
            o << " request " << c.gettopicsofnamespace().request_id() << " " << shownName(c.gettopicsofnamespace().namespace_());
            break;
        case T::GET_TOPICS_OF_NAMESPACE_RESPONSE:
            o << " request " << c.gettopicsofnamespaceresponse().request_id() << " "
              << c.gettopicsofnamespaceresponse().topics_size() << " topics";
            break;
        default: break;
    }
}

// The text after the type of schema requests (describeCommand).
void describeSchemas(std::ostream& o, const BaseCommand& c) {
    switch (c.type()) {
        case T::GET_SCHEMA:
            o << " request " << c.getschema().request_id() << " " << shownName(c.getschema().topic()) << " version "
              << (c.getschema().has_schema_version() ? versionOf(c.getschema().schema_version()) : "latest");
            break;
        case T::GET_SCHEMA_RESPONSE: {
            const auto& r = c.getschemaresponse();
            o << " request " << r.request_id();
            if (r.has_error_code()) o << " " << errorOf(r.error_code(), r.error_message());
            else o << " " << schemaOf(r.schema()) << " version " << versionOf(r.schema_version());
            break;
        }
        case T::GET_OR_CREATE_SCHEMA:
            o << " request " << c.getorcreateschema().request_id() << " " << shownName(c.getorcreateschema().topic()) << " "
              << schemaOf(c.getorcreateschema().schema());
            break;
        case T::GET_OR_CREATE_SCHEMA_RESPONSE: {
            const auto& r = c.getorcreateschemaresponse();
            o << " request " << r.request_id();
            if (r.has_error_code()) o << " " << errorOf(r.error_code(), r.error_message());
            else o << " version " << versionOf(r.schema_version());
            break;
        }
        default: break;
    }
}

}  // namespace

std::string describeCommand(const BaseCommand& c) {
    std::ostringstream o;
    o << T::Type_Name(c.type());
    // Each writes the text of its own commands, nothing for the others.
    describeSession(o, c);
    describeProducing(o, c);
    describeConsuming(o, c);
    describeLookup(o, c);
    describeSchemas(o, c);
    return o.str();
}

void TraceLog::write(const std::string& line, const Trace* trace) {
    std::string text = line;
    text += '\n';
    if (trace && !trace->empty()) text += trace->format("    ");
    if (text.size() > kMaxTextBytes) text = boundedText(text, kMaxTextBytes) + "\n";
    sink_(std::move(text));
}

void TraceLog::opened(std::uint64_t connection, const std::string& peer) {
    write("conn " + std::to_string(connection) + " opened from " + peer);
}

void TraceLog::closed(std::uint64_t connection, const std::string& reason) {
    auto from = pending_.lower_bound(Key{connection, 0, 0, 0});
    auto to = pending_.lower_bound(Key{connection + 1, 0, 0, 0});
    for (auto it = from; it != to; ++it) write(it->second + " -> no answer (the connection closed)");
    pending_.erase(from, to);
    pendingCount_.erase(connection);
    write("conn " + std::to_string(connection) + " closed: " + reason);
}

void TraceLog::received(std::uint64_t connection, const BaseCommand& command) {
    std::string line = "conn " + std::to_string(connection) + " " + describeCommand(command);
    std::optional<Key> key;
    if (auto rid = wire::requestIdOfRequest(command)) key = Key{connection, 0, *rid, 0};
    else if (command.type() == T::SEND) key = Key{connection, 1, command.send().producer_id(), command.send().sequence_id()};
    else if (command.type() == T::CONNECT) key = Key{connection, 2, 0, 0};
    else if (command.type() == T::PING) key = Key{connection, 3, 0, 0};
    if (!key) {
        write(line + " -> (no answer)");
        return;
    }
    auto& count = pendingCount_[connection];
    if (count >= kPendingPerConnection) {
        write(line + " -> (answer not traced: " + std::to_string(kPendingPerConnection) + " requests pending)");
        return;
    }
    if (pending_.insert_or_assign(*key, std::move(line)).second) ++count;
}

void TraceLog::sent(std::uint64_t connection, const BaseCommand& command, const Trace* trace) {
    std::optional<Key> key;
    if (command.type() == T::SEND_RECEIPT)
        key = Key{connection, 1, command.send_receipt().producer_id(), command.send_receipt().sequence_id()};
    else if (command.type() == T::SEND_ERROR)
        key = Key{connection, 1, command.send_error().producer_id(), command.send_error().sequence_id()};
    else if (command.type() == T::CONNECTED) key = Key{connection, 2, 0, 0};
    else if (command.type() == T::PONG) key = Key{connection, 3, 0, 0};
    else if (auto rid = wire::requestIdOf(command)) key = Key{connection, 0, *rid, 0};
    auto it = key ? pending_.find(*key) : pending_.end();
    if (it == pending_.end() && command.type() == T::ERROR &&
        command.error().request_id() == std::numeric_limits<std::uint64_t>::max())
        it = pending_.find(Key{connection, 2, 0, 0});  // a refused CONNECT
    if (it == pending_.end()) {
        write("conn " + std::to_string(connection) + " <- " + describeCommand(command), trace);
        return;
    }
    write(it->second + " -> " + describeCommand(command), trace);
    pending_.erase(it);
    --pendingCount_[connection];
}

void TraceLog::fault(std::uint64_t connection, const BaseCommand& command, const std::string& what) {
    write("conn " + std::to_string(connection) + " fault on " + describeCommand(command) + ": " + what);
}

void TraceLog::event(const std::string& text) { write("broker " + text); }

}  // namespace cnx::serve
