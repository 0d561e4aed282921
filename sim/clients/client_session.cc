#include "sim/clients/client_session.h"

#include "broker_model/wire/command_pool.h"
#include "broker_model/wire/commands.h"
#include "broker_model/wire/frame.h"
#include "broker_model/wire/frame_pool.h"

namespace cnx::sim {

using pulsar::proto::BaseCommand;

ClientSession::ClientSession(Broker& broker, ClientModel model) : model_(std::move(model)) {
    asked_.reserve(16);  // a session's requests in a scenario: one allocation, not one at every growth
    cnx_ = std::make_unique<ServerCnx>(
        broker, ServerCnx::Receiver([this](wire::PooledCommand command, std::string_view frame) {
            arrived(std::move(command), frame);
        }));
    wire::PooledCommand connect;  // not a BaseCommand of its own: its destructor walks all ~60 fields per session
    connect->set_type(BaseCommand::CONNECT);
    connect->mutable_connect()->set_client_version(model_.clientVersion);
    connect->mutable_connect()->set_protocol_version(model_.protocolVersion);
    send(*connect);
    for (auto it = inbox_.begin(); it != inbox_.end(); ++it) {
        if ((*it)->type() == BaseCommand::CONNECTED) {
            negotiated_ = (*it)->connected().protocol_version();
            inbox_.erase(it);
            break;
        }
    }
}

void ClientSession::arrived(wire::PooledCommand command, std::string_view frame) {
    // No frame: decoding it would have given back the command and nothing
    // else (ServerCnx::Receiver), which is kept as it came. A frame (a MESSAGE
    // with its payload, one a decode refuses) is decoded, as a client reading
    // the socket decodes it, and dropped when that fails.
    Received received;
    if (frame.empty()) {
        received = Received(std::move(command));
    } else {
        std::string error;
        auto decoded = wire::decodePooledFrame(frame, &error);
        if (!decoded) return;
        received = Received(std::move(decoded));
    }
    const auto& c = *received;
    if (c.type() == BaseCommand::CLOSE_PRODUCER) {
        closes_.push_back({true, c.close_producer().producer_id()});
        return;
    }
    if (c.type() == BaseCommand::CLOSE_CONSUMER) {
        closes_.push_back({false, c.close_consumer().consumer_id()});
        return;
    }
    const auto rid = wire::requestIdOf(c);
    if (rid && c.type() != BaseCommand::CONNECTED) {
        if (auto it = asked_.find(*rid); it != asked_.end()) ++it->second.second;
    }
    const bool receipt = c.type() == BaseCommand::SEND_RECEIPT || c.type() == BaseCommand::SEND_ERROR;
    if (receipt) {
        auto key = c.type() == BaseCommand::SEND_RECEIPT
                       ? std::pair{c.send_receipt().producer_id(), c.send_receipt().sequence_id()}
                       : std::pair{c.send_error().producer_id(), c.send_error().sequence_id()};
        if (auto it = sent_.find(key); it != sent_.end()) ++it->second;
    }
    // Only CONNECTED, a response (by its request id) and a receipt are ever
    // taken. Anything else (a MESSAGE for a consumer, ...) would stay to the
    // end, and every later take would search past it.
    if (rid || receipt || c.type() == BaseCommand::CONNECTED) inbox_.push_back(std::move(received));
}

std::optional<std::string> ClientSession::send(const BaseCommand& command) {
    if (auto rid = wire::requestIdOfRequest(command)) asked_.emplace(*rid, std::pair{command.type(), 0});
    return cnx_->receive(command);
}

std::vector<std::string> ClientSession::unanswered() const {
    std::vector<std::string> out;
    for (const auto& [rid, what] : asked_) {
        if (what.second == 1 || (what.second == 0 && cnx_->closed())) continue;  // a dropped connection answers
        out.push_back("request " + std::to_string(rid) + " (" + BaseCommand::Type_Name(what.first) + "): " + std::to_string(what.second) +
                      " answers");
    }
    for (const auto& [key, n] : sent_) {
        if (n == 1 || (n == 0 && cnx_->closed())) continue;
        out.push_back("SEND of producer " + std::to_string(key.first) + " sequence " + std::to_string(key.second) +
                      ": " + std::to_string(n) + " receipts");
    }
    return out;
}

std::optional<std::string> ClientSession::sendMessage(std::uint64_t producerId, std::uint64_t sequenceId,
                                                      const std::string& producerName,
                                                      const std::string& schemaVersion) {
    wire::PooledCommand send;
    send->set_type(BaseCommand::SEND);
    send->mutable_send()->set_producer_id(producerId);
    send->mutable_send()->set_sequence_id(sequenceId);
    auto& meta = sendMetadata_;
    meta.Clear();
    meta.set_producer_name(producerName);
    meta.set_sequence_id(sequenceId);
    meta.set_publish_time(1);
    if (!schemaVersion.empty()) meta.set_schema_version(schemaVersion);
    sent_.emplace(std::pair{producerId, sequenceId}, 0);
    return cnx_->receive(*send, meta, "cnxsim-message");
}

Received ClientSession::takeResponse(std::uint64_t requestId) {
    for (auto it = inbox_.begin(); it != inbox_.end(); ++it) {
        if (wire::requestIdOf(**it) == requestId) {
            Received taken(std::move(*it));
            inbox_.erase(it);
            return taken;
        }
    }
    return {};
}

std::vector<ClientSession::BrokerClose> ClientSession::takeBrokerCloses() {
    std::vector<BrokerClose> out;
    out.swap(closes_);
    return out;
}

Received ClientSession::takeReceipt(std::uint64_t producerId, std::uint64_t sequenceId) {
    for (auto it = inbox_.begin(); it != inbox_.end(); ++it) {
        const BaseCommand& m = **it;
        bool receipt = m.type() == BaseCommand::SEND_RECEIPT && m.send_receipt().producer_id() == producerId &&
                       m.send_receipt().sequence_id() == sequenceId;
        bool error = m.type() == BaseCommand::SEND_ERROR && m.send_error().producer_id() == producerId &&
                     m.send_error().sequence_id() == sequenceId;
        if (receipt || error) {
            Received taken(std::move(*it));
            inbox_.erase(it);
            return taken;
        }
    }
    return {};
}

}  // namespace cnx::sim
