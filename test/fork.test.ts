// Work-first fork-join end to end (DESIGN.md "Fork-join"): ctx.fork and Fork.join over real
// worker threads, on both backends. Bounded in time: every wait has its own deadline.
import { afterAll, describe, expect, it } from 'vitest';
import { Scheduler } from '../dist/bindings/index.js';
import { until, within } from './helpers/runtime.js';

const TASKS = new URL('./fixtures/fork-tasks.mjs', import.meta.url);
const open: Scheduler[] = [];
afterAll(async () => { await Promise.all(open.map((s) => s.close({ force: true }))); });
async function start(backend: 'wasm' | 'js', procs: number, extra: Record<string, unknown> = {}): Promise<Scheduler> {
  const s = await Scheduler.start({ tasks: TASKS, procs, backend, ...extra });
  open.push(s);
  return s;
}

const fib = (n: number): number => (n < 2 ? n : fib(n - 1) + fib(n - 2));

type Stats = ReturnType<Scheduler['stats']>;

/** Every task finished, every G back on a free list, every value block freed. */
function expectConserved(st: Stats): void {
  const spawned = st.threads.reduce((a, t) => a + t.spawned, 0);
  const finishedOnWorkers = st.threads.slice(1).reduce((a, t) => a + t.finished, 0);
  expect(finishedOnWorkers).toBe(spawned);
  const free = st.sched.gfreeGlobal + st.procs.reduce((a, p) => a + p.gfreecnt, 0);
  expect(free).toBe(st.sched.gcap - 1);
  expect(st.sched.heapLiveBlocks).toBe(0);
}

describe.each(['wasm', 'js'] as const)('fork-join (%s backend)', (backend) => {
  for (const procs of [1, 2, 4]) {
    it(`fork per call: fib at ${procs} P(s), forks claimed inline or stolen, all counted`, async () => {
      const s = await start(backend, procs);
      expect(await within(s.run('ffib', 22), 30000, 'ffib(22)')).toBe(fib(22));
      const many = await within(Promise.all(Array.from({ length: 20 }, (_, i) => s.run('ffib', i))), 30000, '20 roots');
      expect(many).toEqual(Array.from({ length: 20 }, (_, i) => fib(i)));
      await within(s.close(), 20_000, 'close');
      const st = s.stats();
      // fib(n) forks fib(n) - 1 times... counted per call with n >= 2: calls(n) - leaves(n).
      const forks = (n: number): number => (n < 2 ? 0 : 1 + forks(n - 1) + forks(n - 2));
      const want = forks(22) + Array.from({ length: 20 }, (_, i) => forks(i)).reduce((a, b) => a + b, 0);
      expect(st.totals.forks).toBe(want);
      expect(st.totals.forkInline).toBeLessThanOrEqual(want); // the others were stolen (stolen also counts ring steals of roots)
      expectConserved(st);
    });
  }

  it('every fork runs exactly once, claimed back or stolen, both paths taken under real threads', async () => {
    const s = await start(backend, 4);
    const n = 4096;
    const cells = new SharedArrayBuffer(n * 4);
    const paths = new SharedArrayBuffer(8);
    expect(await within(s.run('forkMark', cells, paths, 0, n, 20, undefined), 60000, 'forkMark')).toBe(n);
    const c = new Int32Array(cells);
    const wrong: number[] = [];
    for (let i = 0; i < n; i++) if (c[i] !== 1) wrong.push(i);
    expect(wrong.slice(0, 10)).toEqual([]);
    const [inline, stolen] = new Int32Array(paths);
    expect(inline + stolen).toBe(n - 1); // one fork per internal node
    // Both counts are above 0 for certain: the first fork claimed back waits for a steal.
    expect(inline).toBeGreaterThan(0);
    expect(stolen).toBeGreaterThan(0);
    await within(s.close(), 20_000, 'close');
    const st = s.stats();
    expect(st.totals.forks).toBe(n - 1);
    expect(st.totals.forkInline).toBeLessThan(n - 1);
    expect(st.totals.stolen).toBeGreaterThan(0);
    expectConserved(st);
  });

  it('forks never joined are joined when the task returns (implicit sync)', async () => {
    const s = await start(backend, 2);
    const cells = new SharedArrayBuffer(300 * 4);
    expect(await within(s.run('forkNoJoin', cells, 300), 20000, 'forkNoJoin')).toBe(300);
    expect(Array.from(new Int32Array(cells)).every((x) => x === 1)).toBe(true); // all ran before the root's result
    await within(s.close(), 20_000, 'close');
    expectConserved(s.stats());
  });

  it('a joined Fork keeps its result after its G serves later forks: a stale handle never joins another fork', async () => {
    const s = await start(backend, 1);
    const n = 100; // more than the spare Gs a thread keeps, so the Gs go round through the free list too
    let sum = 0;
    for (let i = 0; i < n; i++) sum += i * i;
    const last = (n - 1) * (n - 1);
    expect(await within(s.run('forkStale', n), 20000, 'forkStale')).toEqual([9, 9, sum, 2 * last]);
    await within(s.close(), 20_000, 'close');
    expectConserved(s.stats());
  });

  it('fork arguments of every kind and count arrive as given (numbers in one core call, the rest through the codec)', async () => {
    const s = await start(backend, 2);
    expect(await within(s.run('forkArgs'), 20000, 'forkArgs')).toEqual([
      [], [1], [-0, 1.5], [NaN, Infinity, -(2 ** 40)], ['a', 2, null], [1, 2, 3, 4], [true, undefined, [1, 2], { x: 1 }, 5],
      [1, -0, 2.5, NaN, -(2 ** 40)], [1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6, -7.25], [1, 2, 3, 4, 5, 6, 'seven'], [1, 2, 3, 4, 5, 6, 7, 8],
      [1, undefined], [1, 2, 3, 4, 5, 6, 7, 'eight', undefined],
    ]);
    // A G reused for the next fork (a spare) carries the last fork's tag bytes: seven numbers
    // after a boolean and null in the last slots must still arrive as numbers.
    expect(await within(s.run('forkArgsReuse'), 20000, 'forkArgsReuse')).toEqual([
      ['a', [1], 3, 4, { b: 2 }, null, true], [1, 2, 3, 4, 5, 6, 7], ['x', 2, 3, 4, 5, false, 'y'], [1.5, 2, 3, 4, 5], [1, 2, 3, 4, 5, 6], [9],
    ]);
    await within(s.close(), 20_000, 'close');
    expectConserved(s.stats());
  });

  it('seven number arguments arrive as sent whether the fork runs inline or is stolen', async () => {
    const s = await start(backend, 2, { spareThreads: 0 });
    const n = 256;
    // A tree of leaves: most forks are claimed back inline; which ones are stolen depends on timing.
    const r = await within(s.run('forkSeven', 0, n, 200, -1, 0, -0), 30000, 'forkSeven') as number[];
    expect(r[0], 'leaves whose seven arguments arrived as sent').toBe(n);
    // And one fork the forker waits on until another thread has run it: the stolen path for certain.
    const away = await within(s.run('forkSevenAway', new SharedArrayBuffer(4)), 30000, 'forkSevenAway') as number[];
    expect(away, '[arguments as sent, run by a thief]').toEqual([1, 1]);
    await within(s.close(), 20_000, 'close');
    expectConserved(s.stats());
  });

  it('joins out of fork order, and a fork left to the implicit sync among joined ones', async () => {
    const s = await start(backend, 2);
    const cells = new SharedArrayBuffer(4);
    expect(await within(s.run('forkOrder', cells), 20000, 'forkOrder')).toEqual([4, 9, 16, 25, 55]);
    expect(new Int32Array(cells)[0]).toBe(1);
    await within(s.close(), 20_000, 'close');
    expectConserved(s.stats());
  });

  it('a joiner asleep while its fork is stolen wakes at the thief\'s first fork and helps', async () => {
    const s = await start(backend, 2, { spareThreads: 0 });
    const paths = new SharedArrayBuffer(12);
    expect(await within(s.run('forkSleeper', paths, 200, 30, 200), 30000, 'forkSleeper')).toBe(200);
    const [onRoot, onThief, stolen] = new Int32Array(paths);
    expect(stolen, 'forkLater stolen by the other thread').toBe(1);
    expect(onRoot + onThief).toBe(200);
    expect(onRoot, 'leaves the woken root ran').toBeGreaterThan(0);
    await within(s.close(), 20_000, 'close');
    expectConserved(s.stats());
  });

  it('a joiner deeper than HELP_MAX_DEPTH whose fork was stolen runs the thief\'s forks (leapfrogging), not sleeps', async () => {
    // deepLeap nests 300 inline forks (holdGate keeps the other thread from stealing them), then
    // its fork is stolen and the thief waits until someone else runs the 20 leaves it forks:
    // only the deep joiner can. A joiner that only waits below HELP_MAX_DEPTH (256) hung here.
    const s = await start(backend, 2, { spareThreads: 0 });
    const flags = new SharedArrayBuffer(20);
    const held = s.run('holdGate', flags);
    expect(await within(s.run('deepLeap', flags, 300, 20), 30000, 'deepLeap')).toBe(20);
    expect(await within(held, 20_000, 'holdGate')).toBe(0);
    const f = new Int32Array(flags);
    expect(f[2], 'leaves run').toBe(20);
    expect(f[3], 'leaves run by the deep joiner').toBe(20);
    await within(s.close(), 20_000, 'close');
    expectConserved(s.stats());
  });

  it('a chain just under the depth limit, its links stolen and leapfrogged, nests no deeper than on one P', async () => {
    // On one P the chain nests 1995 inline calls; on two, the joiners' helping adds frames but a
    // G taken by leapfrogging never runs deeper than it would on one P: no RangeError, no
    // overflow of the engine's stack.
    const s = await start(backend, 2, { spareThreads: 0 });
    expect(await within(s.run('leapChain', 1995, 30), 30000, 'leapChain(1995)')).toBe(1995);
    await within(s.close(), 20_000, 'close');
    expectConserved(s.stats());
  });

  it('more forks than a fork deque holds: the rest run at join', async () => {
    const s = await start(backend, 1, { spareThreads: 0 });
    const n = 1000;
    let want = 0;
    for (let i = 0; i < n; i++) want += i * i;
    expect(await within(s.run('forkWide', n), 20000, 'forkWide')).toBe(want);
    await within(s.close(), 20_000, 'close');
    const st = s.stats();
    expect(st.totals.forks).toBe(256); // the deque's capacity; the rest stayed with the forker
    expectConserved(st);
  });

  it('a deep fork chain: 1500 nested inline joins, and a clear error past the depth limit', async () => {
    const s = await start(backend, 1);
    expect(await within(s.run('forkChain', 1500), 20000, 'forkChain(1500)')).toBe(1500);
    const e = await within(s.run('forkChain', 5000).catch((x: unknown) => x), 20000, 'forkChain(5000)') as Error;
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toMatch(/task calls already nest on this thread's stack \(the limit is 2000\)/);
    await within(s.close(), 20_000, 'close');
    expectConserved(s.stats());
  });

  it('errors propagate at join, through nested joins, and through the implicit sync', async () => {
    const s = await start(backend, 2);
    const e1 = await s.run('forkFail', 'join').catch((x: unknown) => x) as Error;
    expect(e1).toBeInstanceOf(RangeError);
    expect(e1.message).toBe('child failed');
    expect(await s.run('forkFail', 'catch')).toBe('RangeError: child failed');
    const e2 = await s.run('forkFail', 'implicit').catch((x: unknown) => x) as Error;
    expect(e2.message).toBe('child failed');
    const e3 = await s.run('forkFailDeep', 12).catch((x: unknown) => x) as Error;
    expect(e3).toBeInstanceOf(RangeError);
    expect(e3.message).toBe('leaf failed');
    await within(s.close(), 20_000, 'close');
    expectConserved(s.stats());
  });

  it('fork is for synchronous tasks: async child, promise result, fork after an await', async () => {
    const s = await start(backend, 1);
    const a = await s.run('forkMisuse', 'async').catch((x: unknown) => x) as Error;
    expect(a).toBeInstanceOf(TypeError);
    expect(a.message).toMatch(/ctx.fork\('asyncChild'\): 'asyncChild' is an async function/);
    const b = await s.run('forkMisuse', 'promise').catch((x: unknown) => x) as Error;
    expect(b).toBeInstanceOf(TypeError);
    expect(b.message).toMatch(/the task returned a promise/);
    const c = await s.run('forkFromAsync').catch((x: unknown) => x) as Error;
    expect(c).toBeInstanceOf(TypeError);
    expect(c.message).toMatch(/ctx.fork\('square'\): only while the task runs synchronously/);
    await within(s.close(), 20_000, 'close');
    expectConserved(s.stats());
  });

  it('cancellation: forks not started when the tree is cancelled never run', async () => {
    const s = await start(backend, 2);
    const cells = new SharedArrayBuffer(4);
    const ac = new AbortController();
    const t = s.with({ signal: ac.signal }).run('forkCancel', cells, 20, 5000);
    // Abort once a child runs (each spins until the cancel): a fixed pause bet on the load.
    await until(() => Atomics.load(new Int32Array(cells), 0) >= 1, 20_000, 'a forked child running');
    ac.abort();
    const e = await within(t.catch((x: unknown) => x), 20_000, 'cancelled root') as Error;
    expect(e.name).toBe('AbortError');
    await within(s.close(), 20000, 'close');
    expect(new Int32Array(cells)[0]).toBeGreaterThan(0);
    expect(new Int32Array(cells)[0]).toBeLessThan(20);
    expectConserved(s.stats());
  });

  it('a stolen fork whose thief thread dies fails at join with WorkerCrashedError', async () => {
    const s = await start(backend, 2);
    expect(await within(s.run('forkCrash', new SharedArrayBuffer(4)), 20000, 'forkCrash')).toBe('ERR_WORKER_CRASHED');
    expect(await within(s.run('ffib', 15), 20000, 'ffib after the crash')).toBe(fib(15));
    await within(s.close(), 20_000, 'close');
    expect(s.stats().sched.restarts).toBe(1);
    expectConserved(s.stats());
  });
});
