#pragma once
// A client certificate the TLS handshake of `cnxsim serve` verified (or
// accepted, with tlsAllowInsecureConnection): its subject's common name is
// the role AuthenticationProviderTls gives the client. The same struct as
// broker_model/auth/authentication.h's (part B of issue 44); the integrator
// keeps one of them.

#include <string>

namespace cnx::auth {

struct PeerCertificate {
    bool present = false;
    std::string commonName;
};

}  // namespace cnx::auth
