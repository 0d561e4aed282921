package org.cnxsim.junit5;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Plain @ExtendWith: the defaults (the newest release, free ports); restart() and upgrade() through /cnxsim/. */
@ExtendWith(CnxsimExtension.class)
class ExtendWithTest {
    private final CnxsimServer server;

    ExtendWithTest(CnxsimServer server) {
        this.server = server;
    }

    @Test
    void defaultsServeTheNewestRelease() throws Exception {
        assertFalse(server.command().contains("--broker-version"), server.command().toString());
        assertEquals("[\"standalone\"]", Http.get(server.adminUrl() + "/admin/v2/clusters").body());
    }

    @Test
    void upgradeAndRestartKeepTheUrls() throws Exception {
        String before = server.version();
        server.upgrade("3.0");
        assertTrue(server.version().startsWith("3.0."), server.version());
        server.restart();
        String status = Http.get(server.adminUrl() + "/cnxsim/status").body();
        assertTrue(status.contains("\"serviceUrl\":\"" + server.serviceUrl() + "\""), status);
        server.upgrade(before);
        assertEquals(before, server.version());
    }
}
