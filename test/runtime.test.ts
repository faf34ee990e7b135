// End-to-end tests of the runtime: real worker threads over the built package (dist/), on both
// backends. Bounded in time: every wait has its own deadline, and a miss is a failure that says
// what was being waited for.
import { describe, it, expect } from 'vitest';
import { fileURLToPath } from 'node:url';
import { Scheduler, StealworkError } from '../dist/bindings/index.js';
import { FIXTURE_TASKS as tasks, schedulers, within } from './helpers/runtime.js';

const start = schedulers();

const fibSeq = (n: number): number => (n < 2 ? n : fibSeq(n - 1) + fibSeq(n - 2));

describe.each(['wasm', 'js'] as const)('runtime (%s backend)', (backend) => {
  for (const procs of [1, 2, 4]) {
    it(`fork-join results at ${procs} P(s), both join forms`, async () => {
      const s = await start(backend, procs);
      expect(await within(s.run('fibc', 20), 20000, 'fibc(20)')).toBe(fibSeq(20));
      expect(await within(s.run('fib', 15), 20000, 'fib(15)')).toBe(fibSeq(15));
      const many = await within(Promise.all(Array.from({ length: 50 }, (_, i) => s.run('fibc', i % 12))), 20000, '50 roots');
      expect(many).toEqual(Array.from({ length: 50 }, (_, i) => fibSeq(i % 12)));
      await within(s.close(), 20_000, 'close');
      expectConserved(s.stats());
    });
  }

  it('random spawn trees: every task runs exactly once', async () => {
    const s = await start(backend, 4);
    const n = 20000;
    const sab = new SharedArrayBuffer(n * 4);
    const leaves = await within(s.run('markTree', sab, 0, n), 30000, 'markTree');
    expect(leaves).toBe(n);
    const seen = new Int32Array(sab);
    const wrong = [] as number[];
    for (let i = 0; i < n; i++) if (seen[i] !== 1) wrong.push(i);
    expect(wrong.slice(0, 10)).toEqual([]);
    for (let seed = 1; seed <= 5; seed++) {
      const count = await within(s.run('tree', 9, 3, seed), 30000, `tree seed ${seed}`);
      expect(count).toBeGreaterThan(1);
    }
    await s.close();
  });

  it('async tasks awaiting timers and file reads while CPU tasks run', async () => {
    const s = await start(backend, 2);
    const file = fileURLToPath(import.meta.url);
    const jobs: Array<Promise<unknown>> = [];
    for (let i = 0; i < 40; i++) {
      jobs.push(s.run('sleep', 1 + (i % 5), i));
      jobs.push(s.run('readSelf', file));
      jobs.push(s.run('spin', 1));
    }
    const out = await within(Promise.all(jobs), 30000, 'mixed async + CPU');
    for (let i = 0; i < 40; i++) {
      expect(out[3 * i]).toBe(i);
      expect(out[3 * i + 1]).toBeGreaterThan(100);
    }
    await s.close();
  });

  it('ctx.yield lets other tasks on the same thread run', async () => {
    const s = await start(backend, 1);
    const sab = new SharedArrayBuffer(8);
    const a = s.run('yielder', sab, 0, 50);
    const b = s.run('yielder', sab, 1, 50);
    expect(await within(Promise.all([a, b]), 20_000, 'two yielders')).toEqual([50, 50]);
    // Both ran interleaved on one P: neither finished all its steps before the other started.
    await s.close();
  });

  it('hundreds of idle-then-wake cycles, each finishing promptly', async () => {
    const s = await start(backend, 2);
    for (let i = 0; i < 300; i++) {
      if (i % 3 === 0) await new Promise((r) => setTimeout(r, i % 7 === 0 ? 3 : 0));
      expect(await within(s.run('add1', i), 20_000, `wake-up cycle ${i}`)).toBe(i + 1);
    }
    await s.close();
  });

  it('values cross threads: strings, objects, typed arrays, shared buffers', async () => {
    const s = await start(backend, 2);
    const values = ['', 'héllo wörld ✓', { a: [1, 'x', null, true], b: { c: undefined } }, new Float64Array([1.5, -0, NaN]),
      [1, 2, 3], 2n ** 70n, new Date(12345), new Map([[1, 'a']])];
    for (const v of values) expect(await s.run('echo', v)).toEqual(v);
    const sab = new SharedArrayBuffer(16);
    await s.run('mark', sab, 2);
    expect(new Int32Array(sab)[2]).toBe(1);
    const big = Array.from({ length: 12 }, (_, i) => i);
    expect(await s.run('sum', ...big)).toBe(66);
    await s.close();
    const st = s.stats();
    expect(st.sched.heapLiveBlocks).toBe(0);
  });

  it('errors reach the awaiter with name, message and stack', async () => {
    const s = await start(backend, 2);
    const e = await s.run('fail', 'boom').catch((x: unknown) => x) as Error & { detail?: number };
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toBe('boom');
    expect(e.stack).toContain('fail');
    expect(e.detail).toBe(42);
    const j = await s.run('failJoin').catch((x: unknown) => x) as Error;
    expect(j.message).toBe('child failed');
    const u = await s.run('nope' as never).catch((x: unknown) => x) as Error;
    expect(u).toBeInstanceOf(StealworkError);
    expect(u.message).toMatch(/unknown task 'nope'.*'fibc'/);
    const uc = await s.run('unknownChild').catch((x: unknown) => x) as Error;
    expect(uc.message).toMatch(/unknown task 'nope'/);
    const ba = await s.run('badArg').catch((x: unknown) => x) as Error;
    expect(ba).toBeInstanceOf(TypeError);
    expect(ba.message).toMatch(/echo/);
    const fnArg = await s.run('echo', (() => 1) as never).catch((x: unknown) => x) as Error;
    expect(fnArg).toBeInstanceOf(TypeError);
    expect(fnArg.message).toMatch(/echo.*argument 1/);
    // The scheduler keeps working after task errors.
    expect(await s.run('fibc', 10)).toBe(55);
    await s.close();
  });

  it('close waits for detached children; use after close rejects; second close is harmless', async () => {
    const s = await start(backend, 2);
    expect(await s.run('detached', 1000)).toBe(1000);
    await within(s.close(), 20_000, 'close with detached children');
    expectConserved(s.stats());
    await s.close();
    const e = await s.run('add1', 1).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(StealworkError);
    expect((e as StealworkError).code).toBe('ERR_CLOSED');
  });

  it('close({ force: true }) rejects what is left', async () => {
    const s = await start(backend, 1);
    const slow = s.run('sleep', 5000, 1).catch((x: unknown) => x);
    const spinning = s.run('spin', 200).catch((x: unknown) => x);
    await new Promise((r) => setTimeout(r, 20));
    await within(s.close({ force: true }), 20_000, 'force close');
    for (const p of [slow, spinning]) expect(((await p) as StealworkError).code).toBe('ERR_CLOSED_FORCE');
  });
});

describe('start-up errors', () => {
  it('rejects bad options naming the option', async () => {
    await expect(Scheduler.start({ tasks, procs: 0 })).rejects.toThrow(RangeError);
    await expect(Scheduler.start({ tasks, procs: 0 })).rejects.toThrow(/options\.procs/);
    await expect(Scheduler.start({ tasks, backend: 'gpu' as never })).rejects.toThrow(/options\.backend/);
    await expect(Scheduler.start({ tasks: 42 as never })).rejects.toThrow(TypeError);
    await expect(Scheduler.start({ tasks, nope: 1 } as never)).rejects.toThrow(/options\.nope/);
  });

  it('a task module that fails to load is a clear error', async () => {
    const err = await Scheduler.start({ tasks: new URL('./fixtures/missing-tasks.mjs', import.meta.url), procs: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StealworkError);
    expect((err as StealworkError).code).toBe('ERR_TASK_MODULE');
    expect((err as Error).message).toMatch(/missing-tasks/);
  });
});

/** Every task spawned (by the main thread or a task) finished exactly once on a worker, every
 *  root result was delivered to the main thread, and no G or value block leaked. */
function expectConserved(st: { threads: Array<{ id: number; spawned: number; finished: number }>; sched: Record<string, number>; procs: Array<{ gfreecnt: number }> }): void {
  const spawned = st.threads.reduce((a, t) => a + t.spawned, 0);
  const finishedOnWorkers = st.threads.slice(1).reduce((a, t) => a + t.finished, 0);
  expect(finishedOnWorkers).toBe(spawned);
  expect(st.threads[0].finished).toBe(st.threads[0].spawned);
  const free = st.sched.gfreeGlobal + st.procs.reduce((a, p) => a + p.gfreecnt, 0);
  expect(free).toBe(st.sched.gcap - 1);
  expect(st.sched.heapLiveBlocks).toBe(0);
}
