"""Readers, partitioned topics, regex and multi-topic subscriptions, and the
admin REST calls a Python application makes with urllib (the Python client has
no admin client), against the served broker."""
import json
import re

import pulsar
import pytest
from pulsar.exceptions import IncompatibleSchema
from pulsar.schema import AvroSchema, Integer, JsonSchema, Record, String, StringSchema

from conftest import version_bytes

RECEIVE_MS = 10000


class User(Record):
    name = String()
    age = Integer()


class UserWithEmail(Record):  # a field added with a default: readable both ways (FULL)
    name = String()
    age = Integer()
    email = String(required_default=True)


class UserWithEmailNoDefault(Record):  # a Record field as Python writes it: nullable, no default
    name = String()
    age = Integer()
    email = String()


class UserEmailRequired(Record):  # a required field added without a default: old data cannot be read
    _sorted_fields = True
    name = String()
    age = Integer()
    email = String(required=True)


def test_reader_reads_from_earliest_with_schema_versions(broker, client, topic):
    first = client.create_producer(topic, schema=AvroSchema(User))
    first.send(User(name="a", age=1))
    second = client.create_producer(topic, schema=AvroSchema(UserWithEmail))
    second.send(UserWithEmail(name="b", age=2, email="b@x"))
    reader = client.create_reader(topic, pulsar.MessageId.earliest, schema=AvroSchema(UserWithEmail))
    got = [reader.read_next(RECEIVE_MS) for _ in range(2)]
    assert [m.schema_version().encode() for m in got] == [version_bytes(0), version_bytes(1)]
    assert [(m.value().name, m.value().age, m.value().email) for m in got] == [("a", 1, None), ("b", 2, "b@x")]
    assert not reader.has_message_available()
    # A reader from a message id: the second message only.
    from_first = client.create_reader(topic, got[0].message_id(), schema=AvroSchema(UserWithEmail))
    assert from_first.read_next(RECEIVE_MS).value().name == "b"


def test_field_added_without_a_default_refused_under_full(broker, client, topic, client_log):
    """Python's Record fields carry no default unless required_default=True: adding one is not
    FULL-compatible (new readers cannot read old data)."""
    client.create_producer(topic, schema=AvroSchema(User))
    with pytest.raises(IncompatibleSchema):
        client.create_producer(topic, schema=AvroSchema(UserWithEmailNoDefault))
    assert "Error during schema compatibility check with strategy FULL" in client_log.text()
    assert "org.apache.avro.SchemaValidationException: Unable to read schema" in client_log.text()
    client.create_producer(topic, schema=AvroSchema(UserWithEmail)).close()


def test_reader_with_an_incompatible_schema_refused(broker, client, topic, client_log):
    client.create_producer(topic, schema=AvroSchema(User)).send(User(name="a", age=1))
    with pytest.raises(IncompatibleSchema):
        client.create_reader(topic, pulsar.MessageId.earliest, schema=JsonSchema(User))
    assert "Incompatible schema: exists schema type AVRO, new schema type JSON" in client_log.text()


def test_partitioned_topic(broker, client, topic):
    assert broker.http("PUT", f"/admin/v2/persistent/public/default/{topic}/partitions", 3)[0] == 204
    # PartitionedTopicMetadata with its `deleted` flag from 3.0 (#18193), as a real 4.2.4 answers.
    assert broker.json("GET", f"/admin/v2/persistent/public/default/{topic}/partitions") == {"partitions": 3, "deleted": False}
    consumer = client.subscribe(topic, "sub", schema=StringSchema())
    producer = client.create_producer(topic, schema=StringSchema(),
                                      message_routing_mode=pulsar.PartitionsRoutingMode.RoundRobinDistribution,
                                      batching_enabled=False)
    sent = [f"m{i}" for i in range(6)]
    for value in sent:
        producer.send(value)
    got = [consumer.receive(RECEIVE_MS) for _ in sent]
    for msg in got:
        consumer.acknowledge(msg)
    assert sorted(m.value() for m in got) == sorted(sent)
    assert {m.topic_name() for m in got} == {f"persistent://public/default/{topic}-partition-{i}" for i in range(3)}
    assert {m.schema_version().encode() for m in got} == {version_bytes(0)}
    # One schema for the partitioned topic, stored under its base name.
    stored = broker.json("GET", f"/admin/v2/schemas/public/default/{topic}/schema")
    assert (stored["type"], stored["version"]) == ("STRING", 0)
    # An incompatible producer is refused on every partition's name.
    with pytest.raises(IncompatibleSchema):
        client.create_producer(topic, schema=AvroSchema(User))


def test_regex_subscription(broker, client, topic):
    names = [f"{topic}-{suffix}" for suffix in ("a", "b", "c")]
    for name in names:
        client.create_producer(name).close()  # create the topics before the pattern consumer lists them
    client.create_producer(f"other-{topic}").close()
    consumer = client.subscribe(re.compile(f"persistent://public/default/{re.escape(topic)}-.*"), "regex-sub",
                                initial_position=pulsar.InitialPosition.Earliest)
    for name in names + [f"other-{topic}"]:
        client.create_producer(name).send(name.encode())
    got = {consumer.receive(RECEIVE_MS).data().decode() for _ in names}
    assert got == set(names)
    with pytest.raises(pulsar.Timeout):
        consumer.receive(500)  # other-...: not matched


def test_multi_topic_subscription_with_a_schema(broker, client, topic):
    names = [f"{topic}-x", f"{topic}-y"]
    consumer = client.subscribe(names, "multi", schema=AvroSchema(User))
    for i, name in enumerate(names):
        client.create_producer(name, schema=AvroSchema(User)).send(User(name=name, age=i))
    got = {}
    for _ in names:
        msg = consumer.receive(RECEIVE_MS)
        got[msg.topic_name()] = (msg.value().name, msg.schema_version().encode())
        consumer.acknowledge(msg)
    assert got == {f"persistent://public/default/{n}": (n, version_bytes(0)) for n in names}


def test_namespace_schema_compatibility_strategy(broker, client, topic, client_log):
    """The namespace policy through the admin REST API, as schema_test.py sets it: it decides
    which evolution a producer gets. (A topic loaded before the change gets it asynchronously on a
    real broker, so the evolution is tried on a topic loaded after it.)"""
    namespace = f"public/strategy-{topic[-8:]}"
    assert broker.http("PUT", f"/admin/v2/namespaces/{namespace}")[0] == 204
    assert broker.json("GET", f"/admin/v2/namespaces/{namespace}/schemaCompatibilityStrategy") == "UNDEFINED"
    before = f"persistent://{namespace}/{topic}-before"
    client.create_producer(before, schema=AvroSchema(User))
    # Under the broker's default (FULL) a required field without a default cannot be added.
    with pytest.raises(IncompatibleSchema):
        client.create_producer(before, schema=AvroSchema(UserEmailRequired))
    assert "Error during schema compatibility check with strategy FULL" in client_log.text()
    assert broker.http("PUT", f"/admin/v2/namespaces/{namespace}/schemaCompatibilityStrategy", "FORWARD")[0] == 204
    assert broker.json("GET", f"/admin/v2/namespaces/{namespace}/schemaCompatibilityStrategy") == "FORWARD"
    after = f"persistent://{namespace}/{topic}-after"
    client.create_producer(after, schema=AvroSchema(User))
    evolved = client.create_producer(after, schema=AvroSchema(UserEmailRequired))
    evolved.send(UserEmailRequired(name="n", age=1, email="e"))
    versions = broker.json("GET", f"/admin/v2/schemas/{namespace}/{topic}-after/schemas")["getSchemaResponses"]
    assert [v["version"] for v in versions] == [0, 1]


def test_admin_schema_calls_see_what_the_client_registered(broker, client, topic):
    client.create_producer(topic, schema=JsonSchema(User))
    assert broker.json("GET", f"/admin/v2/schemas/public/default/{topic}/schema/0")["type"] == "JSON"
    # /version looks the schema up by the SHA-256 of its text: only the client's own pretty-printed
    # text finds it, the compact text of the same definition does not.
    pretty = json.dumps(User.schema(), indent=True)
    compact = json.dumps(User.schema(), separators=(",", ":"))
    for text, version in ((pretty, 0), (compact, -1)):
        answer = broker.json("POST", f"/admin/v2/schemas/public/default/{topic}/version",
                             {"type": "JSON", "schema": text, "properties": {}})
        assert answer == {"version": version}
    # Uploading the compact text de-duplicates against it (parsed equality): no new version.
    status, text = broker.http("POST", f"/admin/v2/schemas/public/default/{topic}/schema",
                               {"type": "JSON", "schema": compact, "properties": {}})
    assert status == 200 and json.loads(text)["version"]["version"] == 0, text
    compatibility = broker.json("POST", f"/admin/v2/schemas/public/default/{topic}/compatibility",
                                {"type": "JSON", "schema": json.dumps(UserWithEmail.schema()), "properties": {}})
    assert compatibility["compatibility"] is True
    assert broker.http("DELETE", f"/admin/v2/schemas/public/default/{topic}/schema")[0] == 200
    assert broker.http("GET", f"/admin/v2/schemas/public/default/{topic}/schema")[0] == 404
