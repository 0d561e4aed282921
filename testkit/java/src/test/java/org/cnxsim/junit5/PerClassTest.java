package org.cnxsim.junit5;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** One server for the class: the version and settings attributes reach serve, parameters are injected everywhere. */
@CnxsimServe(version = "3.0", settings = {"allowAutoTopicCreation=false", "isSchemaValidationEnforced=true"})
class PerClassTest {
    private static CnxsimServer first;

    @BeforeAll
    static void before(CnxsimServer server) {
        first = server;
    }

    @Test
    void versionAttributeIsServed(CnxsimServer server) throws Exception {
        assertSame(first, server, "one server for the class");
        assertTrue(server.version().startsWith("3.0."), server.version());
        assertTrue(server.readyLine().contains("(Pulsar 3.0."), server.readyLine());
        String status = Http.get(server.adminUrl() + "/cnxsim/status").body();
        assertTrue(status.contains("\"release\":\"" + server.version() + "\""), status);
    }

    @Test
    void settingsArePassed(CnxsimServer server) throws Exception {
        assertSame(first, server, "one server for the class");
        assertTrue(server.command().containsAll(java.util.List.of("--set", "isSchemaValidationEnforced=true")),
                server.command().toString());
        assertEquals("{\"allowAutoTopicCreation\":\"false\"}",
                Http.get(server.adminUrl() + "/admin/v2/brokers/configuration/values").body());
    }

    @Test
    void aClientProducesAndConsumes(CnxsimServer server) throws Exception {
        assertTrue(server.serviceUrl().matches("pulsar://127\\.0\\.0\\.1:\\d+"), server.serviceUrl());
        String topic = "persistent://public/default/per-class";
        Http.put(server.adminUrl() + "/admin/v2/persistent/public/default/per-class");
        try (PulsarClient client = PulsarClient.builder().serviceUrl(server.serviceUrl())
                        .operationTimeout(10, TimeUnit.SECONDS).build();
                Consumer<String> consumer = client.newConsumer(Schema.STRING).topic(topic).subscriptionName("s").subscribe();
                Producer<String> producer = client.newProducer(Schema.STRING).topic(topic).create()) {
            producer.send("hello");
            Message<String> m = consumer.receive(20, TimeUnit.SECONDS);
            assertEquals("hello", m.getValue());
        }
    }

    @AfterAll
    static void after(CnxsimServer server) {
        assertSame(first, server);
        assertTrue(server.isAlive(), "stopped only after @AfterAll");
    }
}
