#include "sim/serve/connection.h"

#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <spdlog/spdlog.h>

#include "broker_model/wire/commands.h"
#include "broker_model/wire/frame.h"

namespace cnx::serve {

namespace asio = boost::asio;

Connection::Connection(Server& server, asio::ip::tcp::socket socket)
    : server_(server), socket_(std::move(socket)), keepAlive_(server.io_) {
    boost::system::error_code ec;
    auto ep = socket_.remote_endpoint(ec);
    peer_ = ec ? std::string("?") : ep.address().to_string() + ":" + std::to_string(ep.port());
}

std::uint64_t Connection::start() {
    cnx_ = std::make_unique<ServerCnx>(server_.broker_, [this](std::string frame) { queue(std::move(frame)); });
    id_ = cnx_->id();
    spdlog::info("connection {} from {}", id_, peer_);
    read();
    armKeepAlive();
    return id_;
}

void Connection::close(const std::string& reason) {
    if (closed_) return;
    closed_ = true;
    spdlog::info("connection {} ({}) closed: {}", id_, peer_, reason);
    if (cnx_) {
        cnx_->close();
        cnx_.reset();
    }
    boost::system::error_code ec;
    socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
    socket_.close(ec);
    keepAlive_.cancel();
    writeQueue_.clear();
    queuedBytes_ = 0;
    // Handlers still queued hold their own reference; this may be the last one otherwise.
    auto self = shared_from_this();
    server_.forget(id_);
}

void Connection::read() {
    socket_.async_read_some(asio::buffer(readBuffer_), [self = shared_from_this()](boost::system::error_code ec,
                                                                                    std::size_t bytes) {
        if (self->closed_) return;
        if (ec) {
            self->close(ec == asio::error::eof ? "the peer closed the connection" : "read: " + ec.message());
            return;
        }
        self->onRead(bytes);
    });
}

void Connection::onRead(std::size_t bytes) {
    heard_ = true;
    stream_.feed(std::string_view(readBuffer_.data(), bytes));
    // Frames decoded before a stream error are still handled, in order.
    while (auto frame = stream_.next()) {
        if (auto refused = cnx_->receive(*frame)) {
            close(*refused);
            return;
        }
        if (closed_ || closing_) return;
        if (cnx_->closed()) {  // the broker dropped the connection meanwhile
            close("closed by the broker");
            return;
        }
    }
    if (stream_.failed()) {
        close(stream_.error());
        return;
    }
    read();
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
    if (!writing_) write();
}

void Connection::write() {
    writing_ = true;
    asio::async_write(socket_, asio::buffer(writeQueue_.front()),
                      [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                          if (self->closed_) return;
                          if (ec) {
                              self->close("write: " + ec.message());
                              return;
                          }
                          self->queuedBytes_ -= self->writeQueue_.front().size();
                          self->writeQueue_.pop_front();
                          self->writing_ = false;
                          if (!self->writeQueue_.empty()) self->write();
                      });
}

void Connection::armKeepAlive() {
    keepAlive_.expires_after(server_.options_.keepAlive);
    keepAlive_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
        if (ec || self->closed_) return;
        self->onKeepAlive();
    });
}

void Connection::onKeepAlive() {
    if (cnx_->closed()) {
        close("closed by the broker");
        return;
    }
    if (heard_) {
        heard_ = false;
        silentIntervals_ = 0;
    } else if (++silentIntervals_ >= 2) {
        close("silent for two keep-alive intervals");
        return;
    } else {
        queue(wire::encodeFrame(wire::ping()));
    }
    armKeepAlive();
}

}  // namespace cnx::serve
