// Producer and consumer admission with the Go client's own schema classes,
// message round trips with the schema version in the metadata, and refusals
// with the Go client's errors carrying the broker's text.
package clients

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/apache/pulsar-client-go/pulsar"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// User is the record of the Avro and JSON tests; userDef is its definition as
// a Java user would write it (namespace first, spaces): the Go client
// re-marshals it with its Avro library (hamba/avro) before sending it.
type User struct {
	Name string `avro:"name" json:"name"`
	Age  int32  `avro:"age" json:"age"`
}

const userDef = `{"namespace": "cnxsim.go", "type": "record", "name": "User",
  "fields": [{"name": "name", "type": "string"}, {"name": "age", "type": "int"}]}`

// userV2Def adds a field without a default: not compatible with userDef under
// FULL, the broker's default strategy (a reader of V2 cannot read V1 data).
const userV2Def = `{"namespace": "cnxsim.go", "type": "record", "name": "User",
  "fields": [{"name": "name", "type": "string"}, {"name": "age", "type": "int"},
             {"name": "email", "type": "string"}]}`

// userV3Def adds an optional field with a default: compatible under FULL.
const userV3Def = `{"namespace": "cnxsim.go", "type": "record", "name": "User",
  "fields": [{"name": "name", "type": "string"}, {"name": "age", "type": "int"},
             {"name": "email", "type": ["null", "string"], "default": null}]}`

type UserV3 struct {
	Name  string  `avro:"name" json:"name"`
	Age   int32   `avro:"age" json:"age"`
	Email *string `avro:"email" json:"email"`
}

// version is a schema version as the broker writes it: 8 bytes, big-endian.
func version(n int64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, uint64(n))
	return b
}

func newProducer(t *testing.T, c pulsar.Client, topic string, schema pulsar.Schema) pulsar.Producer {
	t.Helper()
	// Batching as by default: the Go client (v0.19.0) writes the schema version
	// only into a batch's metadata (internal/batch_builder.go), never into a
	// message sent alone (TestUnbatchedMessagesCarryNoSchemaVersion).
	p, err := c.CreateProducer(pulsar.ProducerOptions{Topic: topic, Schema: schema})
	if err != nil {
		t.Fatalf("CreateProducer(%s): %v", topic, err)
	}
	t.Cleanup(p.Close)
	return p
}

func newConsumer(t *testing.T, c pulsar.Client, topic string, schema pulsar.Schema) pulsar.Consumer {
	t.Helper()
	cons, err := c.Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "go-sub", Schema: schema,
		SubscriptionInitialPosition: pulsar.SubscriptionPositionEarliest})
	if err != nil {
		t.Fatalf("Subscribe(%s): %v", topic, err)
	}
	t.Cleanup(cons.Close)
	return cons
}

// receive takes the next message within 20 s and acknowledges it.
func receive(t *testing.T, cons pulsar.Consumer) pulsar.Message {
	t.Helper()
	msg, err := cons.Receive(ctx(t))
	if err != nil {
		t.Fatalf("Receive: %v", err)
	}
	if err := cons.Ack(msg); err != nil {
		t.Fatalf("Ack: %v", err)
	}
	return msg
}

// receiveUser takes the next message, which must be want with schema version v.
func receiveUser(t *testing.T, cons pulsar.Consumer, want User, v int64) pulsar.Message {
	t.Helper()
	msg := receive(t, cons)
	checkVersion(t, "message "+want.Name, msg.SchemaVersion(), v)
	var got User
	if err := msg.GetSchemaValue(&got); err != nil || got != want {
		t.Fatalf("received %+v (%v), want %+v", got, err, want)
	}
	return msg
}

func send(t *testing.T, p pulsar.Producer, msg *pulsar.ProducerMessage) pulsar.MessageID {
	t.Helper()
	id, err := p.Send(ctx(t), msg)
	if err != nil {
		t.Fatalf("Send: %v", err)
	}
	return id
}

func checkVersion(t *testing.T, what string, got []byte, want int64) {
	t.Helper()
	if !bytes.Equal(got, version(want)) {
		t.Fatalf("%s: schema version %x, want %x", what, got, version(want))
	}
}

// storedSchema is GET /admin/v2/schemas/{topic}/schema: type, data and version.
type storedSchema struct {
	Version    int64             `json:"version"`
	Type       string            `json:"type"`
	Data       string            `json:"data"`
	Properties map[string]string `json:"properties"`
}

func getSchema(t *testing.T, s *serve, topic string) storedSchema {
	t.Helper()
	var got storedSchema
	text := mustAdmin(t, s, "GET", "/admin/v2/schemas/"+schemaPath(topic)+"/schema", "")
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		t.Fatalf("schema of %s: %v in %s", topic, err, text)
	}
	return got
}

// An Avro producer and consumer from the User struct's definition: admitted,
// the schema registered as version 0 with the Go client's re-marshalled text
// and the properties given, and every message carrying version 0.
func TestAvroRoundTrip(t *testing.T) {
	c := newClient(t, shared)
	topic := topicName(t, "avro")
	schema := pulsar.NewAvroSchema(userDef, map[string]string{"owner": "go-test"})
	p := newProducer(t, c, topic, schema)
	cons := newConsumer(t, c, topic, pulsar.NewAvroSchema(userDef, nil))
	want := []User{{"ada", 36}, {"grace", 85}}
	for _, u := range want {
		send(t, p, &pulsar.ProducerMessage{Value: u})
	}
	for _, w := range want {
		receiveUser(t, cons, w, 0)
	}
	stored := getSchema(t, shared, topic)
	if stored.Type != "AVRO" || stored.Version != 0 || stored.Properties["owner"] != "go-test" {
		t.Fatalf("stored schema %+v, want AVRO version 0 with owner=go-test", stored)
	}
	if stored.Data != schema.GetSchemaInfo().Schema {
		t.Fatalf("stored definition %s, want what the Go client sent: %s", stored.Data, schema.GetSchemaInfo().Schema)
	}
	if stored.Data == userDef {
		t.Fatalf("the Go client sent the definition unchanged; this test expects its re-marshalled text")
	}
}

// A definition registered over REST in a Java user's spelling, then a Go
// producer whose client re-marshalled the same definition: the broker compares
// Avro definitions parsed, so the producer gets version 0 and no new version
// is added.
func TestAvroReMarshalledDefinitionIsTheSameSchema(t *testing.T) {
	c := newClient(t, shared)
	topic := topicName(t, "avro-remarshal")
	body, _ := json.Marshal(map[string]any{"type": "AVRO", "schema": userDef, "properties": map[string]string{}})
	mustAdmin(t, shared, "POST", "/admin/v2/schemas/"+schemaPath(topic)+"/schema", string(body))
	p := newProducer(t, c, topic, pulsar.NewAvroSchema(userDef, nil))
	cons := newConsumer(t, c, topic, pulsar.NewAvroSchema(userDef, nil))
	send(t, p, &pulsar.ProducerMessage{Value: User{"linus", 55}})
	checkVersion(t, "message", receive(t, cons).SchemaVersion(), 0)
	if stored := getSchema(t, shared, topic); stored.Version != 0 || stored.Data != userDef {
		t.Fatalf("stored schema %+v, want version 0 with the REST text", stored)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	c := newClient(t, shared)
	topic := topicName(t, "json")
	cons := newConsumer(t, c, topic, pulsar.NewJSONSchema(userDef, nil))
	p := newProducer(t, c, topic, pulsar.NewJSONSchema(userDef, nil))
	send(t, p, &pulsar.ProducerMessage{Value: User{"ken", 81}})
	msg := receiveUser(t, cons, User{"ken", 81}, 0)
	if string(msg.Payload()) != `{"name":"ken","age":81}` {
		t.Fatalf("payload %s, want the JSON the client encoded", msg.Payload())
	}
	if stored := getSchema(t, shared, topic); stored.Type != "JSON" || stored.Version != 0 {
		t.Fatalf("stored schema %+v, want JSON version 0", stored)
	}
}

// PROTOBUF_NATIVE from a generated message (google.protobuf.Timestamp): the
// client sends its FileDescriptorSet; the broker validates and stores it.
func TestProtobufNativeRoundTrip(t *testing.T) {
	c := newClient(t, shared)
	topic := topicName(t, "protonative")
	schema := pulsar.NewProtoNativeSchemaWithMessage(&timestamppb.Timestamp{}, nil)
	cons := newConsumer(t, c, topic, pulsar.NewProtoNativeSchemaWithMessage(&timestamppb.Timestamp{}, nil))
	p := newProducer(t, c, topic, schema)
	send(t, p, &pulsar.ProducerMessage{Value: &timestamppb.Timestamp{Seconds: 1700000000, Nanos: 5}})
	msg := receive(t, cons)
	checkVersion(t, "message", msg.SchemaVersion(), 0)
	got := &timestamppb.Timestamp{}
	if err := msg.GetSchemaValue(got); err != nil {
		t.Fatalf("GetSchemaValue: %v", err)
	}
	if !proto.Equal(got, &timestamppb.Timestamp{Seconds: 1700000000, Nanos: 5}) {
		t.Fatalf("received %v", got)
	}
	stored := getSchema(t, shared, topic)
	if stored.Type != "PROTOBUF_NATIVE" || !strings.Contains(stored.Data, `"rootMessageTypeName":"google.protobuf.Timestamp"`) {
		t.Fatalf("stored schema %+v, want PROTOBUF_NATIVE of google.protobuf.Timestamp", stored)
	}
}

// The primitive schemas: each registered with its own type, and the value
// read back through the client's schema.
func TestPrimitiveSchemas(t *testing.T) {
	c := newClient(t, shared)
	cases := []struct {
		name   string
		schema func() pulsar.Schema
		value  any
		read   func(pulsar.Message) (any, error)
		stored string
	}{
		{"string", func() pulsar.Schema { return pulsar.NewStringSchema(nil) }, "hello",
			func(m pulsar.Message) (any, error) { var s *string; err := m.GetSchemaValue(&s); return *s, err }, "STRING"},
		{"int8", func() pulsar.Schema { return pulsar.NewInt8Schema(nil) }, int8(-7),
			func(m pulsar.Message) (any, error) { var v int8; err := m.GetSchemaValue(&v); return v, err }, "INT8"},
		{"int16", func() pulsar.Schema { return pulsar.NewInt16Schema(nil) }, int16(-300),
			func(m pulsar.Message) (any, error) { var v int16; err := m.GetSchemaValue(&v); return v, err }, "INT16"},
		{"int32", func() pulsar.Schema { return pulsar.NewInt32Schema(nil) }, int32(70000),
			func(m pulsar.Message) (any, error) { var v int32; err := m.GetSchemaValue(&v); return v, err }, "INT32"},
		{"int64", func() pulsar.Schema { return pulsar.NewInt64Schema(nil) }, int64(1) << 40,
			func(m pulsar.Message) (any, error) { var v int64; err := m.GetSchemaValue(&v); return v, err }, "INT64"},
		{"float", func() pulsar.Schema { return pulsar.NewFloatSchema(nil) }, float32(1.5),
			func(m pulsar.Message) (any, error) { var v float32; err := m.GetSchemaValue(&v); return v, err }, "FLOAT"},
		{"double", func() pulsar.Schema { return pulsar.NewDoubleSchema(nil) }, 2.25,
			func(m pulsar.Message) (any, error) { var v float64; err := m.GetSchemaValue(&v); return v, err }, "DOUBLE"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			topic := topicName(t, "primitive-"+tc.name)
			cons := newConsumer(t, c, topic, tc.schema())
			p := newProducer(t, c, topic, tc.schema())
			send(t, p, &pulsar.ProducerMessage{Value: tc.value})
			msg := receive(t, cons)
			checkVersion(t, "message", msg.SchemaVersion(), 0)
			got, err := tc.read(msg)
			if err != nil || got != tc.value {
				t.Fatalf("read %v (%v), want %v", got, err, tc.value)
			}
			if stored := getSchema(t, shared, topic); stored.Type != tc.stored || stored.Version != 0 {
				t.Fatalf("stored schema %+v, want %s version 0", stored, tc.stored)
			}
		})
	}
}

// BYTES: the Go client sends proto type None (0) with name "Bytes", where
// Java and C++ send no schema. Its NewBytesSchema takes properties, but
// CreateProducer and Subscribe replace a schema of type NONE (= BYTES = 0 in
// Go) by NewBytesSchema(nil) (producer_impl.go, consumer_impl.go), so none
// reach the broker. The broker registers the None schema as a NONE schema
// (doc/broker-behaviour.md §1.7): version 0 of type NONE, no properties, the
// messages carry version 0, and an AVRO consumer is then refused.
func TestBytesSchemaRegistersNone(t *testing.T) {
	c := newClient(t, shared)
	topic := topicName(t, "bytes")
	p := newProducer(t, c, topic, pulsar.NewBytesSchema(map[string]string{"k": "v"}))
	cons := newConsumer(t, c, topic, pulsar.NewBytesSchema(nil))
	send(t, p, &pulsar.ProducerMessage{Value: []byte{0, 1, 2}})
	msg := receive(t, cons)
	if !bytes.Equal(msg.Payload(), []byte{0, 1, 2}) {
		t.Fatalf("payload %x", msg.Payload())
	}
	checkVersion(t, "message", msg.SchemaVersion(), 0)
	stored := getSchema(t, shared, topic)
	if stored.Type != "NONE" || stored.Version != 0 || stored.Data != "" || len(stored.Properties) != 0 {
		t.Fatalf("stored schema %+v, want NONE version 0 without properties", stored)
	}
	_, err := c.Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "go-avro",
		Schema: pulsar.NewAvroSchema(userDef, nil)})
	if err == nil {
		t.Fatalf("an AVRO consumer on a topic with a NONE schema and a producer was admitted")
	}
	checkRefusal(t, err, "IncompatibleSchema", "Incompatible schema: exists schema type NONE, new schema type AVRO")
}

// The Go client leaves the schema version out of a message it sends outside a
// batch (producer_partition.go internalSingleSend uses genMetadata, which has
// no schema version; only batch_builder.go sets it): the broker stores and
// delivers the metadata as sent, so the consumer sees no version.
func TestUnbatchedMessagesCarryNoSchemaVersion(t *testing.T) {
	c := newClient(t, shared)
	topic := topicName(t, "unbatched")
	cons := newConsumer(t, c, topic, pulsar.NewAvroSchema(userDef, nil))
	p, err := c.CreateProducer(pulsar.ProducerOptions{Topic: topic, Schema: pulsar.NewAvroSchema(userDef, nil),
		DisableBatching: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	send(t, p, &pulsar.ProducerMessage{Value: User{"solo", 1}})
	msg := receive(t, cons)
	if len(msg.SchemaVersion()) != 0 {
		t.Fatalf("schema version %x: the client now sends it outside batches; use it in the tests", msg.SchemaVersion())
	}
	var got User
	if err := msg.GetSchemaValue(&got); err != nil || got != (User{"solo", 1}) {
		t.Fatalf("GetSchemaValue: %+v, %v", got, err)
	}
}

// No schema at all: producer and consumer admitted, payload round trip, no version.
func TestNoSchemaRoundTrip(t *testing.T) {
	c := newClient(t, shared)
	topic := topicName(t, "noschema")
	cons := newConsumer(t, c, topic, nil)
	p := newProducer(t, c, topic, nil)
	send(t, p, &pulsar.ProducerMessage{Payload: []byte("plain"), Properties: map[string]string{"p": "1"}})
	msg := receive(t, cons)
	if string(msg.Payload()) != "plain" || msg.Properties()["p"] != "1" || len(msg.SchemaVersion()) != 0 {
		t.Fatalf("received %q %v version %x", msg.Payload(), msg.Properties(), msg.SchemaVersion())
	}
}

// A producer with an incompatible Avro schema: CreateProducer fails with the
// broker's IncompatibleSchema error and its text; a compatible evolution is
// admitted as version 1 and its messages carry version 1.
func TestIncompatibleProducerRefused(t *testing.T) {
	c := newClient(t, shared)
	topic := topicName(t, "incompatible-producer")
	newProducer(t, c, topic, pulsar.NewAvroSchema(userDef, nil))
	_, err := c.CreateProducer(pulsar.ProducerOptions{Topic: topic, Schema: pulsar.NewAvroSchema(userV2Def, nil)})
	if err == nil {
		t.Fatalf("CreateProducer with an incompatible schema was admitted")
	}
	checkRefusal(t, err, "IncompatibleSchema", incompatibleText(shared, "FULL", true))
	if !strings.Contains(err.Error(), causedBy) {
		t.Fatalf("error %q, want the cause after %q", err, causedBy)
	}
	p := newProducer(t, c, topic, pulsar.NewAvroSchema(userV3Def, nil))
	cons := newConsumer(t, c, topic, pulsar.NewAvroSchema(userV3Def, nil))
	email := "a@b"
	send(t, p, &pulsar.ProducerMessage{Value: UserV3{"ada", 36, &email}})
	msg := receive(t, cons)
	checkVersion(t, "message", msg.SchemaVersion(), 1)
	var got UserV3
	if err := msg.GetSchemaValue(&got); err != nil || got.Email == nil || *got.Email != email {
		t.Fatalf("GetSchemaValue: %+v, %v", got, err)
	}
}

// A consumer with an incompatible schema on a topic whose schema is set and
// that has a producer (not idle): Subscribe fails with IncompatibleSchema.
func TestIncompatibleConsumerRefused(t *testing.T) {
	c := newClient(t, shared)
	topic := topicName(t, "incompatible-consumer")
	newProducer(t, c, topic, pulsar.NewAvroSchema(userDef, nil))
	_, err := c.Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "go-sub",
		Schema: pulsar.NewAvroSchema(userV2Def, nil)})
	if err == nil {
		t.Fatalf("Subscribe with an incompatible schema was admitted")
	}
	checkRefusal(t, err, "IncompatibleSchema", incompatibleText(shared, "BACKWARD", false))
	// A different type altogether.
	_, err = c.Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "go-sub-2",
		Schema: pulsar.NewStringSchema(nil)})
	if err == nil {
		t.Fatalf("Subscribe with a STRING schema on an AVRO topic was admitted")
	}
	checkRefusal(t, err, "IncompatibleSchema", "Incompatible schema: exists schema type AVRO, new schema type STRING")
}

// checkRefusal: the Go client (v0.19.0) reports a broker's refusal of PRODUCER
// or SUBSCRIBE as an untyped error (errors.New in internal/connection.go
// handleResponseError, no pulsar.Error result, no sentinel to errors.Is):
// "server error: <ServerError>: <broker message>". CreateProducer and
// Subscribe return it as it is.
func checkRefusal(t *testing.T, err error, serverError, text string) {
	t.Helper()
	msg := err.Error()
	if !strings.Contains(msg, "server error: "+serverError+": ") || !strings.Contains(msg, text) {
		t.Fatalf("error %q, want server error %s with %q", msg, serverError, text)
	}
	var perr *pulsar.Error
	if errors.As(err, &perr) {
		t.Fatalf("error %q is a pulsar.Error (result %d): the client now types broker refusals; assert the result",
			msg, perr.Result())
	}
}

// Multi-schema producer (the Go client's default): a message with a schema the
// producer has not cached is preceded by GET_OR_CREATE_SCHEMA; a compatible
// one registers version 1, an incompatible one fails the Send with the
// broker's text.
func TestMultiSchemaProducerGetOrCreateSchema(t *testing.T) {
	c := newClient(t, shared)
	topic := topicName(t, "multischema")
	p := newProducer(t, c, topic, pulsar.NewAvroSchema(userDef, nil))
	cons, err := c.Subscribe(pulsar.ConsumerOptions{Topic: topic, SubscriptionName: "go-sub",
		SubscriptionInitialPosition: pulsar.SubscriptionPositionEarliest})
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	send(t, p, &pulsar.ProducerMessage{Value: User{"a", 1}})
	email := "e@x"
	v3 := pulsar.NewAvroSchema(userV3Def, nil)
	send(t, p, &pulsar.ProducerMessage{Value: UserV3{"b", 2, &email}, Schema: v3})
	_, err = p.Send(ctx(t), &pulsar.ProducerMessage{Value: User{"c", 3}, Schema: pulsar.NewAvroSchema(userV2Def, nil)})
	if err == nil {
		t.Fatalf("Send with an incompatible per-message schema succeeded")
	}
	want := "get schema version fail, err: " + incompatibleText(shared, "FULL", true)
	if !errors.Is(err, pulsar.ErrSchema) || !strings.Contains(err.Error(), want) {
		t.Fatalf("Send error %q, want ErrSchema with the broker's text %q", err, want)
	}
	checkVersion(t, "first message", receive(t, cons).SchemaVersion(), 0)
	second := receive(t, cons)
	checkVersion(t, "second message", second.SchemaVersion(), 1)
	var all []storedSchema
	text := mustAdmin(t, shared, "GET", "/admin/v2/schemas/"+schemaPath(topic)+"/schemas", "")
	var wrapper struct {
		GetSchemaResponses []storedSchema `json:"getSchemaResponses"`
	}
	if err := json.Unmarshal([]byte(text), &wrapper); err != nil {
		t.Fatalf("schemas: %v in %s", err, text)
	}
	all = wrapper.GetSchemaResponses
	if len(all) != 2 || all[1].Data != v3.GetSchemaInfo().Schema {
		t.Fatalf("schemas %+v, want 2 with the second the per-message schema", all)
	}
}
