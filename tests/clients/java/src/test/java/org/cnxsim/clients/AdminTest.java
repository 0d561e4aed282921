package org.cnxsim.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.admin.PulsarAdminException;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.Schema;
import org.apache.pulsar.common.policies.data.SchemaCompatibilityStrategy;
import org.apache.pulsar.common.protocol.schema.IsCompatibilityResponse;
import org.apache.pulsar.common.protocol.schema.PostSchemaPayload;
import org.apache.pulsar.common.schema.SchemaInfo;
import org.apache.pulsar.common.schema.SchemaInfoWithVersion;
import org.apache.pulsar.common.schema.SchemaType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** PulsarAdmin against serve's admin port: schemas(), namespaces() schema policies, topicPolicies(). */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AdminTest {
    @RegisterExtension
    static final CnxsimServe SERVE = new CnxsimServe();

    PulsarClient client;
    PulsarAdmin admin;

    @BeforeEach
    void clients() throws Exception {
        client = SERVE.client();
        admin = SERVE.admin();
    }

    @Test
    void brokerVersionAndClusters() throws Exception {
        assertEquals(SERVE.release(), admin.brokers().getVersion());
        assertEquals(List.of("standalone"), admin.clusters().getClusters());
        assertTrue(admin.tenants().getTenants().containsAll(List.of("public", "pulsar")));
    }

    @Test
    void schemasCreateGetAllTestCompatibilityDelete() throws Exception {
        String topic = Clients.topic("admin-schema");
        SchemaInfo v0 = Schema.AVRO(User.class).getSchemaInfo();
        admin.schemas().createSchema(topic, v0);
        SchemaInfo got = admin.schemas().getSchemaInfo(topic);
        assertEquals(SchemaType.AVRO, got.getType());
        assertEquals(v0.getSchemaDefinition(), got.getSchemaDefinition());
        assertEquals(v0.getProperties(), got.getProperties());

        SchemaInfo v1 = Schema.AVRO(UserV2.class).getSchemaInfo();
        IsCompatibilityResponse ok = admin.schemas().testCompatibility(topic,
                new PostSchemaPayload("AVRO", v1.getSchemaDefinition(), v1.getProperties()));
        assertTrue(ok.isCompatibility());
        assertEquals("FULL", ok.getSchemaCompatibilityStrategy());
        SchemaInfo order = Schema.AVRO(Order.class).getSchemaInfo();
        // An incompatible schema is not answered `false`: the registry throws, and the endpoint answers 500
        // with the checker's text (doc/broker-behaviour.md, POST …/compatibility).
        PulsarAdminException.ServerSideErrorException no = assertThrows(
                PulsarAdminException.ServerSideErrorException.class,
                () -> admin.schemas().testCompatibility(topic, order));
        assertEquals(500, no.getStatusCode());
        assertTrue(no.getMessage().strip().startsWith("Error during schema compatibility check with strategy FULL: "
                + "org.apache.avro.SchemaValidationException: Unable to read schema: \n{"), no.getMessage());

        admin.schemas().createSchema(topic, v1);
        List<SchemaInfo> all = admin.schemas().getAllSchemas(topic);
        assertEquals(2, all.size());
        assertEquals(v1.getSchemaDefinition(), all.get(1).getSchemaDefinition());
        SchemaInfoWithVersion latest = admin.schemas().getSchemaInfoWithVersion(topic);
        assertEquals(1L, latest.getVersion());
        assertEquals(v0.getSchemaDefinition(), admin.schemas().getSchemaInfo(topic, 0).getSchemaDefinition());

        // A producer with the registered schema is admitted at that version.
        try (org.apache.pulsar.client.api.Consumer<UserV2> c = client.newConsumer(Schema.AVRO(UserV2.class))
                        .topic(topic).subscriptionName("s").subscribe();
                Producer<UserV2> p = client.newProducer(Schema.AVRO(UserV2.class)).topic(topic).create()) {
            p.send(new UserV2("x", 1, "y"));
            org.apache.pulsar.client.api.Message<UserV2> m = c.receive(10, TimeUnit.SECONDS);
            assertEquals(1L, Clients.version(m));
        }

        admin.schemas().deleteSchema(topic);
        PulsarAdminException.NotFoundException missing = assertThrows(PulsarAdminException.NotFoundException.class,
                () -> admin.schemas().getSchemaInfo(topic));
        assertEquals("Schema not found", missing.getMessage());
    }

    @Test
    void namespaceSchemaPolicies() throws Exception {
        String ns = "public/policies-" + System.nanoTime();
        admin.namespaces().createNamespace(ns);
        assertEquals(SchemaCompatibilityStrategy.UNDEFINED, admin.namespaces().getSchemaCompatibilityStrategy(ns));
        admin.namespaces().setSchemaCompatibilityStrategy(ns, SchemaCompatibilityStrategy.ALWAYS_COMPATIBLE);
        assertEquals(SchemaCompatibilityStrategy.ALWAYS_COMPATIBLE, admin.namespaces().getSchemaCompatibilityStrategy(ns));
        assertFalse(admin.namespaces().getSchemaValidationEnforced(ns));
        admin.namespaces().setSchemaValidationEnforced(ns, true);
        assertTrue(admin.namespaces().getSchemaValidationEnforced(ns));
        assertTrue(admin.namespaces().getIsAllowAutoUpdateSchema(ns));

        // ALWAYS_COMPATIBLE: an unrelated record schema is admitted as version 1.
        String topic = "persistent://" + ns + "/t";
        try (Producer<User> p1 = client.newProducer(Schema.AVRO(User.class)).topic(topic).create();
                Producer<Order> p2 = client.newProducer(Schema.AVRO(Order.class)).topic(topic).create()) {
            p1.send(new User("a", 1));
            p2.send(new Order(1, 1.0));
        }
        assertEquals(2, admin.schemas().getAllSchemas(topic).size());

        // Validation enforced: a producer without a schema is refused; the text differs by release.
        PulsarClientException.IncompatibleSchemaException e = assertThrows(
                PulsarClientException.IncompatibleSchemaException.class,
                () -> client.newProducer().topic(topic).create());
        // The text changed with #23344 (4.0 and later; the missing space is the broker's).
        String text = CnxsimServe.olderThan(4, 0)
                ? "Producers cannot connect or send message without a schema to topics with a schema"
                : "Producers cannot connect or send message without a schema to topics with a schema"
                        + "when SchemaValidationEnforced is enabled";
        String cause = "org.apache.pulsar.broker.service.schema.exceptions.IncompatibleSchemaException: " + text;
        assertEquals(cause + " caused by " + cause, Clients.brokerText(e));

        // Auto-update off: a new schema is refused even when compatible.
        admin.namespaces().setIsAllowAutoUpdateSchema(ns, false);
        assertFalse(admin.namespaces().getIsAllowAutoUpdateSchema(ns));
        PulsarClientException.IncompatibleSchemaException off = assertThrows(
                PulsarClientException.IncompatibleSchemaException.class,
                () -> client.newProducer(Schema.AVRO(UserV2.class)).topic(topic).create());
        String offText = "org.apache.pulsar.broker.service.schema.exceptions.IncompatibleSchemaException: "
                + "Schema not found and schema auto updating is disabled.";
        assertEquals(offText + " caused by " + offText, Clients.brokerText(off));
    }

    @Test
    void topicPoliciesSchemaCompatibilityStrategy() throws Exception {
        String topic = Clients.topic("topic-policy");
        admin.topics().createNonPartitionedTopic(topic);
        assertNull(admin.topicPolicies().getSchemaCompatibilityStrategy(topic, false));
        admin.topicPolicies().setSchemaCompatibilityStrategy(topic, SchemaCompatibilityStrategy.ALWAYS_INCOMPATIBLE);
        assertEquals(SchemaCompatibilityStrategy.ALWAYS_INCOMPATIBLE,
                admin.topicPolicies().getSchemaCompatibilityStrategy(topic, false));
        try (Producer<User> p = client.newProducer(Schema.AVRO(User.class)).topic(topic).create()) {
            PulsarClientException.IncompatibleSchemaException e = assertThrows(
                    PulsarClientException.IncompatibleSchemaException.class,
                    () -> client.newProducer(Schema.AVRO(UserV2.class)).topic(topic).create());
            String text = Clients.brokerText(e);
            assertTrue(text.startsWith("org.apache.pulsar.broker.service.schema.exceptions.IncompatibleSchemaException: "
                    + "Error during schema compatibility check with strategy ALWAYS_INCOMPATIBLE: "
                    + "org.apache.avro.SchemaValidationException: Unable to read schema: \n{"), text);
        }
        admin.topicPolicies().removeSchemaCompatibilityStrategy(topic);
        assertNull(admin.topicPolicies().getSchemaCompatibilityStrategy(topic, false));
        assertEquals(SchemaCompatibilityStrategy.FULL, admin.topicPolicies().getSchemaCompatibilityStrategy(topic, true));
    }
}
