// An example of cnxsimtest with the official Go client: the helper starts
// `cnxsim serve` for the test, the client produces and consumes through it,
// and the broker is upgraded under the live client.
package example

import (
	"context"
	"testing"
	"time"

	"github.com/apache/pulsar-client-go/pulsar"
	cnxsimtest "github.com/cnxsim/cnxsim/testkit/go"
)

func TestProduceConsume(t *testing.T) {
	srv := cnxsimtest.Start(t, cnxsimtest.Options{Version: "3.0"})
	client, err := pulsar.NewClient(pulsar.ClientOptions{URL: srv.ServiceURL, OperationTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	consumer, err := client.Subscribe(pulsar.ConsumerOptions{Topic: "orders", SubscriptionName: "audit"})
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close()
	producer, err := client.CreateProducer(pulsar.ProducerOptions{Topic: "orders"})
	if err != nil {
		t.Fatal(err)
	}
	defer producer.Close()

	send := func(text string) {
		if _, err := producer.Send(ctx, &pulsar.ProducerMessage{Payload: []byte(text)}); err != nil {
			t.Fatalf("Send(%s) on Pulsar %s: %v", text, srv.Version, err)
		}
		msg, err := consumer.Receive(ctx)
		if err != nil {
			t.Fatalf("Receive on Pulsar %s: %v", srv.Version, err)
		}
		if string(msg.Payload()) != text {
			t.Fatalf("received %q, want %q", msg.Payload(), text)
		}
		_ = consumer.Ack(msg)
	}
	send("before")
	// The broker restarts on 4.2 under the client, which reconnects.
	if err := srv.Upgrade("4.2"); err != nil {
		t.Fatal(err)
	}
	send("after the upgrade to " + srv.Version)
}
