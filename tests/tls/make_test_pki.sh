#!/usr/bin/env bash
# Makes the certificates, keys, tokens and password file the TLS and
# authentication tests of `cnxsim serve` use (issue 44), into DIR, with the
# openssl command line only. Every run makes new keys: nothing secret is
# committed. Idempotent: an existing DIR/ready stamp means DIR is complete; runs
# at once on the same DIR are serialised by a lock (DIR/.lock).
#
#   tests/tls/make_test_pki.sh DIR
#
# DIR afterwards holds:
#   ca.cert.pem ca.key.pem           a test CA (CN=cnxsim-test-ca)
#   broker.cert.pem broker.key.pem   the server's, signed by the CA; SAN DNS:localhost, IP:127.0.0.1;
#                                    the key in PKCS#8 PEM, as Pulsar's tlsKeyFilePath takes it
#   client.cert.pem client.key.pem   a client certificate, CN=client-tls (the role TLS authentication gives)
#   secret.key                       32 random bytes: tokenSecretKey=file:///DIR/secret.key (HS256)
#   token-admin.jwt                  HS256, sub=admin (no expiry)
#   token-alice.jwt                  HS256, sub=alice (no expiry)
#   token-expired.jwt                HS256, sub=alice, exp one hour ago
#   token-bad-signature.jwt          sub=admin, signed with another key
#   rsa-private.key rsa-public.key   an RSA key pair: tokenPublicKey=file:///DIR/rsa-public.key (RS256)
#   token-rs256-alice.jwt            RS256, sub=alice
#   htpasswd                         basic authentication: basic-user / basic-pass (apr1 MD5),
#                                    crypt-user / crypt-pass (crypt(3) DES, as `htpasswd -d` writes it)
set -euo pipefail
dir="${1:?usage: make_test_pki.sh DIR}"
mkdir -p "$dir"
# Tests running at once (ctest -j) may ask for the same DIR: one makes it, the
# others wait for it under the lock and find it ready.
exec 9>"$dir/.lock"
flock 9
[ -f "$dir/ready" ] && exit 0
cd "$dir"
q() { "$@" >/dev/null 2>&1 || { echo "make_test_pki.sh: failed: $*" >&2; "$@"; exit 1; }; }

q openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=cnxsim-test-ca" \
    -keyout ca.key.pem -out ca.cert.pem
cert() {  # name CN [SAN]
    q openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$1.key.pem"
    q openssl req -new -key "$1.key.pem" -subj "/CN=$2" -out "$1.csr"
    local ext
    ext=$(mktemp)
    printf 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\n' > "$ext"
    [ -n "${3:-}" ] && printf 'subjectAltName=%s\n' "$3" >> "$ext"
    q openssl x509 -req -in "$1.csr" -CA ca.cert.pem -CAkey ca.key.pem -CAcreateserial -days 3650 \
        -extfile "$ext" -out "$1.cert.pem"
    rm -f "$ext" "$1.csr"
}
cert broker localhost "DNS:localhost,IP:127.0.0.1"
cert client client-tls

b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
jwt_hs256() {  # key-file payload-json
    local h p s
    h=$(printf '{"alg":"HS256"}' | b64url)
    p=$(printf '%s' "$2" | b64url)
    s=$(printf '%s.%s' "$h" "$p" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$(xxd -p -c 256 "$1" 2>/dev/null || od -An -tx1 -v "$1" | tr -d ' \n')" -binary | b64url)
    printf '%s.%s.%s' "$h" "$p" "$s"
}
jwt_rs256() {  # private-key payload-json
    local h p s
    h=$(printf '{"alg":"RS256"}' | b64url)
    p=$(printf '%s' "$2" | b64url)
    s=$(printf '%s.%s' "$h" "$p" | openssl dgst -sha256 -sign "$1" -binary | b64url)
    printf '%s.%s.%s' "$h" "$p" "$s"
}
q openssl rand -out secret.key 32
q openssl rand -out other-secret.key 32
jwt_hs256 secret.key '{"sub":"admin"}' > token-admin.jwt
jwt_hs256 secret.key '{"sub":"alice"}' > token-alice.jwt
jwt_hs256 secret.key "{\"sub\":\"alice\",\"exp\":$(( $(date +%s) - 3600 ))}" > token-expired.jwt
jwt_hs256 other-secret.key '{"sub":"admin"}' > token-bad-signature.jwt
rm -f other-secret.key
q openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out rsa-private.key
q openssl pkey -in rsa-private.key -pubout -out rsa-public.key
jwt_rs256 rsa-private.key '{"sub":"alice"}' > token-rs256-alice.jwt
{
    printf 'basic-user:%s\n' "$(openssl passwd -apr1 basic-pass)"
    printf 'crypt-user:%s\n' "$(perl -e 'print crypt("crypt-pass", "ab")')"
} > htpasswd
chmod 600 ./*.key ./*.key.pem
touch ready
