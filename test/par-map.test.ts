// The data-parallel calls end to end (DESIGN.md "Data-parallel calls"): parMap, parForEach and
// parReduce from the main thread and from inside tasks, over counts, ranges, arrays and typed
// arrays, on both backends. Every item exactly once at every length 0..300 and at large ones,
// results in order, an error rejecting the call and stopping the rest, cancellation, shared typed
// arrays written in place. No wall-clock assertion: vitest's timeout is the hang bound.
import { afterAll, describe, expect, it } from 'vitest';
import { Scheduler } from '../dist/bindings/index.js';

const TASKS = new URL('./fixtures/par-tasks.mjs', import.meta.url);
const open: Scheduler[] = [];
afterAll(async () => { await Promise.all(open.map((s) => s.close({ force: true }))); });
async function start(backend: 'wasm' | 'js', procs: number, extra: Record<string, unknown> = {}): Promise<Scheduler> {
  const s = await Scheduler.start({ tasks: TASKS, procs, backend, ...extra });
  open.push(s);
  return s;
}

/** Every cell of a shared Int32Array at 1, or the first wrong ones. */
function wrongCells(c: Int32Array): number[] {
  const wrong: number[] = [];
  for (let i = 0; i < c.length && wrong.length < 10; i++) if (c[i] !== 1) wrong.push(i);
  return wrong;
}

/** Every value block freed and every G back (the job's header and block included). */
function expectNoLeak(s: Scheduler): void {
  const st = s.stats();
  expect(st.sched.heapLiveBlocks).toBe(0);
  expect(st.sched.gfreeGlobal + st.procs.reduce((a, p) => a + p.gfreecnt, 0)).toBe(st.sched.gcap - 1);
}

describe.each(['wasm', 'js'] as const)('data-parallel calls (%s backend)', (backend) => {
  it('every item exactly once at every length 0..300, from the main thread and inside a task', async () => {
    const s = await start(backend, 3);
    for (let n = 0; n <= 300; n++) {
      const cells = new Int32Array(new SharedArrayBuffer(4 * n));
      await s.parForEach('mark', cells);
      expect(wrongCells(cells)).toEqual([]);
      const inTask = new Int32Array(new SharedArrayBuffer(4 * n));
      expect(await s.run('inTaskMark', inTask)).toBe(1);
      expect(wrongCells(inTask)).toEqual([]);
      expect(await s.parMap('pair', n)).toEqual(Array.from({ length: n }, (_, i) => [i, i]));
    }
    await s.close();
    expectNoLeak(s);
  }, 240_000);

  it('large lengths: per item, per chunk, with minLen and maxLen, every item once and in order', async () => {
    const s = await start(backend, 2);
    for (const [n, opts] of [[100_000, {}], [1_000_003, { minLen: 1000 }], [200_000, { maxLen: 777 }], [65_536, { chunk: true }]] as const) {
      const cells = new Int32Array(new SharedArrayBuffer(4 * n));
      if ('chunk' in opts) {
        await s.parForEach('writeChunk', cells, opts);
        let bad = -1;
        for (let i = 0; i < n; i++) if (cells[i] !== i * 3) { bad = i; break; }
        expect(bad).toBe(-1);
      } else {
        await s.parForEach('mark', cells, opts);
        expect(wrongCells(cells)).toEqual([]);
      }
    }
    const sq = await s.parMap('square', 300_000);
    let bad = -1;
    for (let i = 0; i < sq.length; i++) if (sq[i] !== i * i) { bad = i; break; }
    expect([sq.length, bad]).toEqual([300_000, -1]);
    await s.close();
    expectNoLeak(s);
  }, 120_000);

  it('sources: a count, { start, end }, an array, a plain and a shared typed array; results in order', async () => {
    const s = await start(backend, 2);
    expect(await s.parMap('pair', { start: 10, end: 15 })).toEqual([[10, 0], [11, 1], [12, 2], [13, 3], [14, 4]]);
    expect(await s.parMap('pair', ['a', 'b', 'c'])).toEqual([['a', 0], ['b', 1], ['c', 2]]);
    expect(await s.parMap('square', new Float32Array([1, 2, 3]))).toEqual([1, 4, 9]);
    const shared = new Float64Array(new SharedArrayBuffer(8 * 1000));
    for (let i = 0; i < 1000; i++) shared[i] = i;
    expect(await s.parReduce('sumChunk', shared, 'add', { chunk: true })).toBe(499_500);
    expect(await s.parReduce('id', 1000, 'add')).toBe(499_500);
    expect(await s.parReduce('id', 0, 'add', { identity: 0 })).toBe(0);
    expect(await s.parReduce('id', 0, 'add')).toBe(undefined);
    expect(await s.parMap('square', 0)).toEqual([]);
    const arr = Array.from({ length: 5000 }, (_, i) => i);
    expect(await s.parMap('doubleChunk', arr, { chunk: true, minLen: 100 })).toEqual(arr.map((x) => x * 2));
    const [m, sum, d] = await s.run('inTask', 500) as [number[][], number, number[]];
    expect(m).toEqual(Array.from({ length: 500 }, (_, i) => [i, i]));
    expect(sum).toBe(124_750);
    expect(d).toEqual(Array.from({ length: 500 }, (_, i) => (i + 0.5) * 2));
    await s.close();
    expectNoLeak(s);
  }, 60_000);

  it('a stolen part runs on another thread, which decodes the job (a plain array) there', async () => {
    const s = await start(backend, 2);
    const cells = new Int32Array(new SharedArrayBuffer(16));
    await s.broadcast('markInit', cells.buffer);
    // Item 0 waits for item 1: the right half must be taken by the other thread.
    const [[a, t0], [b, t1]] = await s.parMap('waitPeer', ['left', { right: true }]) as Array<[unknown, number]>;
    expect([a, b]).toEqual(['left', { right: true }]);
    expect(t1).not.toBe(t0);
    expect(s.stats().totals.stolen).toBeGreaterThan(0);
    await s.close();
    expectNoLeak(s);
  }, 60_000);

  it('a shared typed array is not copied: per-item and per-chunk writes are visible to the caller', async () => {
    const s = await start(backend, 2);
    const a = new Int32Array(new SharedArrayBuffer(4 * 10_000));
    await s.parForEach('writeChunk', a, { chunk: true });
    expect(a[9999]).toBe(29_997);
    await s.parForEach('mark', a); // Atomics.add on the source itself
    expect(a[0]).toBe(1);
    expect(a[9999]).toBe(29_998);
    // A plain typed array is copied (structured clone): the caller's stays as it was.
    const plain = new Int32Array(100);
    await s.parForEach('writeChunk', plain, { chunk: true });
    expect(plain[99]).toBe(0);
    await s.close();
  }, 60_000);

  it('an error in one item rejects the call and stops the rest; from a task it throws there', async () => {
    const s = await start(backend, 2);
    await expect(s.parMap('failAt', 2000)).rejects.toThrow('item 777 failed');
    await expect(s.parForEach('failAt', 200_000)).rejects.toThrow('item 777 failed');
    await expect(s.parReduce('failAt', 200_000, 'add')).rejects.toThrow('item 777 failed');
    expect(await s.run('inTaskFail', 2000)).toBe('item 777 failed');
    await s.close();
    expectNoLeak(s);
  }, 60_000);

  it('the rest stop: of 4,000 items of 1 ms, item 3 fails and far fewer than half run', async () => {
    const s = await start(backend, 2);
    const cells = new Int32Array(new SharedArrayBuffer(4 * 4000));
    await expect(s.parForEach('markFail', cells)).rejects.toThrow('item 3 failed');
    let ran = 0;
    for (let i = 0; i < cells.length; i++) ran += cells[i];
    expect(ran).toBeLessThan(cells.length / 2);
    await s.close();
  }, 60_000);

  it('a timeout or a signal cancels the call: it rejects with AbortError and its items stop', async () => {
    const s = await start(backend, 2);
    const cells = new Int32Array(new SharedArrayBuffer(4 * 100_000));
    await expect(s.parForEach('markSlow', cells, { timeout: 50 })).rejects.toMatchObject({ code: 'ERR_ABORTED' });
    const ac = new AbortController();
    const p = s.parForEach('markSlow', cells, { signal: ac.signal });
    setTimeout(() => ac.abort(), 20);
    await expect(p).rejects.toMatchObject({ code: 'ERR_ABORTED' });
    await s.close(); // the items stop: close would wait for 100,000 items of 1 ms otherwise
    let ran = 0;
    for (let i = 0; i < cells.length; i++) ran += cells[i];
    expect(ran).toBeLessThan(cells.length);
  }, 60_000);

  it('misuse: bad arguments, async functions, calls from an async task', async () => {
    const s = await start(backend, 2);
    await expect(s.parMap(42 as never, 3)).rejects.toThrow(TypeError);
    await expect(s.parMap('square', -1)).rejects.toThrow(RangeError);
    await expect(s.parMap('square', 'abc' as never)).rejects.toThrow(TypeError);
    await expect(s.parMap('square', 3, { minLen: 0 })).rejects.toThrow(/minLen/);
    await expect(s.parMap('square', 3, { bogus: 1 } as never)).rejects.toThrow(/bogus/);
    await expect(s.parMap('nope' as never, 3)).rejects.toMatchObject({ code: 'ERR_UNKNOWN_TASK' });
    await expect(s.parMap('asyncItem', 3)).rejects.toThrow(/async function/);
    await expect(s.parMap('shortChunk', 100, { chunk: true })).rejects.toThrow(/must return an array of/);
    expect(await s.run('inAsync', 3)).toMatch(/only while the task runs synchronously/);
    expect(s.taskNames.some((n) => n.startsWith('stealwork:'))).toBe(false);
    await expect(s.parMap('square', 3, { kill: true } as never)).rejects.toThrow(/kill/);
    // Inside a kill-armed tree the task's ctx is the kill guard's: the call still runs.
    const [m] = await s.with({ timeout: 60_000, kill: true }).run('inTask', 50) as [number[][]];
    expect(m).toEqual(Array.from({ length: 50 }, (_, i) => [i, i]));
    await s.close();
  }, 60_000);
});
