package org.cnxsim.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.ProducerAccessMode;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.PulsarClientException;
import org.apache.pulsar.client.api.Schema;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Unload and upgrade under live clients, producer access modes, transactions on a broker without them. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class LifecycleTest {
    @RegisterExtension
    static final CnxsimServe SERVE = new CnxsimServe();

    static PulsarClient client;
    static PulsarAdmin admin;

    @BeforeAll
    static void connect() throws Exception {
        client = Clients.client(SERVE);
        admin = Clients.admin(SERVE);
    }

    @AfterAll
    static void close() throws Exception {
        client.close();
        admin.close();
    }

    static Message<User> receive(Consumer<User> consumer) throws PulsarClientException {
        Message<User> m = consumer.receive(20, TimeUnit.SECONDS);
        assertNotNull(m, "a message within 20 s");
        consumer.acknowledge(m);
        return m;
    }

    @Test
    void unloadUnderLiveClientsThenReadmission() throws Exception {
        String topic = Clients.topic("unload");
        try (Consumer<User> consumer = client.newConsumer(Schema.AVRO(User.class)).topic(topic)
                        .isAckReceiptEnabled(true).subscriptionName("s").subscribe();
                Producer<User> producer = client.newProducer(Schema.AVRO(User.class)).topic(topic).create()) {
            producer.send(new User("before", 1));
            assertEquals(new User("before", 1), receive(consumer).getValue());
            admin.topics().unload(topic);
            // The client is told CLOSE_PRODUCER / CLOSE_CONSUMER, looks the topic up again and is re-admitted.
            producer.send(new User("after", 2));
            Message<User> m = receive(consumer);
            assertEquals(new User("after", 2), m.getValue());
            assertEquals(0L, ByteBuffer.wrap(m.getSchemaVersion()).getLong());
            assertTrue(producer.isConnected());
            assertTrue(consumer.isConnected());
        }
        assertEquals(1, admin.schemas().getAllSchemas(topic).size(), "the schema survives the unload");
    }

    @Test
    void upgradeUnderLiveClientsThenReadmission() throws Exception {
        String topic = Clients.topic("upgrade");
        String target = CnxsimServe.olderThan(4, 2) ? "4.2" : "4.0";
        try (Consumer<User> consumer = client.newConsumer(Schema.AVRO(User.class)).topic(topic)
                        .isAckReceiptEnabled(true).subscriptionName("s").subscribe();
                Producer<User> producer = client.newProducer(Schema.AVRO(User.class)).topic(topic).create()) {
            producer.send(new User("before", 1));
            assertEquals(new User("before", 1), receive(consumer).getValue());
            HttpResponse<String> r = SERVE.cnxsimPost("/cnxsim/upgrade?version=" + target);
            assertEquals(200, r.statusCode(), r.body());
            String version = admin.brokers().getVersion();
            assertTrue(version.startsWith(target + "."), version);
            producer.send(new User("after", 2));
            Message<User> m = receive(consumer);
            assertEquals(new User("after", 2), m.getValue());
            assertEquals(0L, ByteBuffer.wrap(m.getSchemaVersion()).getLong(), "the schema survives the upgrade");
            // Back to the release the class started on, for the other tests.
            HttpResponse<String> back = SERVE.cnxsimPost("/cnxsim/upgrade?version=" + CnxsimServe.brokerVersion());
            assertEquals(200, back.statusCode(), back.body());
            producer.send(new User("back", 3));
            assertEquals(new User("back", 3), receive(consumer).getValue());
        }
        assertEquals(SERVE.release(), admin.brokers().getVersion());
    }

    @Test
    void exclusiveProducerFencesTheSecond() throws Exception {
        String topic = Clients.topic("exclusive");
        try (Producer<String> first = client.newProducer(Schema.STRING).topic(topic)
                .accessMode(ProducerAccessMode.Exclusive).create()) {
            first.send("one");
            PulsarClientException.ProducerFencedException e = assertThrows(
                    PulsarClientException.ProducerFencedException.class,
                    () -> client.newProducer(Schema.STRING).topic(topic).accessMode(ProducerAccessMode.Exclusive).create());
            assertEquals("org.apache.pulsar.broker.service.BrokerServiceException$ProducerFencedException: "
                    + "Topic has an existing exclusive producer: " + first.getProducerName(), Clients.brokerText(e));
            PulsarClientException.ProducerBusyException shared = assertThrows(
                    PulsarClientException.ProducerBusyException.class,
                    () -> client.newProducer(Schema.STRING).topic(topic).create());
            assertEquals("org.apache.pulsar.broker.service.BrokerServiceException$ProducerBusyException: "
                    + "Topic has an existing exclusive producer: " + first.getProducerName(), Clients.brokerText(shared));
        }
    }

    @Test
    void waitForExclusiveIsAdmittedWhenTheFirstCloses() throws Exception {
        String topic = Clients.topic("wait-exclusive");
        Producer<String> first = client.newProducer(Schema.STRING).topic(topic)
                .accessMode(ProducerAccessMode.Exclusive).create();
        CompletableFuture<Producer<String>> waiting = client.newProducer(Schema.STRING).topic(topic)
                .accessMode(ProducerAccessMode.WaitForExclusive).createAsync();
        // A round trip on the same connection after the second PRODUCER: its
        // answer (producer_ready=false) came first, so it is still waiting.
        first.send("first");
        assertFalse(waiting.isDone(), "the WaitForExclusive producer waits while the first is open");
        first.close();
        try (Producer<String> second = waiting.get(20, TimeUnit.SECONDS);
                Consumer<String> c = client.newConsumer(Schema.STRING).topic(topic).subscriptionName("s")
                        .subscriptionInitialPosition(org.apache.pulsar.client.api.SubscriptionInitialPosition.Earliest)
                        .subscribe()) {
            second.send("second");
            assertEquals("first", c.receive(10, TimeUnit.SECONDS).getValue());
            assertEquals("second", c.receive(10, TimeUnit.SECONDS).getValue());
        }
    }

    @Test
    void transactionsFailClearlyOnABrokerWithoutThem() throws Exception {
        PulsarClientException e = assertThrows(PulsarClientException.class, () -> {
            try (PulsarClient txnClient = PulsarClient.builder().serviceUrl(SERVE.serviceUrl())
                    .operationTimeout(10, TimeUnit.SECONDS).enableTransaction(true).build()) {
                txnClient.newTransaction().withTransactionTimeout(1, TimeUnit.MINUTES).build().get(20, TimeUnit.SECONDS);
            } catch (ExecutionException ex) {
                throw PulsarClientException.unwrap(ex.getCause());
            }
        });
        // The client's own text: PARTITIONED_METADATA of pulsar/system/transaction_coordinator_assign
        // answers 0 partitions, as from a broker with transactionCoordinatorEnabled=false.
        assertEquals("org.apache.pulsar.client.api.transaction.TransactionCoordinatorClientException: "
                + "The broker doesn't enable the transaction coordinator, or the transaction coordinator has not initialized",
                e.getMessage());
    }
}
