package org.cnxsim.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpResponse;
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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Unload and upgrade under live clients, producer access modes, transactions on a broker without them. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class LifecycleTest {
    @RegisterExtension
    static final CnxsimServe SERVE = new CnxsimServe();

    PulsarClient client;
    PulsarAdmin admin;

    @BeforeEach
    void clients() throws Exception {
        client = SERVE.client();
        admin = SERVE.admin();
    }

    @Test
    void unloadUnderLiveClientsThenReadmission() throws Exception {
        String topic = Clients.topic("unload");
        try (Consumer<User> consumer = client.newConsumer(Schema.AVRO(User.class)).topic(topic)
                        .isAckReceiptEnabled(true).subscriptionName("s").subscribe();
                Producer<User> producer = client.newProducer(Schema.AVRO(User.class)).topic(topic).create()) {
            producer.send(new User("before", 1));
            assertEquals(new User("before", 1), Clients.receive(consumer).getValue());
            admin.topics().unload(topic);
            // The client is told CLOSE_PRODUCER / CLOSE_CONSUMER, looks the topic up again and is re-admitted.
            producer.send(new User("after", 2));
            Message<User> m = Clients.receive(consumer);
            assertEquals(new User("after", 2), m.getValue());
            assertEquals(0L, Clients.version(m));
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
            assertEquals(new User("before", 1), Clients.receive(consumer).getValue());
            HttpResponse<String> r = SERVE.cnxsimPost("/cnxsim/upgrade?version=" + target);
            assertEquals(200, r.statusCode(), r.body());
            String version = admin.brokers().getVersion();
            assertTrue(version.startsWith(target + "."), version);
            producer.send(new User("after", 2));
            Message<User> m = Clients.receive(consumer);
            assertEquals(new User("after", 2), m.getValue());
            assertEquals(0L, Clients.version(m), "the schema survives the upgrade");
            // Back to the release the class started on, for the other tests.
            HttpResponse<String> back = SERVE.cnxsimPost("/cnxsim/upgrade?version=" + CnxsimServe.brokerVersion());
            assertEquals(200, back.statusCode(), back.body());
            producer.send(new User("back", 3));
            assertEquals(new User("back", 3), Clients.receive(consumer).getValue());
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
    void waitForExclusiveOnAFreeTopicHoldsItExclusively() throws Exception {
        // A WaitForExclusive producer that finds the topic free is admitted at once and holds it.
        // (One that would have to wait is not queued by cnxsim: doc/clients/java.md, gaps.)
        String topic = Clients.topic("wait-exclusive");
        try (Producer<String> holder = client.newProducer(Schema.STRING).topic(topic)
                .accessMode(ProducerAccessMode.WaitForExclusive).create()) {
            holder.send("held");
            PulsarClientException.ProducerFencedException e = assertThrows(
                    PulsarClientException.ProducerFencedException.class,
                    () -> client.newProducer(Schema.STRING).topic(topic).accessMode(ProducerAccessMode.Exclusive).create());
            assertEquals("org.apache.pulsar.broker.service.BrokerServiceException$ProducerFencedException: "
                    + "Topic has an existing exclusive producer: " + holder.getProducerName(), Clients.brokerText(e));
        }
        // Closed, the topic is free again.
        try (Producer<String> next = client.newProducer(Schema.STRING).topic(topic)
                .accessMode(ProducerAccessMode.Exclusive).create()) {
            next.send("next");
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
