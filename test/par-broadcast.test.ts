// Broadcast end to end (DESIGN.md "Broadcast"): sched.broadcast runs a task function once on
// every thread running now and once on every thread started later (a resize up, an elastic
// thread started again after idling out) before it takes any task; on both backends. The waits
// are for events (a count in stats, a gate's word); vitest's timeout is the hang bound.
import { afterAll, describe, expect, it } from 'vitest';
import { Scheduler } from '../dist/bindings/index.js';
import { until } from './helpers/runtime.js';

const TASKS = new URL('./fixtures/par-tasks.mjs', import.meta.url);
const HANG = 30_000;
const open: Scheduler[] = [];
afterAll(async () => { await Promise.all(open.map((s) => s.close({ force: true }))); });
async function start(backend: 'wasm' | 'js', procs: number, extra: Record<string, unknown> = {}): Promise<Scheduler> {
  const s = await Scheduler.start({ tasks: TASKS, procs, backend, ...extra });
  open.push(s);
  return s;
}

describe.each(['wasm', 'js'] as const)('broadcast (%s backend)', (backend) => {
  it('reaches every running thread exactly once, with its result per thread in thread order', async () => {
    const s = await start(backend, 3);
    const live = s.stats().sched.liveThreads;
    const cells = new Int32Array(new SharedArrayBuffer(4 * 16));
    const r = await s.broadcast('hookCount', cells.buffer) as Array<[number, number]>;
    expect(r.length).toBe(live);
    expect(r.map(([m]) => m)).toEqual(Array.from({ length: live }, (_, i) => i + 1));
    expect(r.every(([, n]) => n === 1)).toBe(true);
    expect(Array.from(cells.slice(1, live + 1))).toEqual(new Array(live).fill(1));
    expect(cells[0] + cells[live + 1]).toBe(0); // the main thread, and no thread beyond
    expect(await s.broadcast('hookAsync', 10)).toEqual(Array.from({ length: live }, (_, i) => 11 + i));
    expect((await s.broadcast('hookSpawn') as string[])[0]).toMatch(/broadcast runs outside any task tree/);
    await expect(s.broadcast('hookFail')).rejects.toThrow(/hook failed on M/);
    await expect(s.broadcast('nope' as never)).rejects.toMatchObject({ code: 'ERR_UNKNOWN_TASK' });
    await s.close();
    await expect(s.broadcast('hookCount', cells.buffer)).rejects.toMatchObject({ code: 'ERR_CLOSED' });
  }, 60_000);

  it('a busy thread takes it once its task is done; a thread started later by a resize runs it at its start', async () => {
    const s = await start(backend, 1, { maxProcs: 4, spareThreads: 0 });
    const gate = new Int32Array(new SharedArrayBuffer(8));
    const busy = s.run('gateWait', gate.buffer);
    await until(() => Atomics.load(gate, 1) === 1, HANG, 'the busy task running');
    const cells = new Int32Array(new SharedArrayBuffer(4 * 16));
    const b = s.broadcast('hookCount', cells.buffer);
    Atomics.store(gate, 0, 1);
    Atomics.notify(gate, 0);
    await busy;
    expect(await b).toEqual([[1, 1]]);
    await s.resize(4);
    // Four tasks that each hold a thread until all four run: threads start for the new Ps.
    const gate4 = new Int32Array(new SharedArrayBuffer(8));
    const held = [0, 1, 2, 3].map(() => s.run('gateWait', gate4.buffer));
    await until(() => Atomics.load(gate4, 1) === 4, HANG, 'four tasks running at once');
    Atomics.store(gate4, 0, 1);
    Atomics.notify(gate4, 0);
    const threads = (await Promise.all(held)) as number[];
    expect(new Set(threads).size).toBe(4);
    // Every thread that ran a task had run the hook once before it.
    const seen = await Promise.all(Array.from({ length: 200 }, () => s.run('hookSeen', 0))) as Array<[number, number]>;
    expect(seen.filter(([, n]) => n !== 1)).toEqual([]);
    for (const m of threads) expect(cells[m]).toBe(1);
    await s.close();
  }, 60_000);

  it('elastic threads: a thread started again after the idle ones ended runs the hook at its start', async () => {
    const s = await start(backend, 2, { minThreads: 0, idleTimeout: 0, spareThreads: 0 });
    const cells = new Int32Array(new SharedArrayBuffer(4 * 16));
    await s.broadcast('hookCount', cells.buffer); // the threads running now, whichever they are
    await until(() => s.stats().sched.liveThreads === 0, HANG, 'every thread idling out');
    const starts = s.stats().sched.threadStarts;
    const seen = await Promise.all(Array.from({ length: 50 }, () => s.run('hookSeen', 1))) as Array<[number, number]>;
    expect(s.stats().sched.threadStarts).toBeGreaterThan(starts);
    expect(seen.filter(([, n]) => n !== 1)).toEqual([]); // a new thread: its own count, 1
    await s.close();
  }, 60_000);
});
