// pulsar-flex against cnxsim serve: a producer and a Shared consumer on their
// own connections. The consumer subscribes first, the producer sends COUNT
// messages with a property each, the consumer must receive all of them in
// order, with their payloads and properties, and acknowledges each (ACK);
// then it unsubscribes. Exit 0 and "received COUNT" on success; 1 on a
// client error or a wrong message; 3 if not done within the time limit.
//
// usage: node roundtrip.js HOST:PORT TOPIC [COUNT]
const { Consumer, logLevel } = require('pulsar-flex');
const { produceNumbered, programSetup } = require('./numbered');

const { hostPort, topic, count, fail, timer } = programSetup('roundtrip.js', 20, 'the round trip did not finish', 30000);

(async () => {
  const consumer = new Consumer({
    topic,
    discoveryServers: [hostPort],
    subscription: 'flex-roundtrip',
    subType: Consumer.SUB_TYPES.SHARED,
    consumerName: 'flex-consumer',
    receiveQueueSize: 100,
    logLevel: logLevel.ERROR,
  });
  await consumer.subscribe();
  const received = [];
  const done = new Promise((resolve) => {
    consumer.run({
      autoAck: false,
      onMessage: async ({ ack, message, properties }) => {
        const text = Buffer.from(message).toString();
        const expected = `message-${received.length}`;
        if (text !== expected) fail(1, `got '${text}', expected '${expected}'`);
        if (properties.index !== String(received.length))
          fail(1, `message ${received.length}: property index is ${properties.index}`);
        received.push(text);
        await ack();
        if (received.length === count) resolve();
      },
    });
  });
  const producer = await produceNumbered(hostPort, topic, count);
  await done;
  await producer.close();
  await consumer.unsubscribe();
  console.log(`received ${count}`);
  clearTimeout(timer);
  process.exit(0);
})().catch((e) => fail(1, `error: ${(e && e.message) || e}`));
