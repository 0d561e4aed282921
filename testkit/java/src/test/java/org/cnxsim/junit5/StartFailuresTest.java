package org.cnxsim.junit5;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each way a start can fail says what happened, with serve's stderr where it ran. */
class StartFailuresTest {
    @Test
    void missingBinary() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> CnxsimServer.builder().binary("/nonexistent/cnxsim").start());
        assertEquals("cnxsim not found at /nonexistent/cnxsim (the path given): no such file", e.getMessage());
    }

    @Test
    void binaryNotExecutable(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("cnxsim"), "not a program");
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> CnxsimServer.builder().binary(file.toString()).start());
        assertEquals("cnxsim at " + file + " (the path given) is not an executable file", e.getMessage());
    }

    @Test
    void serveExitingBeforeItsReadyLine() {
        // serve refuses a release it does not model: exit 2 and the reason on stderr.
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> CnxsimServer.builder().version("9.9").start());
        assertTrue(e.getMessage().startsWith("cnxsim serve exited with status 2 before its ready line: ["),
                e.getMessage());
        assertTrue(e.getMessage().contains("--broker-version, 9.9]\nstderr:\n"), e.getMessage());
        assertTrue(e.getMessage().contains("9.9"), e.getMessage());
    }

    @Test
    void noReadyLineWithinTheBound(@TempDir Path dir) throws Exception {
        Path silent = dir.resolve("silent-cnxsim");
        Files.writeString(silent, "#!/bin/sh\necho starting >&2\nexec sleep 60\n");
        Files.setPosixFilePermissions(silent, PosixFilePermissions.fromString("rwx------"));
        long start = System.nanoTime();
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> CnxsimServer.builder().binary(silent.toString()).startTimeout(Duration.ofSeconds(1)).start());
        assertTrue(e.getMessage().startsWith("cnxsim serve printed no ready line within 1 s: [" + silent),
                e.getMessage());
        assertTrue(e.getMessage().endsWith("\nstderr:\nstarting\n"), e.getMessage());
        assertTrue(System.nanoTime() - start < 10_000_000_000L, "bounded");
    }

    @Test
    void aSettingIsKeyEqualsValue() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> CnxsimServer.builder().settings("allowAutoTopicCreation"));
        assertEquals("a setting is key=value, got \"allowAutoTopicCreation\"", e.getMessage());
    }
}
