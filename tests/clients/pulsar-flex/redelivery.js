// pulsar-flex against cnxsim serve: redelivery. A Shared consumer answers the
// first delivery of each message with a negative acknowledgement (pulsar-flex
// sends REDELIVER_UNACKNOWLEDGED_MESSAGES with the message id); the broker
// must deliver it again with redelivery count 1, and the consumer then
// acknowledges it. Exit 0 and "redelivered COUNT" when every message came
// twice, counts 0 then 1; 1 on a client error or a wrong delivery; 3 if not
// done within the time limit.
//
// usage: node redelivery.js HOST:PORT TOPIC [COUNT]
const { Consumer, logLevel } = require('pulsar-flex');
const { produceNumbered, programSetup } = require('./numbered');

const { hostPort, topic, count, fail, timer } = programSetup('redelivery.js', 10, 'the redeliveries did not finish', 30000);

(async () => {
  const consumer = new Consumer({
    topic,
    discoveryServers: [hostPort],
    subscription: 'flex-redelivery',
    subType: Consumer.SUB_TYPES.SHARED,
    consumerName: 'flex-redelivery-consumer',
    receiveQueueSize: 100,
    logLevel: logLevel.ERROR,
  });
  await consumer.subscribe();
  const firstSeen = new Set();
  const acked = new Set();
  const done = new Promise((resolve) => {
    consumer.run({
      autoAck: false,
      onMessage: async ({ ack, message, redeliveryCount }) => {
        const text = Buffer.from(message).toString();
        const count0 = Number(redeliveryCount || 0);
        if (!firstSeen.has(text)) {
          if (count0 !== 0) fail(1, `${text}: first delivery has redelivery count ${count0}`);
          firstSeen.add(text);
          await ack({ type: Consumer.ACK_TYPES.NEGATIVE });
          return;
        }
        if (count0 !== 1) fail(1, `${text}: redelivered with count ${count0}, expected 1`);
        if (acked.has(text)) fail(1, `${text}: delivered again after it was acknowledged`);
        acked.add(text);
        await ack();
        if (acked.size === count) resolve();
      },
    });
  });
  const producer = await produceNumbered(hostPort, topic, count);
  await done;
  await producer.close();
  await consumer.unsubscribe();
  console.log(`redelivered ${count}`);
  clearTimeout(timer);
  process.exit(0);
})().catch((e) => fail(1, `error: ${(e && e.message) || e}`));
