package org.cnxsim.springboot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.apache.pulsar.client.api.Schema;
import org.apache.pulsar.common.schema.SchemaInfo;
import org.apache.pulsar.common.schema.SchemaType;
import org.junit.jupiter.api.Test;

/**
 * The JSON schema the client derives from the Greeting record, which
 * GreetingsContract then finds on the topic. Needs no server: scripts/bootstrap
 * runs it online once, so that surefire's JUnit provider is in ~/.m2 for the
 * offline ctest run.
 */
class GreetingSchemaTest {
    @Test
    void theRecordGivesAJsonSchemaWithItsFields() {
        SchemaInfo info = Schema.JSON(Greeting.class).getSchemaInfo();
        assertEquals(SchemaType.JSON, info.getType());
        String definition = new String(info.getSchema(), StandardCharsets.UTF_8);
        assertTrue(definition.contains("\"name\":\"Greeting\""), definition);
        assertTrue(definition.contains("\"name\":\"count\",\"type\":\"int\""), definition);
    }
}
