#pragma once
// The OpenSSL context of serve's TLS listeners (tls_settings.h), as Pulsar's
// broker builds its SslContext (SecurityUtility.createNettySslContextForServer,
// DefaultPulsarSslFactory.createSSLEngine): the certificate chain and key from
// PEM files (the key PKCS#8 or traditional), TLS 1.2 and 1.3 only; a client
// certificate is asked for always, required only with
// tlsRequireTrustedClientCertOnConnect, and a presented one is verified
// against tlsTrustCertsFilePath (the system's CAs when none is given) unless
// tlsAllowInsecureConnection accepts any.

#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <memory>
#include <string>
#include <variant>

#include "broker_model/auth/peer_certificate.h"
#include "sim/scenario/tls_settings.h"

namespace cnx::serve {

/// The context, or the error text naming the setting that cannot be used
/// (a missing or unreadable file, not PEM, a key that does not match the certificate).
std::variant<std::shared_ptr<boost::asio::ssl::context>, std::string> makeServerTlsContext(const TlsSettings& settings);

/// The client certificate a finished handshake accepted, if any.
auth::PeerCertificate peerCertificateOf(SSL* ssl);

}  // namespace cnx::serve
