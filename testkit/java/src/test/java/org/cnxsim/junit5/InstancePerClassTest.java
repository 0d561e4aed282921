package org.cnxsim.junit5;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** @TestInstance(PER_CLASS) makes the instance before beforeAll: the constructor still gets the class's one server. */
@CnxsimServe
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InstancePerClassTest {
    private final CnxsimServer fromConstructor;
    private CnxsimServer fromBeforeAll;

    InstancePerClassTest(CnxsimServer server) {
        this.fromConstructor = server;
    }

    @BeforeAll
    void before(CnxsimServer server) {
        fromBeforeAll = server;
    }

    @Test
    void oneServer(CnxsimServer server) {
        assertSame(fromConstructor, server);
        assertSame(fromBeforeAll, server);
        assertTrue(server.isAlive());
    }
}
