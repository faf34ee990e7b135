// asyncPerThread in one process (docs/DESIGN.md "Async tasks: where they start"): a thread at its
// limit hands its P off and takes no task until one of its async tasks settles; a parent waiting
// for its children does not count; stats() shows the limit and the block. One thread (procs 1,
// no spare), so what runs while the thread is blocked can only run after it comes back. Every
// wait is for a mark in shared memory or a stats() state; the bounds only report a hang.
import { afterAll, describe, expect, it } from 'vitest';
import { Scheduler } from '../dist/bindings/index.js';
import { until, within } from './helpers/runtime.js';

const TASKS = new URL('./fixtures/async/limit-tasks.mjs', import.meta.url);
const HANG = 30_000;

const open: Scheduler[] = [];
afterAll(async () => { await Promise.all(open.map((s) => s.close({ force: true }))); });

async function start(backend: 'wasm' | 'js', extra: Record<string, unknown>): Promise<Scheduler> {
  const s = await Scheduler.start({ tasks: TASKS, procs: 1, spareThreads: 0, backend, ...extra });
  open.push(s);
  return s;
}

for (const backend of ['wasm', 'js'] as const) {
  describe(`asyncPerThread (${backend})`, () => {
    it('at 1: a queued task waits while the thread\'s one async task is in flight, then runs', async () => {
      const s = await start(backend, { asyncPerThread: 1 });
      const sab = new SharedArrayBuffer(16);
      const a = new Int32Array(sab);
      const waiting = s.run('waitFor', sab, 0, 1, 'A');
      await until(() => Atomics.load(a, 0) === 1, HANG, 'A started');
      await until(() => s.stats().threads[1].blocked, HANG, 'the thread blocked at its limit');
      const b = s.run('mark', sab, 2);
      // Queued where the blocked thread cannot take it: no other thread exists.
      await until(() => s.stats().sched.runqueue === 1, HANG, 'B queued');
      expect(s.stats().threads[1]).toMatchObject({ asyncLimit: 1, blocked: true, asyncPending: 1 });
      expect(Atomics.load(a, 2)).toBe(0);
      Atomics.store(a, 1, 1); // A settles: the thread comes back and runs B
      expect(await within(waiting, HANG, 'A')).toBe('A');
      expect(await within(b, HANG, 'B')).toBe(2);
      expect(s.stats().threads[1].blocked).toBe(false);
      await within(s.close(), HANG, 'close');
    });

    it('at 2: a second task runs beside the first while it waits', async () => {
      const s = await start(backend, { asyncPerThread: 2 });
      const sab = new SharedArrayBuffer(16);
      const a = new Int32Array(sab);
      const waiting = s.run('waitFor', sab, 0, 1, 'A');
      await until(() => Atomics.load(a, 0) === 1, HANG, 'A started');
      expect(await within(s.run('mark', sab, 2), HANG, 'B beside A')).toBe(2);
      Atomics.store(a, 1, 1);
      expect(await within(waiting, HANG, 'A')).toBe('A');
      await within(s.close(), HANG, 'close');
    });

    it('Infinity: no limit, shown as Infinity', async () => {
      const s = await start(backend, { asyncPerThread: Infinity });
      const sab = new SharedArrayBuffer(64);
      const a = new Int32Array(sab);
      const ts = Array.from({ length: 8 }, (_, i) => s.run('waitFor', sab, i, 15, i));
      await until(() => [0, 1, 2, 3, 4, 5, 6, 7].every((i) => Atomics.load(a, i) === 1), HANG, 'all eight started on the one thread');
      expect(s.stats().threads[1]).toMatchObject({ asyncLimit: Infinity, blocked: false });
      Atomics.store(a, 15, 1);
      expect(await within(Promise.all(ts), HANG, 'all')).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      await within(s.close(), HANG, 'close');
    });

    it('at 1: a parent waiting for its children does not keep them from starting', async () => {
      // Counted, the parent would fill the one thread and its children would never start.
      const s = await start(backend, { asyncPerThread: 1 });
      expect(await within(s.run('parentOf', 6, 5), HANG, 'the parent')).toBe(15);
      await within(s.close(), HANG, 'close');
    });

    it('at 1: async functions that never await run one after another, none lost', async () => {
      const s = await start(backend, { asyncPerThread: 1 });
      const rs = await within(Promise.all(Array.from({ length: 500 }, (_, i) => s.run('atOnce', i))), HANG, '500 tasks');
      expect(rs).toEqual(Array.from({ length: 500 }, (_, i) => i));
      await within(s.close(), HANG, 'close');
    });

    it('\'auto\' (the default) starts at 1 and grows for tasks that only wait', async () => {
      const s = await start(backend, {});
      const sab = new SharedArrayBuffer(64);
      const a = new Int32Array(sab);
      expect(s.stats().threads[1].asyncLimit).toBe(1);
      // Eight tasks that wait with the event loop free: the limit grows until all are started.
      const ts = Array.from({ length: 8 }, (_, i) => s.run('waitFor', sab, i, 15, i));
      await until(() => [0, 1, 2, 3, 4, 5, 6, 7].every((i) => Atomics.load(a, i) === 1), HANG, 'all eight started');
      expect(s.stats().threads[1].asyncLimit).toBeGreaterThanOrEqual(8);
      Atomics.store(a, 15, 1);
      expect(await within(Promise.all(ts), HANG, 'all')).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
      await within(s.close(), HANG, 'close');
    });
  });
}

describe('asyncPerThread: options', () => {
  it('refuses what is not a whole number >= 1, Infinity or \'auto\'', async () => {
    for (const bad of [0, -1, 1.5, 'fast', null, NaN]) {
      await expect(Scheduler.start({ tasks: TASKS, asyncPerThread: bad as never })).rejects.toThrow(/options\.asyncPerThread/);
    }
  });
});
