package org.cnxsim.junit5;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.RepeatedTest;

/** scope = PER_METHOD: a fresh server for each test, stopped after it. */
@CnxsimServe(scope = CnxsimServe.Scope.PER_METHOD)
class PerMethodTest {
    private static final List<CnxsimServer> SEEN = new ArrayList<>();
    private CnxsimServer fromBeforeEach;

    @BeforeEach
    void before(CnxsimServer server) {
        fromBeforeEach = server;
    }

    @RepeatedTest(3)
    void eachTestHasItsOwnServer(CnxsimServer server) throws Exception {
        assertSame(fromBeforeEach, server, "@BeforeEach and the test share the method's server");
        for (CnxsimServer earlier : SEEN) {
            assertNotSame(earlier, server);
            assertFalse(earlier.isAlive(), "the previous method's server was stopped");
        }
        SEEN.add(server);
        assertEquals(200, Http.get(server.adminUrl() + "/admin/v2/clusters").statusCode());
    }

    @AfterAll
    static void threeServersAllStopped() {
        assertEquals(3, SEEN.size());
        for (CnxsimServer s : SEEN) {
            assertFalse(s.isAlive());
            assertFalse(Http.listening(s.adminUrl()), "nothing listens on " + s.adminUrl() + " any more");
        }
        assertTrue(SEEN.stream().map(CnxsimServer::serviceUrl).distinct().count() >= 1);
    }
}
