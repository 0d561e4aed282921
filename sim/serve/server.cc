#include "sim/serve/server.h"

#include <spdlog/spdlog.h>

#include "sim/serve/connection.h"

namespace cnx::serve {

namespace asio = boost::asio;

Server::Server(asio::io_context& io, Broker& broker, ServerOptions options)
    : io_(io), broker_(broker), options_(options), acceptor_(io), retry_(io) {}

Server::~Server() { stop(); }

std::optional<std::string> Server::listen(const std::string& address, std::uint16_t port) {
    boost::system::error_code ec;
    auto ip = asio::ip::make_address(address, ec);
    if (ec) return "'" + address + "' is not an IP address";
    asio::ip::tcp::endpoint endpoint(ip, port);
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
        acceptor_.close();
        return "cannot listen on " + address + ":" + std::to_string(port) + ": " + ec.message();
    }
    accept();
    return std::nullopt;
}

std::uint16_t Server::port() const {
    boost::system::error_code ec;
    auto ep = acceptor_.local_endpoint(ec);
    return ec ? 0 : ep.port();
}

void Server::accept() {
    acceptor_.async_accept([this](boost::system::error_code ec, asio::ip::tcp::socket socket) {
        if (stopped_) return;
        if (!ec) {
            auto connection = std::make_shared<Connection>(*this, std::move(socket));
            auto id = connection->start();
            connections_.emplace(id, std::move(connection));
            accept();
            return;
        }
        // Out of file descriptors, say: try again shortly rather than spin.
        spdlog::warn("accept: {}; retrying in 100 ms", ec.message());
        retry_.expires_after(std::chrono::milliseconds(100));
        retry_.async_wait([this](boost::system::error_code e) {
            if (!e && !stopped_) accept();
        });
    });
}

void Server::stop() {
    if (stopped_) return;
    stopped_ = true;
    boost::system::error_code ec;
    acceptor_.close(ec);
    retry_.cancel();
    // close() makes each connection leave connections_.
    while (!connections_.empty()) connections_.begin()->second->close("the server stops");
}

}  // namespace cnx::serve
