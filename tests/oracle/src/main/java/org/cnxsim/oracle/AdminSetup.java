package org.cnxsim.oracle;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * After start: cluster "standalone", tenant "public" and namespace
 * "public/default", as PulsarStandalone does after its broker starts
 * (pulsar-broker/src/main/java/org/apache/pulsar/PulsarStandalone.java,
 * createNameSpace), through the admin REST API the release serves, so no
 * admin client class (whose builders drift) is needed. A second start on the
 * same --data folder finds them: the cluster's URLs are updated to the new
 * ports, the rest is kept.
 */
final class AdminSetup {
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
    private final String admin;
    private final String authorization;  // the header's value, or null

    /**
     * With authentication on, the set-up calls carry the broker's own client
     * token (`brokerClientAuthenticationParameters=token:...`, which the broker's
     * internal client needs anyway), as a super user's Bearer token.
     */
    AdminSetup(String adminUrl, String brokerClientAuthParameters) {
        this.admin = adminUrl;
        String p = brokerClientAuthParameters;
        this.authorization = p != null && p.startsWith("token:") ? "Bearer " + p.substring("token:".length()) : null;
    }

    void run(String brokerUrl) throws IOException, InterruptedException {
        String cluster = "{\"serviceUrl\":\"" + admin + "\",\"brokerServiceUrl\":\"" + brokerUrl + "\"}";
        // Lists are read first, not the items: the broker logs a GET of a missing
        // item (2.10) and a create of a present one as an ERROR with a stack trace.
        boolean known = get("/admin/v2/clusters").contains("\"" + Settings.CLUSTER + "\"");
        send(known ? "POST" : "PUT", "/admin/v2/clusters/" + Settings.CLUSTER, cluster);
        if (!get("/admin/v2/tenants").contains("\"public\"")) {
            send("PUT", "/admin/v2/tenants/public", "{\"allowedClusters\":[\"" + Settings.CLUSTER + "\"],\"adminRoles\":[]}");
        }
        if (!get("/admin/v2/namespaces/public").contains("\"public/default\"")) {
            send("PUT", "/admin/v2/namespaces/public/default", null);
        }
    }

    private String get(String path) throws IOException, InterruptedException {
        return send("GET", path, null);
    }

    /** The body of the answer to one call; anything but 2xx throws. */
    private String send(String method, String path, String json) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(admin + path)).timeout(Duration.ofSeconds(60));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        if (json == null) {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(json));
        }
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 != 2) {
            throw new IOException(method + " " + path + " answered " + r.statusCode() + ": " + r.body());
        }
        return r.body();
    }
}
