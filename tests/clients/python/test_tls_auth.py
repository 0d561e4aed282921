"""The official Python client over TLS with authentication (issue 44): one
`cnxsim serve` with TLS listeners beside the plain ones, the token, basic and
TLS-certificate providers, authorization on and superuser roles, as the
client's own suite runs its broker (pulsar-client-python
tests/test-conf/standalone-ssl.conf: authenticationProviders Tls, Token, Basic;
superUserRoles).

The certificates, keys, tokens and htpasswd come from tests/tls/make_test_pki.sh
at test time. The settings are Pulsar's broker.conf keys through --set.

What the client does with a refusal is its own: the C++ core under
pulsar-client 3.13 (libpulsar 4.2.0) reads the broker's ERROR answer to CONNECT
("Failed to authenticate", ServerError.AuthenticationError: Pulsar's ServerCnx
authenticationFailed, seen on a real 4.2.4 broker) as "Expected CONNECTED command but received ERROR" and closes
the connection with ResultDisconnected (lib/ClientConnection.cc:889-891 of
v4.2.0), which its lookup retries until the operation timeout
(lib/RetryableOperation.h, lib/ResultUtils.h: Disconnected is retryable): the
Python call raises pulsar.Timeout. An authorization refusal is an answer to the
partitioned-metadata request and fatal: pulsar.AuthorizationError at once.
"""
import json
import os
import re
import select
import ssl
import subprocess
import time
import urllib.error
import urllib.request
import uuid

import pulsar
import pytest
from pulsar.exceptions import AuthorizationError, Timeout

from conftest import Broker

HERE = os.path.dirname(os.path.abspath(__file__))
PKI_SCRIPT = os.path.join(HERE, "..", "..", "tls", "make_test_pki.sh")
PROVIDERS = ",".join("org.apache.pulsar.broker.authentication." + p for p in
                     ("AuthenticationProviderToken", "AuthenticationProviderBasic", "AuthenticationProviderTls"))
REFUSAL_TIMEOUT_S = 2   # the client's operation timeout where a refusal is retried until it ends
RECEIVE_MS = 10000


def cnxsim_binary():
    cnxsim = os.environ.get("CNXSIM")
    if not cnxsim:
        pytest.fail("CNXSIM (the cnxsim binary) is not set; ctest sets it")
    return cnxsim


def serves_tls():
    help_text = subprocess.run([cnxsim_binary(), "help", "serve"], capture_output=True, text=True, timeout=30)
    return "--tls-port" in help_text.stdout + help_text.stderr


@pytest.fixture(scope="module", autouse=True)
def needs_tls_in_serve():
    if not serves_tls():
        pytest.skip("this cnxsim serve has no TLS listener yet (`cnxsim help serve` lacks --tls-port; issue 44 parts A, B)")


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    directory = tmp_path_factory.mktemp("pki")
    made = subprocess.run(["bash", PKI_SCRIPT, str(directory)], capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, f"make_test_pki.sh failed:\n{made.stdout}{made.stderr}"
    return directory


def read(pki, name):
    return (pki / name).read_text().strip()


URL = {"pulsar": re.compile(r"(?<![\w+])pulsar://[^\s,]+"), "pulsar+ssl": re.compile(r"pulsar\+ssl://[^\s,]+"),
       "http": re.compile(r"http://[^\s,]+"), "https": re.compile(r"https://[^\s,]+")}


class SecureBroker(Broker):
    """The served broker with its TLS URLs, the CA file and the tokens."""

    def __init__(self, urls, release, process, pki):
        super().__init__(urls["pulsar"], urls["http"], release, process)
        self.url_tls, self.admin_tls, self.pki = urls["pulsar+ssl"], urls["https"], pki
        self.ca = str(pki / "ca.cert.pem")

    def https(self, method, path, token=None, body=None):
        """One admin call over https (the test CA trusted): (status, body text)."""
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.admin_tls + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=15, context=ssl.create_default_context(cafile=self.ca)) as a:
                return a.status, a.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()


def start_secure(pki, *extra):
    pki_file = lambda name: str(pki / name)  # noqa: E731
    command = [cnxsim_binary(), "serve", "--port", "0", "--admin-port", "0", "--tls-port", "0", "--admin-tls-port", "0",
               "--set", f"tlsCertificateFilePath={pki_file('broker.cert.pem')}",
               "--set", f"tlsKeyFilePath={pki_file('broker.key.pem')}",
               "--set", f"tlsTrustCertsFilePath={pki_file('ca.cert.pem')}",
               "--set", "authenticationEnabled=true",
               "--set", f"authenticationProviders={PROVIDERS}",
               "--set", f"tokenSecretKey=file://{pki_file('secret.key')}",
               "--set", f"basicAuthConf={pki_file('htpasswd')}",
               "--set", "authorizationEnabled=true",
               "--set", "superUserRoles=admin,basic-user,client-tls", *extra]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ready, _, _ = select.select([process.stdout], [], [], 30)
    line = process.stdout.readline().rstrip("\n") if ready else ""
    urls = {scheme: (m.group(0) if (m := rx.search(line)) else None) for scheme, rx in URL.items()}
    release = re.search(r"\(Pulsar (\S+) behaviour\)", line)
    if not line.startswith("ready: ") or None in urls.values() or not release:
        process.kill()
        out, err = process.communicate(timeout=10)
        pytest.fail(f"cnxsim serve with TLS and authentication did not print a ready line naming "
                    f"pulsar://, http://, pulsar+ssl:// and https://; got {line!r}\n{out}{err}")
    return SecureBroker(urls, release.group(1), process, pki)


@pytest.fixture(scope="module")
def secure(pki):
    broker = start_secure(pki)
    yield broker
    broker.stop()


@pytest.fixture
def topic():
    return f"py-tls-{uuid.uuid4().hex[:12]}"


def client_for(secure, client_log, authentication=None, tls=True, timeout_s=10, **options):
    if tls:
        options.setdefault("tls_trust_certs_file_path", secure.ca)
    return pulsar.Client(secure.url_tls if tls else secure.url, authentication=authentication,
                         operation_timeout_seconds=timeout_s, logger=client_log.logger, **options)


def round_trip(client, topic):
    consumer = client.subscribe(topic, "s")
    producer = client.create_producer(topic)
    producer.send(b"over tls")
    message = consumer.receive(RECEIVE_MS)
    assert message.data() == b"over tls"
    consumer.acknowledge(message)


# --- admitted -------------------------------------------------------------------

def test_token_over_tls_produces_and_consumes(secure, client_log, topic):
    client = client_for(secure, client_log, pulsar.AuthenticationToken(read(secure.pki, "token-admin.jwt")))
    try:
        round_trip(client, topic)
    finally:
        client.close()


def test_token_from_a_supplier_over_tls(secure, client_log, topic):
    client = client_for(secure, client_log, pulsar.AuthenticationToken(lambda: read(secure.pki, "token-admin.jwt")))
    try:
        round_trip(client, topic)
    finally:
        client.close()


@pytest.mark.parametrize("user,password", [("basic-user", "basic-pass"), ("crypt-user", "crypt-pass")])
def test_basic_authentication_over_tls(secure, client_log, topic, user, password):
    client = client_for(secure, client_log, pulsar.AuthenticationBasic(user, password))
    try:
        if user == "basic-user":
            round_trip(client, topic)
        else:  # crypt-user is not a superuser: authenticated, then refused by authorization
            with pytest.raises(AuthorizationError) as refused:
                client.create_producer(topic)
            assert str(refused.value) == "Pulsar error: AuthorizationError"
    finally:
        client.close()


def test_tls_client_certificate_authentication(secure, client_log, topic):
    auth = pulsar.AuthenticationTLS(str(secure.pki / "client.cert.pem"), str(secure.pki / "client.key.pem"))
    client = client_for(secure, client_log, auth)
    try:
        round_trip(client, topic)
    finally:
        client.close()


def test_token_on_the_plain_listener_too(secure, client_log, topic):
    client = client_for(secure, client_log, pulsar.AuthenticationToken(read(secure.pki, "token-admin.jwt")), tls=False)
    try:
        round_trip(client, topic)
    finally:
        client.close()


# --- refused --------------------------------------------------------------------

REFUSED = {
    "no credentials": lambda pki: None,
    "expired token": lambda pki: pulsar.AuthenticationToken(read(pki, "token-expired.jwt")),
    "badly signed token": lambda pki: pulsar.AuthenticationToken(read(pki, "token-bad-signature.jwt")),
    "garbage token": lambda pki: pulsar.AuthenticationToken("not.a.jwt"),
    "wrong basic password": lambda pki: pulsar.AuthenticationBasic("basic-user", "wrong"),
    "unknown basic user": lambda pki: pulsar.AuthenticationBasic("nobody", "basic-pass"),
}


@pytest.mark.parametrize("credentials", sorted(REFUSED))
@pytest.mark.parametrize("tls", [True, False], ids=["tls", "plain"])
def test_refused_without_valid_credentials(secure, client_log, topic, credentials, tls):
    client = client_for(secure, client_log, REFUSED[credentials](secure.pki), tls=tls, timeout_s=REFUSAL_TIMEOUT_S)
    started = time.monotonic()
    try:
        with pytest.raises(Timeout) as refused:
            client.create_producer(topic)
    finally:
        client.close()
    assert str(refused.value) == "Pulsar error: TimeOut"
    # Refused at CONNECT each time, retried until the operation timeout: never admitted.
    assert time.monotonic() - started >= REFUSAL_TIMEOUT_S - 0.5
    log = client_log.text()
    assert "Connected to broker" in log, log[-2000:]
    assert "Connection disconnected" in log, log[-2000:]
    assert "Created producer" not in log


def test_role_without_permission_is_refused_by_authorization(secure, client_log, topic):
    client = client_for(secure, client_log, pulsar.AuthenticationToken(read(secure.pki, "token-alice.jwt")))
    try:
        with pytest.raises(AuthorizationError) as refused:
            client.create_producer(topic)
    finally:
        client.close()
    assert str(refused.value) == "Pulsar error: AuthorizationError"
    assert "error: AuthorizationError msg: Client is not authorized to Get Partition Metadata" in client_log.text()


def test_client_without_the_ca_cannot_connect_over_tls(secure, client_log, topic):
    # The broker's certificate is signed by the test CA only: the client's default trust refuses it.
    client = client_for(secure, client_log, pulsar.AuthenticationToken(read(secure.pki, "token-admin.jwt")),
                        timeout_s=REFUSAL_TIMEOUT_S, tls_trust_certs_file_path=str(secure.pki / "client.cert.pem"))
    try:
        with pytest.raises((pulsar.ConnectError, Timeout)) as refused:
            client.create_producer(topic)
    finally:
        client.close()
    assert str(refused.value) in ("Pulsar error: ConnectError", "Pulsar error: TimeOut")
    assert "Created producer" not in client_log.text()


# --- the admin API over https ---------------------------------------------------

def test_admin_over_https_with_a_token(secure):
    status, body = secure.https("GET", "/admin/v2/clusters", token=read(secure.pki, "token-admin.jwt"))
    assert status == 200, body
    assert json.loads(body) == ["standalone"]


@pytest.mark.parametrize("token", [None, "token-expired.jwt", "token-bad-signature.jwt", "garbage"])
def test_admin_over_https_without_a_valid_token_is_401(secure, token):
    value = None if token is None else (read(secure.pki, token) if token.endswith(".jwt") else "not.a.jwt")
    status, _ = secure.https("GET", "/admin/v2/clusters", token=value)
    assert status == 401


def test_admin_over_plain_http_needs_the_token_too(secure):
    status, _ = secure.http("GET", "/admin/v2/clusters")
    assert status == 401
    request = urllib.request.Request(secure.admin + "/admin/v2/clusters",
                                     headers={"Authorization": f"Bearer {read(secure.pki, 'token-admin.jwt')}"})
    with urllib.request.urlopen(request, timeout=15) as answer:
        assert answer.status == 200

