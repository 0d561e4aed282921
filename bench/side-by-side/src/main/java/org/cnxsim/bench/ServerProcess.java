package org.cnxsim.bench;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One started server: spawned with `sh -c "exec COMMAND"`, ready once its
 * standard output shows a line starting with "ready: ", stopped with SIGTERM.
 * Standard error goes to a log file, named in every error.
 */
final class ServerProcess {
    private static final Pattern URL = Pattern.compile("pulsar://[^\\s,]+");
    // "(Apache Pulsar 4.2.4)" from run-broker, "(Pulsar 4.2.4 behaviour)" from cnxsim serve
    private static final Pattern VERSION = Pattern.compile("\\((?:Apache )?Pulsar (\\d+\\.\\d+\\.\\d+)");
    private static final int STOP_SECONDS = 60;

    private final Process process;
    private final Path log;
    final String readyLine;
    final double readyMillis;

    private ServerProcess(Process process, Path log, String readyLine, double readyMillis) {
        this.process = process;
        this.log = log;
        this.readyLine = readyLine;
        this.readyMillis = readyMillis;
    }

    /** A line read from the server's standard output and when it was read. */
    private record Line(String text, long nanos) {}

    private static final Line END = new Line(null, 0);

    /**
     * Spawns COMMAND and waits for its ready line. Throws with the reason and
     * the tail of the log when it exits first or takes longer than the timeout
     * (the process is stopped then).
     */
    static ServerProcess start(String command, int timeoutSeconds, Path logDir) throws IOException {
        Files.createDirectories(logDir);
        Path log = Files.createTempFile(logDir, "side-by-side-", ".log");
        ProcessBuilder builder = new ProcessBuilder("/bin/sh", "-c", "exec " + command)
                .redirectError(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        LinkedBlockingQueue<Line> lines = new LinkedBlockingQueue<>();
        long t0 = System.nanoTime();
        Process process = builder.start();
        Thread reader = new Thread(() -> drain(process, lines), "stdout-" + process.pid());
        reader.setDaemon(true);
        reader.start();
        long deadline = t0 + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                Line line = left > 0 ? lines.poll(left, TimeUnit.NANOSECONDS) : null;
                if (line == null) {
                    throw failure(process, log, "no ready line within " + timeoutSeconds + " s");
                }
                if (line == END) {
                    process.waitFor(5, TimeUnit.SECONDS);
                    String how = process.isAlive() ? "closed its standard output"
                            : "exited with status " + process.exitValue();
                    throw failure(process, log, how + " before printing a ready line");
                }
                if (line.text.startsWith("ready: ")) {
                    return new ServerProcess(process, log, line.text, (line.nanos - t0) / 1e6);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw failure(process, log, "interrupted");
        }
    }

    private static void drain(Process process, LinkedBlockingQueue<Line> lines) {
        try (BufferedReader r = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String text;
            while ((text = r.readLine()) != null) {
                long now = System.nanoTime();
                if (lines.size() < 10_000) {  // after the ready line nobody reads them
                    lines.add(new Line(text, now));
                }
            }
        } catch (IOException e) {
            // the process went away; END follows
        }
        lines.add(END);
    }

    private static IOException failure(Process process, Path log, String why) {
        String stopped = process.isAlive() ? stop(process) : null;
        String detail = why + (stopped == null ? "" : "; " + stopped);
        return new IOException(detail + "; log " + log + ":\n" + tail(log, 15));
    }

    ProcessHandle handle() {
        return process.toHandle();
    }

    /** The pulsar:// address in the ready line. */
    String serviceUrl() {
        Matcher m = URL.matcher(readyLine);
        if (!m.find()) {
            throw new IllegalStateException("no pulsar:// address in the ready line: " + readyLine);
        }
        return m.group();
    }

    /** The release in the ready line, or null when it names none. */
    String version() {
        Matcher m = VERSION.matcher(readyLine);
        return m.find() ? m.group(1) : null;
    }

    /** SIGTERM, then waits; null when it stopped cleanly, else what went wrong. */
    String stop() {
        String problem = stop(process);
        if (problem != null) {
            return problem + " (log " + log + ")";
        }
        try {
            Files.deleteIfExists(log);
        } catch (IOException e) {
            // a temporary file left behind is harmless
        }
        return null;
    }

    /**
     * Sends SIGTERM and waits up to 60 s. A process that outlives that, or
     * children left behind, are killed, and the returned text says so.
     */
    private static String stop(Process process) {
        List<ProcessHandle> tree = ProcTree.members(process.toHandle());
        process.destroy();
        String problem = null;
        try {
            if (!process.waitFor(STOP_SECONDS, TimeUnit.SECONDS)) {
                problem = "did not stop within " + STOP_SECONDS + " s of SIGTERM (killed)";
            } else if (process.exitValue() != 0 && process.exitValue() != 143) {
                problem = "exited with status " + process.exitValue() + " on SIGTERM";
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            problem = "interrupted while stopping";
        }
        int left = killLeftovers(tree);
        if (left > 0) {
            String more = left + " process(es) of its tree still alive after it stopped (killed)";
            problem = problem == null ? more : problem + "; " + more;
        }
        return problem;
    }

    private static int killLeftovers(List<ProcessHandle> tree) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline && tree.stream().anyMatch(ProcessHandle::isAlive)) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        int left = 0;
        for (ProcessHandle p : tree) {
            if (p.isAlive()) {
                left++;
                p.destroyForcibly();
            }
        }
        return left;
    }

    private static String tail(Path log, int n) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - n), all.size()));
        } catch (IOException e) {
            return "(unreadable: " + e.getMessage() + ")";
        }
    }
}
