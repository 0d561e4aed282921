"""Producer and consumer admission with the Python client's own schema classes.

pulsar-client (PyPI, wraps the C++ client) sends what pulsar.schema builds:
definitions pretty-printed by json.dumps(indent=True), Record fields as
["null", T] unions without a default, STRING with data "null" (json.dumps(None)),
BYTES, no schema and the other primitives as no schema field at all (the C++ core sends the schema
only for STRING, JSON, AVRO, PROTOBUF, PROTOBUF_NATIVE and KEY_VALUE:
lib/Commands.cc isBuiltInSchema). Each test checks what the client got: the
exception class and the broker's text (the C++ core logs the ERROR frame's
message; the Python exception carries only the code), schema versions, values.
"""
import base64
import json

import _pulsar
import pulsar
import pytest
from pulsar.exceptions import IncompatibleSchema
from pulsar.schema import (AvroSchema, BytesSchema, Integer, JsonSchema, Long, ProtobufNativeSchema, Record, Schema,
                           String, StringSchema)

from conftest import version_bytes
from proto_messages import Order, OrderV2, Quote

RECEIVE_MS = 10000


class Payment(Record):
    id = Long()
    payer = String()


class PaymentRenamed(Record):  # another record name, the same fields
    id = Long()
    payer = String()


class PaymentBadTypes(Record):
    id = String()
    payer = Integer()


def stored_schema(broker, topic, version=None):
    path = f"/admin/v2/schemas/public/default/{topic}/schema" + (f"/{version}" if version is not None else "")
    return broker.http("GET", path)


def round_trip(client, topic, schema, value, subscription="sub"):
    consumer = client.subscribe(topic, subscription, schema=schema)
    producer = client.create_producer(topic, schema=schema)
    producer.send(value)
    msg = consumer.receive(RECEIVE_MS)
    consumer.acknowledge(msg)
    return msg


@pytest.mark.parametrize("schema_class,type_name", [(AvroSchema, "AVRO"), (JsonSchema, "JSON")])
def test_record_schema_admitted_stored_pretty_printed_and_round_trips(broker, client, topic, schema_class, type_name):
    msg = round_trip(client, topic, schema_class(Payment), Payment(id=7, payer="ana"))
    assert msg.value() == Payment(id=7, payer="ana")
    assert msg.schema_version().encode() == version_bytes(0)

    status, text = stored_schema(broker, topic)
    assert status == 200, text
    stored = json.loads(text)
    assert stored["type"] == type_name
    assert stored["version"] == 0
    # The definition is kept as the client sent it: pretty-printed, fields nullable without a default.
    assert stored["data"] == json.dumps(Payment.schema(), indent=True)
    assert json.loads(stored["data"])["fields"] == [{"name": "id", "type": ["null", "long"]},
                                                   {"name": "payer", "type": ["null", "string"]}]


def test_string_schema_stored_with_data_null(broker, client, topic):
    msg = round_trip(client, topic, StringSchema(), "hello")
    assert msg.value() == "hello" and msg.data() == b"hello"
    assert msg.schema_version().encode() == version_bytes(0)
    status, text = stored_schema(broker, topic)
    assert status == 200, text
    stored = json.loads(text)
    assert (stored["type"], stored["data"]) == ("STRING", "null")


class Int64Schema(Schema):
    """An INT64 schema through the client's own Schema base class (pulsar.schema has no Int64Schema)."""

    def __init__(self):
        super().__init__(int, _pulsar.SchemaType.INT64, None, "INT64")

    def encode(self, obj):
        self._validate_object_type(obj)
        return obj.to_bytes(8, "big", signed=True)

    def decode(self, data):
        return int.from_bytes(data, "big", signed=True)


def test_int64_schema_is_not_sent(broker, client, topic):
    """The C++ core sends no schema field for INT64 (not one of its built-in types), so nothing is stored
    and a STRING producer is admitted after it."""
    msg = round_trip(client, topic, Int64Schema(), -42)
    assert msg.value() == -42
    assert msg.schema_version() == ""
    assert stored_schema(broker, topic)[0] == 404
    client.create_producer(topic, schema=StringSchema()).send("now typed")
    stored = json.loads(stored_schema(broker, topic)[1])
    assert (stored["type"], stored["data"]) == ("STRING", "null")


@pytest.mark.parametrize("schema", [BytesSchema(), None], ids=["BytesSchema", "no-schema"])
def test_bytes_and_no_schema_register_nothing(broker, client, topic, schema):
    kwargs = {} if schema is None else {"schema": schema}
    consumer = client.subscribe(topic, "sub", **kwargs)
    producer = client.create_producer(topic, **kwargs)
    producer.send(b"\x00\x01raw")
    msg = consumer.receive(RECEIVE_MS)
    assert msg.data() == b"\x00\x01raw"
    assert msg.schema_version() == ""
    status, text = stored_schema(broker, topic)
    assert status == 404, text


def test_producer_without_schema_on_a_topic_with_one(broker, client, topic, client_log):
    """Admitted while schema validation is not enforced; refused in a namespace that enforces it
    (created with the policy: a real broker applies a later policy change to a loaded topic
    asynchronously)."""
    client.create_producer(topic, schema=AvroSchema(Payment))
    client.create_producer(topic).close()
    namespace = f"public/ns-{topic[-8:]}"
    assert broker.http("PUT", f"/admin/v2/namespaces/{namespace}", {"schema_validation_enforced": True})[0] == 204
    assert broker.json("GET", f"/admin/v2/namespaces/{namespace}/schemaValidationEnforced") is True
    enforced = f"persistent://{namespace}/{topic}"
    client.create_producer(enforced, schema=AvroSchema(Payment)).close()
    with pytest.raises(IncompatibleSchema):
        client.create_producer(enforced)
    assert "Producers cannot connect or send message without a schema to topics with a schema" in client_log.text()


def test_incompatible_producer_refused_with_the_brokers_text(broker, client, topic, client_log):
    client.create_producer(topic, schema=AvroSchema(Payment))
    with pytest.raises(IncompatibleSchema) as refused:
        client.create_producer(topic, schema=AvroSchema(PaymentBadTypes))
    assert str(refused.value) == "Pulsar error: IncompatibleSchema"
    text = client_log.text()
    assert "Received error response from server: IncompatibleSchema" in text
    assert "Error during schema compatibility check with strategy FULL" in text
    assert "org.apache.avro.SchemaValidationException: Unable to read schema" in text
    # The refused schema is not stored: the topic keeps one version.
    versions = broker.json("GET", f"/admin/v2/schemas/public/default/{topic}/schemas")["getSchemaResponses"]
    assert [v["version"] for v in versions] == [0]


def test_incompatible_consumer_refused_with_the_brokers_text(broker, client, topic, client_log):
    client.create_producer(topic, schema=AvroSchema(Payment))
    with pytest.raises(IncompatibleSchema):
        client.subscribe(topic, "s-json", schema=JsonSchema(Payment))
    assert "Incompatible schema: exists schema type AVRO, new schema type JSON" in client_log.text()
    with pytest.raises(IncompatibleSchema):
        client.subscribe(topic, "s-bad", schema=AvroSchema(PaymentBadTypes))
    assert "org.apache.avro.SchemaValidationException: Unable to read schema" in client_log.text()
    # The same class is admitted.
    client.subscribe(topic, "s-ok", schema=AvroSchema(Payment)).close()


def test_avro_record_name_change_admitted(broker, client, topic):
    """Another record name with the same fields passes Avro's mutual-read check under FULL
    (a real 4.2.4 broker admits it too: the top-level record name is not compared)."""
    client.create_producer(topic, schema=AvroSchema(Payment))
    client.create_producer(topic, schema=AvroSchema(PaymentRenamed)).send(PaymentRenamed(id=1, payer="p"))
    versions = json.loads(broker.http("GET", f"/admin/v2/schemas/public/default/{topic}/schemas")[1])
    assert [json.loads(v["data"])["name"] for v in versions["getSchemaResponses"]] == ["Payment", "PaymentRenamed"]


def test_protobuf_native_admitted_stored_and_round_trips(broker, client, topic):
    schema = ProtobufNativeSchema(Order)
    msg = round_trip(client, topic, schema, Order(id=3, item="tea"))
    assert (msg.value().id, msg.value().item) == (3, "tea")
    assert msg.schema_version().encode() == version_bytes(0)
    stored = json.loads(stored_schema(broker, topic)[1])
    assert stored["type"] == "PROTOBUF_NATIVE"
    definition = json.loads(stored["data"])
    assert definition["rootMessageTypeName"] == "cnxsim.test.Order"
    assert definition["rootFileDescriptorName"] == "cnxsim_test.proto"
    assert base64.b64decode(definition["fileDescriptorSet"])


def test_protobuf_native_evolution_and_refusal(broker, client, topic, client_log):
    client.create_producer(topic, schema=ProtobufNativeSchema(Order))
    # A field added: a new version under the default strategy.
    evolved = client.create_producer(topic, schema=ProtobufNativeSchema(OrderV2))
    evolved.send(OrderV2(id=1, item="x", quantity=2))
    versions = json.loads(broker.http("GET", f"/admin/v2/schemas/public/default/{topic}/schemas")[1])
    assert [v["version"] for v in versions["getSchemaResponses"]] == [0, 1]
    # Another root message: refused by the PROTOBUF_NATIVE checker.
    with pytest.raises(IncompatibleSchema):
        client.create_producer(topic, schema=ProtobufNativeSchema(Quote))
    assert "The root message name is different" in client_log.text() or \
        "root message" in client_log.text().lower(), client_log.text()


def test_schema_types_the_python_client_cannot_send():
    """KeyValue: no KeyValueSchema class, and _pulsar.SchemaInfo takes no properties (kv.encoding.type)."""
    import pulsar.schema
    assert not hasattr(pulsar.schema, "KeyValueSchema")
    with pytest.raises(TypeError):
        _pulsar.SchemaInfo(_pulsar.SchemaType.KEY_VALUE, "KeyValue", "{}", {"kv.encoding.type": "INLINE"})


class PassThrough(Schema):
    """A schema type pulsar.schema has no class for (AUTO_PUBLISH, AUTO_CONSUME), through the Schema
    base class; the bytes pass as they are."""

    def __init__(self, schema_type):
        super().__init__(bytes, schema_type, None, str(schema_type).rsplit(".", 1)[-1])

    def encode(self, obj):
        return obj

    def decode(self, data):
        return data


def test_auto_publish_is_sent_as_no_schema(broker, client, topic):
    """The C++ core 4.2.0 in the wheel does not fetch the topic's schema for AUTO_PUBLISH: its PRODUCER
    carries no schema (not a built-in type), so its messages have no schema version, and the Avro
    consumer decodes them with the latest schema, which it fetches by GET_SCHEMA."""
    consumer = client.subscribe(topic, "sub", schema=AvroSchema(Payment))
    producer = client.create_producer(topic, schema=PassThrough(_pulsar.SchemaType.AUTO_PUBLISH))
    producer.send(AvroSchema(Payment).encode(Payment(id=9, payer="bo")))
    msg = consumer.receive(RECEIVE_MS)
    assert msg.value() == Payment(id=9, payer="bo")
    assert msg.schema_version() == ""


def test_auto_consume_is_sent_as_no_schema(broker, client, topic):
    """AUTO_CONSUME is not a built-in type of the C++ core either: the SUBSCRIBE carries no schema, the
    consumer is admitted on a topic with one and gets the producer's bytes with their schema version."""
    producer = client.create_producer(topic, schema=AvroSchema(Payment))
    consumer = client.subscribe(topic, "auto", schema=PassThrough(_pulsar.SchemaType.AUTO_CONSUME))
    producer.send(Payment(id=4, payer="cy"))
    msg = consumer.receive(RECEIVE_MS)
    assert msg.value() == AvroSchema(Payment).encode(Payment(id=4, payer="cy"))
    assert msg.schema_version().encode() == version_bytes(0)
