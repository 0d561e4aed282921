// Readers, partitioned topics, and regex and multi-topic consumers.
package clients

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/pulsar-client-go/pulsar"
)

func sendStrings(t *testing.T, p pulsar.Producer, values ...string) []pulsar.MessageID {
	t.Helper()
	var ids []pulsar.MessageID
	for _, v := range values {
		ids = append(ids, send(t, p, &pulsar.ProducerMessage{Value: v}))
	}
	return ids
}

func stringValue(t *testing.T, msg pulsar.Message) string {
	t.Helper()
	var s *string
	if err := msg.GetSchemaValue(&s); err != nil {
		t.Fatalf("GetSchemaValue: %v", err)
	}
	return *s
}

func readNext(t *testing.T, r pulsar.Reader) pulsar.Message {
	t.Helper()
	msg, err := r.Next(ctx(t))
	if err != nil {
		t.Fatalf("Reader.Next: %v", err)
	}
	return msg
}

// A reader from the earliest message reads every message with its schema
// version; a reader started inclusively at the second message's id reads from
// it; a reader at the latest position sees only what is sent after it.
func TestReaders(t *testing.T) {
	c := newClient(t, shared)
	topic := topicName(t, "reader")
	p := newProducer(t, c, topic, pulsar.NewStringSchema(nil))
	ids := sendStrings(t, p, "one", "two", "three")

	earliest, err := c.CreateReader(pulsar.ReaderOptions{Topic: topic, StartMessageID: pulsar.EarliestMessageID(),
		Schema: pulsar.NewStringSchema(nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer earliest.Close()
	for _, want := range []string{"one", "two", "three"} {
		msg := readNext(t, earliest)
		checkVersion(t, "reader message", msg.SchemaVersion(), 0)
		if got := stringValue(t, msg); got != want {
			t.Fatalf("read %q, want %q", got, want)
		}
	}

	from, err := c.CreateReader(pulsar.ReaderOptions{Topic: topic, StartMessageID: ids[1],
		StartMessageIDInclusive: true, Schema: pulsar.NewStringSchema(nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer from.Close()
	if got := stringValue(t, readNext(t, from)); got != "two" {
		t.Fatalf("inclusive reader at the second id read %q, want two", got)
	}

	latest, err := c.CreateReader(pulsar.ReaderOptions{Topic: topic, StartMessageID: pulsar.LatestMessageID(),
		Schema: pulsar.NewStringSchema(nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer latest.Close()
	if latest.HasNext() {
		t.Fatalf("a reader at the latest position has a message before any was sent after it")
	}
	sendStrings(t, p, "four")
	if got := stringValue(t, readNext(t, latest)); got != "four" {
		t.Fatalf("latest reader read %q, want four", got)
	}
}

// A topic partitioned over REST (PUT .../partitions 3): the client finds the
// three partitions (PARTITIONED_METADATA), a producer spreads keyed messages
// over them, one schema serves every partition, and a consumer of the
// partitioned topic receives every message from its partition.
func TestPartitionedTopic(t *testing.T) {
	c := newClient(t, shared)
	topic := topicName(t, "partitioned")
	mustAdmin(t, shared, "PUT", "/admin/v2/"+restPath(topic)+"/partitions", "3")
	partitions, err := c.TopicPartitions(topic)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{topic + "-partition-0", topic + "-partition-1", topic + "-partition-2"}
	if fmt.Sprint(partitions) != fmt.Sprint(want) {
		t.Fatalf("partitions %v, want %v", partitions, want)
	}
	cons := newConsumer(t, c, topic, pulsar.NewAvroSchema(userDef, nil))
	p := newProducer(t, c, topic, pulsar.NewAvroSchema(userDef, nil))
	sent := map[string]bool{}
	for i := 0; i < 9; i++ {
		name := fmt.Sprintf("user-%d", i)
		send(t, p, &pulsar.ProducerMessage{Key: name, Value: User{name, int32(i)}})
		sent[name] = true
	}
	seenPartitions := map[string]bool{}
	for range sent {
		msg := receive(t, cons)
		checkVersion(t, "message of "+msg.Topic(), msg.SchemaVersion(), 0)
		var u User
		if err := msg.GetSchemaValue(&u); err != nil || !sent[u.Name] || u.Name != msg.Key() {
			t.Fatalf("received %+v key %q (%v)", u, msg.Key(), err)
		}
		delete(sent, u.Name)
		if !strings.HasPrefix(msg.Topic(), topic+"-partition-") {
			t.Fatalf("message topic %q is not a partition of %s", msg.Topic(), topic)
		}
		seenPartitions[msg.Topic()] = true
	}
	if len(seenPartitions) < 2 {
		t.Fatalf("9 keys all routed to %v: the producer did not see 3 partitions", seenPartitions)
	}
	text := mustAdmin(t, shared, "GET", "/admin/v2/"+restPath(topic)+"/partitions", "")
	if text != `{"deleted":false,"partitions":3}` { // "deleted" from 3.0.0 (#18193), as a real 4.2.4 answers
		t.Fatalf("GET partitions: %s", text)
	}
	if stored := getSchema(t, shared, topic); stored.Type != "AVRO" || stored.Version != 0 {
		t.Fatalf("schema of the partitioned topic %+v, want AVRO version 0", stored)
	}
}

// A consumer of two named topics receives from both, each message with its topic.
func TestMultiTopicConsumer(t *testing.T) {
	c := newClient(t, shared)
	a, b := topicName(t, "multi-a"), topicName(t, "multi-b")
	cons, err := c.Subscribe(pulsar.ConsumerOptions{Topics: []string{a, b}, SubscriptionName: "go-multi",
		Schema: pulsar.NewStringSchema(nil)})
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	sendStrings(t, newProducer(t, c, a, pulsar.NewStringSchema(nil)), "to-a")
	sendStrings(t, newProducer(t, c, b, pulsar.NewStringSchema(nil)), "to-b")
	got := map[string]string{}
	for i := 0; i < 2; i++ {
		msg := receive(t, cons)
		got[msg.Topic()] = stringValue(t, msg)
	}
	if got[a] != "to-a" || got[b] != "to-b" {
		t.Fatalf("received %v", got)
	}
}

// A regex consumer (TopicsPattern): the Go client lists the namespace's topics
// with GET_TOPICS_OF_NAMESPACE, subscribes to the matching ones, and polls
// again every AutoDiscoveryPeriod; a topic created later is picked up, one
// that does not match is not.
func TestRegexConsumer(t *testing.T) {
	c := newClient(t, shared)
	prefix := strings.TrimPrefix(topicName(t, "regex"), "persistent://public/default/")
	a := "persistent://public/default/" + prefix + "-a"
	other := "persistent://public/default/" + prefix + "x-other"
	pa := newProducer(t, c, a, pulsar.NewStringSchema(nil))
	po := newProducer(t, c, other, pulsar.NewStringSchema(nil))
	cons, err := c.Subscribe(pulsar.ConsumerOptions{
		TopicsPattern:               "persistent://public/default/" + prefix + "-.*",
		SubscriptionName:            "go-regex",
		AutoDiscoveryPeriod:         200 * time.Millisecond,
		SubscriptionInitialPosition: pulsar.SubscriptionPositionEarliest,
		Schema:                      pulsar.NewStringSchema(nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	sendStrings(t, po, "not-matched")
	sendStrings(t, pa, "from-a")
	if msg := receive(t, cons); msg.Topic() != a || stringValue(t, msg) != "from-a" {
		t.Fatalf("received %q from %s", stringValue(t, msg), msg.Topic())
	}
	// A new matching topic: the next poll finds it; its message was sent before
	// the consumer subscribed to it, so the subscription starts at the earliest.
	b := "persistent://public/default/" + prefix + "-b"
	sendStrings(t, newProducer(t, c, b, pulsar.NewStringSchema(nil)), "from-b")
	msg := receive(t, cons)
	if msg.Topic() != b || stringValue(t, msg) != "from-b" {
		t.Fatalf("received %q from %s, want from-b from %s", stringValue(t, msg), msg.Topic(), b)
	}
	text := mustAdmin(t, shared, "GET", "/admin/v2/"+restPath(a)+"/stats", "")
	if !strings.Contains(text, `"go-regex"`) {
		t.Fatalf("stats of %s without the regex subscription: %s", a, text)
	}
	text = mustAdmin(t, shared, "GET", "/admin/v2/"+restPath(other)+"/stats", "")
	if strings.Contains(text, `"go-regex"`) {
		t.Fatalf("the regex consumer subscribed to %s, which does not match: %s", other, text)
	}
}
