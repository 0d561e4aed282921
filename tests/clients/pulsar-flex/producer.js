// pulsar-flex against cnxsim serve: LOOKUP through the discovery address,
// create a producer, send COUNT messages one by one (each awaits its
// SEND_RECEIPT), close. Exit 0 and "sent COUNT" on success; 1 on a client
// error; 3 if nothing happened within the time limit.
//
// usage: node producer.js HOST:PORT TOPIC [COUNT]
const { produceNumbered } = require('./numbered');

const [, , hostPort, topic, countArg] = process.argv;
if (!hostPort || !topic) {
  console.error('usage: node producer.js HOST:PORT TOPIC [COUNT]');
  process.exit(2);
}
const count = Number(countArg || 10);
const timer = setTimeout(() => {
  console.error('timeout: no answer within 20 s');
  process.exit(3);
}, 20000);

(async () => {
  const producer = await produceNumbered(hostPort, topic, count);
  await producer.close();
  console.log(`sent ${count}`);
  clearTimeout(timer);
  process.exit(0);
})().catch((e) => {
  console.error('error:', (e && e.message) || e);
  process.exit(1);
});
