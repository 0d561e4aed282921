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

    AdminSetup(String adminUrl) {
        this.admin = adminUrl;
    }

    void run(String brokerUrl) throws IOException, InterruptedException {
        String cluster = "{\"serviceUrl\":\"" + admin + "\",\"brokerServiceUrl\":\"" + brokerUrl + "\"}";
        String clusterPath = "/admin/v2/clusters/" + Settings.CLUSTER;
        // Asked first: the broker logs a create of something present as an ERROR.
        send(exists(clusterPath) ? "POST" : "PUT", clusterPath, cluster);
        if (!exists("/admin/v2/tenants/public")) {
            send("PUT", "/admin/v2/tenants/public", "{\"allowedClusters\":[\"" + Settings.CLUSTER + "\"],\"adminRoles\":[]}");
        }
        if (!exists("/admin/v2/namespaces/public/default/bundles")) {
            send("PUT", "/admin/v2/namespaces/public/default", null);
        }
    }

    private boolean exists(String path) throws IOException, InterruptedException {
        return send("GET", path, null) != 404;
    }

    /** The status of one call; 2xx, 404 and 409 (already there) are answers, anything else throws. */
    private int send(String method, String path, String json) throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(admin + path)).timeout(Duration.ofSeconds(60));
        if (json == null) {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            b.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(json));
        }
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        int status = r.statusCode();
        if (status / 100 != 2 && status != 404 && status != 409) {
            throw new IOException(method + " " + path + " answered " + status + ": " + r.body());
        }
        return status;
    }
}
