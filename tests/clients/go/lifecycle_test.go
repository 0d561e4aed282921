// An unload and a broker upgrade under live Go clients: each starts its own
// serve, so the restart touches no other test's clients.
package clients

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/apache/pulsar-client-go/pulsar"
)

func startOwnServe(t *testing.T, version string) *serve {
	t.Helper()
	s, err := startServe(version)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// answered counts the decisions of /cnxsim/trace whose request starts with
// command and names topic.
func answered(t *testing.T, s *serve, command, topic string) (count int, answers []string) {
	t.Helper()
	var trace struct {
		Decisions []struct {
			Request string `json:"request"`
			Answer  string `json:"answer"`
		} `json:"decisions"`
	}
	text := mustAdmin(t, s, "GET", "/cnxsim/trace?last=1024", "")
	if err := json.Unmarshal([]byte(text), &trace); err != nil {
		t.Fatalf("/cnxsim/trace: %v", err)
	}
	for _, d := range trace.Decisions {
		if strings.HasPrefix(d.Request, command+" ") && strings.Contains(d.Request, topic+" ") {
			count++
			answers = append(answers, d.Answer)
		}
	}
	return count, answers
}

// stats is the part of GET …/stats the tests read.
type stats struct {
	Publishers    []struct{ ProducerName string } `json:"publishers"`
	Subscriptions map[string]struct {
		Consumers []struct{ ConsumerName string } `json:"consumers"`
	} `json:"subscriptions"`
}

func topicStats(t *testing.T, s *serve, topic string) stats {
	t.Helper()
	var st stats
	text := mustAdmin(t, s, "GET", "/admin/v2/"+restPath(topic)+"/stats", "")
	if err := json.Unmarshal([]byte(text), &st); err != nil {
		t.Fatalf("stats: %v in %s", err, text)
	}
	return st
}

// The topic unloaded with the Go admin client under a producer and a
// consumer: the broker closes both (CLOSE_PRODUCER, CLOSE_CONSUMER), the
// client reconnects them by itself, and each is admitted again (a second
// PRODUCER_SUCCESS and SUCCESS); the next message goes through with the same
// schema version.
func TestUnloadUnderLiveClients(t *testing.T) {
	s := startOwnServe(t, brokerVersion())
	c := newClient(t, s)
	topic := topicName(t, "unload")
	p := newProducer(t, c, topic, pulsar.NewAvroSchema(userDef, nil))
	cons := newConsumer(t, c, topic, pulsar.NewAvroSchema(userDef, nil))
	send(t, p, &pulsar.ProducerMessage{Value: User{"before", 1}})
	checkVersion(t, "before the unload", receive(t, cons).SchemaVersion(), 0)

	if err := newAdmin(t, s).Topics().Unload(mustTopicName(t, topic)); err != nil {
		t.Fatalf("Unload: %v", err)
	}
	// Send waits for the producer's reconnection; Receive for the consumer's.
	send(t, p, &pulsar.ProducerMessage{Value: User{"after", 2}})
	receiveUser(t, cons, User{"after", 2}, 0)
	producers, answers := answered(t, s, "PRODUCER", topic)
	if producers != 2 || !strings.HasPrefix(answers[1], "PRODUCER_SUCCESS") {
		t.Fatalf("PRODUCER answered %d times (%v), want 2: admitted, then re-admitted after the unload", producers, answers)
	}
	subscribes, answers := answered(t, s, "SUBSCRIBE", topic)
	if subscribes != 2 || !strings.HasPrefix(answers[1], "SUCCESS") {
		t.Fatalf("SUBSCRIBE answered %d times (%v), want 2", subscribes, answers)
	}
	st := topicStats(t, s, topic)
	if len(st.Publishers) != 1 || len(st.Subscriptions["go-sub"].Consumers) != 1 {
		t.Fatalf("after the unload: stats %+v, want one producer and one consumer", st)
	}
}

// `POST /cnxsim/upgrade?version=4.2` under a producer and a consumer connected
// to a 2.11 broker: the broker restarts on 4.2, the clients reconnect and are
// admitted again with the schema kept (version 0), the message after the
// upgrade goes through, and the new release's rules apply from then on (a
// top-level union, stored on 2.11, is refused on 4.2).
func TestUpgradeUnderLiveClients(t *testing.T) {
	s := startOwnServe(t, "2.11")
	c := newClient(t, s)
	topic := topicName(t, "upgrade")
	p := newProducer(t, c, topic, pulsar.NewAvroSchema(userDef, nil))
	cons := newConsumer(t, c, topic, pulsar.NewAvroSchema(userDef, nil))
	union := topicName(t, "upgrade-union")
	newProducer(t, c, union, pulsar.NewAvroSchema(`["null", "string"]`, nil)).Close()
	send(t, p, &pulsar.ProducerMessage{Value: User{"on-2.11", 1}})
	checkVersion(t, "on 2.11", receive(t, cons).SchemaVersion(), 0)

	mustAdmin(t, s, "POST", "/cnxsim/upgrade?version=4.2", "")
	if v := mustAdmin(t, s, "GET", "/admin/v2/brokers/version", ""); !strings.HasPrefix(v, "4.2.") {
		t.Fatalf("brokers/version after the upgrade: %q", v)
	}
	send(t, p, &pulsar.ProducerMessage{Value: User{"on-4.2", 2}})
	receiveUser(t, cons, User{"on-4.2", 2}, 0)
	// The trace is kept across the restart: the second PRODUCER is the re-admission on 4.2.
	if n, answers := answered(t, s, "PRODUCER", topic); n != 2 || !strings.HasPrefix(answers[1], "PRODUCER_SUCCESS") {
		t.Fatalf("PRODUCER answered %d times (%v), want 2: on 2.11, then re-admitted on 4.2", n, answers)
	}
	if stored := getSchema(t, s, topic); stored.Version != 0 || stored.Type != "AVRO" {
		t.Fatalf("schema after the upgrade %+v, want AVRO version 0", stored)
	}
	_, err := c.CreateProducer(pulsar.ProducerOptions{Topic: topicName(t, "upgrade-union-new"),
		Schema: pulsar.NewAvroSchema(`["null", "string"]`, nil)})
	if err == nil {
		t.Fatalf("a top-level union was admitted after the upgrade to 4.2")
	}
	checkRefusal(t, err, "IncompatibleSchema", "Avro schema typed [UNION] is not supported")
}
