// What the end-to-end runtime tests share: schedulers on the fixture task module that are all
// force-closed after the file's tests, and waits that fail (naming what they waited for)
// instead of hanging.
import { afterAll } from 'vitest';
import { Scheduler } from '../../dist/bindings/index.js';

export const FIXTURE_TASKS = new URL('../fixtures/tasks.mjs', import.meta.url);

/**
 * A starter of schedulers on the fixture tasks for one test file; every scheduler it started is
 * force-closed after the file's tests (a failed test leaves no thread running).
 */
export function schedulers(): (backend: 'wasm' | 'js', procs: number, extra?: Record<string, unknown>) => Promise<Scheduler> {
  const open: Scheduler[] = [];
  afterAll(async () => { await Promise.all(open.map((s) => s.close({ force: true }))); });
  return async (backend, procs, extra = {}) => {
    const s = await Scheduler.start({ tasks: FIXTURE_TASKS, procs, backend, ...extra });
    open.push(s);
    return s;
  };
}

/** Rejects with a message naming `what` if p does not settle within ms. */
export function within<T>(p: PromiseLike<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  return Promise.race([
    Promise.resolve(p).finally(() => clearTimeout(timer)),
    new Promise<never>((_, rej) => { timer = setTimeout(() => rej(new Error(`hang: ${what} did not finish within ${ms} ms`)), ms); }),
  ]);
}

/** Polls cond every 5 ms; rejects naming `what` if it is not true within ms. */
export async function until(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`hang: ${what} not reached within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * Holds a P of s with the fixture's `blockUntil` task until `open()`: what is submitted before
 * that queues behind it however slowly the thread started (a fixed pause for a timed blocker
 * bets on the machine's load). The blocker has started when this returns. `shared`: buffers the
 * tasks submitted meanwhile will take, delivered to the threads first: a spawn with a buffer the
 * threads do not hold yet waits for every thread's acknowledgement, which the blocked one gives
 * only once it is open, so such tasks would reach the queues after the P is free, in a race
 * with it (DESIGN.md "Shared buffers").
 */
export async function holdAP(s: Scheduler, ...shared: SharedArrayBuffer[]): Promise<{ blocker: Promise<unknown>; open: () => void }> {
  const gate = new SharedArrayBuffer(8);
  const a = new Int32Array(gate);
  for (const b of shared) await s.run('echo', b);
  await s.run('markAndSpin', gate, 1, 0); // the thread holds the buffer before it blocks on it
  Atomics.store(a, 1, 0);
  const blocker = s.run('blockUntil', gate);
  await until(() => Atomics.load(a, 1) === 1, 30_000, 'the blocker running');
  return { blocker, open: () => { Atomics.store(a, 0, 1); Atomics.notify(a, 0); } };
}
