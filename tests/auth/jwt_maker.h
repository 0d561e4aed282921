#pragma once
// Test tokens and keys made in-test with OpenSSL (issue 44): HS*, RS*, PS* and
// ES* JWTs signed as RFC 7515 says, so the provider's verification is checked
// against an independent signer, never against itself.

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include <memory>
#include <stdexcept>
#include <string>

namespace cnx::testing {

inline std::string b64(std::string_view in, bool url) {
    static const char* kStd = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    static const char* kUrl = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const char* t = url ? kUrl : kStd;
    std::string out;
    std::size_t i = 0;
    for (; i + 2 < in.size(); i += 3) {
        unsigned v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8) |
                     static_cast<unsigned char>(in[i + 2]);
        out += t[(v >> 18) & 63];
        out += t[(v >> 12) & 63];
        out += t[(v >> 6) & 63];
        out += t[v & 63];
    }
    if (i + 1 == in.size()) {
        unsigned v = static_cast<unsigned char>(in[i]) << 16;
        out += t[(v >> 18) & 63];
        out += t[(v >> 12) & 63];
        if (!url) out += "==";
    } else if (i + 2 == in.size()) {
        unsigned v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8);
        out += t[(v >> 18) & 63];
        out += t[(v >> 12) & 63];
        out += t[(v >> 6) & 63];
        if (!url) out += "=";
    }
    return out;
}

struct KeyPair {
    std::shared_ptr<EVP_PKEY> key;
    /// The public half as Pulsar's tokenPublicKey takes it: DER SubjectPublicKeyInfo.
    std::string publicDer() const {
        unsigned char* out = nullptr;
        int len = i2d_PUBKEY(key.get(), &out);
        std::string der(reinterpret_cast<char*>(out), static_cast<std::size_t>(len));
        OPENSSL_free(out);
        return der;
    }
};

inline KeyPair rsaKey() { return {std::shared_ptr<EVP_PKEY>(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", size_t{2048}), EVP_PKEY_free)}; }
inline KeyPair ecKey(const char* curve) { return {std::shared_ptr<EVP_PKEY>(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", curve), EVP_PKEY_free)}; }

inline const EVP_MD* mdOf(std::string_view alg) {
    auto bits = alg.substr(2);
    return bits == "256" ? EVP_sha256() : bits == "384" ? EVP_sha384() : EVP_sha512();
}

/// `header.claims.signature` signed with `alg`: HS* with `secret`, others with `pair`.
inline std::string makeJwt(const std::string& alg, const std::string& claimsJson, const std::string& secret,
                           const KeyPair* pair = nullptr, const std::string& headerJson = "") {
    std::string header = headerJson.empty() ? "{\"alg\":\"" + alg + "\",\"typ\":\"JWT\"}" : headerJson;
    std::string input = b64(header, true) + "." + b64(claimsJson, true);
    std::string sig;
    if (alg.rfind("HS", 0) == 0) {
        unsigned char mac[EVP_MAX_MD_SIZE];
        unsigned int len = 0;
        HMAC(mdOf(alg), secret.data(), static_cast<int>(secret.size()), reinterpret_cast<const unsigned char*>(input.data()),
             input.size(), mac, &len);
        sig.assign(reinterpret_cast<char*>(mac), len);
    } else if (alg != "none") {
        EVP_MD_CTX* ctx = EVP_MD_CTX_new();
        EVP_PKEY_CTX* pctx = nullptr;
        EVP_DigestSignInit(ctx, &pctx, mdOf(alg), nullptr, pair->key.get());
        if (alg.rfind("PS", 0) == 0) {
            EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING);
            EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST);
        }
        std::size_t len = 0;
        EVP_DigestSign(ctx, nullptr, &len, reinterpret_cast<const unsigned char*>(input.data()), input.size());
        std::string der(len, '\0');
        EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(der.data()), &len,
                       reinterpret_cast<const unsigned char*>(input.data()), input.size());
        der.resize(len);
        EVP_MD_CTX_free(ctx);
        if (alg.rfind("ES", 0) == 0) {  // DER -> R || S (RFC 7518 §3.4)
            std::size_t half = alg == "ES256" ? 32 : alg == "ES384" ? 48 : 66;
            const auto* p = reinterpret_cast<const unsigned char*>(der.data());
            ECDSA_SIG* es = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der.size()));
            std::string raw(2 * half, '\0');
            BN_bn2binpad(ECDSA_SIG_get0_r(es), reinterpret_cast<unsigned char*>(raw.data()), static_cast<int>(half));
            BN_bn2binpad(ECDSA_SIG_get0_s(es), reinterpret_cast<unsigned char*>(raw.data()) + half, static_cast<int>(half));
            ECDSA_SIG_free(es);
            sig = raw;
        } else {
            sig = der;
        }
    }
    return input + "." + b64(sig, true);
}

}  // namespace cnx::testing
