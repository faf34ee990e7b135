// Priority classes end to end (docs/DESIGN.md "Priority classes"): order of service on one P,
// inheritance, high work before earlier normal work, no starvation of normal or low work under
// high work (the budget), and a spare thread for a high task when every P is stuck. Both
// backends, real threads; every wait bounded, no wall-clock assertion.
import { describe, expect, it } from 'vitest';
import { holdAP, schedulers, until, within } from './helpers/runtime.js';

const start = schedulers();

const HIGH = 1, NORMAL = 2, LOW = 3;

describe.each(['wasm', 'js'] as const)('priorities (%s backend)', (backend) => {
  it('one P serves high, then normal, then low (up to the low turn, 1 in 64 slices)', async () => {
    const s = await start(backend, 1, { spareThreads: 0 });
    const n = 40;
    const sab = new SharedArrayBuffer(4 * (1 + 3 * n));
    const { blocker, open: release } = await holdAP(s, sab);
    const all: Promise<unknown>[] = [];
    for (let i = 0; i < n; i++) {
      all.push(s.with({ priority: 'low' }).run('stampOrder', sab, LOW));
      all.push(s.run('stampOrder', sab, NORMAL));
      all.push(s.with({ priority: 'high' }).run('stampOrder', sab, HIGH));
    }
    await Promise.resolve(); // the normal spawns reach the global queue in one batch, at the next microtask
    release();
    await within(Promise.all([blocker, ...all]), 20000, 'the three classes');
    const a = new Int32Array(sab);
    expect(a[0]).toBe(3 * n);
    const order = Array.from(a.subarray(1, 1 + 3 * n));
    const first = order.slice(0, n);
    const last = order.slice(2 * n);
    expect(first.filter((t) => t === HIGH).length, `first ${n}: ${first.join('')}`).toBe(n);
    expect(last.filter((t) => t === LOW).length, `last ${n}: ${last.join('')}`).toBeGreaterThanOrEqual(n - 2);
    const st = s.stats();
    expect(st.procs[0].highHits).toBe(n);
    expect(st.procs[0].lowHits).toBe(n);
    await within(s.close(), 20_000, 'close');
  });

  it('children inherit their parent\'s class; ctx.with({ priority }) overrides it', async () => {
    const s = await start(backend, 2);
    expect(await within(s.with({ priority: 'high' }).run('prioFamily'), 20000, 'prioFamily')).toEqual(['high', 'high', 'low', 'high']);
    expect(await within(s.run('prioFamily'), 20000, 'prioFamily')).toEqual(['normal', 'normal', 'low', 'high']);
    expect(await within(s.with({ priority: 'low' }).run('prioFamily'), 20000, 'prioFamily')).toEqual(['low', 'low', 'low', 'high']);
    expect(() => s.with({ priority: 'urgent' as never })).toThrow(/options.priority must be 'high', 'normal' or 'low'/);
    await within(s.close(), 20_000, 'close');
  });

  it('high work submitted at once runs before normal work queued earlier: no normal task every 61 slices', async () => {
    const s = await start(backend, 1, { spareThreads: 0 });
    const highs = 200, normals = 16;
    const sab = new SharedArrayBuffer(4 * (1 + highs + normals));
    const { blocker, open: release } = await holdAP(s, sab);
    const all: Promise<unknown>[] = [];
    for (let i = 0; i < normals; i++) all.push(s.run('stampOrder', sab, NORMAL));
    for (let i = 0; i < highs; i++) all.push(s.with({ priority: 'high' }).run('stampOrder', sab, HIGH));
    await Promise.resolve(); // the normal spawns reach the global queue in one batch, at the next microtask
    release();
    await within(Promise.all([blocker, ...all]), 20000, 'the burst');
    const order = Array.from(new Int32Array(sab).subarray(1));
    // 200 tiny tasks take far less than the high budget (95 ms of every 100): none gives way.
    expect(order.slice(0, highs).join(''), 'the first 200 started').toBe(String(HIGH).repeat(highs));
    expect(s.stats().procs[0].highThrottles).toBe(0);
    await within(s.close(), 20_000, 'close');
  });

  it('normal work progresses under a steady stream of high work: the P gives it the rest of each period', async () => {
    const s = await start(backend, 1, { spareThreads: 0 });
    // 20 high relays of 1 ms (each link spawns the next, inheriting its class, until word 0 is
    // set): the high queue is never empty until this test stops them, however long the normal
    // task takes to come through (a flood capped at 5,000 spawns bet that it came sooner).
    const sab = new SharedArrayBuffer(12);
    const a = new Int32Array(sab);
    const relays = Array.from({ length: 20 }, () => s.with({ priority: 'high' }).run('relay', sab, 1000));
    await until(() => Atomics.load(a, 2) >= 20, 20_000, 'the relays running'); // before the normal task is queued
    const normal = await within(s.run('add1', 1), 20_000, 'the normal task behind the high relays');
    Atomics.store(a, 0, 1);
    expect(normal).toBe(2);
    expect(s.stats().procs[0].highThrottles, 'it ran because the budget was spent').toBeGreaterThanOrEqual(1);
    await within(Promise.all(relays), 20_000, 'the relays\' roots');
    await within(s.close(), 20_000, 'close'); // after every link
    expect(Atomics.load(a, 1), 'links run, each exactly once').toBe(20 + Atomics.load(a, 2));
  });

  it('low work progresses under a steady stream of high work', async () => {
    const s = await start(backend, 1, { spareThreads: 0 });
    // 20 high relays of 1 ms keep the high queue from running dry until the low task has run
    // (a feed from this thread stopped after a fixed time, which a loaded machine could use up).
    const sab = new SharedArrayBuffer(12);
    const a = new Int32Array(sab);
    const relays = Array.from({ length: 20 }, () => s.with({ priority: 'high' }).run('relay', sab, 1000));
    await until(() => Atomics.load(a, 2) >= 20, 20_000, 'the relays running'); // before the low task is queued
    const low = await within(s.with({ priority: 'low' }).run('add1', 1), 20_000, 'the low task behind the high relays');
    Atomics.store(a, 0, 1);
    expect(low).toBe(2);
    await within(Promise.all(relays), 20_000, 'the relays\' roots');
    await within(s.close(), 20_000, 'close');
    expect(Atomics.load(a, 1), 'links run, each exactly once').toBe(20 + Atomics.load(a, 2));
  });

  it('a high task does not wait for a P stuck in a long task: a spare thread runs it', async () => {
    const s = await start(backend, 1, { spareThreads: 1 });
    // The blocker holds the one P, started before the high task is submitted, until the high
    // task is done: only a spare can run it (a P free sooner would hang this test, not pass it).
    const { blocker, open: release } = await holdAP(s);
    expect(await within(s.with({ priority: 'high' }).run('add1', 41), 20000, 'the high task')).toBe(42);
    expect(s.stats().sched.handoffs).toBeGreaterThanOrEqual(1);
    release();
    await within(blocker, 20000, 'blocker');
    await within(s.close(), 20_000, 'close');
  });
});
