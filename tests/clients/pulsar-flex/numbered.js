// What both pulsar-flex programs send: COUNT messages `message-<i>` with the
// property index=<i>, from a Shared producer, each send awaiting its receipt.
const { Producer, logLevel } = require('pulsar-flex');

async function produceNumbered(hostPort, topic, count) {
  const producer = new Producer({
    topic,
    discoveryServers: [hostPort],
    producerAccessMode: Producer.ACCESS_MODES.SHARED,
    logLevel: logLevel.ERROR,
  });
  await producer.create();
  for (let i = 0; i < count; i++) {
    await producer.sendMessage({ payload: `message-${i}`, properties: { index: String(i) } });
  }
  return producer;
}

module.exports = { produceNumbered };
