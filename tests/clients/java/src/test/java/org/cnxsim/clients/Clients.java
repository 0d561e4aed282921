package org.cnxsim.clients;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;

/** Clients pointed at one serve, with short timeouts so that a hang fails a test instead of stalling it. */
final class Clients {
    private static final AtomicInteger SEQ = new AtomicInteger();

    private Clients() {}

    static PulsarClient client(CnxsimServe serve) throws PulsarClientException {
        return PulsarClient.builder()
                .serviceUrl(serve.serviceUrl())
                .operationTimeout(10, TimeUnit.SECONDS)
                .connectionTimeout(5, TimeUnit.SECONDS)
                .build();
    }

    static PulsarAdmin admin(CnxsimServe serve) throws PulsarClientException {
        return PulsarAdmin.builder()
                .serviceHttpUrl(serve.adminUrl())
                .connectionTimeout(5, TimeUnit.SECONDS)
                .readTimeout(10, TimeUnit.SECONDS)
                .requestTimeout(15, TimeUnit.SECONDS)
                .build();
    }

    private static final java.util.regex.Pattern ERROR_JSON =
            java.util.regex.Pattern.compile("^\\{\"errorMsg\":\"(.*)\",\"reqId\":-?\\d+, .*\\}$", java.util.regex.Pattern.DOTALL);

    /**
     * The broker's text of a refusal: the Java client wraps the ERROR frame's
     * message as {"errorMsg":"…","reqId":…, "remote":…, "local":…}
     * (ClientCnx.getPulsarClientException); any other message is returned whole.
     */
    static String brokerText(PulsarClientException e) {
        java.util.regex.Matcher m = ERROR_JSON.matcher(e.getMessage());
        return m.matches() ? m.group(1) : e.getMessage();
    }

    /** The next message within 20 s (a failure, not a hang, when none comes). */
    static <T> org.apache.pulsar.client.api.Message<T> next(org.apache.pulsar.client.api.Consumer<T> consumer)
            throws PulsarClientException {
        org.apache.pulsar.client.api.Message<T> m = consumer.receive(20, TimeUnit.SECONDS);
        org.junit.jupiter.api.Assertions.assertNotNull(m, "a message within 20 s");
        return m;
    }

    /** The next message, acknowledged. */
    static <T> org.apache.pulsar.client.api.Message<T> receive(org.apache.pulsar.client.api.Consumer<T> consumer)
            throws PulsarClientException {
        org.apache.pulsar.client.api.Message<T> m = next(consumer);
        consumer.acknowledge(m);
        return m;
    }

    /** The message's schema version: 8 bytes, a big-endian long. */
    static long version(org.apache.pulsar.client.api.Message<?> message) {
        byte[] v = message.getSchemaVersion();
        org.junit.jupiter.api.Assertions.assertNotNull(v, "the message carries a schema version");
        org.junit.jupiter.api.Assertions.assertEquals(8, v.length, "a schema version is 8 bytes, big-endian");
        return java.nio.ByteBuffer.wrap(v).getLong();
    }

    /** A fresh persistent topic name in public/default. */
    static String topic(String stem) {
        return "persistent://public/default/" + stem + "-" + SEQ.incrementAndGet();
    }
}
