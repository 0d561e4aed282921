package org.cnxsim.oracle;

import java.io.File;
import java.io.PrintStream;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One real Pulsar broker in this JVM (tests/oracle/README.md): its storage
 * (Storage), then PulsarService with the settings (Settings), then cluster,
 * tenant and namespace (AdminSetup); then one line on stdout,
 *   ready: pulsar://127.0.0.1:P http://127.0.0.1:Q (Apache Pulsar X.Y.Z)
 * and nothing else there. SIGTERM or SIGINT (or the death of run-broker, the
 * parent) closes the broker and the storage and exits 0.
 *
 * usage (run-broker passes these): [--port P] [--admin-port Q] [--set key=value]... [--property key=value]... [--data DIR]
 * Exit: 0 stopped cleanly, 1 did not start or did not stop cleanly, 2 bad arguments or settings.
 */
public final class OracleMain {
    private static final long CLOSE_SECONDS = 60;

    private final CountDownLatch stop = new CountDownLatch(1);
    private int port;
    private int adminPort;
    private File dataDir;
    private final Settings settings = new Settings();

    private OracleMain() {
    }

    public static void main(String[] args) {
        // The ready line is the only stdout output: anything the broker's
        // libraries print goes to stderr with the logs.
        PrintStream ready = System.out;
        System.setOut(System.err);
        OracleMain m = new OracleMain();
        try {
            m.parse(args);
        } catch (Settings.BadSetting | IllegalArgumentException e) {
            fail(2, e.getMessage());
        }
        System.exit(m.run(ready));
    }

    private void parse(String[] args) throws Settings.BadSetting {
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + a + " takes a value");
            }
            String v = args[++i];
            switch (a) {
                case "--port" -> port = portOf(a, v);
                case "--admin-port" -> adminPort = portOf(a, v);
                case "--set" -> settings.set(v);
                case "--property" -> settings.property(v);
                case "--data" -> dataDir = new File(v).getAbsoluteFile();
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        if (dataDir != null && !dataDir.isDirectory()) {
            throw new IllegalArgumentException("--data " + dataDir + ": no such folder (create it first)");
        }
    }

    private static int portOf(String option, String v) {
        try {
            int p = Integer.parseInt(v);
            if (p >= 0 && p <= 65535) {
                return p;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException(option + " takes a port 0-65535 (0 picks a free one), got '" + v + "'");
    }

    private int run(PrintStream ready) {
        String version = releaseVersion();
        watchSignalsAndParent();
        Storage storage = null;
        AutoCloseable broker = null;
        try {
            settings.check();
            storage = Storage.start(dataDir);
            Object conf = settings.load(storage.metadataUrl(), port, adminPort);
            Object service = Reflect.construct(Reflect.requireClass("org.apache.pulsar.broker.PulsarService"), conf);
            broker = (AutoCloseable) service;
            Reflect.call(service, "start");
            int p = listenPort(service, "getBrokerListenPort");
            int q = listenPort(service, "getListenPortHTTP");
            String brokerUrl = "pulsar://127.0.0.1:" + p;
            String adminUrl = "http://127.0.0.1:" + q;
            new AdminSetup(adminUrl, settings.value("brokerClientAuthenticationParameters")).run(brokerUrl);
            ready.println("ready: " + brokerUrl + " " + adminUrl + " (Apache Pulsar " + version + ")");
            ready.flush();
        } catch (Settings.BadSetting e) {
            closeQuietly(broker, storage);
            fail(2, e.getMessage());
        } catch (Throwable e) {
            System.err.println("run-broker: Apache Pulsar " + version + " did not start: " + oneLine(e));
            closeQuietly(broker, storage);
            return 1;
        }
        awaitStop();
        boolean clean = close(broker, storage);
        removeRunFolder();
        return clean ? 0 : 1;
    }

    /**
     * Removes run-broker's temporary folder (-Doracle.run.folder, the JVM's
     * java.io.tmpdir) once the broker is closed: run-broker removes it too,
     * but not when it was killed first, which is when this JVM stops by itself.
     */
    private static void removeRunFolder() {
        String folder = System.getProperty("oracle.run.folder");
        if (folder == null) {
            return;
        }
        try (java.util.stream.Stream<java.nio.file.Path> walk = java.nio.file.Files.walk(java.nio.file.Path.of(folder))) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (java.io.IOException e) {
            System.err.println("run-broker: removing " + folder + ": " + e.getMessage());
        }
    }

    private static String releaseVersion() {
        try {
            return (String) Reflect.callStatic(Reflect.requireClass("org.apache.pulsar.PulsarVersion"), "getVersion");
        } catch (Exception e) {
            return "(unknown version: " + e.getMessage() + ")";
        }
    }

    private static int listenPort(Object service, String getter) throws Exception {
        Optional<?> p = (Optional<?>) Reflect.call(service, getter);
        return (Integer) p.orElseThrow(() -> new IllegalStateException(getter + " is empty after start"));
    }

    /** SIGTERM and SIGINT end the run; so does the death of run-broker, so no broker outlives it. */
    @SuppressWarnings("restriction")
    private void watchSignalsAndParent() {
        for (String name : new String[] {"TERM", "INT", "HUP"}) {
            try {
                sun.misc.Signal.handle(new sun.misc.Signal(name), s -> stop.countDown());
            } catch (IllegalArgumentException e) {
                // a signal ignored by the parent stays ignored; TERM is the documented one
            }
        }
        Optional<ProcessHandle> parent = ProcessHandle.current().parent();
        Thread watch = new Thread(() -> {
            while (parent.map(ProcessHandle::isAlive).orElse(false)) {
                try {
                    if (stop.await(1, TimeUnit.SECONDS)) {
                        return;
                    }
                } catch (InterruptedException e) {
                    return;
                }
            }
            stop.countDown();
        }, "oracle-parent-watch");
        watch.setDaemon(true);
        watch.start();
    }

    private void awaitStop() {
        try {
            stop.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Closes the broker then the storage within CLOSE_SECONDS; false (said on stderr) if not cleanly. */
    private static boolean close(AutoCloseable broker, Storage storage) {
        Thread deadline = new Thread(() -> {
            try {
                Thread.sleep(TimeUnit.SECONDS.toMillis(CLOSE_SECONDS));
                System.err.println("run-broker: the broker did not stop within " + CLOSE_SECONDS + " s");
                Runtime.getRuntime().halt(1);
            } catch (InterruptedException e) {
                // closed in time
            }
        }, "oracle-close-deadline");
        deadline.setDaemon(true);
        deadline.start();
        boolean clean = true;
        for (AutoCloseable c : new AutoCloseable[] {broker, storage}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Throwable e) {
                System.err.println("run-broker: closing " + c.getClass().getSimpleName() + ": " + oneLine(e));
                clean = false;
            }
        }
        deadline.interrupt();
        return clean;
    }

    private static void closeQuietly(AutoCloseable broker, Storage storage) {
        for (AutoCloseable c : new AutoCloseable[] {broker, storage}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Throwable e) {
                // the start failure is the one reported
            }
        }
    }

    /** The exception and its root cause on one line. */
    static String oneLine(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String s = e.getClass().getSimpleName() + ": " + e.getMessage();
        if (root != e) {
            s += " (cause: " + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
        }
        return s.replace('\n', ' ');
    }

    private static void fail(int status, String message) {
        System.err.println("run-broker: " + message);
        System.exit(status);
    }
}
