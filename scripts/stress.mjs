// Runs a command while other processes keep every core busy: the test suite as it runs on a
// shared, loaded machine (a CI runner, a laptop compiling something else).
//
//   node scripts/stress.mjs [--loops N] [-- CMD ARGS...]     (npm run test:stress)
//
// N busy loops (default: one per CPU), each a child process spinning on its own, start first;
// then CMD (default: the vitest suite) runs; the loops are killed when it ends, whatever its
// outcome, and the script exits with CMD's status. A test that passes alone and fails here
// depends on timing: it should wait for an event, not a clock.

import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

const argv = process.argv.slice(2);
let loops = availableParallelism();
const dash = argv.indexOf('--');
const own = dash < 0 ? argv : argv.slice(0, dash);
for (let i = 0; i < own.length; i++) {
  if (own[i] === '--loops') {
    loops = Number(own[++i]);
    if (!Number.isInteger(loops) || loops < 0) throw new RangeError(`--loops must be a whole number, got ${own[i]}`);
  } else {
    throw new TypeError(`unknown option ${own[i]} (see the comment at the top of scripts/stress.mjs)`);
  }
}
const cmd = dash < 0 ? [process.execPath, 'node_modules/vitest/vitest.mjs', 'run'] : argv.slice(dash + 1);

const busy = Array.from({ length: loops }, () =>
  spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
const stop = () => { for (const b of busy) b.kill('SIGKILL'); };
process.on('exit', stop);
console.log(`stress: ${loops} busy loop${loops === 1 ? '' : 's'} running beside: ${cmd.join(' ')}`);
const child = spawn(cmd[0], cmd.slice(1), { stdio: 'inherit' });
child.on('exit', (code, signal) => {
  stop();
  console.log(`stress: ${cmd.join(' ')} ended with ${code ?? signal} beside ${loops} busy loops`);
  process.exit(code ?? 1);
});
