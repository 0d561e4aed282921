package org.cnxsim.oracle;

import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Properties;

/**
 * The broker's metadata store and its one bookie, in this JVM.
 *
 * 2.11 and later: BKCluster (pulsar-metadata, main code since PIP-117,
 * apache/pulsar #15478; pulsar-metadata/src/main/java/org/apache/pulsar/metadata/bookkeeper/BKCluster.java),
 * one bookie on a metadata store that the broker shares, as Pulsar's own
 * PulsarStandalone.startBookieWithMetadataStore and SharedPulsarCluster do.
 * Without a data folder the store is a named memory: store (a name other than
 * "local" is shared by every store of this JVM: LocalMemoryMetadataStore) and
 * the bookie's folder a temporary one BKCluster removes on close. With one
 * (--data DIR) the store is RocksDB in DIR/metadata and the bookie keeps its
 * journal and ledgers in DIR/bookie on a port kept in DIR/oracle.properties
 * (the bookie's cookie names its address, so a restart must reuse it).
 *
 * 2.10 has no BKCluster builder: LocalBookkeeperEnsemble (pulsar-broker since
 * 2.10.2, apache/pulsar #16258) runs a ZooKeeper server and the bookie; with
 * --data both keep their files in DIR/zookeeper and DIR/bookie. A 2.10
 * folder serves 2.10 only: a later LocalBookkeeperEnsemble names its bookie
 * "bk0test" (runBookies, setBookieId), not the 127.0.0.1:PORT that 2.10's
 * cookie and ledgers name, so the ledgers would not be found (tried: the
 * schema read then answers 500 "Bookie handle is not available").
 */
abstract class Storage implements AutoCloseable {
    static final String BK_CLUSTER = "org.apache.pulsar.metadata.bookkeeper.BKCluster";
    static final String LOCAL_ENSEMBLE = "org.apache.pulsar.zookeeper.LocalBookkeeperEnsemble";
    private static final String MARKER = "oracle.properties";

    /** The metadataStoreUrl (and configurationMetadataStoreUrl) the broker uses. */
    abstract String metadataUrl();

    /** Stops the bookie and the store; a temporary folder it made is removed. */
    @Override
    public abstract void close() throws Exception;

    /** Starts the storage this release offers, in DATADIR when not null. */
    static Storage start(File dataDir) throws Exception {
        Properties marker = dataDir == null ? null : readMarker(dataDir);
        Class<?> bk = Reflect.findClass(BK_CLUSTER);
        // 2.10 has a BKCluster too, without the builder (a test helper then); its bookies need ZooKeeper.
        if (bk != null && Reflect.hasMethod(bk, "builder", 0)) {
            return BkClusterStorage.start(dataDir, marker);
        }
        if (Reflect.findClass(LOCAL_ENSEMBLE) != null) {
            return EnsembleStorage.start(dataDir, marker);
        }
        throw new IllegalStateException("this release has neither " + BK_CLUSTER + " nor " + LOCAL_ENSEMBLE);
    }

    /** A free TCP port on 127.0.0.1 now (the bookie's, which has no port 0 of its own here). */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** DATADIR/oracle.properties: which storage wrote the folder, and the bookie's port. */
    private static Properties readMarker(File dataDir) throws IOException {
        Properties p = new Properties();
        File f = new File(dataDir, MARKER);
        if (f.isFile()) {
            try (InputStream in = new FileInputStream(f)) {
                p.load(in);
            }
        }
        return p;
    }

    static void writeMarker(File dataDir, Properties p) throws IOException {
        try (OutputStream out = new FileOutputStream(new File(dataDir, MARKER))) {
            p.store(out, "written by tests/oracle/run-broker: the storage of this folder");
        }
    }

    /** The folder's storage kind must be KIND (or the folder new); otherwise a clear error. */
    static void requireKind(Properties marker, String kind, File dataDir) {
        String found = marker.getProperty("storage");
        if (found != null && !found.equals(kind)) {
            throw new IllegalStateException("--data " + dataDir + " holds " + found + " storage; this release runs " + kind
                    + " (2.10 keeps ZooKeeper and a bookie named by its address, 2.11 and later RocksDB and BKCluster:"
                    + " a folder does not move between the two, README.md)");
        }
    }

    static int bookiePort(Properties marker) throws IOException {
        String kept = marker.getProperty("bookiePort");
        return kept != null ? Integer.parseInt(kept) : freePort();
    }

    /** BKCluster on memory:NAME, or on rocksdb:DIR/metadata with --data. */
    static final class BkClusterStorage extends Storage {
        private final AutoCloseable cluster;
        private final String url;

        private BkClusterStorage(AutoCloseable cluster, String url) {
            this.cluster = cluster;
            this.url = url;
        }

        static Storage start(File dataDir, Properties marker) throws Exception {
            Object conf = Reflect.callStatic(Reflect.requireClass(BK_CLUSTER), "builder");
            Class<?> confType = conf.getClass();
            String url;
            if (dataDir == null) {
                url = "memory:cnxsim-oracle";
                Reflect.call(conf, "clearOldData", true);
            } else {
                requireKind(marker, "rocksdb", dataDir);
                // RocksdbMetadataStore: "rocksdb:" then the folder (ROCKSDB_SCHEME_IDENTIFIER).
                url = "rocksdb:" + new File(dataDir, "metadata").getAbsolutePath();
                File bookie = new File(dataDir, "bookie");
                if (!bookie.isDirectory() && !bookie.mkdirs()) {
                    throw new IOException("cannot create " + bookie);
                }
                int port = bookiePort(marker);
                if (!Reflect.hasMethod(confType, "dataDir", 1) || !Reflect.hasMethod(confType, "bkPort", 1)) {
                    throw new IllegalStateException("--data: this release's BKCluster builder has no dataDir/bkPort");
                }
                Reflect.call(conf, "dataDir", bookie.getAbsolutePath());
                Reflect.call(conf, "bkPort", port);
                Reflect.call(conf, "clearOldData", false);
                marker.setProperty("storage", "rocksdb");
                marker.setProperty("bookiePort", Integer.toString(port));
                writeMarker(dataDir, marker);
            }
            Reflect.call(conf, "metadataServiceUri", url);
            Reflect.call(conf, "numBookies", 1);
            return new BkClusterStorage((AutoCloseable) Reflect.call(conf, "build"), url);
        }

        @Override
        String metadataUrl() {
            return url;
        }

        @Override
        public void close() throws Exception {
            cluster.close();
        }
    }

    /** LocalBookkeeperEnsemble: ZooKeeper and one bookie (2.10). */
    static final class EnsembleStorage extends Storage {
        private final Object ensemble;
        private final String url;

        private EnsembleStorage(Object ensemble, String url) {
            this.ensemble = ensemble;
            this.url = url;
        }

        static Storage start(File dataDir, Properties marker) throws Exception {
            int zkPort = freePort();
            int bookiePort;
            String zkDir;
            String bkDir;
            boolean clear;
            if (dataDir == null) {
                // A fresh folder under java.io.tmpdir, the run's own (run-broker removes it).
                File tmp = new File(System.getProperty("java.io.tmpdir"), "ensemble");
                zkDir = new File(tmp, "zookeeper").getAbsolutePath();
                bkDir = new File(tmp, "bookie").getAbsolutePath();
                bookiePort = freePort();
                clear = true;
            } else {
                requireKind(marker, "zookeeper", dataDir);
                zkDir = new File(dataDir, "zookeeper").getAbsolutePath();
                bkDir = new File(dataDir, "bookie").getAbsolutePath();
                bookiePort = bookiePort(marker);
                clear = false;
                marker.setProperty("storage", "zookeeper");
                marker.setProperty("bookiePort", Integer.toString(bookiePort));
                writeMarker(dataDir, marker);
            }
            // LocalBookkeeperEnsemble(int numberOfBookies, int zkPort, int bkBasePort, int streamStoragePort,
            //     String zkDataDirName, String bkDataDirName, boolean clearOldData, String advertisedAddress)
            // (pulsar-broker/src/main/java/org/apache/pulsar/zookeeper/LocalBookkeeperEnsemble.java, 2.10):
            // bookie i listens on bkBasePort + i; stream storage stays off with start(false).
            Object ensemble = Reflect.construct(Reflect.requireClass(LOCAL_ENSEMBLE), 1, zkPort, bookiePort, freePort(),
                    zkDir, bkDir, clear, "127.0.0.1");
            Reflect.call(ensemble, "start", false);
            return new EnsembleStorage(ensemble, "zk:127.0.0.1:" + zkPort);
        }

        @Override
        String metadataUrl() {
            return url;
        }

        @Override
        public void close() throws Exception {
            Reflect.call(ensemble, "stop");
        }
    }
}
