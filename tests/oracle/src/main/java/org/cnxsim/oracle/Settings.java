package org.cnxsim.oracle;

import java.lang.reflect.Field;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * The broker's settings as broker.conf keys, loaded through Pulsar's own
 * loader (PulsarConfigurationLoader.create(Properties, Class), which sets each
 * ServiceConfiguration field of that name with FieldParser:
 * pulsar-broker-common/src/main/java/org/apache/pulsar/common/configuration/PulsarConfigurationLoader.java),
 * so any broker.conf key of the release works as it does in broker.conf.
 *
 * The launcher's defaults make one small broker on 127.0.0.1; a user's
 * --set key=value overrides them. The loader itself ignores a key that is
 * not a field (it keeps it as a free-form property), so a user's key is
 * checked here first: an unknown key is a usage error, not a setting lost.
 */
final class Settings {
    static final String SERVICE_CONFIGURATION = "org.apache.pulsar.broker.ServiceConfiguration";
    static final String CLUSTER = "standalone";

    /** Keys the launcher owns: the ports have options, the rest makes the cluster it creates. */
    private static final Set<String> OWNED = Set.of("brokerServicePort", "webServicePort", "clusterName",
            "metadataStoreUrl", "configurationMetadataStoreUrl", "zookeeperServers", "configurationStoreServers",
            "globalZookeeperServers");

    /** A user's setting that cannot be applied; the launcher exits 2 with its message. */
    static final class BadSetting extends Exception {
        BadSetting(String message) {
            super(message);
        }
    }

    private final Map<String, String> user = new LinkedHashMap<>();
    /** Free-form properties (--property): no ServiceConfiguration field, read by plugins. */
    private final Map<String, String> properties = new LinkedHashMap<>();

    /** The user's value of `key` (--set or --property), or null. */
    String value(String key) {
        return user.containsKey(key) ? user.get(key) : properties.get(key);
    }

    /**
     * Records a free-form broker.conf property (--property key=value), such as the
     * token provider's tokenSecretKey or the basic provider's basicAuthConf: the
     * loader keeps every key in the configuration's properties, where
     * authentication providers read theirs (AuthenticationProviderToken.getValidationKey).
     */
    void property(String assignment) throws BadSetting {
        int eq = assignment.indexOf('=');
        if (eq <= 0) {
            throw new BadSetting("--property takes key=value, got '" + assignment + "'");
        }
        String key = assignment.substring(0, eq).trim();
        if (OWNED.contains(key)) {
            throw new BadSetting("--property " + key + ": run-broker sets it itself (use --port, --admin-port or --data)");
        }
        properties.put(key, assignment.substring(eq + 1).trim());
    }

    /** Records a user's KEY=VALUE (from --set); the last of a key wins, as in broker.conf. */
    void set(String assignment) throws BadSetting {
        int eq = assignment.indexOf('=');
        if (eq <= 0) {
            throw new BadSetting("--set takes key=value (a broker.conf key), got '" + assignment + "'");
        }
        String key = assignment.substring(0, eq).trim();
        if (OWNED.contains(key)) {
            throw new BadSetting("--set " + key + ": run-broker sets it itself (use --port, --admin-port or --data)");
        }
        user.put(key, assignment.substring(eq + 1).trim());
    }

    /**
     * The loaded ServiceConfiguration: the launcher's defaults (those this
     * release knows), the storage's metadata URL, the ports, then the user's keys.
     */
    Object load(String metadataUrl, int port, int adminPort) throws Exception {
        Class<?> type = Reflect.requireClass(SERVICE_CONFIGURATION);
        Map<String, Field> fields = fieldsOf(type);
        Properties p = new Properties();
        defaults().forEach((k, v) -> {
            if (fields.containsKey(k)) {
                p.setProperty(k, v);
            }
        });
        p.setProperty("clusterName", CLUSTER);
        p.setProperty("metadataStoreUrl", metadataUrl);
        p.setProperty("configurationMetadataStoreUrl", metadataUrl);
        p.setProperty("brokerServicePort", Integer.toString(port));
        p.setProperty("webServicePort", Integer.toString(adminPort));
        p.putAll(properties);
        p.putAll(user);
        return create(type, p);
    }

    /**
     * Throws BadSetting for the first user key this release does not know, or
     * a value its loader refuses, before anything starts.
     */
    void check() throws Exception {
        Class<?> type = Reflect.requireClass(SERVICE_CONFIGURATION);
        Map<String, Field> fields = fieldsOf(type);
        Properties p = new Properties();
        for (Map.Entry<String, String> e : user.entrySet()) {
            check(fields, e.getKey(), e.getValue());
            p.setProperty(e.getKey(), e.getValue());
        }
        create(type, p);
    }

    private static Object create(Class<?> type, Properties p) throws Exception {
        Class<?> loader = Reflect.requireClass("org.apache.pulsar.common.configuration.PulsarConfigurationLoader");
        try {
            return Reflect.callStatic(loader, "create", p, type);
        } catch (IllegalArgumentException e) {
            throw new BadSetting("a --set value was refused by Pulsar's config loader: " + e.getMessage());
        }
    }

    private static void check(Map<String, Field> fields, String key, String value) throws BadSetting {
        Field f = fields.get(key);
        if (f == null) {
            throw new BadSetting("--set " + key + ": not a broker.conf key of this release (no ServiceConfiguration field "
                    + key + ")");
        }
        // FieldParser reads booleans with Boolean.valueOf, which takes any other word as false.
        Class<?> t = f.getType();
        if ((t == boolean.class || t == Boolean.class) && !value.equalsIgnoreCase("true")
                && !value.equalsIgnoreCase("false")) {
            throw new BadSetting("--set " + key + " takes true or false, got '" + value + "'");
        }
    }

    private static Map<String, Field> fieldsOf(Class<?> type) {
        Map<String, Field> out = new LinkedHashMap<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                out.putIfAbsent(f.getName(), f);
            }
        }
        return out;
    }

    /**
     * One small broker for 2 cores: what bin/pulsar standalone and Pulsar's
     * test context (PulsarTestContext.defaultOverrideServiceConfiguration)
     * change from broker.conf, and nothing about admission.
     */
    private static Map<String, String> defaults() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("advertisedAddress", "127.0.0.1");
        d.put("bindAddress", "127.0.0.1");
        // Without it a VM whose NIC reports no speed fails to start (apache/pulsar #14648).
        d.put("loadBalancerOverrideBrokerNicSpeedGbps", "1");
        d.put("managedLedgerDefaultEnsembleSize", "1");
        d.put("managedLedgerDefaultWriteQuorum", "1");
        d.put("managedLedgerDefaultAckQuorum", "1");
        d.put("defaultNumberOfNamespaceBundles", "1");
        d.put("brokerShutdownTimeoutMs", "0");
        d.put("numIOThreads", "2");
        d.put("numOrderedExecutorThreads", "2");
        d.put("numExecutorThreadPoolSize", "2");
        d.put("numCacheExecutorThreadPoolSize", "1");
        d.put("numHttpServerThreads", "8");
        d.put("numWorkerThreadsForNonPersistentTopic", "2");
        d.put("topicOrderedExecutorThreadNum", "2");
        d.put("managedLedgerNumSchedulerThreads", "2");
        d.put("bookkeeperClientNumWorkerThreads", "2");
        d.put("bookkeeperClientNumIoThreads", "2");
        d.put("managedLedgerCacheSizeMB", "32");
        d.put("functionsWorkerEnabled", "false");
        return d;
    }
}
