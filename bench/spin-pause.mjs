// What the spin-wait hint in the park ladder's polls (Atomics.pause, bindings/runtime/sleep/
// park.ts) changes, with and without it in the same run, on the same build:
//   - back-to-back: root tasks that do nothing, awaited one after another (procs 2), so every
//     call finds the thread just gone idle, on its poll or short-wait rungs: the round trip
//     (median, p90) and the process's CPU time per call (every thread, process.cpuUsage);
//   - 1 ms apart: the same with a 1 ms timer between calls, so the thread has been through its
//     rungs (and usually into its deep wait) when the call comes: round trip and CPU per call;
//   - idle: 1 s with the threads parked and nothing to do: CPU time over that second;
//   - spinLimit 4096: back-to-back again with polls long enough that one sees the next call (the
//     default 32 polls are over in microseconds, before the call comes: it finds the thread on
//     its short waits), the case the hint is made for;
//   - what one Atomics.pause() costs on this CPU (a tight loop of a million);
//   - and the bare case the hint is made for, without the scheduler: two workers hand a word
//     back and forth, each spinning for its turn, with and without the hint in the loop.
// Each rep runs both modes in fresh processes, alternating which goes first; "without" preloads
// bench/lib/no-pause.cjs, which deletes Atomics.pause in the main thread and every worker (the
// child checks both). Medians over the reps, the ratio with/without of the medians, and the
// quartiles of the reps' own ratios (each rep's two processes ran back to back), which say how
// much of a difference the load alone makes.
//
//   node bench/spin-pause.mjs [--reps 7] [--calls 3000]     (after npm run build; Node 24+,
//                                                            where Atomics.pause exists)
//
// A busy machine moves every figure; the ratios come from runs interleaved in time.

import { execFileSync } from 'node:child_process';
import os from 'node:os';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const self = fileURLToPath(import.meta.url);
const noPause = fileURLToPath(new URL('./lib/no-pause.cjs', import.meta.url));

function arg(name, dflt) {
  const i = process.argv.indexOf(name);
  if (i < 0) return dflt;
  const n = Number(process.argv[i + 1]);
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`${name} must be a positive integer, got ${process.argv[i + 1]}`);
  return n;
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One mode in this process: prints one JSON line. */
async function child(mode, calls) {
  const { Scheduler } = await import('../dist/index.js');
  const tasks = new URL('./spin-pause-tasks.mjs', import.meta.url);
  let s = await Scheduler.start({ tasks, procs: 2, backend: 'wasm' });
  const inWorker = await s.run('pauseType');
  const want = mode === 'with' ? 'function' : 'undefined';
  if (typeof Atomics.pause !== want || inWorker !== want) {
    throw new Error(`mode ${mode}: Atomics.pause is ${typeof Atomics.pause} here and ${inWorker} in a worker, not ${want}`);
  }
  for (let i = 0; i < 500; i++) await s.run('noop'); // warm: JIT, the threads started
  const rungs = () => s.stats().sched.spinRungs; // polls and short waits, every thread

  async function phase(n, gapMs) {
    const ms = [];
    let cpu = 0;
    const r0 = rungs();
    for (let i = 0; i < n; i++) {
      if (gapMs > 0) await sleep(gapMs);
      const c0 = cpuMs();
      const t0 = performance.now();
      await s.run('noop');
      ms.push(performance.now() - t0);
      cpu += cpuMs() - c0;
    }
    return { medianUs: median(ms) * 1000, p90Us: pct(ms, 0.9) * 1000, cpuUsPerCall: (cpu / n) * 1000, rungsPerCall: (rungs() - r0) / n };
  }
  const backToBack = await phase(calls, 0);
  const apart = await phase(Math.max(50, calls >> 3), 1);
  const c0 = cpuMs();
  await sleep(1000);
  const idleCpuMs = cpuMs() - c0;
  await s.close();
  // Polls long enough to catch the next call (spinLimit 4096, some hundreds of microseconds):
  // here the wake-up is seen by a poll, the case the hint is made for.
  s = await Scheduler.start({ tasks, procs: 2, backend: 'wasm', spinLimit: 4096 });
  for (let i = 0; i < 500; i++) await s.run('noop');
  const longPolls = await phase(calls, 0);
  await s.close();
  console.log(JSON.stringify({ mode, backToBack, apart, idleCpuMs, longPolls }));
}

/** ns per Atomics.pause() call over a million, in CPU time (what the thread spends; the least
 *  disturbed by other processes) and wall time. */
function pauseCost() {
  const n = 1_000_000;
  for (let i = 0; i < 10_000; i++) Atomics.pause();
  const c0 = cpuMs();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) Atomics.pause();
  return { cpuNs: ((cpuMs() - c0) * 1e6) / n, wallNs: ((performance.now() - t0) * 1e6) / n };
}

/** The bare case, no scheduler: two workers hand a word back and forth, each polling for its
 *  turn with or without Atomics.pause() in the loop; ns per hand-over, the median of `batches`
 *  batches of `n` (each batch timed in the first worker). */
const PINGPONG = `
const { parentPort, workerData: { sab, me, n, batches, pause } } = require('node:worker_threads');
const w = new Int32Array(sab);
const other = 1 - me;
const out = [];
for (let b = 0; b < batches; b++) {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    while (Atomics.load(w, 0) !== me) if (pause) Atomics.pause();
    Atomics.store(w, 0, other);
  }
  out.push(((performance.now() - t0) * 1e6) / n);
}
parentPort.postMessage(out);
`;
async function pingPong(pause, n = 20_000, batches = 15) {
  const { Worker } = await import('node:worker_threads');
  const sab = new SharedArrayBuffer(4);
  const ws = [0, 1].map((me) => new Worker(PINGPONG, { eval: true, workerData: { sab, me, n, batches, pause } }));
  const [a] = await Promise.all(ws.map((w) => new Promise((resolve, reject) => { w.once('message', resolve); w.once('error', reject); })));
  await Promise.all(ws.map((w) => w.terminate()));
  return median(a);
}

async function parent() {
  if (typeof Atomics.pause !== 'function') {
    console.log(`Node ${process.version} has no Atomics.pause (Node 24 and later have it): nothing to compare`);
    return;
  }
  const reps = arg('--reps', 7);
  const calls = arg('--calls', 3000);
  const load0 = os.loadavg()[0];
  const runs = { with: [], without: [] };
  for (let r = 0; r < reps; r++) {
    const order = r % 2 === 0 ? ['with', 'without'] : ['without', 'with'];
    for (const mode of order) {
      const pre = mode === 'without' ? ['--require', noPause] : [];
      const out = execFileSync(process.execPath, [...pre, self, '--child', mode, '--calls', String(calls)], { encoding: 'utf8' });
      runs[mode].push(JSON.parse(out.trim().split('\n').at(-1)));
    }
  }
  const m = (mode, f) => median(runs[mode].map(f));
  const load1 = os.loadavg()[0];
  const rows = [
    ['back-to-back: round trip, median (us)', (x) => x.backToBack.medianUs],
    ['back-to-back: round trip, p90 (us)', (x) => x.backToBack.p90Us],
    ['back-to-back: CPU per call (us)', (x) => x.backToBack.cpuUsPerCall],
    ['back-to-back: spin rungs per call', (x) => x.backToBack.rungsPerCall],
    ['1 ms apart: round trip, median (us)', (x) => x.apart.medianUs],
    ['1 ms apart: round trip, p90 (us)', (x) => x.apart.p90Us],
    ['1 ms apart: CPU per call (us)', (x) => x.apart.cpuUsPerCall],
    ['1 ms apart: spin rungs per call', (x) => x.apart.rungsPerCall],
    ['idle 1 s: CPU (ms)', (x) => x.idleCpuMs],
    ['spinLimit 4096: round trip, median (us)', (x) => x.longPolls.medianUs],
    ['spinLimit 4096: round trip, p90 (us)', (x) => x.longPolls.p90Us],
    ['spinLimit 4096: CPU per call (us)', (x) => x.longPolls.cpuUsPerCall],
    ['spinLimit 4096: spin rungs per call', (x) => x.longPolls.rungsPerCall],
  ];
  console.log(`spin-wait hint (Atomics.pause in the park ladder's polls): Node ${process.version}, procs 2, ` +
    `${reps} reps of ${calls} back-to-back calls, medians over the reps`);
  const pc = pauseCost();
  console.log(`one Atomics.pause() here: ${pc.cpuNs.toFixed(1)} ns of CPU time (${pc.wallNs.toFixed(1)} ns of wall time); ` +
    `the default 32 polls of an idle episode: ${((32 * pc.cpuNs) / 1000).toFixed(2)} us more`);
  console.log(`load average (1 min) ${load0.toFixed(2)} at the start, ${load1.toFixed(2)} at the end`);
  const pp = { with: [], without: [] };
  for (let r = 0; r < 5; r++) for (const mode of r % 2 === 0 ? ['with', 'without'] : ['without', 'with']) pp[mode].push(await pingPong(mode === 'with'));
  const ppW = median(pp.with);
  const ppWo = median(pp.without);
  console.log(`bare ping-pong between two polling workers (no scheduler; 5 runs each, medians): ` +
    `${ppW.toFixed(0)} ns per hand-over with Atomics.pause in the loop, ${ppWo.toFixed(0)} ns without, ratio ${(ppW / ppWo).toFixed(2)}`);
  console.log(`${'figure'.padEnd(40)} ${'with'.padStart(9)} ${'without'.padStart(9)} ${'ratio'.padStart(6)}  ${'per-rep ratios: quartiles'.padStart(26)}`);
  for (const [name, f] of rows) {
    const a = m('with', f);
    const b = m('without', f);
    // The same rep's two processes ran back to back: their ratio is the least disturbed by load.
    const paired = runs.with.map((x, r) => f(x) / f(runs.without[r])).filter(Number.isFinite);
    const q = paired.length ? [0.25, 0.5, 0.75].map((p) => pct(paired, p).toFixed(2)).join(' ') : '-';
    console.log(`${name.padEnd(40)} ${a.toFixed(1).padStart(9)} ${b.toFixed(1).padStart(9)} ${(b === 0 ? '-' : (a / b).toFixed(2)).padStart(6)}  ${q.padStart(26)}`);
  }
}

const i = process.argv.indexOf('--child');
if (i >= 0) await child(process.argv[i + 1], arg('--calls', 3000));
else await parent();
