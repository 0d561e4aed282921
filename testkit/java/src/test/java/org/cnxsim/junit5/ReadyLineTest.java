package org.cnxsim.junit5;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** The ready line is read by scheme, never by position (`cnxsim help serve`). */
class ReadyLineTest {
    @Test
    void plainListeners() {
        CnxsimServer.ReadyLine r = CnxsimServer.ReadyLine.parse(
                "ready: pulsar://127.0.0.1:41327 (Pulsar 3.0.16 behaviour), admin http://127.0.0.1:38211");
        assertEquals("pulsar://127.0.0.1:41327", r.serviceUrl());
        assertEquals("http://127.0.0.1:38211", r.adminUrl());
        assertNull(r.tlsServiceUrl());
        assertNull(r.tlsAdminUrl());
        assertEquals("3.0.16", r.release());
    }

    @Test
    void plainAndTlsListeners() {
        CnxsimServer.ReadyLine r = CnxsimServer.ReadyLine.parse("ready: pulsar://127.0.0.1:1 (Pulsar 4.2.5 behaviour),"
                + " admin http://127.0.0.1:2, pulsar+ssl://localhost:3, admin https://localhost:4");
        assertEquals("pulsar://127.0.0.1:1", r.serviceUrl());
        assertEquals("http://127.0.0.1:2", r.adminUrl());
        assertEquals("pulsar+ssl://localhost:3", r.tlsServiceUrl());
        assertEquals("https://localhost:4", r.tlsAdminUrl());
        assertEquals("4.2.5", r.release());
    }

    @Test
    void tlsOnly() {
        CnxsimServer.ReadyLine r = CnxsimServer.ReadyLine.parse(
                "ready: pulsar+ssl://127.0.0.1:3 (Pulsar 4.2.5 behaviour), admin https://127.0.0.1:4");
        assertNull(r.serviceUrl());
        assertNull(r.adminUrl());
        assertEquals("pulsar+ssl://127.0.0.1:3", r.tlsServiceUrl());
        assertEquals("https://127.0.0.1:4", r.tlsAdminUrl());
    }

    @Test
    void otherLinesAreNotReadyLines() {
        assertNull(CnxsimServer.ReadyLine.parse("serve: listening"));
        assertNull(CnxsimServer.ReadyLine.parse("ready: nothing"));
        assertNull(CnxsimServer.ReadyLine.parse(null));
    }
}
