// Is the machine quiet enough to publish figures from? `bench:publish` (bench/run.mjs --publish)
// asks before its first suite and again after its last, and writes nothing into bench/results/
// unless both say yes. Two checks, because each misses what the other sees:
//
//   1. The load: the 1-minute load average at most LOAD_FREE below the CPUs the run does not use
//      (cpus - procs, and never under LOAD_FLOOR): other processes that want a CPU, counted by
//      the kernel. It lags (a 1-minute average) and says nothing of a VM's stolen time.
//   2. A calibration: a CPU loop run in one worker alone, then in `procs` workers at once; all
//      of them together must reach SCALE_MIN of procs times one (2 workers: about 2x). That is
//      what the suites need, measured now: CPUs that really run our threads in parallel (a noisy
//      neighbour on the host, a throttled cgroup or a hyper-thread sibling all fail it).
//
// Main thread only; the calibration takes about a second.

import os from 'node:os';
import { Worker } from 'node:worker_threads';

/** The least load average allowed (a quiet 2-CPU machine reads 0.0 to 0.3). */
const LOAD_FLOOR = 0.5;
/** The share of procs x one worker's rate that procs workers at once must reach. */
const SCALE_MIN = 0.9;
/** Loop iterations per calibration run: about 100 to 200 ms of one CPU on a current x86 core. */
const SPINS = 30_000_000;

/** The loop each calibration worker runs, timed inside the worker (ms). */
const LOOP = `
const { parentPort, workerData } = require('node:worker_threads');
const go = new Int32Array(workerData.go);
Atomics.wait(go, 0, 0); // every worker starts together
const t0 = performance.now();
let x = 1;
for (let i = 0; i < workerData.spins; i++) x = (Math.imul(x, 1103515245) + 12345) | 0;
parentPort.postMessage({ ms: performance.now() - t0, x });
`;

/** Runs the loop in n workers at once; resolves with the wall time until the last one finished. */
async function loopIn(n) {
  const go = new SharedArrayBuffer(4);
  const workers = Array.from({ length: n }, () => new Worker(LOOP, { eval: true, workerData: { go, spins: SPINS } }));
  const done = workers.map((w) => new Promise((resolve, reject) => {
    w.once('message', resolve);
    w.once('error', reject);
  }));
  await new Promise((r) => setTimeout(r, 50)); // let them start and wait on the word
  const t0 = performance.now();
  const g = new Int32Array(go);
  Atomics.store(g, 0, 1);
  Atomics.notify(g, 0);
  await Promise.all(done);
  const ms = performance.now() - t0;
  await Promise.all(workers.map((w) => w.terminate()));
  return ms;
}

/**
 * The two checks for a run of `procs` Ps. Resolves with { ok, why, line }: `line` says what
 * was measured, `why` (when not ok) which check failed and by how much.
 */
export async function quiet(procs) {
  const cpus = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  const problems = [];
  const load = os.loadavg()[0];
  const maxLoad = Math.max(LOAD_FLOOR, cpus - procs);
  if (load > maxLoad) problems.push(`the load average is ${load.toFixed(2)}, over ${maxLoad.toFixed(2)} (${cpus} CPUs, ${procs} Ps)`);
  if (procs > cpus) problems.push(`${procs} Ps on ${cpus} CPUs: they cannot all run at once`);
  const n = Math.min(procs, cpus);
  // Three tries, each one worker then n, and the median try: a blip spoils one try, a busy
  // machine most of them (a best-of-three passed at a load average of 22).
  const tries = [];
  for (let i = 0; i < 3; i++) {
    const t1 = await loopIn(1);
    const tn = await loopIn(n);
    tries.push({ one: t1, many: tn, scale: (n * t1) / tn });
  }
  const { one, many, scale } = tries.sort((a, b) => a.scale - b.scale)[1];
  if (n > 1 && scale < SCALE_MIN * n) {
    problems.push(`${n} CPU loops at once reached ${scale.toFixed(2)}x one, under ${(SCALE_MIN * n).toFixed(2)}x (one: ${one.toFixed(0)} ms, ${n} at once: ${many.toFixed(0)} ms)`);
  }
  const line = `quiet machine check: load average ${load.toFixed(2)} (at most ${maxLoad.toFixed(2)}), ` +
    `${n} CPU loops at once ${scale.toFixed(2)}x one (at least ${(SCALE_MIN * n).toFixed(2)}x)`;
  return { ok: problems.length === 0, why: problems.join('; '), line };
}
