#pragma once
// A client certificate the TLS handshake of `cnxsim serve` verified (or
// accepted, with tlsAllowInsecureConnection): its subject's common name is
// the role AuthenticationProviderTls gives the client (authentication.h). Its
// own header, so the transport needs no more of broker_model/auth.

#include <string>

namespace cnx::auth {

struct PeerCertificate {
    bool present = false;
    std::string commonName;
};

}  // namespace cnx::auth
