package org.cnxsim.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.pulsar.client.admin.PulsarAdmin;
import org.apache.pulsar.client.api.Consumer;
import org.apache.pulsar.client.api.Message;
import org.apache.pulsar.client.api.MessageId;
import org.apache.pulsar.client.api.MessageRoutingMode;
import org.apache.pulsar.client.api.Producer;
import org.apache.pulsar.client.api.PulsarClient;
import org.apache.pulsar.client.api.Reader;
import org.apache.pulsar.client.api.Schema;
import org.apache.pulsar.client.api.SubscriptionInitialPosition;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Readers, partitioned topics, regex and multi-topic subscriptions. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TopicsTest {
    @RegisterExtension
    static final CnxsimServe SERVE = new CnxsimServe();

    PulsarClient client;
    PulsarAdmin admin;

    @BeforeEach
    void clients() throws Exception {
        client = SERVE.client();
        admin = SERVE.admin();
    }

    static <T> List<T> receiveN(Consumer<T> consumer, int n) throws Exception {
        List<T> values = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Message<T> m = consumer.receive(10, TimeUnit.SECONDS);
            assertNotNull(m, "message " + (i + 1) + " of " + n + " within 10 s; got " + values);
            consumer.acknowledge(m);
            values.add(m.getValue());
        }
        return values;
    }

    @Test
    void readerFromEarliestLatestAndAMessageId() throws Exception {
        String topic = Clients.topic("reader");
        List<MessageId> ids = new ArrayList<>();
        try (Producer<String> producer = client.newProducer(Schema.STRING).topic(topic).create()) {
            for (String v : List.of("r0", "r1", "r2")) {
                ids.add(producer.send(v));
            }
            try (Reader<String> reader = client.newReader(Schema.STRING).topic(topic)
                    .startMessageId(MessageId.earliest).create()) {
                List<String> read = new ArrayList<>();
                while (reader.hasMessageAvailable()) {
                    read.add(reader.readNext(10, TimeUnit.SECONDS).getValue());
                }
                assertEquals(List.of("r0", "r1", "r2"), read);
            }
            try (Reader<String> reader = client.newReader(Schema.STRING).topic(topic)
                    .startMessageId(ids.get(1)).startMessageIdInclusive().create()) {
                assertEquals("r1", reader.readNext(10, TimeUnit.SECONDS).getValue());
                assertEquals("r2", reader.readNext(10, TimeUnit.SECONDS).getValue());
            }
            try (Reader<String> reader = client.newReader(Schema.STRING).topic(topic)
                    .startMessageId(MessageId.latest).create()) {
                assertFalse(reader.hasMessageAvailable(), "nothing after latest yet");
                producer.send("r3");
                Message<String> m = reader.readNext(10, TimeUnit.SECONDS);
                assertNotNull(m);
                assertEquals("r3", m.getValue());
                assertEquals(0L, Clients.version(m));
            }
        }
    }

    @Test
    void partitionedTopicSpreadsAndGathers() throws Exception {
        String topic = Clients.topic("partitioned");
        admin.topics().createPartitionedTopic(topic, 3);
        assertEquals(3, admin.topics().getPartitionedTopicMetadata(topic).partitions);
        assertEquals(List.of(topic + "-partition-0", topic + "-partition-1", topic + "-partition-2"),
                client.getPartitionsForTopic(topic).get(10, TimeUnit.SECONDS));
        try (Consumer<User> consumer = client.newConsumer(Schema.AVRO(User.class)).topic(topic)
                        .subscriptionName("s").subscribe();
                Producer<User> producer = client.newProducer(Schema.AVRO(User.class)).topic(topic)
                        .messageRoutingMode(MessageRoutingMode.RoundRobinPartition)
                        .enableBatching(false).create()) {
            Set<String> partitions = new TreeSet<>();
            Set<User> sent = new HashSet<>();
            for (int i = 0; i < 6; i++) {
                User u = new User("p" + i, i);
                sent.add(u);
                producer.send(u);
            }
            Set<User> got = new HashSet<>();
            for (int i = 0; i < 6; i++) {
                Message<User> m = consumer.receive(10, TimeUnit.SECONDS);
                assertNotNull(m);
                consumer.acknowledge(m);
                got.add(m.getValue());
                partitions.add(m.getTopicName());
                assertEquals(0L, Clients.version(m));
            }
            assertEquals(sent, got);
            assertEquals(Set.of(topic + "-partition-0", topic + "-partition-1", topic + "-partition-2"), partitions);
        }
        // The schema is the partitioned topic's, one for all partitions.
        assertEquals(1, admin.schemas().getAllSchemas(topic).size());
    }

    @Test
    void partitionsWithoutAutoCreation() throws Exception {
        // PIP-344: the client asks PARTITIONED_METADATA with metadata_auto_creation_enabled=false,
        // only of a broker whose CONNECTED says it can; a topic that does not exist is refused.
        String missing = Clients.topic("pip344-missing");
        java.util.concurrent.ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
                java.util.concurrent.ExecutionException.class,
                () -> client.getPartitionsForTopic(missing, false).get(10, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof org.apache.pulsar.client.api.PulsarClientException.TopicDoesNotExistException,
                String.valueOf(e.getCause()));
        String partitioned = Clients.topic("pip344-partitioned");
        admin.topics().createPartitionedTopic(partitioned, 2);
        assertEquals(List.of(partitioned + "-partition-0", partitioned + "-partition-1"),
                client.getPartitionsForTopic(partitioned, false).get(10, TimeUnit.SECONDS));
        String plain = Clients.topic("pip344-plain");
        admin.topics().createNonPartitionedTopic(plain);
        assertEquals(List.of(plain), client.getPartitionsForTopic(plain, false).get(10, TimeUnit.SECONDS));
    }

    @Test
    void multiTopicConsumer() throws Exception {
        String a = Clients.topic("multi-a");
        String b = Clients.topic("multi-b");
        try (Consumer<String> consumer = client.newConsumer(Schema.STRING).topics(List.of(a, b))
                        .subscriptionName("s").subscribe();
                Producer<String> pa = client.newProducer(Schema.STRING).topic(a).create();
                Producer<String> pb = client.newProducer(Schema.STRING).topic(b).create()) {
            pa.send("from-a");
            pb.send("from-b");
            assertEquals(Set.of("from-a", "from-b"), new HashSet<>(receiveN(consumer, 2)));
        }
    }

    @Test
    void regexSubscriptionFindsExistingAndNewTopics() throws Exception {
        String stem = "persistent://public/default/rx" + System.nanoTime();
        try (Producer<String> p1 = client.newProducer(Schema.STRING).topic(stem + "-one").create();
                Producer<String> other = client.newProducer(Schema.STRING).topic(stem + "x-not").create()) {
            try (Consumer<String> consumer = client.newConsumer(Schema.STRING)
                    .topicsPattern(Pattern.compile(stem + "-.*"))
                    .patternAutoDiscoveryPeriod(1, TimeUnit.SECONDS)
                    .subscriptionInitialPosition(SubscriptionInitialPosition.Earliest)
                    .subscriptionName("s").subscribe()) {
                p1.send("one");
                other.send("not matched");
                assertEquals(List.of("one"), receiveN(consumer, 1));
                // A topic created after the subscription is found (by the topic-list
                // watcher or the periodic GET_TOPICS_OF_NAMESPACE) and its messages arrive.
                try (Producer<String> p2 = client.newProducer(Schema.STRING).topic(stem + "-two").create()) {
                    p2.send("two");
                    assertEquals(List.of("two"), receiveN(consumer, 1));
                }
                assertNull(consumer.receive(500, TimeUnit.MILLISECONDS), "the unmatched topic delivers nothing");
            }
        }
    }
}
