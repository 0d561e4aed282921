#include "sim/serve/server.h"

#include <spdlog/spdlog.h>

#include "sim/serve/connection.h"

namespace cnx::serve {

namespace asio = boost::asio;

Server::Server(asio::io_context& io, Broker& broker, ServerOptions options)
    : io_(io), broker_(broker), options_(options) {}

Server::~Server() { stop(); }

std::optional<std::string> Server::listen(const std::string& address, std::uint16_t port) {
    return open(address, port, nullptr);
}

std::optional<std::string> Server::listenTls(const std::string& address, std::uint16_t port,
                                             std::shared_ptr<asio::ssl::context> tls) {
    if (auto e = open(address, port, std::move(tls))) return *e + " (TLS)";
    return std::nullopt;
}

std::optional<std::string> Server::open(const std::string& address, std::uint16_t port,
                                        std::shared_ptr<asio::ssl::context> tls) {
    boost::system::error_code ec;
    auto ip = asio::ip::make_address(address, ec);
    if (ec) return "'" + address + "' is not an IP address";
    auto listener = std::make_unique<Listener>(io_);
    listener->tls = std::move(tls);
    auto& acceptor = listener->acceptor;
    asio::ip::tcp::endpoint endpoint(ip, port);
    acceptor.open(endpoint.protocol(), ec);
    if (!ec) acceptor.set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);
    if (!ec) acceptor.bind(endpoint, ec);
    if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
        acceptor.close();
        return "cannot listen on " + address + ":" + std::to_string(port) + ": " + ec.message();
    }
    listeners_.push_back(std::move(listener));
    accept(*listeners_.back());
    return std::nullopt;
}

std::uint16_t Server::portOf(bool tls) const {
    for (const auto& l : listeners_) {
        if (static_cast<bool>(l->tls) != tls) continue;
        boost::system::error_code ec;
        auto ep = l->acceptor.local_endpoint(ec);
        return ec ? 0 : ep.port();
    }
    return 0;
}

std::uint16_t Server::port() const { return portOf(false); }
std::uint16_t Server::tlsPort() const { return portOf(true); }

void Server::accept(Listener& listener) {
    listener.acceptor.async_accept([this, &listener](boost::system::error_code ec, asio::ip::tcp::socket socket) {
        if (stopped_) return;
        if (!ec) {
            auto connection = std::make_shared<Connection>(*this, std::move(socket), listener.tls.get());
            auto id = connection->start();
            connections_.emplace(id, std::move(connection));
            accept(listener);
            return;
        }
        // Out of file descriptors, say: try again shortly rather than spin.
        spdlog::warn("accept: {}; retrying in 100 ms", ec.message());
        listener.retry.expires_after(std::chrono::milliseconds(100));
        listener.retry.async_wait([this, &listener](boost::system::error_code e) {
            if (!e && !stopped_) accept(listener);
        });
    });
}

void Server::stop() {
    if (stopped_) return;
    stopped_ = true;
    for (auto& l : listeners_) {
        boost::system::error_code ec;
        l->acceptor.close(ec);
        l->retry.cancel();
    }
    // close() makes each connection leave connections_.
    while (!connections_.empty()) connections_.begin()->second->close("the server stops");
}

}  // namespace cnx::serve
