package org.cnxsim.junit5;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The setup attribute reaches serve as --setup (the file of doc/serve; surefire runs in testkit/java). */
@CnxsimServe(setup = "../../doc/serve/setup-example.yaml")
class SetupTest {
    @Test
    void theSetupFileIsPreloaded(CnxsimServer server) throws Exception {
        // The file's broker.version, since no version attribute overrides it.
        assertTrue(server.version().startsWith("3.0."), server.version());
        String partitions = Http.get(server.adminUrl() + "/admin/v2/persistent/public/default/orders/partitions").body();
        assertTrue(partitions.contains("\"partitions\":4"), partitions);
        String policies = Http.get(server.adminUrl() + "/admin/v2/namespaces/public/default").body();
        assertTrue(policies.contains("\"schema_compatibility_strategy\":\"BACKWARD\""), policies);
    }
}
