// A program that runs into the platform's thread limit (test/thread-limit.test.ts runs it under
// `ulimit -u`, as a container's pids limit or a user's process limit would have it): it takes
// every thread the limit leaves with idle Workers ("fillers"), so the next thread anybody starts
// is refused (Node: ERR_WORKER_INIT_FAILED, EAGAIN), whatever the limit's exact value.
//
//   node program.mjs grow    a scheduler down to one thread gets work for four Ps: the
//                            tasks run on the one thread, a warning says so, and once the
//                            fillers end, the Ps get their threads back
//   node program.mjs none    the same with minThreads: 0 (no thread left): the tasks fail
//                            with ERR_WORKER_START instead of waiting for ever
//   node program.mjs start   Scheduler.start rejects with ERR_WORKER_START
//
// Each prints what it saw, a line a fact, and must exit by itself.

import { Worker } from 'node:worker_threads';
import { Scheduler } from './dist/bindings/index.js';

const mode = process.argv[2];
const tasks = new URL('./tasks.mjs', import.meta.url);
const warnings = [];
process.on('warning', (w) => warnings.push(w.code));
const idle = () => new Promise((r) => setTimeout(r, 10));

/** Starts fillers until the platform refuses one; returns a function that ends them all. */
async function fill() {
  const word = new Int32Array(new SharedArrayBuffer(4));
  const fillers = [];
  for (;;) {
    let w;
    try {
      w = new Worker(new URL('./filler.mjs', import.meta.url), { workerData: word.buffer });
    } catch (e) {
      // Node: ERR_WORKER_INIT_FAILED (EAGAIN); Deno: WouldBlock (os error 11); Bun: a TypeError.
      if (e.code !== 'ERR_WORKER_INIT_FAILED' && e.name !== 'WouldBlock' && e.message !== 'Failed to spawn worker thread') throw e;
      break;
    }
    fillers.push(w);
    await new Promise((resolve, reject) => { w.once('online', resolve); w.once('error', reject); });
  }
  console.log(`filled: ${fillers.length > 0}`);
  return async () => {
    Atomics.store(word, 0, 1);
    Atomics.notify(word, 0);
    await Promise.all(fillers.map((w) => new Promise((r) => w.once('exit', r))));
  };
}

if (mode === 'start') {
  const release = await fill();
  const err = await Scheduler.start({ tasks, procs: 2 }).then(() => null, (e) => e);
  console.log(`start rejected: ${err?.code}`);
  await release();
} else {
  const minThreads = mode === 'none' ? 0 : 1;
  const s = await Scheduler.start({ tasks, procs: 4, minThreads, spareThreads: 0, idleTimeout: 20 });
  await s.run('hold', 1);
  while (s.stats().sched.liveThreads > minThreads) await idle(); // the others idle out
  const release = await fill();
  const batch = () => Promise.allSettled(Array.from({ length: 8 }, () => s.run('hold', 5)));
  if (mode === 'none') {
    const rs = await batch();
    console.log(`rejected: ${rs.filter((r) => r.status === 'rejected' && r.reason.code === 'ERR_WORKER_START').length}`);
    await release();
  } else {
    // Batches until a thread was asked for and refused (the main thread looks every 4 ms while
    // work waits on a P without a thread: a loaded machine may run a batch before it looks).
    let failed = 0;
    do {
      for (const r of await batch()) if (r.status === 'rejected') failed++;
    } while (s.stats().sched.threadStartFailures === 0);
    console.log(`failed: ${failed}`);
    console.log(`threads: ${s.stats().sched.liveThreads}`);
    await release();
    // Work that keeps a P without a thread waiting, until a start tried after the hold-off
    // (at most 1 s) comes up.
    while (s.stats().sched.liveThreads === 1) await Promise.all(Array.from({ length: 8 }, () => s.run('hold', 5)));
    console.log(`threads back: ${s.stats().sched.liveThreads > 1}`);
  }
  console.log(`warnings: ${warnings.join(' ') || 'none'}`);
}
