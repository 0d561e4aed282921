package org.cnxsim.junit5;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One running {@code cnxsim serve}: its URLs as the ready line named them, the
 * release it serves, and {@link #restart()}, {@link #upgrade(String)} and
 * {@link #close()}. Made by {@link CnxsimExtension} for {@link CnxsimServe}
 * tests, or directly with {@link #builder()} where settings are known only at
 * run time (certificate paths, tokens).
 *
 * <p>Thread-safe; {@link #close()} is idempotent.
 */
public final class CnxsimServer implements AutoCloseable {
    /** The system property, then the environment variable, that names the binary. */
    public static final String BINARY_PROPERTY = "CNXSIM";

    private static final Pattern RELEASE = Pattern.compile("\\(Pulsar (\\S+) behaviour\\)");
    private static final Pattern PULSAR = Pattern.compile("(?<![\\w+])pulsar://[^ ,]+");
    private static final Pattern PULSAR_SSL = Pattern.compile("pulsar\\+ssl://[^ ,]+");
    private static final Pattern HTTP = Pattern.compile("(?<![\\w+])http://[^ ,]+");
    private static final Pattern HTTPS = Pattern.compile("https://[^ ,]+");
    private static final int KEPT_OUTPUT = 64 * 1024;

    private final List<String> command;
    private final Process process;
    private final Output stdout;
    private final Output stderr;
    private final ReadyLine ready;
    private final Duration stopTimeout;
    private volatile String release;
    private boolean closed;

    private CnxsimServer(List<String> command, Process process, Output stdout, Output stderr,
                         ReadyLine ready, Duration stopTimeout) {
        this.command = command;
        this.process = process;
        this.stdout = stdout;
        this.stderr = stderr;
        this.ready = ready;
        this.stopTimeout = stopTimeout;
        this.release = ready.release();
    }

    /** A builder for a server with the defaults: the newest release, free ports, no settings. */
    public static Builder builder() {
        return new Builder();
    }

    /** The binary protocol's plain URL, e.g. {@code pulsar://127.0.0.1:41327}; null when serve has no plain listener. */
    public String serviceUrl() {
        return ready.serviceUrl();
    }

    /** The admin REST API's plain URL, e.g. {@code http://127.0.0.1:38211}; null when serve has no plain admin listener. */
    public String adminUrl() {
        return ready.adminUrl();
    }

    /** The binary protocol's TLS URL ({@code pulsar+ssl://…}); null without a TLS listener. */
    public String tlsServiceUrl() {
        return ready.tlsServiceUrl();
    }

    /** The admin REST API's TLS URL ({@code https://…}); null without a TLS admin listener. */
    public String tlsAdminUrl() {
        return ready.tlsAdminUrl();
    }

    /** The exact release served, e.g. "4.2.5" (after {@link #upgrade(String)}, the new one). */
    public String version() {
        return release;
    }

    /** The ready line serve printed. */
    public String readyLine() {
        return ready.line();
    }

    /** The command that started this server. */
    public List<String> command() {
        return command;
    }

    /** What serve wrote on stderr so far (the last 64 KiB). */
    public String stderr() {
        return stderr.text();
    }

    /** Restarts the broker in place on the same release, under the connected clients ({@code POST /cnxsim/restart}). */
    public void restart() {
        post("/cnxsim/restart");
    }

    /** Restarts the broker on another release ({@code POST /cnxsim/upgrade?version=V}); {@link #version()} follows. */
    public void upgrade(String version) {
        post("/cnxsim/upgrade?version=" + java.net.URLEncoder.encode(version, StandardCharsets.UTF_8));
        String status = get("/cnxsim/status");
        Matcher m = Pattern.compile("\"release\"\\s*:\\s*\"([^\"]+)\"").matcher(status);
        if (m.find()) {
            release = m.group(1);
        }
    }

    /**
     * Stops serve: SIGTERM, then up to the stop timeout (10 s by default) for it
     * to exit, then SIGKILL. Throws IllegalStateException, with serve's stderr,
     * when it had to be killed or exited with a status other than 0.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        process.destroy();
        boolean exited;
        try {
            exited = process.waitFor(stopTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            exited = false;
        }
        if (!exited) {
            process.destroyForcibly();
            throw new IllegalStateException("cnxsim serve did not stop within " + stopTimeout.toSeconds()
                    + " s of SIGTERM and was killed: " + command + stderrSection(stderr));
        }
        stdout.await();
        stderr.await();
        int status = process.exitValue();
        if (status != 0) {
            throw new IllegalStateException("cnxsim serve exited with status " + status + " on SIGTERM (0 expected): "
                    + command + stderrSection(stderr));
        }
    }

    /** True until {@link #close()} (or serve exiting by itself). */
    public boolean isAlive() {
        return process.isAlive();
    }

    @Override
    public String toString() {
        return "CnxsimServer[" + ready.line() + "]";
    }

    private String post(String path) {
        return send(HttpRequest.newBuilder(URI.create(controlUrl() + path)).POST(HttpRequest.BodyPublishers.noBody()));
    }

    private String get(String path) {
        return send(HttpRequest.newBuilder(URI.create(controlUrl() + path)).GET());
    }

    private String controlUrl() {
        if (adminUrl() == null) {
            throw new IllegalStateException("cnxsim serve has no plain admin listener for /cnxsim/ calls: " + ready.line());
        }
        return adminUrl();
    }

    private String send(HttpRequest.Builder request) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        try {
            HttpResponse<String> response = http.send(request.timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() / 100 != 2) {
                throw new IllegalStateException(response.request().method() + " " + response.uri() + " answered "
                        + response.statusCode() + ": " + response.body());
            }
            return response.body();
        } catch (IOException e) {
            throw new IllegalStateException("cannot reach cnxsim serve's admin port: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static String stderrSection(Output stderr) {
        String text = stderr.text();
        return text.isEmpty() ? "\n(nothing on stderr)" : "\nstderr:\n" + text;
    }

    /** The URLs of a ready line, found by scheme (the line names each scheme at most once, in any order). */
    public record ReadyLine(String line, String serviceUrl, String adminUrl, String tlsServiceUrl,
                            String tlsAdminUrl, String release) {
        /** The ready line's URLs, or null when {@code line} is not a ready line. */
        public static ReadyLine parse(String line) {
            if (line == null || !line.startsWith("ready: ")) {
                return null;
            }
            ReadyLine r = new ReadyLine(line, find(PULSAR, line), find(HTTP, line), find(PULSAR_SSL, line),
                    find(HTTPS, line), find(RELEASE, line));
            return r.serviceUrl() == null && r.tlsServiceUrl() == null ? null : r;
        }

        private static String find(Pattern p, String line) {
            Matcher m = p.matcher(line);
            if (!m.find()) {
                return null;
            }
            return m.groupCount() > 0 ? m.group(1) : m.group();
        }
    }

    /**
     * Where the binary is: {@code explicit} when given, else the system property
     * CNXSIM, else the environment variable CNXSIM, else {@code cnxsim} on PATH.
     * Throws IllegalStateException saying which was tried when none is an
     * executable file.
     */
    public static Path findBinary(String explicit) {
        String property = System.getProperty(BINARY_PROPERTY, "");
        String env = Objects.requireNonNullElse(System.getenv(BINARY_PROPERTY), "");
        String from;
        String path;
        if (explicit != null && !explicit.isEmpty()) {
            from = "the path given";
            path = explicit;
        } else if (!property.isEmpty()) {
            from = "the system property CNXSIM";
            path = property;
        } else if (!env.isEmpty()) {
            from = "the environment variable CNXSIM";
            path = env;
        } else {
            for (String dir : Objects.requireNonNullElse(System.getenv("PATH"), "").split(File.pathSeparator)) {
                if (dir.isEmpty()) {
                    continue;
                }
                Path candidate = Path.of(dir, "cnxsim");
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return candidate;
                }
            }
            throw new IllegalStateException("cnxsim not found: set the system property CNXSIM (-DCNXSIM=/path/to/cnxsim)"
                    + " or the environment variable CNXSIM to the binary, or put cnxsim on PATH"
                    + " (the .deb, the release tarball or the container image: testkit/java/README.md)");
        }
        Path p = Path.of(path);
        if (!Files.exists(p)) {
            throw new IllegalStateException("cnxsim not found at " + path + " (" + from + "): no such file");
        }
        if (!Files.isRegularFile(p) || !Files.isExecutable(p)) {
            throw new IllegalStateException("cnxsim at " + path + " (" + from + ") is not an executable file");
        }
        return p;
    }

    /** Options of one server; {@link #start()} starts it. */
    public static final class Builder {
        private String binary = "";
        private String version = "";
        private final List<String> settings = new ArrayList<>();
        private String setup = "";
        private final List<String> args = new ArrayList<>();
        private String port = "0";
        private String adminPort = "0";
        private Duration startTimeout = Duration.ofSeconds(30);
        private Duration stopTimeout = Duration.ofSeconds(10);

        private Builder() {}

        /** The binary's path (default: {@link CnxsimServer#findBinary}). */
        public Builder binary(String path) {
            this.binary = Objects.requireNonNull(path);
            return this;
        }

        /** {@code --broker-version V}; empty: the newest modelled release. */
        public Builder version(String version) {
            this.version = Objects.requireNonNull(version);
            return this;
        }

        /** {@code --set key=value}. */
        public Builder set(String key, String value) {
            settings.add(key + "=" + value);
            return this;
        }

        /** {@code --set key=value} for each {@code key=value} string. */
        public Builder settings(String... keyValues) {
            for (String kv : keyValues) {
                if (kv.indexOf('=') <= 0) {
                    throw new IllegalArgumentException("a setting is key=value, got \"" + kv + "\"");
                }
                settings.add(kv);
            }
            return this;
        }

        /** {@code --setup FILE}. */
        public Builder setup(String file) {
            this.setup = Objects.requireNonNull(file);
            return this;
        }

        /** Further arguments for {@code cnxsim serve}. */
        public Builder args(String... more) {
            Collections.addAll(args, more);
            return this;
        }

        /** {@code --port} (default 0, a free port; "none" for no plain listener). */
        public Builder port(String port) {
            this.port = Objects.requireNonNull(port);
            return this;
        }

        /** {@code --admin-port} (default 0, a free port). */
        public Builder adminPort(String port) {
            this.adminPort = Objects.requireNonNull(port);
            return this;
        }

        /** How long to wait for the ready line (default 30 s). */
        public Builder startTimeout(Duration timeout) {
            this.startTimeout = Objects.requireNonNull(timeout);
            return this;
        }

        /** How long to wait for serve to exit after SIGTERM (default 10 s). */
        public Builder stopTimeout(Duration timeout) {
            this.stopTimeout = Objects.requireNonNull(timeout);
            return this;
        }

        /** The command line {@link #start()} runs. */
        public List<String> command() {
            List<String> command = new ArrayList<>(List.of(findBinary(binary).toString(), "serve",
                    "--port", port, "--admin-port", adminPort));
            if (!version.isEmpty()) {
                command.addAll(List.of("--broker-version", version));
            }
            if (!setup.isEmpty()) {
                command.addAll(List.of("--setup", setup));
            }
            for (String kv : settings) {
                command.addAll(List.of("--set", kv));
            }
            command.addAll(args);
            return command;
        }

        /**
         * Starts serve and waits for its ready line. Throws IllegalStateException
         * (with serve's stderr) when the binary is missing, cannot run, exits
         * before the ready line, or prints none within the start timeout.
         */
        public CnxsimServer start() {
            List<String> command = List.copyOf(command());
            Process process;
            try {
                process = new ProcessBuilder(command).start();
            } catch (IOException e) {
                throw new IllegalStateException("cannot run cnxsim serve: " + command + ": " + e.getMessage(), e);
            }
            Output stderr = Output.drain(process.getErrorStream(), null, "cnxsim-serve-stderr");
            CompletableFuture<ReadyLine> readyLine = new CompletableFuture<>();
            Output stdout = Output.drain(process.getInputStream(), readyLine, "cnxsim-serve-stdout");
            ReadyLine ready;
            try {
                ready = readyLine.get(startTimeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                process.destroyForcibly();
                throw new IllegalStateException("cnxsim serve printed no ready line within " + startTimeout.toSeconds()
                        + " s: " + command + "\nstdout:\n" + stdout.text() + stderrSection(stderr));
            } catch (ExecutionException e) {
                // stdout ended without a ready line: serve exited (or closed stdout).
                int status = waitForExit(process);
                stderr.await();
                throw new IllegalStateException("cnxsim serve exited" + (status >= 0 ? " with status " + status : "")
                        + " before its ready line: " + command + stderrSection(stderr));
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting cnxsim serve", e);
            }
            return new CnxsimServer(command, process, stdout, stderr, ready, stopTimeout);
        }

        private static int waitForExit(Process process) {
            try {
                if (process.waitFor(5, TimeUnit.SECONDS)) {
                    return process.exitValue();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            process.destroyForcibly();
            return -1;
        }
    }

    /** One output stream of serve, read to its end on a daemon thread; the last 64 KiB kept. */
    private static final class Output {
        private final StringBuilder text = new StringBuilder();
        private final Thread thread;

        private Output(InputStream in, CompletableFuture<ReadyLine> ready, String name) {
            thread = new Thread(() -> read(in, ready), name);
            thread.setDaemon(true);
        }

        static Output drain(InputStream in, CompletableFuture<ReadyLine> ready, String name) {
            Output output = new Output(in, ready, name);
            output.thread.start();
            return output;
        }

        private void read(InputStream in, CompletableFuture<ReadyLine> ready) {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            try (in) {
                int b;
                while ((b = in.read()) != -1) {
                    if (b != '\n') {
                        line.write(b);
                        continue;
                    }
                    String l = line.toString(StandardCharsets.UTF_8);
                    line.reset();
                    append(l + "\n");
                    if (ready != null && !ready.isDone()) {
                        ReadyLine r = ReadyLine.parse(l);
                        if (r != null) {
                            ready.complete(r);
                        }
                    }
                }
                append(line.toString(StandardCharsets.UTF_8));
            } catch (IOException e) {
                // the process ended
            } finally {
                if (ready != null) {
                    ready.completeExceptionally(new IOException("end of output"));
                }
            }
        }

        private synchronized void append(String s) {
            text.append(s);
            if (text.length() > KEPT_OUTPUT) {
                text.delete(0, text.length() - KEPT_OUTPUT);
            }
        }

        synchronized String text() {
            return text.toString();
        }

        void await() {
            try {
                thread.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static Map<String, String> springProperties(CnxsimServer server) {
        String service = server.serviceUrl() != null ? server.serviceUrl() : server.tlsServiceUrl();
        String admin = server.adminUrl() != null ? server.adminUrl() : server.tlsAdminUrl();
        Map<String, String> properties = new java.util.LinkedHashMap<>();
        properties.put("spring.pulsar.client.service-url", service);
        if (admin != null) {
            properties.put("spring.pulsar.admin.service-url", admin);
        }
        return properties;
    }
}
