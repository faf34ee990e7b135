// Threads that come and go (DESIGN.md "Threads that come and go"), through the public API on both
// backends: a thread idle for idleTimeout ends, down to minThreads (plus the spares'); work that
// waits for a P without a thread starts one; every task still runs exactly once. The waits are
// for events (a count in stats, a gate's word), never a clock; vitest's timeout is the hang bound.

import { describe, expect, it } from 'vitest';
import Piscina from '../dist/piscina.js';
import { holdAP, schedulers, until } from './helpers/runtime.js';

const start = schedulers();
const HANG = 20_000;

describe.each(['wasm', 'js'] as const)('elastic threads (%s)', (backend) => {
  it('idle threads end down to minThreads plus the spare; k blocked tasks start k threads; all exactly once', async () => {
    const s = await start(backend, 4, { minThreads: 1, idleTimeout: 0 });
    expect(s.stats().sched.liveThreads).toBeLessThanOrEqual(5); // 4 Ps' threads and the spare's, ending already
    await until(() => s.stats().sched.liveThreads === 2, HANG, 'idle threads ending');
    const st = s.stats().sched;
    expect(st.threadExits).toBe(3);
    expect(st.idleprocs).toBe(2); // two threads idle with two idle Ps; two Ps wait without one (the spare P is in the reserve)
    // Four tasks that each hold their thread until the gate opens: they finish only if four
    // threads run at once, so threads must start for the three Ps without one.
    const gate = new SharedArrayBuffer(8);
    const g = new Int32Array(gate);
    const blocked = [0, 1, 2, 3].map((i) => s.run('gateCount', gate, i));
    await until(() => Atomics.load(g, 1) === 4, HANG, 'four blocked tasks running at once');
    expect(s.stats().sched.threadStarts).toBeGreaterThanOrEqual(2);
    Atomics.store(g, 0, 1);
    Atomics.notify(g, 0);
    expect((await Promise.all(blocked)).sort()).toEqual([0, 1, 2, 3]);
    // Conservation through shrinking and growing: 2,000 roots and a fork-join tree.
    await until(() => s.stats().sched.liveThreads === 2, HANG, 'idle threads ending again');
    const xs = await Promise.all(Array.from({ length: 2000 }, (_, i) => s.run('add1', i)));
    expect(xs).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
    await until(() => s.stats().sched.liveThreads === 2, HANG, 'idle threads ending once more');
    expect(await s.run('fibc', 18)).toBe(2584);
    await s.close();
  });

  it('minThreads 0: every thread ends, and the next root starts one; close works after threads came and went', async () => {
    const s = await start(backend, 2, { minThreads: 0, idleTimeout: 0, spareThreads: 0 });
    await until(() => s.stats().sched.liveThreads === 0, HANG, 'every thread ending');
    expect(s.stats().sched.idleprocs).toBe(0); // no P without a thread on the idle list
    expect(await s.run('fibc', 15)).toBe(610);
    expect(s.stats().sched.threadStarts).toBeGreaterThanOrEqual(1);
    await until(() => s.stats().sched.liveThreads === 0, HANG, 'every thread ending again');
    expect(await Promise.all([s.run('add1', 1), s.run('add1', 2)])).toEqual([2, 3]);
    await Promise.all([s.close(), s.close()]);
  });

  it('the monitor still lends the spare after the spare\'s thread idled out: it starts one', async () => {
    const s = await start(backend, 1, { minThreads: 0, idleTimeout: 0 });
    await until(() => s.stats().sched.liveThreads === 1, HANG, 'threads idling out down to the spare\'s one');
    const { blocker, open } = await holdAP(s); // the only P's thread blocked in a task
    const xs = await Promise.all(Array.from({ length: 1000 }, (_, i) => s.run('add1', i)));
    expect(xs).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1)); // all done while the blocker blocks
    expect(s.stats().sched.handoffs).toBeGreaterThanOrEqual(1);
    open();
    await blocker;
    await s.close();
  });

  it('options: minThreads and idleTimeout are checked eagerly', async () => {
    await expect(start(backend, 2, { minThreads: 3 })).rejects.toThrow(/options\.minThreads must be between 0 and 2, got 3/);
    await expect(start(backend, 2, { minThreads: 1.5 })).rejects.toThrow(/options\.minThreads must be an integer/);
    await expect(start(backend, 2, { idleTimeout: -1 })).rejects.toThrow(/options\.idleTimeout must be between 0/);
    await expect(start(backend, 2, { idleTimeout: '10' })).rejects.toThrow(/options\.idleTimeout must be an integer/);
  });
});

describe('stealwork/piscina: minThreads, maxThreads and idleTimeout as piscina documents them', () => {
  it('starts with minThreads, grows under load to maxThreads, shrinks back after idleTimeout', async () => {
    const pool = new Piscina({ filename: new URL('./fixtures/piscina-gate.mjs', import.meta.url).href, minThreads: 1, maxThreads: 4, idleTimeout: 0 });
    try {
      await pool.run({ sab: (() => { const b = new SharedArrayBuffer(8); new Int32Array(b)[0] = 1; return b; })(), i: -1 });
      // One thread once idle: on a loaded machine the first task can wait long enough for a
      // second thread to start for it, which then idles out (idleTimeout 0).
      await until(() => pool.threads.length === 1, HANG, 'the pool at minThreads');
      const sab = new SharedArrayBuffer(8);
      const a = new Int32Array(sab);
      const runs = [0, 1, 2, 3].map((i) => pool.run({ sab, i }));
      await until(() => Atomics.load(a, 1) === 4, HANG, 'four tasks running on four threads');
      expect(pool.threads.length).toBe(4);
      Atomics.store(a, 0, 1);
      Atomics.notify(a, 0);
      expect((await Promise.all(runs)).sort()).toEqual([0, 1, 2, 3]);
      await until(() => pool.threads.length === 1, HANG, 'the pool shrinking to minThreads');
    } finally {
      await pool.destroy();
    }
  });
});
