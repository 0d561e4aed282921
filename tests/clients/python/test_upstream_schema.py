"""The broker-facing tests of the Python client's own tests/schema_test.py,
translated for `cnxsim serve`.

The wheel on PyPI carries no tests and pulsar-client publishes no sdist (PyPI
lists only wheels for 3.13.0), so the upstream file cannot be had through pip;
these are its 13 tests that talk to a broker, rewritten test for test from
apache/pulsar-client-python tag v3.13.0-candidate-1 (268231cb, the 3.13.0
release), tests/schema_test.py. Each test names its upstream test. What
changed in the translation:
- the service URL is the fixture's (a fresh `cnxsim serve`), not localhost:6650,
  and the admin URL the fixture's, not localhost:8080;
- every receive is bounded (upstream's receive() waits forever);
- unittest assertions are plain asserts; topic names and the order of the
  tests are upstream's (test_schema_evolve sets public/default to FORWARD for
  the tests after it, as upstream does).
The other 28 tests of the file (including the 10 of ProtobufNativeSchemaTest)
exercise pulsar.schema alone, with no broker: they are not translated
(doc/clients/python.md lists them).
"""
import math
from enum import Enum

import pulsar
import pytest
from pulsar.schema import (Array, AvroSchema, Boolean, Bytes, BytesSchema, CustomEnum, Double, Float, Integer,
                           JsonSchema, Long, Map, Record, String, StringSchema)

RECEIVE_MS = 10000


@pytest.fixture
def upstream_client(broker):
    c = pulsar.Client(broker.url)
    yield c
    c.close()


def expect_refused(action):
    """Upstream's `try: ...; self.fail('Should have failed') except Exception: pass`, as meant: upstream's
    form also catches the AssertionError of its own self.fail(), so it never fails; this one does."""
    with pytest.raises(Exception):
        action()


class ExampleRecord(Record):
    str_field = String()
    int_field = Integer()
    float_field = Float()
    bytes_field = Bytes()


def test_schema_version(upstream_client):
    """upstream: SchemaTest.test_schema_version"""
    class Example(Record):
        a = Integer()
        b = Integer()

    producer = upstream_client.create_producer('my-avro-python-schema-version-topic', schema=AvroSchema(Example))
    consumer = upstream_client.subscribe('my-avro-python-schema-version-topic', 'sub-1', schema=AvroSchema(Example))
    r = Example(a=1, b=2)
    producer.send(r)
    msg = consumer.receive(RECEIVE_MS)
    assert msg.schema_version() is not None
    assert msg.schema_version().encode() == b'\x00' * 8
    assert msg.value() == r


def test_json_schema(upstream_client):
    """upstream: SchemaTest.test_json_schema"""
    class Example(Record):
        a = Integer()
        b = Integer()

    class BadExample(Record):
        a = String()
        b = Integer()

    producer = upstream_client.create_producer('my-json-python-topic', schema=JsonSchema(Example))
    expect_refused(lambda: upstream_client.subscribe('my-json-python-topic', 'sub-1', schema=JsonSchema(BadExample)))
    # Upstream passes a record class to StringSchema(), which takes none: a TypeError before any request.
    expect_refused(lambda: upstream_client.subscribe('my-json-python-topic', 'sub-1', schema=StringSchema(BadExample)))
    expect_refused(lambda: upstream_client.subscribe('my-json-python-topic', 'sub-1', schema=AvroSchema(BadExample)))
    consumer = upstream_client.subscribe('my-json-python-topic', 'sub-1', schema=JsonSchema(Example))
    r = Example(a=1, b=2)
    producer.send(r)
    assert consumer.receive(RECEIVE_MS).value() == r


def test_string_schema(upstream_client):
    """upstream: SchemaTest.test_string_schema"""
    upstream_client.create_producer('my-string-python-topic', schema=StringSchema())

    class Example(Record):
        a = Integer()
        b = Integer()

    expect_refused(lambda: upstream_client.create_producer('my-string-python-topic', schema=JsonSchema(Example)))
    consumer = upstream_client.subscribe('my-string-python-topic', 'sub-1', schema=StringSchema())
    producer = upstream_client.create_producer('my-string-python-topic', schema=StringSchema())
    producer.send("Hello")
    msg = consumer.receive(RECEIVE_MS)
    assert msg.value() == "Hello"
    assert msg.data() == b"Hello"


@pytest.mark.xfail(strict=True, reason=(
    "expects a JSON producer refused on a topic whose BYTES producer registered nothing (the C++ core "
    "sends no schema for BYTES); serve admits it, and so does a real Pulsar 4.2.4 started by "
    "tests/oracle/run-broker with this client: not a fidelity defect. Upstream's own check is vacuous "
    "(its self.fail() is caught by its `except Exception`), so upstream passes either way"))
def test_bytes_schema(upstream_client):
    """upstream: SchemaTest.test_bytes_schema"""
    producer = upstream_client.create_producer('my-bytes-python-topic', schema=BytesSchema())

    class Example(Record):
        a = Integer()
        b = Integer()

    expect_refused(lambda: upstream_client.create_producer('my-bytes-python-topic', schema=JsonSchema(Example)))
    consumer = upstream_client.subscribe('my-bytes-python-topic', 'sub-1', schema=BytesSchema())
    producer.send(b"Hello")
    assert consumer.receive(RECEIVE_MS).value() == b"Hello"


def test_avro_schema(upstream_client):
    """upstream: SchemaTest.test_avro_schema"""
    class Example(Record):
        a = Integer()
        b = Integer()

    class BadExample(Record):
        a = String()
        b = Integer()

    producer = upstream_client.create_producer('my-avro-python-topic', schema=AvroSchema(Example))
    expect_refused(lambda: upstream_client.subscribe('my-avro-python-topic', 'sub-1', schema=AvroSchema(BadExample)))
    expect_refused(lambda: upstream_client.subscribe('my-avro-python-topic', 'sub-2', schema=JsonSchema(Example)))
    consumer = upstream_client.subscribe('my-avro-python-topic', 'sub-3', schema=AvroSchema(Example))
    r = Example(a=1, b=2)
    producer.send(r)
    assert consumer.receive(RECEIVE_MS).value() == r


class MyEnum(Enum):
    A = 1
    B = 2
    C = 3


def test_json_enum(upstream_client):
    """upstream: SchemaTest.test_json_enum"""
    class Example(Record):
        name = String()
        v = MyEnum
        w = CustomEnum(MyEnum)
        x = CustomEnum(MyEnum, required=True, default=MyEnum.A, required_default=True)

    producer = upstream_client.create_producer(topic='my-json-enum-topic', schema=JsonSchema(Example))
    consumer = upstream_client.subscribe('my-json-enum-topic', 'test', schema=JsonSchema(Example))
    producer.send(Example(name='test', v=MyEnum.C, w=MyEnum.B))
    value = consumer.receive(RECEIVE_MS).value()
    assert value.name == 'test'
    assert (MyEnum(value.v), MyEnum(value.w), MyEnum(value.x)) == (MyEnum.C, MyEnum.B, MyEnum.A)


def test_avro_enum(upstream_client):
    """upstream: SchemaTest.test_avro_enum"""
    class Example(Record):
        name = String()
        v = MyEnum
        w = CustomEnum(MyEnum)
        x = CustomEnum(MyEnum, required=True, default=MyEnum.B, required_default=True)

    producer = upstream_client.create_producer(topic='my-avro-enum-topic', schema=AvroSchema(Example))
    consumer = upstream_client.subscribe('my-avro-enum-topic', 'test', schema=AvroSchema(Example))
    producer.send(Example(name='test', v=MyEnum.C, w=MyEnum.A))
    value = consumer.receive(RECEIVE_MS).value()
    assert value.v == MyEnum.C
    assert (MyEnum(value.w), MyEnum(value.x)) == (MyEnum.A, MyEnum.B)


def test_avro_map_array(upstream_client):
    """upstream: SchemaTest.test_avro_map_array"""
    class MapArray(Record):
        values = Map(Array(Integer()))

    class MapMap(Record):
        values = Map(Map(Integer()))

    class ArrayMap(Record):
        values = Array(Map(Integer()))

    class ArrayArray(Record):
        values = Array(Array(Integer()))

    cases = [
        ("my-avro-map-array-topic-0", AvroSchema(MapArray), MapArray(values={"A": [1, 2], "B": [3]})),
        ("my-avro-map-array-topic-1", AvroSchema(MapMap), MapMap(values={"A": {"B": 2}})),
        ("my-avro-map-array-topic-2", AvroSchema(ArrayMap), ArrayMap(values=[{"A": 1}, {"B": 2}, {"C": 3}])),
        ("my-avro-map-array-topic-3", AvroSchema(ArrayArray), ArrayArray(values=[[1, 2, 3], [4]])),
    ]
    for topic, schema, record in cases:
        producer = upstream_client.create_producer(topic, schema=schema)
        consumer = upstream_client.subscribe(topic, 'sub', schema=schema)
        producer.send(record)
        msg = consumer.receive(RECEIVE_MS)
        assert msg.value().values == record.values
        consumer.acknowledge(msg)
        consumer.close()
        producer.close()


def test_avro_required_default(upstream_client):
    """upstream: SchemaTest.test_avro_required_default (the schema() comparison is the client's
    own and left out; the broker part: two producers, with and without required_default)"""
    class MySubRecord(Record):
        _sorted_fields = True
        x = Integer()
        y = Long()
        z = String()

    class Example(Record):
        a = Integer()
        b = Boolean(required=True)
        c = Long()
        d = Float()
        e = Double()
        f = String()
        g = Bytes()
        h = Array(String())
        i = Map(String())
        j = MySubRecord()

    class ExampleRequiredDefault(Record):
        _sorted_fields = True
        a = Integer(required_default=True)
        b = Boolean(required=True, required_default=True)
        c = Long(required_default=True)
        d = Float(required_default=True)
        e = Double(required_default=True)
        f = String(required_default=True)
        g = Bytes(required_default=True)
        h = Array(String(), required_default=True)
        i = Map(String(), required_default=True)
        j = MySubRecord(required_default=True)

    assert ExampleRequiredDefault.schema()["fields"][1] == {"name": "b", "type": "boolean", "default": False}
    producer = upstream_client.create_producer('my-avro-python-default-topic', schema=AvroSchema(Example))
    producer_default = upstream_client.create_producer('my-avro-python-default-topic',
                                                       schema=AvroSchema(ExampleRequiredDefault))
    producer.close()
    producer_default.close()


def test_default_value(upstream_client):
    """upstream: SchemaTest.test_default_value"""
    class MyRecord(Record):
        A = Integer()
        B = String()
        C = Boolean(default=True, required=True)
        D = Double(default=6.4)

    producer = upstream_client.create_producer(topic="my-default-value-topic", schema=JsonSchema(MyRecord))
    consumer = upstream_client.subscribe("my-default-value-topic", 'test', schema=JsonSchema(MyRecord))
    producer.send(MyRecord(A=5, B="text"))
    value = consumer.receive(RECEIVE_MS).value()
    assert (value.A, value.B, value.C, value.D) == (5, 'text', True, 6.4)


def test_produce_and_consume_complex_schema_data(upstream_client):
    """upstream: SchemaTest.test_produce_and_consume_complex_schema_data"""
    class Color(Enum):
        red = 1
        green = 2
        blue = 3

    class NestedObj1(Record):
        na1 = String()
        nb1 = Double()

    class NestedObj2(Record):
        na2 = Integer()
        nb2 = Boolean()
        nc2 = NestedObj1()

    class NestedObj3(Record):
        na3 = Integer()
        color = CustomEnum(Color, required=True, required_default=True, default=Color.blue)

    class NestedObj4(Record):
        na4 = String()
        nb4 = Integer()

    class ComplexRecord(Record):
        a = Integer()
        b = Integer()
        color = CustomEnum(Color)
        nested = NestedObj2()
        mapNested = Map(NestedObj3())
        arrayNested = Array(NestedObj4())

    for schema_type, data_schema in (("avro", AvroSchema(ComplexRecord)), ("json", JsonSchema(ComplexRecord))):
        topic = "my-complex-schema-topic-" + schema_type
        producer = upstream_client.create_producer(topic=topic, schema=data_schema)
        consumer = upstream_client.subscribe(topic, 'test', schema=data_schema)
        nested_obj2 = NestedObj2(na2=22, nb2=True, nc2=NestedObj1(na1='na1 value', nb1=20.5))
        r = ComplexRecord(a=1, b=2, nested=nested_obj2, mapNested={
            'a': NestedObj3(na3=1, color=Color.red),
            'b': NestedObj3(na3=2, color=Color.green),
            'c': NestedObj3(na3=3),
        }, arrayNested=[NestedObj4(na4='value na4 1', nb4=100), NestedObj4(na4='value na4 2', nb4=200)])
        producer.send(r)
        value = consumer.receive(RECEIVE_MS).value()
        assert value.__class__.__name__ == 'ComplexRecord'
        assert value == r


def test_schema_evolve(broker, upstream_client):
    """upstream: SchemaTest.test_schema_evolve (its admin call: PUT the namespace's
    schemaCompatibilityStrategy "FORWARD", expecting 204)"""
    class User1(Record):
        name = String()
        age = Integer()

    class User2(Record):
        _sorted_fields = True
        name = String()
        age = Integer(required=True)

    status, text = broker.http("PUT", "/admin/v2/namespaces/public/default/schemaCompatibilityStrategy",
                               b'"FORWARD"')
    assert status == 204, text
    topic = 'schema-test-schema-evolve-2'
    producer1 = upstream_client.create_producer(topic, schema=AvroSchema(User1))
    consumer = upstream_client.subscribe(topic, 'sub', schema=AvroSchema(User1))
    reader = upstream_client.create_reader(topic, schema=AvroSchema(User1), start_message_id=pulsar.MessageId.earliest)
    producer2 = upstream_client.create_producer(topic, schema=AvroSchema(User2))
    num_messages = 10 * 2
    for i in range(num_messages // 2):
        producer1.send(User1(age=i + 100, name=f'User1 {i}'))
        producer2.send(User2(age=i + 200, name=f'User2 {i}'))

    def verify_messages(msgs):
        for i, msg in enumerate(msgs):
            value, index = msg.value(), math.floor(i / 2)
            if i % 2 == 0:
                assert (value.age, value.name) == (index + 100, f'User1 {index}')
            else:
                assert (value.age, value.name) == (index + 200, f'User2 {index}')

    msgs1, msgs2 = [], []
    for _ in range(num_messages):
        msgs1.append(consumer.receive(RECEIVE_MS))
        msgs2.append(reader.read_next(RECEIVE_MS))  # upstream: read_next(1000)
    verify_messages(msgs1)
    verify_messages(msgs2)


def test_schema_type_promotion(upstream_client):
    """upstream: SchemaTest.test_schema_type_promotion"""
    for schema_name, schema in (("avro", AvroSchema(ExampleRecord)), ("json", JsonSchema(ExampleRecord))):
        topic = f'test_schema_type_promotion_{schema_name}'
        consumer = upstream_client.subscribe(topic=topic, subscription_name=f'my-sub-{schema_name}', schema=schema)
        producer = upstream_client.create_producer(topic=topic, schema=schema)
        send_value = ExampleRecord(str_field=b'test', int_field=1, float_field=3, bytes_field='str')
        producer.send(send_value)
        msg = consumer.receive(RECEIVE_MS)
        value = msg.value()
        assert (value.str_field, value.int_field, value.float_field, value.bytes_field) == \
            (send_value.str_field, send_value.int_field, send_value.float_field, send_value.bytes_field)
        consumer.acknowledge(msg)
