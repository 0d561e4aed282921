package org.cnxsim.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.Schema;
import org.apache.pulsar.client.api.SubscriptionType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Batches, redelivery (consumer epochs), seek and subscription types, as the Java client drives them. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MessagingTest {
    @RegisterExtension
    static final CnxsimServe SERVE = new CnxsimServe();

    PulsarClient client;

    @BeforeEach
    void clients() throws Exception {
        client = SERVE.client();
    }

    @Test
    void batchedSendsArriveInOrderAndAreAckedOneByOne() throws Exception {
        String topic = Clients.topic("batch");
        try (Consumer<String> consumer = client.newConsumer(Schema.STRING).topic(topic).subscriptionName("s")
                        .isAckReceiptEnabled(true).subscribe();
                Producer<String> producer = client.newProducer(Schema.STRING).topic(topic)
                        .batchingMaxPublishDelay(1, TimeUnit.SECONDS).batchingMaxMessages(5).create()) {
            List<CompletableFuture<MessageId>> sent = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                sent.add(producer.sendAsync("b" + i));
            }
            producer.flush();
            for (CompletableFuture<MessageId> f : sent) {
                f.get(10, TimeUnit.SECONDS);
            }
            for (int i = 0; i < 10; i++) {
                Message<String> m = Clients.next(consumer);
                assertEquals("b" + i, m.getValue());
                consumer.acknowledge(m);  // waits for the broker's ACK_RESPONSE
            }
        }
    }

    @Test
    void redeliverUnacknowledgedOnAnExclusiveConsumer() throws Exception {
        // The Java client bumps its consumer epoch and sends it with REDELIVER_UNACKNOWLEDGED_MESSAGES;
        // the messages come again and are not dropped as stale.
        String topic = Clients.topic("redeliver");
        try (Consumer<String> consumer = client.newConsumer(Schema.STRING).topic(topic).subscriptionName("s")
                        .subscriptionType(SubscriptionType.Exclusive).subscribe();
                Producer<String> producer = client.newProducer(Schema.STRING).topic(topic).enableBatching(false).create()) {
            producer.send("x1");
            producer.send("x2");
            assertEquals("x1", Clients.next(consumer).getValue());
            assertEquals("x2", Clients.next(consumer).getValue());
            consumer.redeliverUnacknowledgedMessages();
            Message<String> again = Clients.next(consumer);
            assertEquals("x1", again.getValue());
            assertTrue(again.getRedeliveryCount() >= 0);
            assertEquals("x2", Clients.next(consumer).getValue());
        }
    }

    @Test
    void negativeAckOnASharedSubscriptionIsRedelivered() throws Exception {
        String topic = Clients.topic("nack");
        try (Consumer<String> consumer = client.newConsumer(Schema.STRING).topic(topic).subscriptionName("s")
                        .subscriptionType(SubscriptionType.Shared)
                        .negativeAckRedeliveryDelay(100, TimeUnit.MILLISECONDS).subscribe();
                Producer<String> producer = client.newProducer(Schema.STRING).topic(topic).create()) {
            producer.send("n1");
            Message<String> first = Clients.next(consumer);
            consumer.negativeAcknowledge(first);
            Message<String> again = Clients.next(consumer);
            assertEquals("n1", again.getValue());
            assertEquals(1, again.getRedeliveryCount());
            consumer.acknowledge(again);
        }
    }

    @Test
    void seekBackToEarliest() throws Exception {
        String topic = Clients.topic("seek");
        try (Consumer<String> consumer = client.newConsumer(Schema.STRING).topic(topic).subscriptionName("s").subscribe();
                Producer<String> producer = client.newProducer(Schema.STRING).topic(topic).create()) {
            producer.send("s1");
            producer.send("s2");
            consumer.acknowledge(Clients.next(consumer));
            consumer.acknowledge(Clients.next(consumer));
            consumer.seek(MessageId.earliest);
            assertEquals("s1", Clients.next(consumer).getValue());
            assertEquals("s2", Clients.next(consumer).getValue());
        }
    }

    @Test
    void keySharedSpreadsKeysAndKeepsEachKeyOnOneConsumer() throws Exception {
        String topic = Clients.topic("key-shared");
        try (Consumer<String> c1 = client.newConsumer(Schema.STRING).topic(topic).subscriptionName("s")
                        .subscriptionType(SubscriptionType.Key_Shared).subscribe();
                Consumer<String> c2 = client.newConsumer(Schema.STRING).topic(topic).subscriptionName("s")
                        .subscriptionType(SubscriptionType.Key_Shared).subscribe();
                Producer<String> producer = client.newProducer(Schema.STRING).topic(topic).enableBatching(false).create()) {
            for (int i = 0; i < 20; i++) {
                producer.newMessage().key("k" + (i % 4)).value("v" + i).send();
            }
            Set<String> keys1 = new HashSet<>();
            Set<String> keys2 = new HashSet<>();
            int got = 0;
            // Each round polls both consumers briefly; bounded, so a lost message fails the count below.
            for (int round = 0; got < 20 && round < 100; round++) {
                Message<String> m = c1.receive(200, TimeUnit.MILLISECONDS);
                if (m != null) {
                    keys1.add(m.getKey());
                    c1.acknowledge(m);
                    got++;
                }
                Message<String> n = c2.receive(200, TimeUnit.MILLISECONDS);
                if (n != null) {
                    keys2.add(n.getKey());
                    c2.acknowledge(n);
                    got++;
                }
            }
            assertEquals(20, got, "all 20 messages delivered");
            Set<String> both = new HashSet<>(keys1);
            both.retainAll(keys2);
            assertEquals(Set.of(), both, "no key on both consumers");
        }
    }
}
