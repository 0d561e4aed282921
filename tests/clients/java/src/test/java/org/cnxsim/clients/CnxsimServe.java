package org.cnxsim.clients;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One `cnxsim serve --port 0` per test class: started before the class's
 * first test, its ready line read for the service and admin URLs, stopped
 * with SIGTERM after the class. The binary and the release served come from
 * the system properties cnxsim.bin and cnxsim.brokerVersion (set by ctest
 * through the pom).
 */
public final class CnxsimServe implements BeforeAllCallback, AfterAllCallback {
    static final Pattern READY =
            Pattern.compile("^ready: (pulsar://\\S+) \\(Pulsar (\\S+) behaviour\\), admin (http://[^ ,]+)(?:, .*)?$");

    private final List<String> extraArgs;
    private Process process;
    private String serviceUrl;
    private String adminUrl;
    private String release;
    private final StringBuilder output = new StringBuilder();
    private org.apache.pulsar.client.api.PulsarClient client;
    private org.apache.pulsar.client.admin.PulsarAdmin admin;

    public CnxsimServe(String... extraArgs) {
        this.extraArgs = List.of(extraArgs);
    }

    /** The release line asked for, e.g. "4.2" or "3.0". */
    public static String brokerVersion() {
        return System.getProperty("cnxsim.brokerVersion", "4.2");
    }

    /** True when the served line is older than major.minor. */
    public static boolean olderThan(int major, int minor) {
        String[] parts = brokerVersion().split("\\.");
        int ma = Integer.parseInt(parts[0]);
        int mi = Integer.parseInt(parts[1]);
        return ma < major || (ma == major && mi < minor);
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        start(System.getProperty("cnxsim.bin", "cnxsim"), context.getRequiredTestClass().getSimpleName());
    }

    void start(String bin, String name) throws IOException {
        List<String> command = new java.util.ArrayList<>(
                List.of(bin, "serve", "--port", "0", "--broker-version", brokerVersion()));
        command.addAll(extraArgs);
        // -Dcnxsim.traceDir=DIR: serve's --trace of each class in DIR/<class>.trace, to see what the client sent.
        String traceDir = System.getProperty("cnxsim.traceDir", "");
        if (!traceDir.isEmpty()) {
            command.addAll(List.of("--trace", traceDir + "/" + name + ".trace"));
        }
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IOException("cannot start cnxsim serve (" + bin + "; set -Dcnxsim.bin): " + e.getMessage(), e);
        }
        BufferedReader reader = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = reader.readLine()) != null) {
            output.append(line).append('\n');
            Matcher m = READY.matcher(line);
            if (m.matches()) {
                serviceUrl = m.group(1);
                release = m.group(2);
                adminUrl = m.group(3);
                break;
            }
        }
        if (serviceUrl == null) {
            process.destroy();
            throw new IllegalStateException("cnxsim serve printed no ready line: " + command + "\n" + output);
        }
        // Keep reading what serve prints, so it never blocks on a full pipe;
        // the text is shown if a test fails to stop it.
        Thread drain = new Thread(() -> {
            try {
                String l;
                while ((l = reader.readLine()) != null) {
                    synchronized (output) {
                        output.append(l).append('\n');
                    }
                }
            } catch (IOException ignored) {
                // the process ended
            }
        }, "cnxsim-serve-output");
        drain.setDaemon(true);
        drain.start();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (client != null) {
            client.close();
        }
        if (admin != null) {
            admin.close();
        }
        if (process == null) {
            return;
        }
        process.destroy(); // SIGTERM: serve exits 0
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("cnxsim serve did not stop on SIGTERM within 20 s");
        }
        int status = process.exitValue();
        if (status != 0) {
            throw new IllegalStateException("cnxsim serve exited " + status + ":\n" + output);
        }
    }

    /** The class's client (short timeouts, Clients.client), made on first use, closed after the class. */
    public synchronized org.apache.pulsar.client.api.PulsarClient client()
            throws org.apache.pulsar.client.api.PulsarClientException {
        if (client == null) {
            client = Clients.client(this);
        }
        return client;
    }

    /** The class's PulsarAdmin on the admin port, made on first use, closed after the class. */
    public synchronized org.apache.pulsar.client.admin.PulsarAdmin admin()
            throws org.apache.pulsar.client.api.PulsarClientException {
        if (admin == null) {
            admin = Clients.admin(this);
        }
        return admin;
    }

    public String serviceUrl() {
        return serviceUrl;
    }

    public String adminUrl() {
        return adminUrl;
    }

    /** The exact release served, from the ready line (e.g. "4.2.5"). */
    public String release() {
        return release;
    }

    /** POST to one of serve's own /cnxsim/ routes; returns the status and body. */
    public HttpResponse<String> cnxsimPost(String pathAndQuery) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create(adminUrl + pathAndQuery))
                .timeout(Duration.ofSeconds(20))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    public HttpResponse<String> cnxsimGet(String pathAndQuery) throws IOException, InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        HttpRequest request = HttpRequest.newBuilder(URI.create(adminUrl + pathAndQuery))
                .timeout(Duration.ofSeconds(20))
                .GET()
                .build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }
}
