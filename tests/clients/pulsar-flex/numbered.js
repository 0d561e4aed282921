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

// The command line every program takes, `HOST:PORT TOPIC [COUNT]` (exit 2 on
// a wrong one), a fail(code, text) that exits, and a time limit that fails
// with exit 3 and `what` unless the returned timer is cleared.
function programSetup(name, defaultCount, what, limitMs) {
  const [, , hostPort, topic, countArg] = process.argv;
  if (!hostPort || !topic) {
    console.error(`usage: node ${name} HOST:PORT TOPIC [COUNT]`);
    process.exit(2);
  }
  const fail = (code, text) => {
    console.error(text);
    process.exit(code);
  };
  const timer = setTimeout(() => fail(3, `timeout: ${what} within ${limitMs / 1000} s`), limitMs);
  return { hostPort, topic, count: Number(countArg || defaultCount), fail, timer };
}

module.exports = { produceNumbered, programSetup };
