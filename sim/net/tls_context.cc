#include "sim/net/tls_context.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "sim/io/file_read.h"

namespace cnx::serve {
namespace {

namespace ssl = boost::asio::ssl;

constexpr sim::FileKind kPemFile{"TLS certificate and key files", std::uintmax_t{1} << 20};

/// The file's text, or `key: path: reason`.
std::variant<std::string, std::string> readPem(std::string_view key, const std::string& path) {
    auto read = sim::readFileBounded(path, kPemFile);
    if (auto* e = std::get_if<sim::FileReadError>(&read))
        return std::variant<std::string, std::string>(std::in_place_index<1>, std::string(key) + ": " + e->message());
    return std::variant<std::string, std::string>(std::in_place_index<0>, std::move(std::get<std::string>(read)));
}

std::string why(const boost::system::error_code& ec) {
    ERR_clear_error();
    return ec.message();
}

}  // namespace

std::variant<std::shared_ptr<ssl::context>, std::string> makeServerTlsContext(const TlsSettings& s) {
    using Result = std::variant<std::shared_ptr<ssl::context>, std::string>;
    if (s.tlsCertificateFilePath.empty())
        return "tlsCertificateFilePath: a TLS port is asked for (brokerServicePortTls, webServicePortTls, --tls-port or "
               "--admin-tls-port) but no certificate is given";
    if (s.tlsKeyFilePath.empty())
        return "tlsKeyFilePath: a TLS port is asked for but no private key is given";
    auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
    // Pulsar's default protocols are TLSv1.3 and TLSv1.2 (DefaultPulsarSslFactory).
    ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 |
                     ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 | ssl::context::single_dh_use);
    // An encrypted key is refused, never asked for on a terminal.
    ctx->set_password_callback([](std::size_t, ssl::context::password_purpose) { return std::string(); });
    boost::system::error_code ec;

    auto cert = readPem("tlsCertificateFilePath", s.tlsCertificateFilePath);
    if (cert.index() == 1) return Result(std::in_place_index<1>, std::get<1>(cert));
    if (std::get<0>(cert).find("-----BEGIN CERTIFICATE-----") == std::string::npos)
        return "tlsCertificateFilePath: " + s.tlsCertificateFilePath + ": not a PEM certificate (no BEGIN CERTIFICATE)";
    auto key = readPem("tlsKeyFilePath", s.tlsKeyFilePath);
    if (key.index() == 1) return Result(std::in_place_index<1>, std::get<1>(key));
    if (std::get<0>(key).find("PRIVATE KEY-----") == std::string::npos)
        return "tlsKeyFilePath: " + s.tlsKeyFilePath + ": not a PEM private key (no BEGIN PRIVATE KEY)";
    // The key first: a certificate that does not match it then drops it (no
    // error), and the check below names the mismatch.
    ctx->use_private_key(boost::asio::buffer(std::get<0>(key)), ssl::context::pem, ec);
    if (ec)
        return "tlsKeyFilePath: " + s.tlsKeyFilePath + ": not a usable PEM private key, PKCS#8 or traditional, unencrypted (" +
               why(ec) + ")";
    ctx->use_certificate_chain(boost::asio::buffer(std::get<0>(cert)), ec);
    if (ec) return "tlsCertificateFilePath: " + s.tlsCertificateFilePath + ": not a usable PEM certificate (" + why(ec) + ")";
    if (SSL_CTX_check_private_key(ctx->native_handle()) != 1) {
        ERR_clear_error();
        return "tlsKeyFilePath: " + s.tlsKeyFilePath + ": the key does not match the certificate of tlsCertificateFilePath (" +
               s.tlsCertificateFilePath + ")";
    }

    if (!s.tlsTrustCertsFilePath.empty()) {
        auto trust = readPem("tlsTrustCertsFilePath", s.tlsTrustCertsFilePath);
        if (trust.index() == 1) return Result(std::in_place_index<1>, std::get<1>(trust));
        if (std::get<0>(trust).find("-----BEGIN CERTIFICATE-----") == std::string::npos)
            return "tlsTrustCertsFilePath: " + s.tlsTrustCertsFilePath + ": not a PEM certificate (no BEGIN CERTIFICATE)";
        ctx->add_certificate_authority(boost::asio::buffer(std::get<0>(trust)), ec);
        if (ec) return "tlsTrustCertsFilePath: " + s.tlsTrustCertsFilePath + ": not usable PEM certificates (" + why(ec) + ")";
        // The CAs named in the CertificateRequest, so a client picks a certificate they signed.
        if (STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(s.tlsTrustCertsFilePath.c_str()))
            SSL_CTX_set_client_CA_list(ctx->native_handle(), names);
        ERR_clear_error();
    } else if (!s.tlsAllowInsecureConnection) {
        ctx->set_default_verify_paths(ec);  // Pulsar: the JDK's default trust store
        ERR_clear_error();
    }
    // ClientAuth.REQUIRE with tlsRequireTrustedClientCertOnConnect, else
    // OPTIONAL: a certificate is asked for, and one presented must verify.
    ssl::verify_mode mode = ssl::verify_peer | ssl::verify_client_once;
    if (s.tlsRequireTrustedClientCertOnConnect) mode |= ssl::verify_fail_if_no_peer_cert;
    ctx->set_verify_mode(mode);
    if (s.tlsAllowInsecureConnection)  // InsecureTrustManagerFactory: any certificate is trusted
        ctx->set_verify_callback([](bool, ssl::verify_context&) { return true; });
    static const unsigned char kSessionContext[] = "cnxsim-serve";
    SSL_CTX_set_session_id_context(ctx->native_handle(), kSessionContext, sizeof kSessionContext - 1);
    return ctx;
}

auth::PeerCertificate peerCertificateOf(SSL* ssl) {
    auth::PeerCertificate out;
    X509* cert = ssl ? SSL_get0_peer_certificate(ssl) : nullptr;
    if (!cert) return out;
    // The handshake finished: the certificate verified (or any was accepted).
    out.present = true;
    X509_NAME* subject = X509_get_subject_name(cert);
    int at = subject ? X509_NAME_get_index_by_NID(subject, NID_commonName, -1) : -1;
    if (at < 0) return out;
    ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, at));
    unsigned char* utf8 = nullptr;
    int n = data ? ASN1_STRING_to_UTF8(&utf8, data) : -1;
    if (n >= 0 && utf8) out.commonName.assign(reinterpret_cast<const char*>(utf8), static_cast<std::size_t>(n));
    OPENSSL_free(utf8);
    return out;
}

}  // namespace cnx::serve
