// sched.resize(n), Go's runtime.GOMAXPROCS(n) (DESIGN.md "Resizing: procs at run time"), through
// the public API on both backends: growing up to maxProcs lets that many tasks run at once;
// shrinking takes idle Ps out at once and busy ones when their threads give them back, and after
// it no more tasks run at once than Ps in service; every task runs exactly once throughout. The
// waits are for events (a gate's count, a promise), never a clock. spareThreads 0: no loan by
// the monitor adds a P beyond procs.

import { describe, expect, it } from 'vitest';
import { schedulers, until } from './helpers/runtime.js';

const start = schedulers();
const HANG = 20_000;

/** Opens a gate made by gateTasks. */
function open(g: Int32Array): void {
  Atomics.store(g, 0, 1);
  Atomics.notify(g, 0);
}

describe.each(['wasm', 'js'] as const)('sched.resize (%s)', (backend) => {
  it('grows to maxProcs: k tasks that each hold a thread run at once; shrinks back: one at a time', async () => {
    const s = await start(backend, 2, { maxProcs: 4, spareThreads: 0 });
    expect(s.procs).toBe(2);
    expect(s.stats().sched.gomaxprocs).toBe(2);
    await s.resize(4);
    expect(s.procs).toBe(4);
    const gate = new SharedArrayBuffer(8);
    const g = new Int32Array(gate);
    const four = [0, 1, 2, 3].map((i) => s.run('gateCount', gate, i));
    await until(() => Atomics.load(g, 1) === 4, HANG, 'four tasks running at once on four Ps');
    open(g);
    expect((await Promise.all(four)).sort()).toEqual([0, 1, 2, 3]);
    await s.resize(1);
    expect(s.stats().sched.gomaxprocs).toBe(1);
    const sab = new SharedArrayBuffer(8);
    const ran = await Promise.all(Array.from({ length: 300 }, () => s.run('peak', sab, 200)));
    expect(ran.length).toBe(300);
    expect(Atomics.load(new Int32Array(sab), 1)).toBe(1);
    await s.close();
  });

  it('a shrink waits for busy Ps: it resolves once their tasks end and their threads give them back', async () => {
    const s = await start(backend, 2, { spareThreads: 0 });
    const gate = new SharedArrayBuffer(8);
    const g = new Int32Array(gate);
    const two = [0, 1].map((i) => s.run('gateCount', gate, i));
    await until(() => Atomics.load(g, 1) === 2, HANG, 'two tasks holding both Ps');
    let resized = false;
    const r = s.resize(1).then(() => { resized = true; });
    await new Promise((res) => setImmediate(res));
    expect(resized).toBe(false); // both Ps are held by their tasks: nothing could go yet
    open(g);
    await r;
    expect((await Promise.all(two)).sort()).toEqual([0, 1]);
    const sab = new SharedArrayBuffer(8);
    await Promise.all(Array.from({ length: 200 }, () => s.run('peak', sab, 200)));
    expect(Atomics.load(new Int32Array(sab), 1)).toBe(1);
    await s.close();
  });

  it('resizing while a fork-join tree runs: the tree finishes with the right result, every task once', async () => {
    const s = await start(backend, 4, { spareThreads: 0 });
    const tree = s.run('fibc', 22);
    const roots = Array.from({ length: 500 }, (_, i) => s.run('add1', i));
    await s.resize(1);
    await s.resize(3);
    const down = s.resize(2);
    expect(await tree).toBe(17711);
    expect(await Promise.all(roots)).toEqual(Array.from({ length: 500 }, (_, i) => i + 1));
    await down;
    expect(s.procs).toBe(2);
    await s.close();
  });

  it('misuse: n outside 1..maxProcs or not an integer is refused; after close, resize rejects', async () => {
    const s = await start(backend, 2, { spareThreads: 0 });
    await expect(s.resize(3)).rejects.toThrow(/resize: n must be between 1 and maxProcs \(2\), got 3; start the scheduler with a larger maxProcs/);
    await expect(s.resize(0)).rejects.toThrow(RangeError);
    await expect(s.resize(1.5)).rejects.toThrow(TypeError);
    await expect(s.resize('2' as unknown as number)).rejects.toThrow(TypeError);
    await expect(start(backend, 4, { maxProcs: 2 })).rejects.toThrow(/options\.maxProcs must be between 4 and/);
    await s.close();
    await expect(s.resize(1)).rejects.toMatchObject({ code: 'ERR_CLOSED' });
  });
});
