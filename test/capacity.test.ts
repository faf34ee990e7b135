// Spawning at capacity (DESIGN.md "Spawning at capacity"): a spawn inside a task never fails for
// lack of room. With the G table at maxTasks, the child runs inline on the spawning thread and its
// Task behaves as any other (await, join, errors); roots wait (backpressure). When the memory is
// the limit, the error names maxMemoryMB. Both backends, real threads, every wait bounded.
import { describe, it, expect } from 'vitest';
import { StealworkError } from '../dist/bindings/index.js';
import { schedulers, within } from './helpers/runtime.js';

const start = schedulers();

function expectWhole(st: { sched: Record<string, number>; procs: Array<{ gfreecnt: number }> }): void {
  const free = st.sched.gfreeGlobal + st.procs.reduce((a, p) => a + p.gfreecnt, 0);
  expect(free).toBe(st.sched.gcap - 1);
  expect(st.sched.heapLiveBlocks).toBe(0);
}

describe.each(['wasm', 'js'] as const)('spawning at capacity (%s backend)', (backend) => {
  it('maxTasks 1024 and 2,000 root fork-join trees of depth 4: every root finishes', async () => {
    const s = await start(backend, 2, { maxTasks: 1024, initialTasks: 1024 });
    const roots = Array.from({ length: 2000 }, () => s.run('forkTree', 4, 2).then((v) => v, (e: unknown) => e));
    const out = await within(Promise.all(roots), 60_000, '2,000 trees');
    const failed = out.filter((v) => v !== 31);
    expect(failed.slice(0, 3)).toEqual([]);
    expect(s.stats().sched.gcap).toBeLessThanOrEqual(1024);
    await within(s.close(), 20_000, 'close');
    expectWhole(s.stats());
  });

  it('async children run inline keep await semantics; joins over them wait for them', async () => {
    const s = await start(backend, 2, { maxTasks: 1024, initialTasks: 1024 });
    const a = Array.from({ length: 300 }, () => s.run('forkTreeAsync', 3, 3).then((v) => v, (e: unknown) => e));
    const b = Array.from({ length: 300 }, () => s.run('forkTreeSleepy', 2, 3).then((v) => v, (e: unknown) => e));
    const [ra, rb] = await within(Promise.all([Promise.all(a), Promise.all(b)]), 60_000, 'async trees');
    expect(ra.filter((v) => v !== 40).slice(0, 3)).toEqual([]);
    expect(rb.filter((v) => v !== 13).slice(0, 3)).toEqual([]); // 1 + 3 + 9 nodes, each leaf a join over a sleep
    await within(s.close(), 20_000, 'close');
    expectWhole(s.stats());
  });

  it('errors and bad arguments of a child run inline are what they would be for a G', async () => {
    const s = await start(backend, 1, { maxTasks: 1024, initialTasks: 1024 });
    // Fill the table with roots that each spawn a failing child and a bad argument, and join.
    const out = await within(Promise.all(Array.from({ length: 1500 }, () => s.run('failJoin').catch((e: unknown) => e))), 30_000, 'failing joins');
    for (const e of out) expect((e as Error).message).toBe('child failed');
    const bad = await within(Promise.all(Array.from({ length: 1500 }, () => s.run('badArg').catch((e: unknown) => e))), 30_000, 'bad arguments');
    for (const e of bad) { expect(e).toBeInstanceOf(TypeError); expect((e as Error).message).toMatch(/spawn\('echo'\): argument 1/); }
    await within(s.close(), 20_000, 'close');
    expectWhole(s.stats());
  });

  it('when the memory is the limit, the error names maxMemoryMB', async () => {
    const s = await start(backend, 1, { maxMemoryMB: 16, initialTasks: 1024 });
    const e = await within(s.run('echo', 'x'.repeat(40 << 20)).catch((x: unknown) => x), 20_000, 'a value too big') as StealworkError;
    expect(e).toBeInstanceOf(StealworkError);
    expect(e.code).toBe('ERR_OUT_OF_MEMORY');
    expect(e.message).toMatch(/maxMemoryMB=16/);
    expect(await within(s.run('fibc', 15), 20_000, 'fibc after')).toBe(610);
    await within(s.close(), 20_000, 'close');
  });
});
