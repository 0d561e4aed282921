package org.cnxsim.junit5;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The builder without the extension: start, serve, stop with SIGTERM, idempotent close. */
class LifecycleTest {
    @Test
    void startsServesAndStops() throws Exception {
        CnxsimServer server = CnxsimServer.builder().start();
        try {
            assertTrue(server.isAlive());
            assertTrue(Http.listening(server.serviceUrl().replace("pulsar://", "http://")));
            assertEquals(200, Http.get(server.adminUrl() + "/admin/v2/clusters").statusCode());
        } finally {
            server.close();
        }
        assertFalse(server.isAlive());
        assertFalse(Http.listening(server.adminUrl()));
        server.close(); // a second close does nothing
    }
}
