#include "broker_model/auth/authentication.h"

#include <crypt.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

namespace cnx::auth {

// The provider classes of broker.conf's authenticationProviders.
constexpr std::string_view kTokenClass = "org.apache.pulsar.broker.authentication.AuthenticationProviderToken";
constexpr std::string_view kBasicClass = "org.apache.pulsar.broker.authentication.AuthenticationProviderBasic";
constexpr std::string_view kTlsClass = "org.apache.pulsar.broker.authentication.AuthenticationProviderTls";

class Provider {
public:
    virtual ~Provider() = default;
    virtual std::string_view method() const = 0;
    /// The binary protocol's auth data.
    virtual AuthResult authenticate(std::string_view data, const PeerCertificate& peer, std::int64_t nowMs) const = 0;
    /// An HTTP request's credentials.
    virtual AuthResult authenticateHttp(const HttpCredentials& http, const PeerCertificate& peer,
                                        std::int64_t nowMs) const = 0;
};

namespace {

// --- encodings -------------------------------------------------------------------

std::optional<std::string> base64Decode(std::string_view in, bool url) {
    std::string out;
    out.reserve(in.size() * 3 / 4);
    std::uint32_t acc = 0;
    int bits = 0;
    std::size_t i = 0;
    for (; i < in.size(); ++i) {
        char c = in[i];
        int v;
        if (c >= 'A' && c <= 'Z') v = c - 'A';
        else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
        else if (c >= '0' && c <= '9') v = c - '0' + 52;
        else if (c == (url ? '-' : '+')) v = 62;
        else if (c == (url ? '_' : '/')) v = 63;
        else if (c == '=') break;
        else return std::nullopt;
        acc = (acc << 6) | static_cast<std::uint32_t>(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back(static_cast<char>((acc >> bits) & 0xff));
        }
    }
    for (; i < in.size(); ++i)
        if (in[i] != '=') return std::nullopt;
    if (bits >= 6) return std::nullopt;  // a lone sextet is no byte
    return out;
}

std::optional<std::string> readBoundedFile(const std::string& path, std::string& error) {
    constexpr std::uintmax_t kMax = 1u << 20;
    std::error_code ec;
    auto size = std::filesystem::file_size(path, ec);
    if (ec) {
        error = path + ": " + ec.message();
        return std::nullopt;
    }
    if (size > kMax) {
        error = path + ": larger than 1 MiB";
        return std::nullopt;
    }
    std::ifstream in(path, std::ios::binary);
    std::string text(size, '\0');
    if (!in || !in.read(text.data(), static_cast<std::streamsize>(size))) {
        error = path + ": cannot be read";
        return std::nullopt;
    }
    return text;
}

// AuthTokenUtils.readKeyFromUrl and AuthenticationProviderBasic.readData: a
// `data:` or `file:` URL, an existing file's path, or base64 of the bytes.
std::optional<std::string> readKeyOrData(std::string_view setting, const std::string& value, std::string& error) {
    auto fail = [&](std::string why) {
        error = std::string(setting) + ": " + why;
        return std::nullopt;
    };
    if (value.rfind("data:", 0) == 0) {
        // data:[<mediatype>][;base64],<data>: only base64 (URL's DataURLStreamHandler).
        auto comma = value.find(',');
        if (comma == std::string::npos) return fail("a data: URL needs a ',' before its data");
        std::string_view header(value.data(), comma);
        if (header.find(";base64") == std::string_view::npos) return fail("only base64 data: URLs are supported");
        auto bytes = base64Decode(std::string_view(value).substr(comma + 1), false);
        if (!bytes) return fail("the data: URL's data is not valid base64");
        return bytes;
    }
    std::string path;
    if (value.rfind("file:", 0) == 0) {
        path = value.substr(5);
        if (path.rfind("//", 0) == 0) path = path.substr(2);  // file:///abs -> /abs
        if (path.empty() || path.front() != '/') return fail("'" + value + "' is not a file:///absolute/path URL");
    } else {
        std::error_code ec;
        if (std::filesystem::exists(value, ec)) path = value;
    }
    if (!path.empty()) {
        std::string why;
        auto text = readBoundedFile(path, why);
        if (!text) return fail(why);
        return text;
    }
    if (!value.empty() && value.front() == '/')
        return fail("file " + value + " doesn't exist");
    auto bytes = base64Decode(value, false);
    if (!bytes) return fail("Secret/Public Key file " + value + " doesn't exist (nor is it base64)");
    return bytes;
}

// Depth of JSON nesting, outside strings; a cheap bound before parsing.
bool jsonDepthWithin(std::string_view text, int limit) {
    int depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (inString) {
            if (c == '\\') ++i;
            else if (c == '"') inString = false;
            continue;
        }
        if (c == '"') inString = true;
        else if (c == '{' || c == '[') {
            if (++depth > limit) return false;
        } else if (c == '}' || c == ']') {
            --depth;
        }
    }
    return true;
}

std::optional<nlohmann::json> parseJsonObject(std::string_view text) {
    if (!jsonDepthWithin(text, AuthenticationService::kMaxJsonDepth)) return std::nullopt;
    auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) return std::nullopt;
    return j;
}

// Java's String.split(":"): trailing empty strings are dropped; "" gives [""].
std::vector<std::string_view> javaSplit(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    std::size_t at = 0;
    while (true) {
        auto p = s.find(sep, at);
        out.push_back(s.substr(at, p == std::string_view::npos ? std::string_view::npos : p - at));
        if (p == std::string_view::npos) break;
        at = p + 1;
    }
    if (s.empty()) return out;
    while (!out.empty() && out.back().empty()) out.pop_back();
    return out;
}

struct EvpKeyFree {
    void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
using EvpKey = std::unique_ptr<EVP_PKEY, EvpKeyFree>;

// --- AuthenticationProviderToken --------------------------------------------------

const EVP_MD* digestOf(std::string_view alg) {
    auto bits = alg.substr(2);
    if (bits == "256") return EVP_sha256();
    if (bits == "384") return EVP_sha384();
    if (bits == "512") return EVP_sha512();
    return nullptr;
}

class TokenProvider final : public Provider {
public:
    static std::variant<std::unique_ptr<Provider>, std::string> create(const AuthSettings& s) {
        auto p = std::unique_ptr<TokenProvider>(new TokenProvider);
        p->roleClaim_ = s.tokenAuthClaim.empty() ? "sub" : s.tokenAuthClaim;
        p->skewMs_ = std::int64_t{s.tokenAllowedClockSkewSeconds} * 1000;
        p->audienceClaim_ = s.tokenAudienceClaim;
        p->audience_ = s.tokenAudience;
        // AuthenticationProviderToken.initialize: an audience claim needs this broker's audience.
        if (!p->audienceClaim_.empty() && p->audience_.empty())
            return "tokenAudienceClaim: Token Audience Claim [" + p->audienceClaim_ +
                   "] configured, but Audience stands for this broker not.";
        std::string error;
        if (!s.tokenSecretKey.empty()) {  // getValidationKey: the secret key wins
            auto key = readKeyOrData("tokenSecretKey", s.tokenSecretKey, error);
            if (!key) return error;
            // Keys.hmacShaKeyFor: a key under 256 bits is a WeakKeyException at start.
            if (key->size() < 32)
                return "tokenSecretKey: The specified key byte array is " + std::to_string(key->size() * 8) +
                       " bits which is not secure enough for any JWT HMAC-SHA algorithm (at least 256 bits)";
            p->secret_ = std::move(*key);
        } else if (!s.tokenPublicKey.empty()) {
            auto key = readKeyOrData("tokenPublicKey", s.tokenPublicKey, error);
            if (!key) return error;
            // AuthTokenUtils.decodePublicKey: X509EncodedKeySpec, a DER SubjectPublicKeyInfo.
            // PEM is accepted too (UNCONFIRMED convenience: Pulsar takes DER or its base64 only).
            const auto* der = reinterpret_cast<const unsigned char*>(key->data());
            EVP_PKEY* k = d2i_PUBKEY(nullptr, &der, static_cast<long>(key->size()));
            if (k == nullptr) {
                BIO* bio = BIO_new_mem_buf(key->data(), static_cast<int>(key->size()));
                k = PEM_read_bio_PUBKEY(bio, nullptr, nullptr, nullptr);
                BIO_free(bio);
            }
            if (k == nullptr) return std::string("tokenPublicKey: Failed to decode public key");
            p->publicKey_.reset(k);
            bool ec = s.tokenPublicAlg.rfind("ES", 0) == 0;
            int type = EVP_PKEY_get_base_id(k);
            if (type != (ec ? EVP_PKEY_EC : EVP_PKEY_RSA))
                return "tokenPublicKey: Failed to decode public key (not an " + std::string(ec ? "EC" : "RSA") +
                       " key, as tokenPublicAlg=" + s.tokenPublicAlg + " needs)";
            p->publicIsEc_ = ec;
        } else {
            return std::string("tokenSecretKey: AuthenticationProviderToken needs tokenSecretKey or tokenPublicKey");
        }
        return std::unique_ptr<Provider>(std::move(p));
    }

    std::string_view method() const override { return "token"; }

    AuthResult authenticate(std::string_view data, const PeerCertificate&, std::int64_t nowMs) const override {
        return authenticateToken(data, nowMs);
    }

    // AuthenticationProviderToken.getToken: `Authorization: Bearer <token>`.
    AuthResult authenticateHttp(const HttpCredentials& http, const PeerCertificate&, std::int64_t nowMs) const override {
        constexpr std::string_view kBearer = "Bearer ";
        if (!http.authorization || http.authorization->rfind(kBearer, 0) != 0)
            return AuthResult::failure("token", "Invalid HTTP Authorization header");
        return authenticateToken(std::string_view(*http.authorization).substr(kBearer.size()), nowMs);
    }

private:
    TokenProvider() = default;

    AuthResult fail(std::string why) const { return AuthResult::failure("token", std::move(why)); }

    AuthResult authenticateToken(std::string_view token, std::int64_t nowMs) const {
        while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) token.remove_suffix(1);
        if (token.empty()) return fail("Blank token found");
        if (token.size() > AuthenticationService::kMaxCredentialBytes) return fail("token longer than 16 KiB");
        auto d1 = token.find('.');
        auto d2 = d1 == std::string_view::npos ? d1 : token.find('.', d1 + 1);
        if (d2 == std::string_view::npos || token.find('.', d2 + 1) != std::string_view::npos)
            return fail("Failed to authentication token: JWT strings must contain exactly 2 period characters");
        auto headerText = base64Decode(token.substr(0, d1), true);
        auto claimsText = base64Decode(token.substr(d1 + 1, d2 - d1 - 1), true);
        auto signature = base64Decode(token.substr(d2 + 1), true);
        if (!headerText || !claimsText || !signature) return fail("Failed to authentication token: bad base64url");
        auto header = parseJsonObject(*headerText);
        auto claims = parseJsonObject(*claimsText);
        if (!header || !claims) return fail("Failed to authentication token: malformed JSON");
        auto alg = header->find("alg");
        if (alg == header->end() || !alg->is_string()) return fail("Failed to authentication token: no alg");
        std::string algName = alg->get<std::string>();
        // jjwt with a validation key: an unsigned token (alg none) is refused.
        if (algName == "none" || signature->empty())
            return fail("Failed to authentication token: Unsigned Claims JWTs are not supported.");
        std::string_view signingInput = token.substr(0, d2);
        if (auto bad = verify(algName, signingInput, *signature)) return fail("Failed to authentication token: " + *bad);
        return checkClaims(*claims, nowMs);
    }

    std::optional<std::string> verify(const std::string& alg, std::string_view input, const std::string& sig) const {
        if (alg.size() != 5) return "unsupported alg " + alg;
        const EVP_MD* md = digestOf(alg);
        std::string family = alg.substr(0, 2);
        if (md == nullptr) return "unsupported alg " + alg;
        if (family == "HS") {
            if (secret_.empty()) return "an HMAC token needs tokenSecretKey";
            // jjwt: the key must be as long as the digest (HS384: 384 bits, HS512: 512).
            if (secret_.size() * 8 < static_cast<std::size_t>(EVP_MD_get_size(md)) * 8)
                return "The signing key's size is " + std::to_string(secret_.size() * 8) + " bits which is not secure enough for the " + alg + " algorithm";
            unsigned char mac[EVP_MAX_MD_SIZE];
            unsigned int len = 0;
            HMAC(md, secret_.data(), static_cast<int>(secret_.size()), reinterpret_cast<const unsigned char*>(input.data()),
                 input.size(), mac, &len);
            if (sig.size() != len || CRYPTO_memcmp(mac, sig.data(), len) != 0)
                return "JWT signature does not match locally computed signature.";
            return std::nullopt;
        }
        if (!publicKey_) return "a " + alg + " token needs tokenPublicKey";
        bool rsaFamily = family == "RS" || family == "PS";
        if (family != "ES" && !rsaFamily) return "unsupported alg " + alg;
        if (rsaFamily == publicIsEc_) return "the " + alg + " algorithm does not fit the configured key";
        std::string der = sig;
        if (family == "ES") {
            auto asn1 = ecdsaRawToDer(alg, sig);
            if (!asn1) return "malformed ECDSA signature";
            der = std::move(*asn1);
        }
        EVP_MD_CTX* ctx = EVP_MD_CTX_new();
        EVP_PKEY_CTX* pctx = nullptr;
        bool ok = EVP_DigestVerifyInit(ctx, &pctx, md, nullptr, publicKey_.get()) == 1;
        if (ok && family == "PS")
            ok = EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1 &&
                 EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) == 1 &&
                 EVP_PKEY_CTX_set_rsa_mgf1_md(pctx, md) == 1;
        if (ok)
            ok = EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(der.data()), der.size(),
                                  reinterpret_cast<const unsigned char*>(input.data()), input.size()) == 1;
        EVP_MD_CTX_free(ctx);
        if (!ok) return "JWT signature does not match locally computed signature.";
        return std::nullopt;
    }

    // JWS (RFC 7518 §3.4): ES signatures are R || S of the curve's size; OpenSSL takes DER.
    std::optional<std::string> ecdsaRawToDer(const std::string& alg, const std::string& sig) const {
        std::size_t half = alg == "ES256" ? 32 : alg == "ES384" ? 48 : 66;
        if (sig.size() != 2 * half) return std::nullopt;
        int bits = EVP_PKEY_get_bits(publicKey_.get());
        if ((half == 32 && bits != 256) || (half == 48 && bits != 384) || (half == 66 && bits != 521)) return std::nullopt;
        const auto* raw = reinterpret_cast<const unsigned char*>(sig.data());
        ECDSA_SIG* es = ECDSA_SIG_new();
        BIGNUM* r = BN_bin2bn(raw, static_cast<int>(half), nullptr);
        BIGNUM* s = BN_bin2bn(raw + half, static_cast<int>(half), nullptr);
        ECDSA_SIG_set0(es, r, s);
        unsigned char* out = nullptr;
        int len = i2d_ECDSA_SIG(es, &out);
        ECDSA_SIG_free(es);
        if (len <= 0) return std::nullopt;
        std::string der(reinterpret_cast<char*>(out), static_cast<std::size_t>(len));
        OPENSSL_free(out);
        return der;
    }

    // A NumericDate claim in ms; nullopt when absent, an error text when not a number.
    static std::variant<std::optional<std::int64_t>, std::string> dateMs(const nlohmann::json& claims, const char* name) {
        auto it = claims.find(name);
        if (it == claims.end() || it->is_null()) return std::optional<std::int64_t>{};
        if (!it->is_number()) return std::string("the ") + name + " claim is not a number";
        double seconds = it->get<double>();
        if (!std::isfinite(seconds) || std::fabs(seconds) > 1e13) return std::string("the ") + name + " claim is out of range";
        return std::optional<std::int64_t>{static_cast<std::int64_t>(seconds * 1000)};
    }

    AuthResult checkClaims(const nlohmann::json& claims, std::int64_t nowMs) const {
        auto exp = dateMs(claims, "exp");
        auto nbf = dateMs(claims, "nbf");
        if (auto* e = std::get_if<std::string>(&exp)) return fail("Failed to authentication token: " + *e);
        if (auto* e = std::get_if<std::string>(&nbf)) return fail("Failed to authentication token: " + *e);
        auto expires = std::get<std::optional<std::int64_t>>(exp);
        auto notBefore = std::get<std::optional<std::int64_t>>(nbf);
        // jjwt DefaultJwtParser: expired when now - skew > exp, premature when now + skew < nbf.
        if (expires && nowMs - skewMs_ > *expires)
            return fail("Failed to authentication token: JWT expired");
        if (notBefore && nowMs + skewMs_ < *notBefore)
            return fail("Failed to authentication token: JWT must not be accepted before its nbf");
        if (!audienceClaim_.empty()) {
            auto it = claims.find(audienceClaim_);
            if (it == claims.end() || it->is_null())
                return fail("Found null Audience in token, for claimed field: " + audienceClaim_);
            bool found = false;
            if (it->is_string()) found = it->get<std::string>() == audience_;
            else if (it->is_array())
                found = std::any_of(it->begin(), it->end(), [&](const nlohmann::json& a) { return a.is_string() && a.get<std::string>() == audience_; });
            else return fail("Audiences in token is not in expected format: " + it->dump());
            if (!found) return fail("Audiences in token: [" + it->dump() + "] not contains this broker: " + audience_);
        }
        // AuthenticationProviderToken.getPrincipal: a string claim, or a list's first string.
        auto role = claims.find(roleClaim_);
        std::string principal;
        if (role != claims.end() && role->is_string()) principal = role->get<std::string>();
        else if (role != claims.end() && role->is_array() && !role->empty() && (*role)[0].is_string())
            principal = (*role)[0].get<std::string>();
        if (principal.empty()) return fail("Failed to authentication token: no role in claim " + roleClaim_);
        return AuthResult::success(principal, "token", expires);
    }

    std::string secret_;
    EvpKey publicKey_;
    bool publicIsEc_ = false;
    std::string roleClaim_;
    std::int64_t skewMs_ = 0;
    std::string audienceClaim_;
    std::string audience_;
};

// --- AuthenticationProviderBasic --------------------------------------------------

class BasicProvider final : public Provider {
public:
    static std::variant<std::unique_ptr<Provider>, std::string> create(const AuthSettings& s) {
        // AuthenticationProviderBasic.initialize: basicAuthConf (or -Dpulsar.auth.basic.conf).
        if (s.basicAuthConf.empty()) return std::string("basicAuthConf: No basic authentication config provided");
        std::string error;
        auto text = readKeyOrData("basicAuthConf", s.basicAuthConf, error);
        if (!text) return error;
        auto p = std::unique_ptr<BasicProvider>(new BasicProvider);
        std::string_view rest = *text;
        int lineNo = 0;
        while (!rest.empty()) {  // BufferedReader.lines(): \n, \r\n or \r ends a line
            auto end = rest.find_first_of("\r\n");
            std::string_view line = rest.substr(0, end);
            rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
            if (end != std::string_view::npos && (*text)[static_cast<std::size_t>(line.data() - text->data()) + end] == '\r' &&
                !rest.empty() && rest.front() == '\n')
                rest.remove_prefix(1);
            ++lineNo;
            auto parts = javaSplit(line, ':');
            if (parts.size() != 2)
                return "basicAuthConf: line " + std::to_string(lineNo) +
                       ": The format of the password auth conf file is invalid";
            p->users_[std::string(parts[0])] = std::string(parts[1]);
        }
        return std::unique_ptr<Provider>(std::move(p));
    }

    std::string_view method() const override { return "basic"; }

    AuthResult authenticate(std::string_view data, const PeerCertificate&, std::int64_t) const override {
        if (data.empty()) return AuthResult::failure("basic", "Authentication data source does not have data");
        return check(data);
    }

    // AuthParams: `Authorization: Basic base64(user:password)`.
    AuthResult authenticateHttp(const HttpCredentials& http, const PeerCertificate&, std::int64_t) const override {
        auto fail = [](std::string why) { return AuthResult::failure("basic", std::move(why)); };
        if (!http.authorization) return fail("Authentication token has to be started with \"Basic \"");
        std::string_view raw = *http.authorization;
        std::string upper(raw.substr(0, 6));
        for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        if (upper != "BASIC ") return fail("Authentication token has to be started with \"Basic \"");
        auto parts = javaSplit(raw, ' ');
        if (parts.size() != 2) return fail("Base64 encoded token is not found");
        auto decoded = base64Decode(parts[1], false);
        if (!decoded) return fail("Base64 decoding is failure");
        return check(*decoded);
    }

private:
    BasicProvider() = default;

    AuthResult check(std::string_view params) const {
        auto fail = [](std::string why) { return AuthResult::failure("basic", std::move(why)); };
        if (params.size() > AuthenticationService::kMaxCredentialBytes) return fail("credentials longer than 16 KiB");
        auto parts = javaSplit(params, ':');
        if (parts.size() != 2) return fail("Base64 decoded params are invalid");
        auto user = users_.find(std::string(parts[0]));
        const std::string msg = "Unknown user or invalid password";
        if (user == users_.end()) return fail(msg);
        const std::string& stored = user->second;
        std::string_view password = parts[1];
        if (stored.rfind("$apr1", 0) == 0) {
            // Md5Crypt.apr1Crypt with the stored salt ($apr1$salt$hash: four parts).
            auto fields = javaSplit(stored, '$');
            if (fields.size() != 4 || apr1Crypt(password, fields[2]) != stored) return fail(msg);
        } else {
            // Crypt.crypt(password, the first two characters): commons-codec's UnixCrypt (DES).
            if (stored.size() < 2) return fail(msg);
            if (unixCrypt(password, stored.substr(0, 2)) != stored) return fail(msg);
        }
        return AuthResult::success(std::string(parts[0]), "basic");
    }

    static std::string unixCrypt(std::string_view password, std::string_view salt) {
        static const std::string_view kSaltChars = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        for (char c : salt)
            if (kSaltChars.find(c) == std::string_view::npos) return {};  // never matches
        std::string pw(password.substr(0, std::min<std::size_t>(password.size(), 1024)));
        if (pw.find('\0') != std::string::npos) return {};
        crypt_data data{};
        const char* out = crypt_r(pw.c_str(), std::string(salt).c_str(), &data);
        if (out == nullptr || out[0] == '*') return {};
        return out;
    }

    std::map<std::string, std::string> users_;
};

// --- AuthenticationProviderTls ----------------------------------------------------

class TlsProvider final : public Provider {
public:
    std::string_view method() const override { return "tls"; }
    AuthResult authenticate(std::string_view, const PeerCertificate& peer, std::int64_t) const override {
        return fromPeer(peer);
    }
    AuthResult authenticateHttp(const HttpCredentials&, const PeerCertificate& peer, std::int64_t) const override {
        return fromPeer(peer);
    }

private:
    // AuthenticationProviderTls.authenticate: the client certificate's CN is the role.
    static AuthResult fromPeer(const PeerCertificate& peer) {
        if (!peer.present) return AuthResult::failure("tls", "Failed to get TLS certificate from client");
        if (peer.commonName.empty()) return AuthResult::failure("tls", "Client unable to authenticate with TLS certificate");
        return AuthResult::success(peer.commonName, "tls");
    }
};

}  // namespace

std::string apr1Crypt(std::string_view password, std::string_view salt) {
    constexpr std::string_view kMagic = "$apr1$";
    salt = salt.substr(0, std::min<std::size_t>(salt.size(), 8));
    auto md5 = [](std::initializer_list<std::string_view> parts) {
        std::array<unsigned char, 16> out{};
        EVP_MD_CTX* ctx = EVP_MD_CTX_new();
        EVP_DigestInit_ex(ctx, EVP_md5(), nullptr);
        for (auto p : parts) EVP_DigestUpdate(ctx, p.data(), p.size());
        unsigned int len = 0;
        EVP_DigestFinal_ex(ctx, out.data(), &len);
        EVP_MD_CTX_free(ctx);
        return out;
    };
    auto view = [](const std::array<unsigned char, 16>& a, std::size_t n = 16) {
        return std::string_view(reinterpret_cast<const char*>(a.data()), n);
    };
    auto alt = md5({password, salt, password});
    std::string first(password);
    first += kMagic;
    first += salt;
    for (auto left = static_cast<long>(password.size()); left > 0; left -= 16)
        first += view(alt, static_cast<std::size_t>(std::min(left, 16L)));
    for (auto i = password.size(); i != 0; i >>= 1) first += (i & 1) ? '\0' : (password.empty() ? '\0' : password[0]);
    auto fin = md5({first});
    for (int i = 0; i < 1000; ++i) {
        std::string round;
        round += (i & 1) ? password : view(fin);
        if (i % 3) round += salt;
        if (i % 7) round += password;
        round += (i & 1) ? view(fin) : password;
        fin = md5({round});
    }
    static constexpr std::string_view kItoa64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    std::string out(kMagic);
    out += salt;
    out += '$';
    auto to64 = [&](unsigned long v, int n) {
        while (n-- > 0) {
            out += kItoa64[v & 0x3f];
            v >>= 6;
        }
    };
    const std::array<std::array<int, 3>, 5> groups{{{0, 6, 12}, {1, 7, 13}, {2, 8, 14}, {3, 9, 15}, {4, 10, 5}}};
    for (const auto& g : groups)
        to64((static_cast<unsigned long>(fin[g[0]]) << 16) | (static_cast<unsigned long>(fin[g[1]]) << 8) | fin[g[2]], 4);
    to64(fin[11], 2);
    return out;
}

std::string legacyAuthMethodName(std::string_view enumName) {
    std::string out(enumName.size() > 10 ? enumName.substr(10) : std::string_view{});
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

AuthenticationService::~AuthenticationService() = default;

std::variant<std::shared_ptr<const AuthenticationService>, std::string> AuthenticationService::create(
    const AuthSettings& settings) {
    auto service = std::shared_ptr<AuthenticationService>(new AuthenticationService);
    // getAnonymousUserRole: StringUtils.isNotBlank (AuthSettings trims the value).
    service->anonymousUserRole_ = settings.anonymousUserRole;
    if (!settings.authenticationEnabled) return std::shared_ptr<const AuthenticationService>(service);
    service->enabled_ = true;
    for (const auto& name : settings.authenticationProviders) {
        std::variant<std::unique_ptr<Provider>, std::string> made;
        if (name == kTokenClass) made = TokenProvider::create(settings);
        else if (name == kBasicClass) made = BasicProvider::create(settings);
        else if (name == kTlsClass) made = std::unique_ptr<Provider>(new TlsProvider);
        else
            return "authenticationProviders: " + name +
                   " is not a provider cnxsim has (it has AuthenticationProviderToken, AuthenticationProviderBasic, "
                   "AuthenticationProviderTls of org.apache.pulsar.broker.authentication)";
        if (auto* e = std::get_if<std::string>(&made)) return *e;
        auto& p = std::get<std::unique_ptr<Provider>>(made);
        if (!service->hasProvider(p->method())) service->providers_.push_back(std::move(p));
    }
    return std::shared_ptr<const AuthenticationService>(service);
}

std::shared_ptr<const AuthenticationService> AuthenticationService::refusingAll() {
    auto service = std::shared_ptr<AuthenticationService>(new AuthenticationService);
    service->enabled_ = true;
    service->refuseAll_ = true;
    return service;
}

const Provider* AuthenticationService::provider(std::string_view method) const {
    for (const auto& p : providers_)
        if (p->method() == method) return p.get();
    return nullptr;
}

bool AuthenticationService::hasProvider(std::string_view method) const { return provider(method) != nullptr; }

// ServerCnx.handleConnect: no provider of the method -> the anonymous role, or
// AuthenticationException "No anonymous role, and no authentication provider configured".
AuthResult AuthenticationService::authenticate(std::string_view method, std::string_view data,
                                               const PeerCertificate& peer, std::int64_t nowMs) const {
    if (refuseAll_) return AuthResult::failure(std::string(method), "the authentication settings are unusable");
    if (data.size() > kMaxCredentialBytes) return AuthResult::failure(std::string(method), "auth data longer than 16 KiB");
    const Provider* p = provider(method);
    if (p == nullptr) {
        if (!anonymousUserRole_.empty()) return AuthResult::success(anonymousUserRole_, "none");
        return AuthResult::failure(std::string(method), "No anonymous role, and no authentication provider configured");
    }
    return p->authenticate(data, peer, nowMs);
}

// AuthenticationService.authenticateHttpRequest.
AuthResult AuthenticationService::authenticateHttp(const HttpCredentials& credentials, const PeerCertificate& peer,
                                                   std::int64_t nowMs) const {
    if (refuseAll_) return AuthResult::failure("", "the authentication settings are unusable");
    if (credentials.authorization && credentials.authorization->size() > kMaxCredentialBytes)
        return AuthResult::failure("", "Authorization header longer than 16 KiB");
    if (credentials.authMethodName) {
        const Provider* p = provider(*credentials.authMethodName);
        if (p == nullptr)
            return AuthResult::failure(*credentials.authMethodName,
                                       "Unsupported authentication method: [" + *credentials.authMethodName + "].");
        return p->authenticateHttp(credentials, peer, nowMs);
    }
    std::string last;
    for (const auto& p : providers_) {
        auto r = p->authenticateHttp(credentials, peer, nowMs);
        if (r.ok) return r;
        last = r.error;
    }
    // "No authentication provided": with no provider at all, none is required.
    if (providers_.empty()) return AuthResult::success("", "none");
    if (!anonymousUserRole_.empty()) return AuthResult::success(anonymousUserRole_, "none");
    return AuthResult::failure("", last.empty() ? "Authentication required" : last);
}

}  // namespace cnx::auth
