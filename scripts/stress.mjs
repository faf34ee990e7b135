// Runs a command while other processes keep every core busy: the test suite as it runs on a
// shared, loaded machine (a CI runner, a laptop compiling something else).
//
//   node scripts/stress.mjs [--loops N | --ci-loops N] [-- CMD ARGS...]     (npm run test:stress)
//
// N busy loops (default: one per CPU), each a child process spinning on its own, start first;
// then CMD (default: the vitest suite) runs; the loops are killed when it ends, whatever its
// outcome, and the script exits with CMD's status. A test that passes alone and fails here
// depends on timing: it should wait for an event, not a clock.
//
// --ci-loops N: N loops when the CI environment variable is set (1, true or yes), none
// otherwise. `npm test` runs its vitest stage this way, so CI runs the suite once, under load,
// and a run on a developer's machine is not slowed down.
//
// A loop also ends by itself once this script is gone (it checks its parent now and then), so
// a killed run leaves no process spinning behind.

import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

const argv = process.argv.slice(2);
const inCI = /^(1|true|yes)$/i.test(process.env.CI ?? '');
let loops = availableParallelism();
const dash = argv.indexOf('--');
const own = dash < 0 ? argv : argv.slice(0, dash);
for (let i = 0; i < own.length; i++) {
  const name = own[i];
  if (name === '--loops' || name === '--ci-loops') {
    const n = Number(own[++i]);
    if (!Number.isInteger(n) || n < 0) throw new RangeError(`${name} must be a whole number, got ${own[i]}`);
    loops = name === '--loops' || inCI ? n : 0;
  } else {
    throw new TypeError(`unknown option ${name} (see the comment at the top of scripts/stress.mjs)`);
  }
}
const cmd = dash < 0 ? [process.execPath, 'node_modules/vitest/vitest.mjs', 'run'] : argv.slice(dash + 1);
if (cmd.length === 0) throw new TypeError('no command after -- (see the comment at the top of scripts/stress.mjs)');

// Spins; every 2^24 rounds (a few milliseconds) it looks whether its parent is still this script.
const LOOP = `const parent = ${process.pid}; for (let i = 1; ; i++) if ((i & 0xffffff) === 0 && process.ppid !== parent) process.exit(0);`;
const busy = Array.from({ length: loops }, () => spawn(process.execPath, ['-e', LOOP], { stdio: 'ignore' }));
const stop = () => { for (const b of busy) b.kill('SIGKILL'); };
process.on('exit', stop);
const beside = `${loops} busy loop${loops === 1 ? '' : 's'}`;
if (loops > 0) console.log(`stress: ${beside} running beside: ${cmd.join(' ')}`);
const child = spawn(cmd[0], cmd.slice(1), { stdio: 'inherit' });
// Interrupted: the command gets the signal (vitest ends its own workers), the loops end now.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stop();
    child.kill(signal);
  });
}
child.on('error', (e) => {
  console.error(`stress: could not run ${cmd[0]}: ${e.message}`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  stop();
  if (loops > 0) console.log(`stress: ${cmd.join(' ')} ended with ${code ?? signal} beside ${beside}`);
  process.exit(code ?? 1);
});
