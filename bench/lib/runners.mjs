// Runners: what the suites drive, `{ name, run(task, arg) -> Promise, close() }`. stealwork,
// piscina and tinypool all fit, so the scheduler and pools suites drive them with the same
// code (lib/roots.mjs). Main thread only.

import { Worker } from 'node:worker_threads';
import { closeSafely } from './guard.mjs';

/** A stealwork Scheduler as a runner. */
export function stealworkRunner(name, sched) {
  return { name, sched, run: (task, arg) => sched.run(task, arg), close: () => closeSafely(sched) };
}

/** piscina or tinypool as a runner (both take `run(arg, { name })`). */
export function poolRunner(name, pool, close) {
  return { name, pool, run: (task, arg) => pool.run(arg, { name: task }), close };
}

/**
 * The platform's floor for a wake-up, as a runner whose only task is 'stamp': one bare worker
 * parked in Atomics.wait, woken by Atomics.notify, that reads the clock and answers through
 * shared memory. No queue, no scheduler: what waking any parked thread costs on this machine.
 */
export async function futexRunner() {
  const sab = new SharedArrayBuffer(16); // the words: see futex-worker.mjs
  const i32 = new Int32Array(sab);
  const f64 = new Float64Array(sab);
  const w = new Worker(new URL('../futex-worker.mjs', import.meta.url), { workerData: sab });
  await new Promise((resolve, reject) => { w.once('message', resolve); w.once('error', reject); });
  return {
    name: 'futex wake (floor)',
    async run() {
      Atomics.store(i32, 1, 0);
      Atomics.store(i32, 0, 1);
      Atomics.notify(i32, 0);
      const r = Atomics.waitAsync(i32, 1, 0);
      if (r.async) await r.value;
      return f64[1];
    },
    async close() {
      Atomics.store(i32, 0, 2);
      Atomics.notify(i32, 0);
      await w.terminate();
    },
  };
}
