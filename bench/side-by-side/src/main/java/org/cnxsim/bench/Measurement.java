package org.cnxsim.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;

/**
 * The four figures for one side: start to ready over K starts, then on the
 * last start producer creation, SEND throughput with receipts and resident
 * memory, each with the same Pulsar Java client settings.
 */
final class Measurement {
    /** A warm-up start may resolve a release's jars from Maven Central first. */
    private static final int WARMUP_READY_SECONDS = 1800;

    private Measurement() {}

    static SideResult measure(String label, String command, SideBySide.Options options) {
        SideResult result = new SideResult(label, command);
        ServerProcess server = startRepeatedly(result, command, options);
        if (server == null) {
            return result;
        }
        try {
            runWorkload(result, server, options);
            result.rssKiB = ProcTree.rssKiB(server.handle());
        } finally {
            String stopped = server.stop();
            if (stopped != null) {
                result.fail("stopping after the workload: " + stopped);
            }
        }
        return result;
    }

    /**
     * Starts the warm-up times (not counted: the first start of a release may
     * resolve its jars, and fills the page cache), then K times, recording
     * each start to ready; returns the last, still running.
     */
    private static ServerProcess startRepeatedly(SideResult result, String command,
                                                 SideBySide.Options options) {
        int total = options.warmupStarts + options.starts;
        for (int i = 1; i <= total; i++) {
            boolean warmup = i <= options.warmupStarts;
            String which = warmup ? "warm-up start " + i : "start " + (i - options.warmupStarts);
            ServerProcess server;
            try {
                server = ServerProcess.start(command,
                        warmup ? WARMUP_READY_SECONDS : options.readyTimeoutSeconds, options.logDir);
            } catch (IOException e) {
                result.fail(which + ": " + e.getMessage());
                return null;
            }
            (warmup ? result.warmupStartMillis : result.startMillis).add(server.readyMillis);
            result.readyLine = server.readyLine;
            result.version = server.version();
            System.err.printf("side-by-side: %s: %s ready after %.1f ms: %s%n",
                    result.label, which, server.readyMillis, server.readyLine);
            if (i == total) {
                return server;
            }
            String stopped = server.stop();
            if (stopped != null) {
                result.fail(which + ": " + stopped);
                return null;
            }
        }
        return null;
    }

    private static void runWorkload(SideResult result, ServerProcess server, SideBySide.Options options) {
        String url = server.serviceUrl();
        String run = Long.toString(System.currentTimeMillis(), 36);
        try (PulsarClient client = PulsarClient.builder()
                .serviceUrl(url)
                .ioThreads(1)
                .listenerThreads(1)
                .statsInterval(0, TimeUnit.SECONDS)
                .operationTimeout(30, TimeUnit.SECONDS)
                .build()) {
            measureProducers(result, client, "persistent://public/default/sbs-producers-" + run, options);
            measureSends(result, client, "persistent://public/default/sbs-sends-" + run, options,
                    server.handle());
        } catch (PulsarClientException e) {
            result.fail("client against " + url + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            result.fail("interrupted");
        }
    }

    /**
     * Creates and closes producers one after the other on one topic; the
     * warm-up ones (the first also loads the topic) are not counted. A
     * creation is what create() takes: partitioned-metadata lookup, topic
     * lookup, PRODUCER and its PRODUCER_SUCCESS.
     */
    private static void measureProducers(SideResult result, PulsarClient client, String topic,
                                         SideBySide.Options options) throws PulsarClientException {
        List<Double> millis = new ArrayList<>(options.producers);
        for (int i = 0; i < options.producerWarmup() + options.producers; i++) {
            long t0 = System.nanoTime();
            Producer<byte[]> producer = client.newProducer().topic(topic).create();
            long t1 = System.nanoTime();
            producer.close();
            if (i >= options.producerWarmup()) {
                millis.add((t1 - t0) / 1e6);
            }
        }
        result.producerP50Millis = Stats.percentile(millis, 0.50);
        result.producerP99Millis = Stats.percentile(millis, 0.99);
        result.producerMaxMillis = Stats.percentile(millis, 1.0);
    }

    /**
     * M messages from one producer, batching off so each message is one SEND
     * with its own receipt, at most W outstanding: the next send waits for a
     * receipt once W are in flight. Timed from the first timed send to the
     * last receipt, after a warm-up on the same producer. The server's CPU
     * time over the same span says what the sends cost it, whatever else the
     * machine runs.
     */
    private static void measureSends(SideResult result, PulsarClient client, String topic,
                                     SideBySide.Options options, ProcessHandle server)
            throws PulsarClientException, InterruptedException {
        byte[] payload = new byte[options.size];
        for (int i = 0; i < payload.length; i++) {
            payload[i] = (byte) ('a' + i % 26);
        }
        try (Producer<byte[]> producer = client.newProducer().topic(topic)
                .enableBatching(false)
                .maxPendingMessages(options.window)
                .blockIfQueueFull(true)
                .sendTimeout(60, TimeUnit.SECONDS)
                .create()) {
            Window window = new Window(options.window);
            window.send(producer, payload, options.messageWarmup());
            double cpu0 = ProcTree.cpuSeconds(server);
            long t0 = System.nanoTime();
            window.send(producer, payload, options.messages);
            long elapsed = System.nanoTime() - t0;
            double cpu1 = ProcTree.cpuSeconds(server);
            if (window.failures.get() > 0) {
                result.fail(window.failures.get() + " of the sends failed, the first with "
                        + window.firstFailure.get());
                return;
            }
            result.sendsPerSecond = options.messages / (elapsed / 1e9);
            if (cpu0 >= 0 && cpu1 >= 0) {
                result.serverCpuMicrosPerSend = (cpu1 - cpu0) * 1e6 / options.messages;
            }
        }
    }

    /** At most W sends outstanding; send() returns once every receipt of its batch is in. */
    private static final class Window {
        final int size;
        final Semaphore permits;
        final AtomicLong failures = new AtomicLong();
        final AtomicReference<Throwable> firstFailure = new AtomicReference<>();

        Window(int size) {
            this.size = size;
            this.permits = new Semaphore(size);
        }

        void send(Producer<byte[]> producer, byte[] payload, int count) throws InterruptedException {
            for (int i = 0; i < count; i++) {
                permits.acquire();
                producer.sendAsync(payload).whenComplete((id, e) -> {
                    if (e != null) {
                        failures.incrementAndGet();
                        firstFailure.compareAndSet(null, e);
                    }
                    permits.release();
                });
            }
            permits.acquire(size);  // every receipt is in
            permits.release(size);
        }
    }
}
