package org.cnxsim.junit5;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Plain GETs on serve's admin port, with bounded waits. */
final class Http {
    private Http() {}

    static HttpResponse<String> get(String url) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> put(String url) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .PUT(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 != 2) {
            throw new AssertionError("PUT " + url + ": " + r.statusCode() + " " + r.body());
        }
        return r;
    }

    /** True when something accepts a TCP connection on the URL's host and port. */
    static boolean listening(String url) {
        URI uri = URI.create(url);
        try (java.net.Socket s = new java.net.Socket()) {
            s.connect(new java.net.InetSocketAddress(uri.getHost(), uri.getPort()), 2000);
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
