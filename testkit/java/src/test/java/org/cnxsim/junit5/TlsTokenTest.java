package org.cnxsim.junit5;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.admin.PulsarAdminException;
import org.apache.pulsar.client.api.Authentication;
import org.apache.pulsar.client.api.AuthenticationFactory;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The official Java client and PulsarAdmin over TLS with token authentication
 * (issue 44): serve with a TLS listener on each port, AuthenticationProviderToken
 * with an HS256 secret, authorization with the superuser "admin". The PKI is
 * tests/tls/make_test_pki.sh's, in the folder the system property cnxsim.pki
 * names (ctest's clients.java.tls_token makes it). Skipped without it, or when
 * the binary has no TLS listener yet (`cnxsim help serve` without --tls-port).
 *
 * Pulsar's answers: a CONNECT whose credentials fail gets ERROR AuthenticationError
 * "Failed to authenticate" (ServerCnx.authenticationFailed, seen on a real 4.2.4 broker), which the Java client
 * raises as PulsarClientException.AuthenticationException; the admin API without
 * credentials answers 401 (AuthenticationFilter), NotAuthorizedException in PulsarAdmin.
 */
class TlsTokenTest {
    private static Path pki;
    private static CnxsimServer server;

    @BeforeAll
    static void start() throws Exception {
        String dir = System.getProperty("cnxsim.pki", "");
        Assumptions.assumeFalse(dir.isEmpty(), "skipped: no PKI (-Dcnxsim.pki=DIR, made by tests/tls/make_test_pki.sh)");
        pki = Path.of(dir);
        Process help = new ProcessBuilder(CnxsimServer.findBinary("").toString(), "help", "serve")
                .redirectErrorStream(true).start();
        String text = new String(help.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        help.waitFor(10, TimeUnit.SECONDS);
        Assumptions.assumeTrue(text.contains("--tls-port"), "skipped: this cnxsim serve has no TLS listener (--tls-port)");
        server = CnxsimServer.builder()
                .args("--tls-port", "0", "--admin-tls-port", "0")
                .set("tlsCertificateFilePath", pki.resolve("broker.cert.pem").toString())
                .set("tlsKeyFilePath", pki.resolve("broker.key.pem").toString())
                .set("authenticationEnabled", "true")
                .set("authenticationProviders", "org.apache.pulsar.broker.authentication.AuthenticationProviderToken")
                .set("tokenSecretKey", "file://" + pki.resolve("secret.key"))
                .set("authorizationEnabled", "true")
                .set("superUserRoles", "admin")
                .start();
        assertNotNull(server.tlsServiceUrl(), server.readyLine());
        assertNotNull(server.tlsAdminUrl(), server.readyLine());
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    private static String token(String name) throws Exception {
        return Files.readString(pki.resolve(name)).trim();
    }

    private static PulsarClient client(Authentication auth) throws PulsarClientException {
        var builder = PulsarClient.builder()
                .serviceUrl(server.tlsServiceUrl())
                .tlsTrustCertsFilePath(pki.resolve("ca.cert.pem").toString())
                .operationTimeout(10, TimeUnit.SECONDS)
                .connectionTimeout(5, TimeUnit.SECONDS);
        if (auth != null) {
            builder.authentication(auth);
        }
        return builder.build();
    }

    private static PulsarAdmin admin(Authentication auth) throws PulsarClientException {
        var builder = PulsarAdmin.builder()
                .serviceHttpUrl(server.tlsAdminUrl())
                .tlsTrustCertsFilePath(pki.resolve("ca.cert.pem").toString())
                .connectionTimeout(5, TimeUnit.SECONDS)
                .readTimeout(10, TimeUnit.SECONDS)
                .requestTimeout(15, TimeUnit.SECONDS);
        if (auth != null) {
            builder.authentication(auth);
        }
        return builder.build();
    }

    @Test
    void theAdminTokenProducesAndConsumesOverTls() throws Exception {
        assertTrue(server.tlsServiceUrl().startsWith("pulsar+ssl://"), server.tlsServiceUrl());
        String topic = "persistent://public/default/tls-token";
        try (PulsarClient client = client(AuthenticationFactory.token(token("token-admin.jwt")));
                Consumer<String> consumer = client.newConsumer(Schema.STRING).topic(topic).subscriptionName("s").subscribe();
                Producer<String> producer = client.newProducer(Schema.STRING).topic(topic).create()) {
            producer.send("over tls");
            Message<String> m = consumer.receive(20, TimeUnit.SECONDS);
            assertNotNull(m, "a message within 20 s");
            assertEquals("over tls", m.getValue());
        }
    }

    private static void refused(Authentication auth) throws Exception {
        try (PulsarClient client = client(auth)) {
            PulsarClientException.AuthenticationException e = assertThrows(
                    PulsarClientException.AuthenticationException.class,
                    () -> client.newProducer(Schema.STRING).topic("persistent://public/default/refused").create());
            // ClientCnx.handleError: AuthenticationError fails the connection with the broker's text as it is.
            assertTrue(e.getMessage().contains("Failed to authenticate"), e.getMessage());
        }
    }

    @Test
    void noTokenIsRefused() throws Exception {
        refused(null);
    }

    @Test
    void anExpiredTokenIsRefused() throws Exception {
        refused(AuthenticationFactory.token(token("token-expired.jwt")));
    }

    @Test
    void aBadlySignedTokenIsRefused() throws Exception {
        refused(AuthenticationFactory.token(token("token-bad-signature.jwt")));
    }

    @Test
    void aRoleWithoutPermissionIsNotAuthorized() throws Exception {
        // alice authenticates but is no superuser and has no permission on public/default: the
        // producer's first request, PARTITIONED_METADATA, gets AuthorizationError (ServerCnx:
        // "Client is not authorized to Get Partition Metadata"; "Proxy Client …" in older releases).
        try (PulsarClient client = client(AuthenticationFactory.token(token("token-alice.jwt")))) {
            PulsarClientException.AuthorizationException e = assertThrows(
                    PulsarClientException.AuthorizationException.class,
                    () -> client.newProducer(Schema.STRING).topic("persistent://public/default/alice").create());
            assertTrue(e.getMessage().contains("is not authorized to Get Partition Metadata"), e.getMessage());
        }
    }

    @Test
    void theAdminApiOverHttpsWantsTheToken() throws Exception {
        try (PulsarAdmin admin = admin(AuthenticationFactory.token(token("token-admin.jwt")))) {
            assertEquals(List.of("standalone"), admin.clusters().getClusters());
            assertTrue(admin.tenants().getTenants().contains("public"));
        }
        try (PulsarAdmin anonymous = admin(null)) {
            PulsarAdminException.NotAuthorizedException e = assertThrows(
                    PulsarAdminException.NotAuthorizedException.class, () -> anonymous.clusters().getClusters());
            assertEquals(401, e.getStatusCode());
            // AuthenticationFilter: sendError(SC_UNAUTHORIZED, "Authentication required").
            assertTrue(e.getMessage().contains("Authentication required"), e.getMessage());
        }
    }
}
