// What a kill costs (DESIGN.md "Killing a task"): on one P, a runaway task spawned with
// `kill: true` is aborted once it runs, and the next task is timed from the abort to its result:
// the claim, the termination, the crash recovery, a new thread's start and handshake, then the
// task. Beside it, the same next task with nothing killed before it. Prints the medians (ms).
//
//   npm run build && node bench/kill-cost.mjs [--rounds N] [--backend wasm|js]

import { Scheduler } from '../dist/index.js';

const arg = (name, dflt) => { const i = process.argv.indexOf(name); return i < 0 ? dflt : process.argv[i + 1]; };
const rounds = Number(arg('--rounds', 15));
const backend = arg('--backend', 'wasm');
const tasks = new URL('./kill-tasks.mjs', import.meta.url);
const median = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
const s = await Scheduler.start({ tasks, procs: 1, spareThreads: 0, backend });
for (let w = 0; w < 100; w++) await s.run('add', w, 1); // warm up
const killed = [];
const plain = [];
for (let r = 0; r < rounds; r++) {
  let t0 = performance.now();
  await s.run('add', r, 1);
  plain.push(performance.now() - t0);
  const sab = new SharedArrayBuffer(4);
  const a = new Int32Array(sab);
  const ac = new AbortController();
  const t = s.with({ signal: ac.signal, kill: true }).run('runaway', sab).catch(() => undefined);
  while (Atomics.load(a, 0) === 0) await new Promise((res) => setTimeout(res, 1));
  t0 = performance.now();
  ac.abort();
  await s.run('add', r, 1);
  killed.push(performance.now() - t0);
  await t;
}
await s.close();
console.log(`kill cost, ${backend} backend, 1 P, ${rounds} rounds (${s.stats().sched.restarts} threads replaced)`);
console.log(`  next task, nothing killed:           median ${median(plain).toFixed(2)} ms`);
console.log(`  next task after killing the runaway: median ${median(killed).toFixed(2)} ms  (runs ${killed.map((x) => x.toFixed(1)).join(' ')})`);
