// The official Node.js client (npm pulsar-client 1.18.0, wrapping the C++ client)
// against `cnxsim serve`: producer and consumer admission with a schema, a round
// trip, and the incompatible producer and consumer refused with the client's Error
// and the broker's text (which only the client's log carries).
//
// usage: node schema_admission.js SERVICE_URL ADMIN_URL
const assert = require('node:assert/strict');
const http = require('node:http');
const Pulsar = require('pulsar-client');

const [serviceUrl, adminUrl] = process.argv.slice(2);
const log = [];
Pulsar.Client.setLogHandler((level, file, line, message) => log.push(message));

const payment = {
  type: 'record',
  name: 'Payment',
  fields: [{ name: 'id', type: 'long' }, { name: 'payer', type: 'string' }],
};
const paymentBad = { ...payment, fields: [{ name: 'id', type: 'string' }, { name: 'payer', type: 'long' }] };
const avro = (definition) => ({ schemaType: 'Avro', name: definition.name, schema: JSON.stringify(definition) });

function adminGet(path) {
  return new Promise((resolve, reject) => {
    http.get(adminUrl + path, (res) => {
      let body = '';
      res.on('data', (chunk) => { body += chunk; });
      res.on('end', () => resolve({ status: res.statusCode, body }));
    }).on('error', reject);
  });
}

async function refused(action, text) {
  log.length = 0;
  await assert.rejects(action, (error) => {
    assert.ok(error instanceof Error);
    assert.match(error.message, /IncompatibleSchema/);
    return true;
  });
  assert.ok(log.some((line) => line.includes(text)), `the client log lacks ${JSON.stringify(text)}:\n${log.join('\n')}`);
}

async function main() {
  const client = new Pulsar.Client({ serviceUrl, operationTimeoutSeconds: 10 });
  try {
    const topic = 'persistent://public/default/node-schema';
    const producer = await client.createProducer({ topic, schema: avro(payment) });
    const consumer = await client.subscribe({ topic, subscription: 'sub', schema: avro(payment) });
    // Avro binary of {id: 7, payer: "ana"}: zig-zag 7, then the string's length 3 and its bytes.
    const record = Buffer.from([14, 6, 0x61, 0x6e, 0x61]);
    await producer.send({ data: record });
    const msg = await consumer.receive(10000);
    assert.deepEqual(msg.getData(), record);
    await consumer.acknowledge(msg);

    const stored = await adminGet('/admin/v2/schemas/public/default/node-schema/schema');
    assert.equal(stored.status, 200);
    const schema = JSON.parse(stored.body);
    assert.equal(schema.type, 'AVRO');
    assert.equal(schema.version, 0);
    assert.equal(schema.data, JSON.stringify(payment));  // as the client sent it

    await refused(() => client.createProducer({ topic, schema: { ...avro(payment), schemaType: 'Json' } }),
      'Incompatible schema: exists schema type AVRO, new schema type JSON');
    await refused(() => client.createProducer({ topic, schema: avro(paymentBad) }),
      'Error during schema compatibility check with strategy FULL');
    await refused(() => client.subscribe({ topic, subscription: 'bad', schema: avro(paymentBad) }),
      'org.apache.avro.SchemaValidationException: Unable to read schema');

    // STRING without a definition: the data is empty (Python's client sends "null").
    const strings = await client.createProducer({ topic: 'node-string', schema: { schemaType: 'String' } });
    await strings.send({ data: Buffer.from('hello') });
    const text = JSON.parse((await adminGet('/admin/v2/schemas/public/default/node-string/schema')).body);
    assert.equal(text.type, 'STRING');
    assert.equal(text.data, '');
    console.log('node client: admission, round trip and refusals as expected');
  } finally {
    await client.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
