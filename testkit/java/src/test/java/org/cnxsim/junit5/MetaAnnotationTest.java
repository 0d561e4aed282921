package org.cnxsim.junit5;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** @CnxsimServe as a meta-annotation: a project's own annotation carries the options. */
@MetaAnnotationTest.PulsarThree
class MetaAnnotationTest {
    @Target(ElementType.TYPE)
    @Retention(RetentionPolicy.RUNTIME)
    @CnxsimServe(version = "3.0")
    @interface PulsarThree {}

    private static CnxsimServer outer;

    @org.junit.jupiter.api.BeforeAll
    static void before(CnxsimServer server) {
        outer = server;
    }

    @Test
    void optionsComeFromTheMetaAnnotation(CnxsimServer server) {
        assertTrue(server.version().startsWith("3.0."), server.version());
    }

    @Nested
    class Inner {
        @Test
        void aNestedClassSharesTheOuterServer(CnxsimServer server) {
            assertSame(outer, server);
            assertTrue(server.isAlive());
        }
    }

    @Nested
    @CnxsimServe(version = "4.2")
    class WithItsOwnAnnotation {
        @Test
        void getsItsOwnServer(CnxsimServer server) {
            assertTrue(server != outer, "another server");
            assertTrue(server.version().startsWith("4.2."), server.version());
        }
    }
}
