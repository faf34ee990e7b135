// What ends one workload instead of the suite: a wrong result (check), a hang (the watchdog,
// with every live scheduler's state), a close that does not drain, a rejection nobody awaited.
// Main thread only.

import process from 'node:process';

export function check(cond, msg) {
  if (!cond) throw new Error(`bench: wrong result: ${msg}`);
}

/** Every Scheduler the bench has started and not closed, for the watchdog's report. */
const live = new Set();

/** Scheduler.start, remembered for the watchdog. */
export async function startScheduler(Scheduler, options) {
  const s = await Scheduler.start(options);
  live.add(s);
  return s;
}

/** How long one workload block may run before it counts as hung (parseArgs sets it). */
let watchdogMs = 120_000;
export function setWatchdog(ms) {
  watchdogMs = ms;
}
export const watchdog = () => watchdogMs;

/** The state of every live scheduler, from stats(): what a hang looks like. */
export function snapshot() {
  return [...live].map((s) => {
    const st = s.stats();
    const { runqueue, idleprocs, idlethreads, spinningthreads, needspinning } = st.sched;
    return {
      backend: s.backend, runqueue, idleprocs, idlethreads, spinningthreads, needspinning,
      procs: st.procs.map((p) => `P${p.id} ${p.status} m=${p.m} runq=${p.runqsize} next=${p.runnext}`).join(', '),
      threads: st.threads.map((t) => `M${t.id} spawned=${t.spawned} finished=${t.finished} curg=${t.curg} async=${t.asyncPending}`).join(', '),
    };
  });
}

/** Rejects when `promise` has not settled within `ms`, with a snapshot of every live scheduler. */
export function withWatchdog(promise, ms, what) {
  let timer;
  const dog = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no result after ${ms / 1000} s (hung?); schedulers: ${JSON.stringify(snapshot())}`)), ms);
  });
  return Promise.race([promise, dog]).finally(() => clearTimeout(timer));
}

/** close(), or close({ force: true }) when the drain has not finished within `ms`. */
export async function closeSafely(sched, ms = 3000) {
  live.delete(sched);
  let timer;
  const forced = new Promise((r) => { timer = setTimeout(() => r('force'), ms); });
  const how = await Promise.race([sched.close().then(() => 'ok', () => 'ok'), forced]);
  clearTimeout(timer);
  if (how === 'force') {
    console.log(`  ! close() had not drained after ${ms} ms; closed with force`);
    await sched.close({ force: true }).catch(() => {});
  }
}

/**
 * The end of a suite run alone: closes (with force) whatever a hung workload left running,
 * then exits, so a hang cannot keep the process alive.
 */
export async function finishProcess() {
  for (const s of [...live]) await closeSafely(s, 2000);
  process.exit(process.exitCode ?? 0);
}

/** A rejection nobody awaited (e.g. a task of a crashed scheduler) is reported, not fatal. */
export function guardRejections() {
  process.on('unhandledRejection', (e) => {
    console.log(`  ! unhandled rejection: ${e?.message ?? e}`);
    process.exitCode = 1;
  });
}
