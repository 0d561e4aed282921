package org.cnxsim.springboot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.cnxsim.junit5.CnxsimServe;
import org.cnxsim.junit5.CnxsimServer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * The same application with the JUnit extension (testkit/java): @CnxsimServe on
 * the @SpringBootTest class starts serve on free ports and Spring gets its
 * URLs as spring.pulsar.client.service-url and spring.pulsar.admin.service-url,
 * with nothing else written.
 */
@SpringBootTest
@CnxsimServe(version = "4.2")
class ExtensionPropertiesTest extends GreetingsContract {
    @Autowired
    CnxsimServer fromContext;

    @Test
    void springGetsTheServersUrls(CnxsimServer server) {
        assertSame(fromContext, server, "the parameter is the context's server");
        assertEquals(server.serviceUrl(), properties.getClient().getServiceUrl());
        assertEquals(server.adminUrl(), properties.getAdmin().getServiceUrl());
        assertNotEquals("pulsar://localhost:6650", server.serviceUrl());
        assertEquals("4.2", server.version().substring(0, 3));
    }
}
