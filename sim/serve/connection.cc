#include "sim/serve/connection.h"

#include <boost/asio/post.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/write.hpp>
#include <algorithm>
#include <vector>
#include <spdlog/spdlog.h>

#include "broker_model/profile/protocol.h"
#include "broker_model/wire/commands.h"
#include "broker_model/wire/frame.h"
#include "sim/net/tls_context.h"
#include "sim/serve/trace_log.h"

namespace cnx::serve {

namespace asio = boost::asio;
using pulsar::proto::BaseCommand;

namespace {

// The broker's channel stops being writable past Netty's high-water mark of
// bytes not yet written and becomes writable again below the low one; its
// dispatchers then read no batch for that consumer (Consumer.isWritable,
// PersistentDispatcherSingleActiveConsumer.calculateToRead). The marks here: a
// quarter of --max-queued-bytes (at most 1 MiB) and half of that, so a peer
// that reads is paused long before the hard bound closes one that does not.
std::size_t highWater(std::size_t maxQueued) { return std::min<std::size_t>(maxQueued / 4, 1024 * 1024); }
std::size_t lowWater(std::size_t maxQueued) { return highWater(maxQueued) / 2; }

}  // namespace

Connection::Connection(Server& server, asio::ip::tcp::socket socket, asio::ssl::context* tls)
    : server_(server), keepAlive_(server.io_), handshakeTimer_(server.io_), heldTimer_(server.io_) {
    if (tls) tls_.emplace(std::move(socket), *tls);
    else plain_.emplace(std::move(socket));
    established_ = !tls_;
    boost::system::error_code ec;
    auto ep = this->socket().remote_endpoint(ec);
    peer_ = ec ? std::string("?") : ep.address().to_string() + ":" + std::to_string(ep.port());
    this->socket().set_option(asio::ip::tcp::no_delay(true), ec);  // answers are small and awaited
}

std::uint64_t Connection::start() {
    // The decoder's bound follows the broker's maxMessageSize (issue 41 item 5).
    stream_ = wire::FrameStream(wire::frameLimit(server_.broker_.policies().broker.maxMessageSize));
    cnx_ = std::make_unique<ServerCnx>(server_.broker_, [this](std::string frame) { queue(std::move(frame)); });
    id_ = cnx_->id();
    // The broker may drop the connection from inside the model: close once it has returned.
    cnx_->setOnDropped([this] {
        asio::post(server_.io_, [self = shared_from_this()] { self->closeAfterFlush("dropped by the broker"); });
    });
    if (auto* trace = server_.tap()) {
        cnx_->setObserver([this, trace](const BaseCommand& command) {
            auto rid = wire::requestIdOf(command);
            trace->sent(id_, command, rid ? cnx_->trace(*rid).get() : nullptr);
        });
        trace->opened(id_, peer_);
    }
    spdlog::info("connection {} from {}{}", id_, peer_, tls_ ? " (TLS)" : "");
    if (tls_) handshake();
    else read();
    armKeepAlive();
    return id_;
}

void Connection::handshake() {
    // A peer that opens the connection and never finishes the handshake (or
    // trickles it) is closed at the bound, whatever it sends.
    handshakeTimer_.expires_after(server_.options_.handshakeTimeout);
    handshakeTimer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
        if (ec || self->closed_ || self->established_) return;
        self->close("the TLS handshake did not finish within " +
                    std::to_string(self->server_.options_.handshakeTimeout.count()) + " ms");
    });
    tls_->async_handshake(asio::ssl::stream_base::server, [self = shared_from_this()](boost::system::error_code ec) {
        self->onHandshake(ec);
    });
}

void Connection::onHandshake(const boost::system::error_code& ec) {
    if (closed_) return;
    handshakeTimer_.cancel();
    if (ec) {
        // Plain bytes on the TLS port, an untrusted or missing client certificate, ...
        close("TLS handshake: " + ec.message());
        return;
    }
    established_ = true;
    heard_ = true;
    peerCertificate_ = peerCertificateOf(tls_->native_handle());
    if (peerCertificate_.present) spdlog::info("connection {}: client certificate CN={}", id_, peerCertificate_.commonName);
    cnx_->setPeerCertificate(peerCertificate_);
    if (!writeQueue_.empty() && !writing_) write();
    read();
}

void Connection::close(const std::string& reason) {
    if (closed_) return;
    closed_ = true;
    spdlog::info("connection {} ({}) closed: {}", id_, peer_, reason);
    if (auto* tap = server_.tap()) tap->closed(id_, reason);
    if (cnx_) {
        cnx_->close();
        cnx_.reset();
    }
    boost::system::error_code ec;
    socket().shutdown(asio::ip::tcp::socket::shutdown_both, ec);
    socket().close(ec);
    keepAlive_.cancel();
    handshakeTimer_.cancel();
    heldTimer_.cancel();
    held_.clear();
    writeQueue_.clear();
    queuedBytes_ = 0;
    server_.incompleteBytes_ -= incompleteAccounted_;
    incompleteAccounted_ = 0;
    stream_ = wire::FrameStream();  // an incomplete frame's memory goes now
    // Handlers still queued hold their own reference; this may be the last one otherwise.
    auto self = shared_from_this();
    server_.forget(id_);
}

void Connection::closeAfterFlush(const std::string& reason) {
    if (closed_ || draining_) return;
    draining_ = true;
    drainReason_ = reason;
    held_.clear();
    heldTimer_.cancel();
    if (!writing_) close(reason);
}

void Connection::read() {
    withStream([this](auto& stream) {
        stream.async_read_some(asio::buffer(readBuffer_), [self = shared_from_this()](boost::system::error_code ec,
                                                                                       std::size_t bytes) {
            if (self->closed_ || self->draining_) return;
            if (ec) {
                bool gone = ec == asio::error::eof || ec == asio::ssl::error::stream_truncated;
                self->close(gone ? "the peer closed the connection" : "read: " + ec.message());
                return;
            }
            self->onRead(bytes);
        });
    });
}

void Connection::onRead(std::size_t bytes) {
    heard_ = true;
    stream_.feed(std::string_view(readBuffer_.data(), bytes));
    if (!accountIncomplete()) return;
    // Frames decoded before a stream error are still handled, in order.
    while (auto frame = stream_.next()) {
        if (!handle(std::move(*frame))) return;
    }
    if (stream_.failed()) {
        close(stream_.error());
        return;
    }
    read();
}

bool Connection::accountIncomplete() {
    auto now = closed_ ? 0 : stream_.reserved();
    server_.incompleteBytes_ = server_.incompleteBytes_ - incompleteAccounted_ + now;
    bool grew = now > incompleteAccounted_;
    incompleteAccounted_ = now;
    if (!grew || server_.incompleteBytes_ <= server_.options_.maxIncompleteBytes) return true;
    close("over " + std::to_string(server_.options_.maxIncompleteBytes) +
          " bytes held for incomplete frames by all connections (--max-incomplete-bytes)");
    return false;
}

bool Connection::handle(wire::Frame frame) {
    if (auto* tap = server_.tap()) tap->received(id_, frame.command);
    if (auto fault = server_.faults_.take(frame.command.type())) {
        if (fault->delay.count() > 0) {
            hold(std::move(frame), std::move(*fault));
            return !(closed_ || closing_ || draining_);
        }
        return apply(std::move(frame), *fault);
    }
    return toBroker(frame);
}

bool Connection::apply(wire::Frame frame, const Fault& fault) {
    auto* trace = server_.tap();
    if (fault.drop) {
        if (trace) trace->fault(id_, frame.command, "dropped (" + fault.text + ")");
        return true;
    }
    if (!fault.error) return toBroker(frame);  // a delay only: the broker handles it now
    auto answer = wire::errorAnswerTo(frame.command, *fault.error, fault.message);
    if (!answer) {  // an ACK without request id: nothing to fail, so it is lost
        if (trace) trace->fault(id_, frame.command, "dropped, it has no answer to fail (" + fault.text + ")");
        return true;
    }
    if (trace) trace->sent(id_, *answer, nullptr);
    queue(wire::encodeFrame(*answer));
    if (frame.command.type() == BaseCommand::CONNECT) {  // a refused handshake ends the connection
        closeAfterFlush("CONNECT refused by fault " + fault.text);
        return false;
    }
    return !(closed_ || closing_ || draining_);
}

bool Connection::toBroker(const wire::Frame& frame) {
    if (!cnx_) return false;
    if (auto refused = cnx_->receive(frame)) {
        close(*refused);
        return false;
    }
    return !(closed_ || closing_ || draining_);
}

void Connection::hold(wire::Frame frame, Fault fault) {
    if (auto* tap = server_.tap())
        tap->fault(id_, frame.command, "delayed " + std::to_string(fault.delay.count()) + " ms (" + fault.text + ")");
    heldBytes_ += frame.payload.size() + static_cast<std::size_t>(frame.command.ByteSizeLong());
    if (heldBytes_ + queuedBytes_ > server_.options_.maxQueuedBytes) {
        closing_ = true;
        asio::post(server_.io_, [self = shared_from_this()] {
            self->close("over " + std::to_string(self->server_.options_.maxQueuedBytes) + " bytes of delayed commands held");
        });
        return;
    }
    auto due = Clock::now() + fault.delay;
    bool first = held_.empty() || due < held_.begin()->first.first;
    held_.emplace(std::pair(due, heldSeq_++), std::pair(std::move(frame), std::move(fault)));
    if (first) armHeld();
}

void Connection::armHeld() {
    if (held_.empty()) return;
    heldTimer_.expires_at(held_.begin()->first.first);
    heldTimer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
        if (ec || self->closed_ || self->draining_) return;
        self->onHeld();
    });
}

void Connection::onHeld() {
    auto now = Clock::now();
    while (!held_.empty() && held_.begin()->first.first <= now) {
        auto node = held_.extract(held_.begin());
        auto& [frame, fault] = node.mapped();
        heldBytes_ -= std::min(heldBytes_, frame.payload.size() + static_cast<std::size_t>(frame.command.ByteSizeLong()));
        Fault after = fault;
        after.delay = std::chrono::milliseconds(0);
        if (!apply(std::move(frame), after)) return;
    }
    armHeld();
}

void Connection::queue(std::string frame) {
    if (closed_ || closing_) return;
    queuedBytes_ += frame.size();
    if (queuedBytes_ > server_.options_.maxQueuedBytes) {
        // Called from inside the ServerCnx: the close runs once it has returned.
        closing_ = true;
        asio::post(server_.io_, [self = shared_from_this()] {
            self->close("the peer does not read: over " + std::to_string(self->server_.options_.maxQueuedBytes) +
                        " bytes queued");
        });
        return;
    }
    writeQueue_.push_back(std::move(frame));
    if (!paused_ && queuedBytes_ > highWater(server_.options_.maxQueuedBytes)) {
        paused_ = true;
        if (cnx_) cnx_->setWritable(false);  // a flag only: safe from inside the ServerCnx
    }
    if (!writing_ && established_) write();
}

void Connection::write() {
    // Everything queued goes out in one gathered write: a burst of receipts
    // costs one send(), not one per frame.
    writing_ = true;
    std::size_t frames = writeQueue_.size();
    std::vector<asio::const_buffer> buffers;
    buffers.reserve(frames);
    for (const auto& f : writeQueue_) buffers.emplace_back(asio::buffer(f));
    withStream([&](auto& stream) {
        asio::async_write(stream, buffers, [self = shared_from_this(), frames](boost::system::error_code ec, std::size_t) {
            if (self->closed_) return;
            if (ec) {
                self->close("write: " + ec.message());
                return;
            }
            for (std::size_t i = 0; i < frames; ++i) {
                self->queuedBytes_ -= self->writeQueue_.front().size();
                self->writeQueue_.pop_front();
            }
            self->writing_ = false;
            self->wrote_ = true;
            self->resumeIfDrained();  // may queue frames, and start writing them
            if (self->closed_ || self->writing_) return;
            if (!self->writeQueue_.empty()) self->write();
            else if (self->draining_) self->close(self->drainReason_);
        });
    });
}

void Connection::resumeIfDrained() {
    if (!paused_ || closing_ || queuedBytes_ > lowWater(server_.options_.maxQueuedBytes)) return;
    paused_ = false;
    if (cnx_) cnx_->setWritable(true);  // the topics dispatch what waited, into queue()
}

void Connection::armKeepAlive() {
    keepAlive_.expires_after(server_.options_.keepAlive);
    keepAlive_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
        if (ec || self->closed_) return;
        self->onKeepAlive();
    });
}

void Connection::onKeepAlive() {
    if (draining_) {  // a peer that does not read what is left: give up on it
        close(drainReason_ + " (unsent frames dropped)");
        return;
    }
    // Frames wait and none was written for two intervals: the peer stopped
    // reading (a peer that reads slowly makes progress and is only paused).
    if (writeQueue_.empty() || wrote_) stalledIntervals_ = 0;
    else if (++stalledIntervals_ >= 2) {
        close("the peer does not read: nothing written for two keep-alive intervals");
        return;
    }
    wrote_ = false;
    if (heard_) {
        heard_ = false;
        silentIntervals_ = 0;
    } else if (++silentIntervals_ >= 2) {
        close("silent for two keep-alive intervals");
        return;
    } else if (cnx_ && cnx_->protocolVersion() >= protocol::kKeepAlive) {
        // v1 added PING/PONG: an older (or not yet connected) peer is only timed out.
        if (auto* tap = server_.tap()) tap->sent(id_, wire::ping(), nullptr);
        queue(wire::encodeFrame(wire::ping()));
    }
    armKeepAlive();
}

}  // namespace cnx::serve
