#pragma once
// One modelled client connection: the client side of the wire. It frames the
// commands a step produces, hands them to the broker's ServerCnx and keeps
// what the broker sends back until the runner asks for it.

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/container/flat_map.hpp>

#include "broker_model/protocol/server_cnx.h"
#include "broker_model/wire/command_pool.h"
#include "broker_model/wire/frame_pool.h"
#include "proto/PulsarApi.pb.h"
#include "sim/clients/client_library.h"

namespace cnx::sim {

/// What the broker sent, as a session's inbox keeps it and hands it over
/// whole, never copied or moved member by member (a BaseCommand is 528 bytes,
/// and each construction, swap and destruction costs hundreds of instructions
/// on every step): the broker's own command when its frame would decode to
/// nothing else (wire::decodesToItself), or else the frame decoded. Reads as the command.
class Received {
public:
    Received() = default;
    explicit Received(wire::PooledFrame frame) : frame_(std::move(frame)) {}
    explicit Received(wire::PooledCommand command) : command_(std::move(command)) {}
    explicit operator bool() const { return frame_ != nullptr || (command_ && command_->get() != nullptr); }
    const pulsar::proto::BaseCommand& operator*() const { return frame_ ? frame_->command : **command_; }
    const pulsar::proto::BaseCommand* operator->() const { return &**this; }

private:
    wire::PooledFrame frame_;
    std::optional<wire::PooledCommand> command_;
};

class ClientSession {
public:
    /// Connects to `broker` (CONNECT / CONNECTED). `broker` must outlive the session.
    ClientSession(Broker& broker, ClientModel model);

    const ClientModel& model() const { return model_; }
    int negotiatedProtocol() const { return negotiated_; }
    ServerCnx& cnx() { return *cnx_; }

    /// Sends `command` as its frame would go: handed to ServerCnx::receive,
    /// which decodes the frame only where it would not give the command back.
    /// A refusal of the frame (the connection closes) is returned as text.
    std::optional<std::string> send(const pulsar::proto::BaseCommand& command);
    /// Sends a SEND payload command with minimal MessageMetadata.
    std::optional<std::string> sendMessage(std::uint64_t producerId, std::uint64_t sequenceId,
                                           const std::string& producerName, const std::string& schemaVersion);

    /// Takes the response to `requestId` (PRODUCER_SUCCESS, SUCCESS, ERROR,
    /// GET_SCHEMA_RESPONSE, GET_OR_CREATE_SCHEMA_RESPONSE), if it arrived.
    Received takeResponse(std::uint64_t requestId);
    /// What the broker closed on this connection: a CLOSE_PRODUCER or
    /// CLOSE_CONSUMER frame (the client reconnects that producer or consumer,
    /// as real clients do), or the whole connection.
    struct BrokerClose {
        bool producer = true;
        std::uint64_t id = 0;  // producer or consumer id
    };
    /// Takes the CLOSE_PRODUCER / CLOSE_CONSUMER frames received so far, in order.
    std::vector<BrokerClose> takeBrokerCloses();
    /// The broker dropped the connection.
    bool disconnected() const { return cnx_->closed(); }

    /// Takes the SEND_RECEIPT / SEND_ERROR of (producer, sequence), if it arrived.
    Received takeReceipt(std::uint64_t producerId, std::uint64_t sequenceId);

    /// Requests that did not get exactly one answer so far, one line each
    /// ("request 3 (PRODUCER): 0 answers"); receipts of SEND count as answers.
    std::vector<std::string> unanswered() const;

    std::uint64_t nextRequestId() { return ++lastRequestId_; }
    std::uint64_t nextProducerId() { return ++lastProducerId_; }
    std::uint64_t nextConsumerId() { return ++lastConsumerId_; }

private:
    /// What the broker sends arrives here: counted as an answer, and kept when a step may take it.
    void arrived(wire::PooledCommand command, std::string_view frame);

    ClientModel model_;
    // Kept as they arrived until taken; answers are mostly taken oldest first,
    // which a deque does without moving the rest (issue 40 item 19).
    std::deque<Received> inbox_;
    std::vector<BrokerClose> closes_;
    // every-request-answered: request id -> (command name, answers so far); SENDs by (producer, sequence)
    // Sorted vectors (flat_map), not a node a request: ids are handed out in
    // ascending order, so an insertion lands at the end.
    boost::container::flat_map<std::uint64_t, std::pair<pulsar::proto::BaseCommand::Type, int>> asked_;  // request -> its type, answers
    boost::container::flat_map<std::pair<std::uint64_t, std::uint64_t>, int> sent_;
    // sendMessage's metadata, cleared and filled again for each message: a
    // MessageMetadata (some forty fields) costs more to build and destroy than to clear.
    pulsar::proto::MessageMetadata sendMetadata_;
    std::unique_ptr<ServerCnx> cnx_;
    int negotiated_ = 0;
    std::uint64_t lastRequestId_ = 0;
    std::uint64_t lastProducerId_ = 0;
    std::uint64_t lastConsumerId_ = 0;
};

}  // namespace cnx::sim
