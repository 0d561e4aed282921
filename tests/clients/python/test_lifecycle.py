"""Live Python clients while the broker unloads a topic and while it is upgraded
(`POST /cnxsim/upgrade?version=V`, cnxsim's own admin route): the C++ core
reconnects, is admitted again with its schema, and messages keep flowing with
their schema versions."""
import json
import time

import pulsar
import pytest
from pulsar.exceptions import IncompatibleSchema
from pulsar.schema import AvroSchema, Integer, Record, String

from conftest import version_bytes

RECEIVE_MS = 10000
# A bound on the polls for re-admission (each one an admin call): never a timing assertion.
POLLS = 200


class Reading(Record):
    sensor = String()
    value = Integer()


class ReadingBad(Record):
    sensor = Integer()
    value = String()


def wait_for_clients(broker, topic, producers, consumers):
    """Polls the topic's stats until it lists the producers and consumers again (bounded)."""
    stats = None
    for _ in range(POLLS):
        status, text = broker.http("GET", f"/admin/v2/persistent/public/default/{topic}/stats")
        if status == 200:
            stats = json.loads(text)
            attached = sum(len(s["consumers"]) for s in stats["subscriptions"].values())
            if len(stats["publishers"]) == producers and attached == consumers:
                return stats
        time.sleep(0.05)
    pytest.fail(f"the clients were not admitted again: {stats}")




def receive_until(consumer, sensor):
    """The messages up to the one from SENSOR. A message received before the restart may come again:
    its acknowledgement is grouped (sent within 100 ms), and the broker redelivers what it has not seen
    acknowledged when the consumer reconnects, as Pulsar does."""
    got = []
    for _ in range(5):
        msg = consumer.receive(RECEIVE_MS)
        consumer.acknowledge(msg)
        got.append(msg)
        if msg.value().sensor == sensor:
            return got
    pytest.fail(f"no message from {sensor}: {[m.value().sensor for m in got]}")


@pytest.fixture
def served_30(serve_factory):
    return serve_factory("--broker-version", "3.0")


def test_unload_under_live_clients(broker, client, topic):
    consumer = client.subscribe(topic, "sub", schema=AvroSchema(Reading))
    producer = client.create_producer(topic, schema=AvroSchema(Reading))
    producer.send(Reading(sensor="before", value=1))
    assert consumer.receive(RECEIVE_MS).value().sensor == "before"

    assert broker.http("PUT", f"/admin/v2/persistent/public/default/{topic}/unload")[0] == 204
    stats = wait_for_clients(broker, topic, producers=1, consumers=1)
    assert list(stats["subscriptions"]) == ["sub"]

    producer.send(Reading(sensor="after", value=2))
    got = receive_until(consumer, "after")
    assert {m.value().sensor for m in got[:-1]} <= {"before"}
    assert (got[-1].value().sensor, got[-1].value().value) == ("after", 2)
    assert got[-1].schema_version().encode() == version_bytes(0)


def test_upgrade_under_live_clients(served_30, client_log):
    broker = served_30
    client = pulsar.Client(broker.url, operation_timeout_seconds=10, logger=client_log.logger)
    try:
        topic = "py-upgrade"
        consumer = client.subscribe(topic, "sub", schema=AvroSchema(Reading))
        producer = client.create_producer(topic, schema=AvroSchema(Reading))
        producer.send(Reading(sensor="on 3.0", value=1))
        assert consumer.receive(RECEIVE_MS).value().sensor == "on 3.0"
        assert broker.http("GET", "/admin/v2/brokers/version")[1].startswith("3.0.")

        status, text = broker.http("POST", "/cnxsim/upgrade?version=4.2")
        assert status == 200, text
        assert broker.http("GET", "/admin/v2/brokers/version")[1].startswith("4.2.")
        assert broker.json("GET", "/cnxsim/status")["release"].startswith("4.2.")
        wait_for_clients(broker, topic, producers=1, consumers=1)

        producer.send(Reading(sensor="on 4.2", value=2))
        got = receive_until(consumer, "on 4.2")
        assert {m.value().sensor for m in got[:-1]} <= {"on 3.0"}
        msg = got[-1]
        assert msg.schema_version().encode() == version_bytes(0)  # the schema survived the upgrade
        # The upgraded broker still refuses an incompatible schema, with its own text.
        with pytest.raises(IncompatibleSchema):
            client.create_producer(topic, schema=AvroSchema(ReadingBad))
        assert "Error during schema compatibility check with strategy FULL" in client_log.text()
    finally:
        client.close()


def test_upgrade_to_a_release_not_modelled_is_refused(served_30):
    status, text = served_30.http("POST", "/cnxsim/upgrade?version=1.0")
    assert status == 400, text
    assert served_30.http("GET", "/admin/v2/brokers/version")[1].startswith("3.0.")
