#pragma once
// The client connections a broker holds. The broker reaches its clients only
// through this registry: a topic unload, a forced topic deletion and a broker
// shutdown close the producers and consumers concerned *through the broker*,
// which sends the CLOSE_PRODUCER / CLOSE_CONSUMER frames a real broker sends
// (`Producer.disconnect`, `Consumer.disconnect`), and a shutdown then drops
// the connections themselves.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "broker_model/broker/message_log.h"
#include "broker_model/core/topic_name.h"

namespace cnx {

/// What the broker asks of one client connection (protocol/server_cnx.h implements it).
class BrokerConnection {
public:
    virtual ~BrokerConnection() = default;
    virtual std::uint64_t id() const = 0;
    /// The client_version its CONNECT gave (topic stats' clientVersion).
    virtual const std::string& clientVersion() const = 0;
    /// Closes this connection's producers and consumers on `base` and its
    /// partitions, telling the client with CLOSE_PRODUCER / CLOSE_CONSUMER.
    virtual void closeTopic(const TopicName& base) = 0;
    /// Closes this connection's producers on `topic` (that topic only) the same way.
    virtual void closeProducers(const TopicName& topic) = 0;
    /// Closes every producer and consumer of the connection the same way.
    virtual void closeAll() = 0;
    /// Closes one consumer the same way (a SEEK on its subscription).
    virtual void closeConsumer(std::uint64_t consumerId) = 0;
    /// Closes one producer the same way (fenced by an ExclusiveWithFencing producer).
    virtual void closeProducer(std::uint64_t producerId) = 0;
    /// Drops the connection (the TCP connection closes).
    virtual void disconnect() = 0;
    /// The broker is being destroyed: the connection closes without reaching
    /// it again (it may outlive the broker) and without telling the client.
    virtual void brokerGone() = 0;
    /// Sends MESSAGE with `entry` to consumer `consumerId` of this connection;
    /// `ackSet`, when not empty, the batch's messages still unacknowledged
    /// (CommandMessage.ack_set).
    virtual void deliver(std::uint64_t consumerId, const Entry& entry, std::uint32_t redeliveryCount,
                         const std::vector<std::int64_t>& ackSet) = 0;
    /// ACTIVE_CONSUMER_CHANGE to consumer `consumerId` (Consumer.notifyActiveConsumerChange).
    virtual void activeConsumerChange(std::uint64_t consumerId, bool isActive) = 0;
    /// Whether the connection takes more MESSAGE frames now: the broker's
    /// Consumer.isWritable() is its ServerCnx's channel writability, and a
    /// dispatcher does not read a batch of entries for a consumer whose
    /// connection is not writable (PersistentDispatcherSingleActiveConsumer /
    /// PersistentDispatcherMultipleConsumers.calculateToRead). Dispatch to the
    /// connection pauses until it is writable again (issue 41 item 15).
    virtual bool isWritable() const = 0;
};

class ConnectionRegistry {
public:
    void add(BrokerConnection& connection) { connections_[connection.id()] = &connection; }
    void remove(std::uint64_t id) { connections_.erase(id); }
    std::size_t size() const { return connections_.size(); }
    /// The connection `id`, or nullptr when it has closed.
    BrokerConnection* find(std::uint64_t id) const {
        auto it = connections_.find(id);
        return it == connections_.end() ? nullptr : it->second;
    }

    /// The registered connections, oldest first, as a snapshot: a connection
    /// may deregister itself while the caller walks the list.
    std::vector<BrokerConnection*> snapshot() const {
        std::vector<BrokerConnection*> out;
        out.reserve(connections_.size());
        for (const auto& [_, c] : connections_) out.push_back(c);
        return out;
    }

private:
    std::map<std::uint64_t, BrokerConnection*> connections_;  // by id: ids grow, so oldest first
};

}  // namespace cnx
