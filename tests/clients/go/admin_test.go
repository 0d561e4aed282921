// The Go admin client (github.com/apache/pulsar-client-go/pulsaradmin) against
// serve's admin port: schemas, namespace schema policies, topic-level
// compatibility strategy, topics and an unload.
package clients

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/pulsar-client-go/pulsar"
	"github.com/apache/pulsar-client-go/pulsaradmin"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/rest"
	"github.com/apache/pulsar-client-go/pulsaradmin/pkg/utils"
)

func newAdmin(t *testing.T, s *serve) pulsaradmin.Client {
	t.Helper()
	a, err := pulsaradmin.NewClient(&pulsaradmin.Config{WebServiceURL: s.Admin})
	if err != nil {
		t.Fatalf("pulsaradmin.NewClient(%s): %v", s.Admin, err)
	}
	return a
}

// restError: the admin client's error for a non-2xx answer, with status and reason.
func restError(t *testing.T, err error, code int, reason string) {
	t.Helper()
	var re rest.Error
	if !errors.As(err, &re) {
		t.Fatalf("error %v (%T), want a rest.Error %d", err, err, code)
	}
	if re.Code != code || !strings.Contains(re.Reason, reason) {
		t.Fatalf("rest.Error %d %q, want %d with %q", re.Code, re.Reason, code, reason)
	}
}

func mustTopicName(t *testing.T, topic string) utils.TopicName {
	t.Helper()
	tn, err := utils.GetTopicName(topic)
	if err != nil {
		t.Fatal(err)
	}
	return *tn
}

// Schemas(): create by payload, read back (latest, with version, all, by
// version), the version of a payload, a compatibility test, the Go producer
// admitted on the uploaded schema, then delete: GetSchemaInfo answers 404.
func TestAdminSchemas(t *testing.T) {
	admin := newAdmin(t, shared)
	topic := topicName(t, "admin-schemas")
	payload := utils.PostSchemaPayload{SchemaType: "AVRO", Schema: userDef, Properties: map[string]string{"by": "admin"}}
	if err := admin.Schemas().CreateSchemaByPayload(topic, payload); err != nil {
		t.Fatalf("CreateSchemaByPayload: %v", err)
	}
	info, err := admin.Schemas().GetSchemaInfoWithVersion(topic)
	if err != nil {
		t.Fatal(err)
	}
	if info.Version != 0 || info.SchemaInfo.Type != "AVRO" || string(info.SchemaInfo.Schema) != userDef ||
		info.SchemaInfo.Properties["by"] != "admin" {
		t.Fatalf("GetSchemaInfoWithVersion: %d %+v", info.Version, info.SchemaInfo)
	}
	v3 := utils.PostSchemaPayload{SchemaType: "AVRO", Schema: userV3Def}
	if err := admin.Schemas().CreateSchemaByPayload(topic, v3); err != nil {
		t.Fatalf("CreateSchemaByPayload v3: %v", err)
	}
	all, err := admin.Schemas().GetAllSchemas(topic)
	if err != nil || len(all) != 2 || all[1].Version != 1 || string(all[1].SchemaInfo.Schema) != userV3Def {
		t.Fatalf("GetAllSchemas: %v %+v", err, all)
	}
	first, err := admin.Schemas().GetSchemaInfoByVersion(topic, 0)
	if err != nil || string(first.Schema) != userDef {
		t.Fatalf("GetSchemaInfoByVersion(0): %v %+v", err, first)
	}
	if v, err := admin.Schemas().GetVersionByPayload(topic, v3); err != nil || v != 1 {
		t.Fatalf("GetVersionByPayload: %d %v", v, err)
	}
	compat, err := admin.Schemas().TestCompatibilityWithPostSchemaPayload(topic,
		utils.PostSchemaPayload{SchemaType: "AVRO", Schema: userV3Def})
	if err != nil || !compat.IsCompatibility || compat.SchemaCompatibilityStrategy != "FULL" {
		t.Fatalf("TestCompatibility of a compatible schema: %v %+v", err, compat)
	}
	// An incompatible one: the registry throws instead of answering false, so
	// the broker answers 500 with the checker's text (doc/broker-behaviour.md §7.4).
	_, err = admin.Schemas().TestCompatibilityWithPostSchemaPayload(topic,
		utils.PostSchemaPayload{SchemaType: "AVRO", Schema: userV2Def})
	restError(t, err, 500, "org.apache.avro.SchemaValidationException: Unable to read schema")
	err = admin.Schemas().CreateSchemaByPayload(topic, utils.PostSchemaPayload{SchemaType: "AVRO", Schema: userV2Def})
	restError(t, err, 409, "") // 4.2: Jetty 12 sends no custom reason phrase (doc/serve/admin-api.md)

	c := newClient(t, shared)
	p := newProducer(t, c, topic, pulsar.NewAvroSchema(userDef, nil))
	cons := newConsumer(t, c, topic, pulsar.NewAvroSchema(userV3Def, nil))
	send(t, p, &pulsar.ProducerMessage{Value: User{"up", 1}})
	checkVersion(t, "message of the uploaded schema", receive(t, cons).SchemaVersion(), 0)
	p.Close()
	cons.Close()

	if err := admin.Schemas().DeleteSchema(topic); err != nil {
		t.Fatalf("DeleteSchema: %v", err)
	}
	_, err = admin.Schemas().GetSchemaInfo(topic)
	restError(t, err, 404, "")
}

// Namespace policies: create, set and read the compatibility strategy, schema
// validation enforced and allow-auto-update; a producer refused under
// ALWAYS_INCOMPATIBLE with the broker's text; topic-level strategy (2.10+)
// overriding the namespace's; then the namespace deleted.
func TestAdminNamespacePolicies(t *testing.T) {
	admin := newAdmin(t, shared)
	ns := "public/" + strings.TrimPrefix(topicName(t, "admin-ns"), "persistent://public/default/")
	if err := admin.Namespaces().CreateNamespace(ns); err != nil {
		t.Fatalf("CreateNamespace: %v", err)
	}
	restError(t, admin.Namespaces().CreateNamespace(ns), 409, "Namespace already exists")
	names, err := admin.Namespaces().GetNamespaces("public")
	if err != nil || !contains(names, ns) {
		t.Fatalf("GetNamespaces: %v %v", err, names)
	}
	nsName, _ := utils.GetNamespaceName(ns)
	if err := admin.Namespaces().SetSchemaCompatibilityStrategy(*nsName, utils.SchemaCompatibilityStrategyAlwaysIncompatible); err != nil {
		t.Fatalf("SetSchemaCompatibilityStrategy: %v", err)
	}
	if got, err := admin.Namespaces().GetSchemaCompatibilityStrategy(*nsName); err != nil || got != "ALWAYS_INCOMPATIBLE" {
		t.Fatalf("GetSchemaCompatibilityStrategy: %q %v", got, err)
	}
	if err := admin.Namespaces().SetSchemaValidationEnforced(*nsName, true); err != nil {
		t.Fatal(err)
	}
	if got, err := admin.Namespaces().GetSchemaValidationEnforced(*nsName); err != nil || !got {
		t.Fatalf("GetSchemaValidationEnforced: %v %v", got, err)
	}
	if err := admin.Namespaces().SetIsAllowAutoUpdateSchema(*nsName, true); err != nil {
		t.Fatal(err)
	}
	if got, err := admin.Namespaces().GetIsAllowAutoUpdateSchema(*nsName); err != nil || !got {
		t.Fatalf("GetIsAllowAutoUpdateSchema: %v %v", got, err)
	}

	topic := "persistent://" + ns + "/t"
	c := newClient(t, shared)
	p := newProducer(t, c, topic, pulsar.NewAvroSchema(userDef, nil))
	_, err = c.CreateProducer(pulsar.ProducerOptions{Topic: topic, Schema: pulsar.NewAvroSchema(userV3Def, nil)})
	if err == nil {
		t.Fatalf("a second schema was admitted under ALWAYS_INCOMPATIBLE")
	}
	// Avro's own validator refuses under ALWAYS_INCOMPATIBLE (§6.2: the
	// "Schema compatibility strategy is ALWAYS_INCOMPATIBLE" text is the DEFAULT checker's).
	checkRefusal(t, err, "IncompatibleSchema", incompatibleText(shared, "ALWAYS_INCOMPATIBLE", true))

	// Topic level (#13297, 2.10): ALWAYS_COMPATIBLE on the topic wins.
	tn := mustTopicName(t, topic)
	if err := admin.Topics().SetSchemaCompatibilityStrategy(tn, utils.SchemaCompatibilityStrategyAlwaysCompatible); err != nil {
		t.Fatalf("topic SetSchemaCompatibilityStrategy: %v", err)
	}
	if got, err := admin.Topics().GetSchemaCompatibilityStrategyApplied(tn, false); err != nil || got != "ALWAYS_COMPATIBLE" {
		t.Fatalf("topic GetSchemaCompatibilityStrategy: %q %v", got, err)
	}
	p2 := newProducer(t, c, topic, pulsar.NewAvroSchema(userV2Def, nil))
	p2.Close()
	if all, err := admin.Schemas().GetAllSchemas(topic); err != nil || len(all) != 2 {
		t.Fatalf("GetAllSchemas after the topic-level strategy: %v %d", err, len(all))
	}
	p.Close()
	restError(t, admin.Namespaces().DeleteNamespace(ns), 409, "Cannot delete non empty namespace")
	if err := admin.Topics().Delete(tn, true, true); err != nil {
		t.Fatalf("Delete topic: %v", err)
	}
	if err := admin.Namespaces().DeleteNamespace(ns); err != nil {
		t.Fatalf("DeleteNamespace: %v", err)
	}
	_, err = admin.Namespaces().GetSchemaCompatibilityStrategy(*nsName)
	restError(t, err, 404, "Namespace does not exist")
}

// Topics(): a partitioned topic created and read back, listed, a topic that
// exists refused with 409, a partitioned topic deleted.
func TestAdminTopics(t *testing.T) {
	admin := newAdmin(t, shared)
	topic := topicName(t, "admin-topics")
	tn := mustTopicName(t, topic)
	if err := admin.Topics().Create(tn, 2); err != nil {
		t.Fatalf("Create partitioned: %v", err)
	}
	meta, err := admin.Topics().GetMetadata(tn)
	if err != nil || meta.Partitions != 2 {
		t.Fatalf("GetMetadata: %v %+v", err, meta)
	}
	restError(t, admin.Topics().Create(tn, 2), 409, "This topic already exists")
	nsName, _ := utils.GetNamespaceName("public/default")
	partitioned, _, err := admin.Topics().List(*nsName)
	if err != nil || !contains(partitioned, topic) {
		t.Fatalf("List: %v, partitioned %v", err, partitioned)
	}
	if err := admin.Topics().Delete(tn, false, false); err != nil {
		t.Fatalf("Delete partitioned: %v", err)
	}
	// A topic that is not partitioned (here: no longer there) reads as 0 partitions.
	if meta, err := admin.Topics().GetMetadata(tn); err != nil || meta.Partitions != 0 {
		t.Fatalf("GetMetadata after delete: %v %+v", err, meta)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
