"""Where cnxsim's answer to the Python client differs between broker releases,
the same test on two of them (`cnxsim serve --broker-version`).

- De-duplication (dedupRule, #9612/#10573, reference §4.5): the Python client
  pretty-prints its definitions. Before 2.7.1 the registry compared the SHA-256
  of the text, so the Python text of a definition stored compactly (by the admin
  API, by Java) is a new version; from 2.8 parsed Avro schemas are compared and
  it is the same version.
- The text that refuses a producer without a schema on a topic with one while
  validation is enforced (producerWithoutSchemaMessage, #23344): 4.x appends
  "when SchemaValidationEnforced is enabled" (without a space, as Pulsar writes it).
"""
import json

import pulsar
import pytest
from pulsar.exceptions import IncompatibleSchema
from pulsar.schema import AvroSchema, Long, Record, String

from conftest import version_bytes

RECEIVE_MS = 10000
RELEASES = {
    # release: (version of the client's pretty-printed text after a compact upload, refusal text)
    "2.6": (1, "Producers cannot connect or send message without a schema to topics with a schema\n"),
    "4.2": (0, "Producers cannot connect or send message without a schema to topics with a "
               "schemawhen SchemaValidationEnforced is enabled"),
}


class Invoice(Record):
    number = Long()
    customer = String()


@pytest.fixture(params=sorted(RELEASES))
def release(request, serve_factory, client_log):
    broker = serve_factory("--broker-version", request.param)
    assert broker.release.startswith(request.param + ".")
    client = pulsar.Client(broker.url, operation_timeout_seconds=10, logger=client_log.logger)
    yield request.param, broker, client
    client.close()


def test_pretty_printed_definition_against_a_compact_one(release):
    name, broker, client = release
    expected_version = RELEASES[name][0]
    topic = "py-dedup"
    compact = json.dumps(Invoice.schema(), separators=(",", ":"))
    status, text = broker.http("POST", f"/admin/v2/schemas/public/default/{topic}/schema",
                               {"type": "AVRO", "schema": compact, "properties": {}})
    assert status in (200, 202), text

    consumer = client.subscribe(topic, "sub", schema=AvroSchema(Invoice))
    producer = client.create_producer(topic, schema=AvroSchema(Invoice))
    producer.send(Invoice(number=1, customer="c"))
    msg = consumer.receive(RECEIVE_MS)
    assert msg.value() == Invoice(number=1, customer="c")
    assert msg.schema_version().encode() == version_bytes(expected_version)
    versions = json.loads(broker.http("GET", f"/admin/v2/schemas/public/default/{topic}/schemas")[1])
    assert [v["version"] for v in versions["getSchemaResponses"]] == list(range(expected_version + 1))


def test_producer_without_schema_refused_text(release, client_log):
    name, broker, client = release
    namespace = "public/enforced"
    assert broker.http("PUT", f"/admin/v2/namespaces/{namespace}", {"schema_validation_enforced": True})[0] == 204
    topic = f"persistent://{namespace}/py-enforced"
    client.create_producer(topic, schema=AvroSchema(Invoice)).close()
    client_log.lines.clear()
    with pytest.raises(IncompatibleSchema):
        client.create_producer(topic)
    text = client_log.text()
    assert RELEASES[name][1].strip() in text
    if name == "2.6":
        assert "schemawhen" not in text
