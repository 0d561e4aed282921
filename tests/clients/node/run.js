// ctest entry of the Node client test: skips (exit 77, the ctest's SKIP_RETURN_CODE)
// when pulsar-client's native addon is not installed, else runs PROGRAM against a
// fresh `cnxsim serve` through tests/clients/run_against_serve.py.
//
// usage: node run.js PYTHON3 CNXSIM PROGRAM
//
// npm ci installs the addon by downloading a prebuilt binary from
// archive.apache.org, else by building it against an installed C++ client
// (headers and libpulsar); doc/clients/node.md says which works where.
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const [python3, cnxsim, program] = process.argv.slice(2);
try {
  require('pulsar-client');
} catch (error) {
  const first = String(error.message).split('\n')[0];
  console.log(`skipped: the pulsar-client addon does not load (${first}); `
    + `scripts/bootstrap test runs npm ci in ${__dirname} (doc/clients/node.md)`);
  process.exit(77);
}
const runner = path.join(__dirname, '..', 'run_against_serve.py');
const run = spawnSync(python3, [runner, cnxsim, '--', process.execPath, program, '{url}', '{admin}'],
  { stdio: 'inherit', timeout: 100000 });
process.exit(run.status === null ? 1 : run.status);
