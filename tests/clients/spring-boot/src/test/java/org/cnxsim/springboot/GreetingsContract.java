package org.cnxsim.springboot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.Schema;
import org.apache.pulsar.common.schema.SchemaInfo;
import org.apache.pulsar.common.schema.SchemaType;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.pulsar.autoconfigure.PulsarProperties;
import org.springframework.pulsar.PulsarException;
import org.springframework.pulsar.core.PulsarTemplate;

/**
 * What the application does against a broker, asserted as a user would: the
 * greeting arrives at the listener with its fields, the topic's schema is the
 * record's JSON schema (read with PulsarAdmin at the admin URL Spring was
 * given), and a producer of an incompatible record is refused with the Java
 * client's IncompatibleSchemaException (inside Spring's
 * PulsarException) and Pulsar's text.
 */
abstract class GreetingsContract {
    @Autowired
    GreetingsApplication.GreetingSender sender;

    @Autowired
    GreetingsApplication.GreetingListener listener;

    @Autowired
    PulsarTemplate<?> template;

    @Autowired
    PulsarProperties properties;

    /** A record whose JSON schema FULL compatibility refuses after Greeting's (name changes type). */
    record Renamed(long name, String greeting) {}

    /** Boot's one PulsarTemplate bean sends any type with an explicit schema. */
    @SuppressWarnings("unchecked")
    static <T> PulsarTemplate<T> typed(PulsarTemplate<?> template) {
        return (PulsarTemplate<T>) template;
    }

    @Test
    void aGreetingArrivesWithItsFields() throws Exception {
        sender.greet("ada", 3);
        Greeting received = listener.received().poll(30, TimeUnit.SECONDS);
        assertNotNull(received, "the listener got the greeting within 30 s");
        assertEquals(new Greeting("ada", 3), received);
    }

    @Test
    void theTopicHasTheRecordsJsonSchema() throws Exception {
        sender.greet("grace", 1);
        try (PulsarAdmin admin = PulsarAdmin.builder().serviceHttpUrl(properties.getAdmin().getServiceUrl())
                .connectionTimeout(5, TimeUnit.SECONDS).readTimeout(10, TimeUnit.SECONDS).build()) {
            SchemaInfo info = admin.schemas().getSchemaInfo("persistent://public/default/greetings");
            assertEquals(SchemaType.JSON, info.getType());
            String definition = new String(info.getSchema(), StandardCharsets.UTF_8);
            assertTrue(definition.contains("\"name\":\"Greeting\""), definition);
            assertTrue(definition.contains("\"name\":\"count\",\"type\":\"int\""), definition);
        }
    }

    @Test
    void anIncompatibleRecordIsRefused() throws Exception {
        String topic = "persistent://public/default/greetings-evolved";
        PulsarTemplate<Greeting> greetings = typed(template);
        PulsarTemplate<Renamed> renamed = typed(template);
        greetings.send(topic, new Greeting("first", 1), Schema.JSON(Greeting.class));
        // Spring Pulsar wraps the client's exception in its own PulsarException.
        PulsarException e = assertThrows(PulsarException.class,
                () -> renamed.send(topic, new Renamed(1L, "hi"), Schema.JSON(Renamed.class)));
        PulsarClientException.IncompatibleSchemaException cause = assertInstanceOf(
                PulsarClientException.IncompatibleSchemaException.class, e.getCause());
        assertTrue(cause.getMessage().startsWith("{\"errorMsg\":\"org.apache.pulsar.broker.service.schema.exceptions."
                + "IncompatibleSchemaException: Error during schema compatibility check with strategy FULL: "
                + "org.apache.avro.SchemaValidationException: Unable to read schema: \n{"), cause.getMessage());
        assertTrue(cause.getMessage().contains("\"name\" : \"Renamed\""), cause.getMessage());
    }
}
