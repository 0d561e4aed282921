package org.cnxsim.clients;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.Schema;
import org.apache.pulsar.client.api.schema.GenericRecord;
import org.apache.pulsar.common.schema.KeyValue;
import org.apache.pulsar.common.schema.KeyValueEncodingType;
import org.apache.pulsar.common.schema.SchemaInfo;
import org.apache.pulsar.common.schema.SchemaType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Producer and consumer admission with the Java client's own schema classes, and round trips. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SchemaTest {
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
    void avroPojoRoundTripWithSchemaVersionAndStructProperties() throws Exception {
        String topic = Clients.topic("avro");
        try (Consumer<User> consumer = client.newConsumer(Schema.AVRO(User.class)).topic(topic)
                        .subscriptionName("s").subscribe();
                Producer<User> producer = client.newProducer(Schema.AVRO(User.class)).topic(topic).create()) {
            producer.send(new User("ada", 36));
            Message<User> m = Clients.receive(consumer);
            assertEquals(new User("ada", 36), m.getValue());
            assertEquals(0L, Clients.version(m));
        }
        SchemaInfo info = admin.schemas().getSchemaInfo(topic);
        assertEquals(SchemaType.AVRO, info.getType());
        assertEquals(Map.of("__alwaysAllowNull", "true", "__jsr310ConversionEnabled", "false"), info.getProperties());
        assertEquals(Schema.AVRO(User.class).getSchemaInfo().getSchemaDefinition(), info.getSchemaDefinition());
    }

    @Test
    void jsonPojoRoundTrip() throws Exception {
        String topic = Clients.topic("json");
        try (Consumer<User> consumer = client.newConsumer(Schema.JSON(User.class)).topic(topic)
                        .subscriptionName("s").subscribe();
                Producer<User> producer = client.newProducer(Schema.JSON(User.class)).topic(topic).create()) {
            producer.send(new User("grace", 45));
            Message<User> m = Clients.receive(consumer);
            assertEquals(new User("grace", 45), m.getValue());
            assertEquals(0L, Clients.version(m));
            assertEquals("{\"name\":\"grace\",\"age\":45}", new String(m.getData(), StandardCharsets.UTF_8));
        }
        assertEquals(SchemaType.JSON, admin.schemas().getSchemaInfo(topic).getType());
    }

    @Test
    void avroEvolutionGetsVersionOne() throws Exception {
        String topic = Clients.topic("evolve");
        try (Consumer<GenericRecord> consumer = client.newConsumer(Schema.AUTO_CONSUME()).topic(topic)
                        .subscriptionName("s").subscribe()) {
            try (Producer<User> p1 = client.newProducer(Schema.AVRO(User.class)).topic(topic).create()) {
                p1.send(new User("a", 1));
            }
            try (Producer<UserV2> p2 = client.newProducer(Schema.AVRO(UserV2.class)).topic(topic).create()) {
                p2.send(new UserV2("b", 2, "b@example.com"));
            }
            Message<GenericRecord> first = Clients.receive(consumer);
            assertEquals(0L, Clients.version(first));
            assertEquals("a", first.getValue().getField("name").toString());
            Message<GenericRecord> second = Clients.receive(consumer);
            assertEquals(1L, Clients.version(second));
            assertEquals("b@example.com", second.getValue().getField("email").toString());
        }
        assertEquals(2, admin.schemas().getAllSchemas(topic).size());
    }

    @Test
    void incompatibleProducerIsRefusedWithTheBrokersText() throws Exception {
        String topic = Clients.topic("incompatible-producer");
        try (Producer<User> p = client.newProducer(Schema.AVRO(User.class)).topic(topic).create()) {
            PulsarClientException.IncompatibleSchemaException e = assertThrows(
                    PulsarClientException.IncompatibleSchemaException.class,
                    () -> client.newProducer(Schema.AVRO(Order.class)).topic(topic).create());
            String text = Clients.brokerText(e);
            String head = "org.apache.pulsar.broker.service.schema.exceptions.IncompatibleSchemaException: "
                    + "Error during schema compatibility check with strategy FULL: "
                    + "org.apache.avro.SchemaValidationException: Unable to read schema: \n{";
            assertTrue(text.startsWith(head), text);
            // The new schema (Order) read with the existing one (User).
            assertTrue(text.indexOf("\"name\" : \"Order\"") < text.indexOf("using schema:"), text);
            assertTrue(text.indexOf("\"name\" : \"User\"") > text.indexOf("using schema:"), text);
        }
    }

    @Test
    void incompatibleConsumerIsRefusedWithTheBrokersText() throws Exception {
        String topic = Clients.topic("incompatible-consumer");
        try (Producer<User> p = client.newProducer(Schema.AVRO(User.class)).topic(topic).create()) {
            PulsarClientException.IncompatibleSchemaException e = assertThrows(
                    PulsarClientException.IncompatibleSchemaException.class,
                    () -> client.newConsumer(Schema.AVRO(Order.class)).topic(topic).subscriptionName("s").subscribe());
            String text = Clients.brokerText(e);
            // A consumer's schema is checked BACKWARD whatever the strategy, and its text has no exception prefix.
            String head = "Error during schema compatibility check with strategy BACKWARD: "
                    + "org.apache.avro.SchemaValidationException: Unable to read schema: \n{";
            assertTrue(text.startsWith(head), text);
            assertTrue(text.indexOf("\"name\" : \"User\"") < text.indexOf("using schema:"), text);
            assertTrue(text.indexOf("\"name\" : \"Order\"") > text.indexOf("using schema:"), text);
        }
    }

    @Test
    void primitivesRoundTripAndAnotherPrimitiveIsRefused() throws Exception {
        String topic = Clients.topic("int64");
        try (Consumer<Long> consumer = client.newConsumer(Schema.INT64).topic(topic).subscriptionName("s").subscribe();
                Producer<Long> producer = client.newProducer(Schema.INT64).topic(topic).create()) {
            producer.send(42L);
            Message<Long> m = Clients.receive(consumer);
            assertEquals(42L, m.getValue());
            assertEquals(0L, Clients.version(m));
            PulsarClientException.IncompatibleSchemaException e = assertThrows(
                    PulsarClientException.IncompatibleSchemaException.class,
                    () -> client.newProducer(Schema.STRING).topic(topic).create());
            String cause = "org.apache.pulsar.broker.service.schema.exceptions.IncompatibleSchemaException: "
                    + "Incompatible schema: exists schema type INT64, new schema type STRING";
            assertEquals(cause + " caused by " + cause, Clients.brokerText(e));
        }
        String s = Clients.topic("string");
        try (Consumer<String> consumer = client.newConsumer(Schema.STRING).topic(s).subscriptionName("s").subscribe();
                Producer<String> producer = client.newProducer(Schema.STRING).topic(s).create()) {
            producer.send("héllo");
            assertEquals("héllo", Clients.receive(consumer).getValue());
        }
        assertEquals(SchemaType.STRING, admin.schemas().getSchemaInfo(s).getType());
        String d = Clients.topic("double");
        try (Consumer<Double> consumer = client.newConsumer(Schema.DOUBLE).topic(d).subscriptionName("s").subscribe();
                Producer<Double> producer = client.newProducer(Schema.DOUBLE).topic(d).create()) {
            producer.send(2.5);
            assertEquals(2.5, Clients.receive(consumer).getValue());
        }
    }

    @Test
    void bytesWithoutSchema() throws Exception {
        String topic = Clients.topic("bytes");
        try (Consumer<byte[]> consumer = client.newConsumer().topic(topic).subscriptionName("s").subscribe();
                Producer<byte[]> producer = client.newProducer().topic(topic).create()) {
            producer.send(new byte[] {1, 2, 3});
            Message<byte[]> m = Clients.receive(consumer);
            assertArrayEquals(new byte[] {1, 2, 3}, m.getValue());
        }
        assertEquals(0, admin.schemas().getAllSchemas(topic).size());
    }

    @Test
    void keyValueInlineAndSeparated() throws Exception {
        for (KeyValueEncodingType encoding : KeyValueEncodingType.values()) {
            Schema<KeyValue<String, User>> schema =
                    Schema.KeyValue(Schema.STRING, Schema.AVRO(User.class), encoding);
            String topic = Clients.topic("kv-" + encoding.name().toLowerCase());
            try (Consumer<KeyValue<String, User>> consumer =
                            client.newConsumer(schema).topic(topic).subscriptionName("s").subscribe();
                    Producer<KeyValue<String, User>> producer = client.newProducer(schema).topic(topic).create()) {
                producer.send(new KeyValue<>("k1", new User("kv", 7)));
                Message<KeyValue<String, User>> m = Clients.receive(consumer);
                assertEquals("k1", m.getValue().getKey());
                assertEquals(new User("kv", 7), m.getValue().getValue());
                assertEquals(0L, Clients.version(m));
                if (encoding == KeyValueEncodingType.SEPARATED) {
                    assertTrue(m.hasBase64EncodedKey(), "SEPARATED carries the key in partition_key, base64");
                }
            }
            SchemaInfo info = admin.schemas().getSchemaInfo(topic);
            assertEquals(SchemaType.KEY_VALUE, info.getType());
            assertEquals(encoding.name(), info.getProperties().get("kv.encoding.type"));
        }
    }

    @Test
    void autoConsumeDecodesWithTheTopicsSchema() throws Exception {
        String topic = Clients.topic("auto-consume");
        try (Producer<User> producer = client.newProducer(Schema.AVRO(User.class)).topic(topic).create();
                Consumer<GenericRecord> consumer = client.newConsumer(Schema.AUTO_CONSUME()).topic(topic)
                        .subscriptionName("s").subscribe()) {
            producer.send(new User("auto", 3));
            Message<GenericRecord> m = Clients.receive(consumer);
            assertEquals("auto", m.getValue().getField("name").toString());
            assertEquals(3, m.getValue().getField("age"));
            assertEquals(SchemaType.AVRO, m.getValue().getSchemaType());
            assertEquals(0L, Clients.version(m));
        }
    }

    @Test
    void autoProduceBytesTakesTheTopicsSchema() throws Exception {
        String topic = Clients.topic("auto-produce");
        Schema<User> avro = Schema.AVRO(User.class);
        try (Consumer<User> consumer = client.newConsumer(avro).topic(topic).subscriptionName("s").subscribe();
                Producer<byte[]> producer = client.newProducer(Schema.AUTO_PRODUCE_BYTES()).topic(topic).create()) {
            producer.send(avro.encode(new User("bytes", 9)));
            Message<User> m = Clients.receive(consumer);
            assertEquals(new User("bytes", 9), m.getValue());
            assertEquals(0L, Clients.version(m));
        }
    }

    @Test
    void multiSchemaProducerRegistersEachSchemaOnFirstUse() throws Exception {
        String topic = Clients.topic("multi");
        try (Consumer<GenericRecord> consumer = client.newConsumer(Schema.AUTO_CONSUME()).topic(topic)
                        .subscriptionName("s").subscribe();
                Producer<byte[]> producer = client.newProducer().topic(topic).create()) {
            producer.newMessage(Schema.AVRO(User.class)).value(new User("m1", 1)).send();
            producer.newMessage(Schema.AVRO(UserV2.class)).value(new UserV2("m2", 2, "e")).send();
            assertEquals(0L, Clients.version(Clients.receive(consumer)));
            Message<GenericRecord> second = Clients.receive(consumer);
            assertEquals(1L, Clients.version(second));
            assertEquals("e", second.getValue().getField("email").toString());
            // GET_OR_CREATE_SCHEMA refused: the client reports it in its own words, naming the schema.
            PulsarClientException.IncompatibleSchemaException e = assertThrows(
                    PulsarClientException.IncompatibleSchemaException.class,
                    () -> producer.newMessage(Schema.AVRO(Order.class)).value(new Order(1, 2.0)).send());
            assertTrue(e.getMessage().startsWith("[" + topic + "] [" + producer.getProducerName()
                    + "] incompatible schema {"), e.getMessage());
            assertTrue(e.getMessage().contains("\"name\": \"Order\""), e.getMessage());
            // The producer stays usable for the schemas it registered.
            producer.newMessage(Schema.AVRO(User.class)).value(new User("m3", 3)).send();
            assertEquals(0L, Clients.version(Clients.receive(consumer)));
        }
    }
}
