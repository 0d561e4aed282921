// The answers the Go client sees that differ between broker releases: the
// ctests run this package against 4.2 (the default) and 2.11
// (clients.go.schemas_2_11). The expectations are written for lines up to
// 2.11 and from 4.0; the 3.x lines, where the fixes below arrived at
// different patch releases, skip the tests that depend on them.
package clients

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/apache/pulsar-client-go/pulsar"
)

// releaseKnown skips a version-dependent test on the 3.x lines.
func releaseKnown(t *testing.T, s *serve) {
	t.Helper()
	if s.lineAtLeast(3, 0) && !s.lineAtLeast(4, 0) {
		t.Skipf("Pulsar %s: expectations are written for lines up to 2.11 and from 4.0", s.Release)
	}
}

// incompatibleText is the start of the broker's text when the Avro checker
// refuses a schema under strategy (userV2Def after userDef: a producer's check
// runs under FULL, a consumer's under BACKWARD, checkConsumerCompatibility).
// From #22720 (3.0.6, 4.0.0; the newest 3.2 and 3.3 too) the message names
// the strategy; a producer's refusal starts with the exception's class
// ("<class>: <message> caused by <class>: <message>", #9544, 2.8).
func incompatibleText(s *serve, strategy string, producer bool) string {
	text := "org.apache.avro.SchemaValidationException: Unable to read schema: \n{\n  \"type\" : \"record\""
	if s.lineAtLeast(4, 0) || s.brokerLine() == "3.0" || s.brokerLine() == "3.2" || s.brokerLine() == "3.3" {
		text = "Error during schema compatibility check with strategy " + strategy + ": " + text
	}
	if producer {
		text = "org.apache.pulsar.broker.service.schema.exceptions.IncompatibleSchemaException: " + text
	}
	return text
}

const causedBy = " caused by org.apache.pulsar.broker.service.schema.exceptions.IncompatibleSchemaException: "

// A top-level union as an Avro definition: 2.11 stores it; from #24103
// (3.0.12, 3.3.7, 4.0.5, 4.1.0) the broker's validator refuses it.
func TestAvroTopLevelUnion(t *testing.T) {
	releaseKnown(t, shared)
	c := newClient(t, shared)
	topic := topicName(t, "avro-union")
	_, err := c.CreateProducer(pulsar.ProducerOptions{Topic: topic,
		Schema: pulsar.NewAvroSchema(`["null", "string"]`, nil)})
	if shared.lineAtLeast(4, 0) {
		if err == nil {
			t.Fatalf("Pulsar %s admitted a top-level union", shared.Release)
		}
		checkRefusal(t, err, "IncompatibleSchema", "Avro schema typed [UNION] is not supported")
		return
	}
	if err != nil {
		t.Fatalf("Pulsar %s refused a top-level union: %v", shared.Release, err)
	}
	if stored := getSchema(t, shared, topic); stored.Type != "AVRO" || stored.Data != `["null","string"]` {
		t.Fatalf("stored schema %+v, want the union", stored)
	}
}

// A producer without a schema on a topic with one, in a namespace with
// schemaValidationEnforced: refused with the text of the release (#23344,
// 4.0.0, appended "when SchemaValidationEnforced is enabled" without a space).
func TestProducerWithoutSchemaOnEnforcedNamespace(t *testing.T) {
	releaseKnown(t, shared)
	ns := strings.TrimPrefix(topicName(t, "enforced"), "persistent://public/default/")
	mustAdmin(t, shared, "PUT", "/admin/v2/namespaces/public/"+ns, "")
	mustAdmin(t, shared, "POST", "/admin/v2/namespaces/public/"+ns+"/schemaValidationEnforced", "true")
	topic := "persistent://public/" + ns + "/t"
	c := newClient(t, shared)
	newProducer(t, c, topic, pulsar.NewJSONSchema(userDef, nil))
	_, err := c.CreateProducer(pulsar.ProducerOptions{Topic: topic})
	if err == nil {
		t.Fatalf("a producer without schema was admitted to a topic with one, validation enforced")
	}
	want := "Producers cannot connect or send message without a schema to topics with a schema"
	if shared.lineAtLeast(4, 0) {
		want += "when SchemaValidationEnforced is enabled"
	}
	checkRefusal(t, err, "IncompatibleSchema", want)
	if !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("error %q does not end with %q", err, want)
	}
	var enforced bool
	text := mustAdmin(t, shared, "GET", "/admin/v2/namespaces/public/"+ns+"/schemaValidationEnforced", "")
	if err := json.Unmarshal([]byte(text), &enforced); err != nil || !enforced {
		t.Fatalf("schemaValidationEnforced: %s", text)
	}
}
