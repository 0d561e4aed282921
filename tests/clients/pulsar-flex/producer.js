// pulsar-flex against cnxsim serve: LOOKUP through the discovery address,
// create a producer, send COUNT messages one by one (each awaits its
// SEND_RECEIPT), close. Exit 0 and "sent COUNT" on success; 1 on a client
// error; 3 if nothing happened within the time limit.
//
// usage: node producer.js HOST:PORT TOPIC [COUNT]
const { produceNumbered, programSetup } = require('./numbered');

const { hostPort, topic, count, fail, timer } = programSetup('producer.js', 10, 'no answer', 20000);

(async () => {
  const producer = await produceNumbered(hostPort, topic, count);
  await producer.close();
  console.log(`sent ${count}`);
  clearTimeout(timer);
  process.exit(0);
})().catch((e) => fail(1, `error: ${(e && e.message) || e}`));
