package org.cnxsim.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Test;

/**
 * The fixture itself, without a server: the ready line `cnxsim help serve`
 * documents is parsed, and a missing binary is a clear error. scripts/bootstrap
 * runs this class online once, so that surefire's JUnit provider is in ~/.m2
 * for the offline ctest runs.
 */
class ServeFixtureTest {
    @Test
    void readyLineGivesServiceAdminAndRelease() {
        Matcher m = CnxsimServe.READY.matcher(
                "ready: pulsar://127.0.0.1:41327 (Pulsar 3.0.16 behaviour), admin http://127.0.0.1:38211");
        assertTrue(m.matches());
        assertEquals("pulsar://127.0.0.1:41327", m.group(1));
        assertEquals("3.0.16", m.group(2));
        assertEquals("http://127.0.0.1:38211", m.group(3));
    }

    @Test
    void missingBinaryIsAClearError() {
        IOException e = assertThrows(IOException.class,
                () -> new CnxsimServe().start("/nonexistent/cnxsim", "ServeFixtureTest"));
        assertTrue(e.getMessage().startsWith("cannot start cnxsim serve (/nonexistent/cnxsim; set -Dcnxsim.bin): "),
                e.getMessage());
    }
}
