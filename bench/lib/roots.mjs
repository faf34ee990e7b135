// Workloads any task runner can express: root tasks submitted from the main thread, one
// argument each (a runner: lib/runners.mjs). Tasks that spawn tasks (fibc, fibcut, UTS,
// skewfork) run in scheduler.mjs: pools have no way to express them. Main thread only.

import { check } from './guard.mjs';
import { now, sleep, wallNow, shuffle } from './stats.mjs';
import * as T from '../tasks.mjs';

// ---- calibration ---------------------------------------------------------------------------

/** burn() iterations per millisecond on this thread, after warming it up. */
export function calibrateBurn() {
  for (let i = 0; i < 20; i++) T.burn(null, 50_000);
  let best = Infinity;
  const iters = 2_000_000;
  for (let i = 0; i < 5; i++) {
    const t0 = now();
    T.burn(null, iters);
    best = Math.min(best, now() - t0);
  }
  return iters / best;
}

// ---- the workloads -------------------------------------------------------------------------

/** fib(n) by iteration, to check results. */
export function fibValue(n) {
  let a = 0;
  let b = 1;
  for (let i = 0; i < n; i++) [a, b] = [b, a + b];
  return a;
}

/** Task calls of fibc(n): 2 fib(n+1) - 1 (fib(n+1) leaves, fib(n+1) - 1 inner calls). */
export const fibcCalls = (n) => 2 * fibValue(n + 1) - 1;

/** n tiny root tasks `inc(i)`, all in flight at once. Returns tasks per second. */
export async function tinyRoots(r, n) {
  const t0 = now();
  const ps = new Array(n);
  for (let i = 0; i < n; i++) ps[i] = r.run('inc', i);
  const rs = await Promise.all(ps);
  const ms = now() - t0;
  check(rs[0] === 1 && rs[n - 1] === n, `${r.name} tinyRoots: inc(${n - 1}) gave ${rs[n - 1]}`);
  return (n / ms) * 1000;
}

/**
 * The README's idiom over the same `n` tiny roots: `await Promise.all(items.map((x) =>
 * sched.spawn('inc', x)))`, the Task handles themselves awaited. Returns tasks per second.
 */
export async function tinyRootTasks(sched, n) {
  const items = Array.from({ length: n }, (_, i) => i);
  const t0 = now();
  const rs = await Promise.all(items.map((x) => sched.spawn('inc', x)));
  const ms = now() - t0;
  check(rs[0] === 1 && rs[n - 1] === n, `spawn + Promise.all tinyRoots: inc(${n - 1}) gave ${rs[n - 1]}`);
  return (n / ms) * 1000;
}

/** The leaves of fibcut(n, cut), computed by the main thread: fib(n) = the sum of fib(leaf). */
export function fibLeaves(n, cut, out = []) {
  if (n <= cut) out.push(n);
  else {
    fibLeaves(n - 1, cut, out);
    fibLeaves(n - 2, cut, out);
  }
  return out;
}

/** fib(n) split by the main thread into root tasks fib(leaf). Returns milliseconds. */
export async function splitFib(r, n, cut) {
  const t0 = now();
  const leaves = fibLeaves(n, cut);
  const rs = await Promise.all(leaves.map((k) => r.run('fib', k)));
  const ms = now() - t0;
  const total = rs.reduce((a, b) => a + b, 0);
  check(total === fibValue(n), `${r.name} splitFib(${n}, ${cut}) = ${total}`);
  return ms;
}

/**
 * The skewed mix: `n` CPU-bound burn() tasks, a share `longShare` of them `longMs` long and the
 * rest `shortMs`, in an order shuffled with a fixed seed. Returns the iteration counts and the
 * checksum the tasks must add up to.
 */
export function skewedMix(n, shortMs, longMs, longShare, itersPerMs, seed = 42) {
  const nLong = Math.round(n * longShare);
  const iters = [];
  for (let i = 0; i < n; i++) iters.push(Math.max(1, Math.round((i < nLong ? longMs : shortMs) * itersPerMs)));
  shuffle(iters, seed);
  return iters;
}

/** The mix run on the main thread, one task after the other: the single-thread sum of task times. */
export function skewedSeq(iters) {
  const t0 = now();
  let sum = 0;
  for (let i = 0; i < iters.length; i++) sum += T.burn(null, iters[i]);
  return { ms: now() - t0, sum };
}

/** The mix as root tasks, all submitted at once. Returns the makespan in milliseconds. */
export async function skewedRoots(r, iters, expectSum) {
  const t0 = now();
  const rs = await Promise.all(iters.map((k) => r.run('burn', k)));
  const ms = now() - t0;
  const s = rs.reduce((a, b) => a + b, 0);
  check(s === expectSum, `${r.name} skewed checksum ${s} != ${expectSum}`);
  return ms;
}

/**
 * Burst latency: `holds` tasks of `holdMs` occupy every P; 5 ms later `bursts` bursts of `per`
 * tiny tasks arrive, one burst every `gapMs`. Returns each tiny task's submit-to-result time (ms).
 * The tiny tasks go through `tiny(task, arg)` when given (the priorities suite submits them at
 * high priority), else through the runner like the long ones.
 */
export async function burst(r, { holds, holdMs, bursts, per, gapMs }, tiny = (task, arg) => r.run(task, arg)) {
  const long = [];
  for (let i = 0; i < holds; i++) long.push(r.run('hold', holdMs));
  await sleep(5);
  const lat = [];
  const done = [];
  for (let b = 0; b < bursts; b++) {
    if (b > 0) await sleep(gapMs);
    const t0 = now();
    for (let i = 0; i < per; i++) done.push(tiny('inc', i).then((v) => { check(v === i + 1, 'inc'); lat.push(now() - t0); }));
  }
  await Promise.all(done);
  await Promise.all(long);
  return lat;
}

/**
 * Wake-up latency: one task into an idle runner every `gapMs` (every thread parked by then).
 * Returns, per sample, spawn-to-start (the task's own wall clock against the main thread's) and
 * spawn-to-result, in microseconds.
 */
export async function wakeup(r, samples, gapMs) {
  const start = [];
  const round = [];
  for (let i = 0; i < samples; i++) {
    await sleep(gapMs);
    const t0 = wallNow();
    const ts = await r.run('stamp', 0);
    const t1 = wallNow();
    start.push((ts - t0) * 1000);
    round.push((t1 - t0) * 1000);
  }
  return { start, round };
}
