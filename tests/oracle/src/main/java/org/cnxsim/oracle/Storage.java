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
final class Storage implements AutoCloseable {
    static final String BK_CLUSTER = "org.apache.pulsar.metadata.bookkeeper.BKCluster";
    static final String LOCAL_ENSEMBLE = "org.apache.pulsar.zookeeper.LocalBookkeeperEnsemble";
    private static final String MARKER = "oracle.properties";

    private final String url;
    private final AutoCloseable stopper;

    private Storage(String url, AutoCloseable stopper) {
        this.url = url;
        this.stopper = stopper;
    }

    /** The metadataStoreUrl (and configurationMetadataStoreUrl) the broker uses. */
    String metadataUrl() {
        return url;
    }

    /** Stops the bookie and the store; a temporary folder BKCluster made is removed. */
    @Override
    public void close() throws Exception {
        stopper.close();
    }

    /** Starts the storage this release offers, in DATADIR when not null. */
    static Storage start(File dataDir) throws Exception {
        Class<?> bk = Reflect.findClass(BK_CLUSTER);
        // 2.10 has a BKCluster too, without the builder (a test helper then); its bookies need ZooKeeper.
        if (bk != null && Reflect.hasMethod(bk, "builder", 0)) {
            return startBkCluster(dataDir);
        }
        if (Reflect.findClass(LOCAL_ENSEMBLE) != null) {
            return startEnsemble(dataDir);
        }
        throw new IllegalStateException("this release has neither " + BK_CLUSTER + " nor " + LOCAL_ENSEMBLE);
    }

    /** BKCluster on memory:NAME, or on rocksdb:DIR/metadata with the bookie in DIR/bookie. */
    private static Storage startBkCluster(File dataDir) throws Exception {
        Object conf = Reflect.callStatic(Reflect.requireClass(BK_CLUSTER), "builder");
        String url;
        if (dataDir == null) {
            url = "memory:cnxsim-oracle";
            Reflect.call(conf, "clearOldData", true);
        } else {
            // RocksdbMetadataStore: "rocksdb:" then the folder (ROCKSDB_SCHEME_IDENTIFIER).
            url = "rocksdb:" + new File(dataDir, "metadata").getAbsolutePath();
            if (!Reflect.hasMethod(conf.getClass(), "dataDir", 1) || !Reflect.hasMethod(conf.getClass(), "bkPort", 1)) {
                throw new IllegalStateException("--data: this release's BKCluster builder has no dataDir/bkPort");
            }
            File bookie = new File(dataDir, "bookie");
            if (!bookie.isDirectory() && !bookie.mkdirs()) {
                throw new IOException("cannot create " + bookie);
            }
            Reflect.call(conf, "dataDir", bookie.getAbsolutePath());
            Reflect.call(conf, "bkPort", claim(dataDir, "rocksdb"));
            Reflect.call(conf, "clearOldData", false);
        }
        Reflect.call(conf, "metadataServiceUri", url);
        Reflect.call(conf, "numBookies", 1);
        return new Storage(url, (AutoCloseable) Reflect.call(conf, "build"));
    }

    /** LocalBookkeeperEnsemble: ZooKeeper and one bookie (2.10). */
    private static Storage startEnsemble(File dataDir) throws Exception {
        boolean temporary = dataDir == null;
        // Without --data, a fresh folder under java.io.tmpdir, the run's own (run-broker removes it).
        File base = temporary ? new File(System.getProperty("java.io.tmpdir"), "ensemble") : dataDir;
        int bookiePort = temporary ? freePort() : claim(dataDir, "zookeeper");
        int zkPort = freePort();
        // LocalBookkeeperEnsemble(int numberOfBookies, int zkPort, int bkBasePort, int streamStoragePort,
        //     String zkDataDirName, String bkDataDirName, boolean clearOldData, String advertisedAddress)
        // (pulsar-broker/src/main/java/org/apache/pulsar/zookeeper/LocalBookkeeperEnsemble.java, 2.10):
        // bookie i listens on bkBasePort + i; stream storage stays off with start(false).
        Object ensemble = Reflect.construct(Reflect.requireClass(LOCAL_ENSEMBLE), 1, zkPort, bookiePort, freePort(),
                new File(base, "zookeeper").getAbsolutePath(), new File(base, "bookie").getAbsolutePath(), temporary,
                "127.0.0.1");
        Reflect.call(ensemble, "start", false);
        return new Storage("zk:127.0.0.1:" + zkPort, () -> Reflect.call(ensemble, "stop"));
    }

    /** A free TCP port on 127.0.0.1 now (the bookie's, which has no port 0 of its own here). */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /**
     * Takes DATADIR for storage KIND and returns the bookie's port there:
     * the one DATADIR/oracle.properties keeps (the bookie's cookie names its
     * address, so a restart must reuse it), or a new free one, recorded.
     * A folder written by the other kind is a clear error.
     */
    private static int claim(File dataDir, String kind) throws IOException {
        Properties marker = new Properties();
        File f = new File(dataDir, MARKER);
        if (f.isFile()) {
            try (InputStream in = new FileInputStream(f)) {
                marker.load(in);
            }
        }
        String found = marker.getProperty("storage");
        if (found != null && !found.equals(kind)) {
            throw new IllegalStateException("--data " + dataDir + " holds " + found + " storage; this release runs " + kind
                    + " (2.10 keeps ZooKeeper and a bookie named by its address, 2.11 and later RocksDB and BKCluster:"
                    + " a folder does not move between the two, README.md)");
        }
        String kept = marker.getProperty("bookiePort");
        int port = kept != null ? Integer.parseInt(kept) : freePort();
        marker.setProperty("storage", kind);
        marker.setProperty("bookiePort", Integer.toString(port));
        try (OutputStream out = new FileOutputStream(f)) {
            marker.store(out, "written by tests/oracle/run-broker: the storage of this folder");
        }
        return port;
    }
}
