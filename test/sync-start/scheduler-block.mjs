// Scheduler.startSync, then spawns the main thread blocks on (Atomics.wait, no bound): each
// task must start with no turn of this thread's event loop (DESIGN.md "A synchronous start").
// Run as a child process by test/sync-start.test.ts, on Node, Deno and Bun; the test's bound is
// a hang detector. Never closes: the program must also end by itself.
import { Scheduler } from '../../dist/index.js';

const sched = Scheduler.startSync({ tasks: new URL('./tasks.mjs', import.meta.url), procs: 2 });
console.log(`names ${sched.taskNames.length}`); // no thread has loaded the module yet
const sab = new SharedArrayBuffer(64);
const words = new Int32Array(sab);
const a = sched.run('hold', sab, 0);
const b = sched.run('hold', sab, 1);
Atomics.wait(words, 0, 0);
Atomics.wait(words, 1, 0);
console.log('both started');
Atomics.store(words, 8, 1);
Atomics.notify(words, 8);
console.log(await a, await b);
const unknown = await sched.run('nope').then(() => 'ran', (e) => e.code);
console.log(unknown);
console.log('exit');
