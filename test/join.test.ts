// ctx.join at scale and with plain values beside its tasks: an array of a million children
// reaches the join function as one array of results; plain values (and arrays mixing tasks and
// values) reach it as they are. Both backends.
import { describe, it, expect } from 'vitest';
import { schedulers, within } from './helpers/runtime.js';

const start = schedulers();

describe.each(['wasm', 'js'] as const)('ctx.join (%s backend)', (backend) => {
  it('joins a million children given as one array', async () => {
    const s = await start(backend, 2);
    const n = 1_000_000;
    expect(await within(s.run('spawnMany', n), 120_000, 'a million children')).toBe(n * (n + 1) / 2);
    await within(s.close(), 20_000, 'close');
  });

  it('joins of 1 to 12 children, each child a number: every result reaches its slot', async () => {
    // 1 to 4 children: the core's one-call join; 5 to 7: the runtime's; 8 and more: the
    // continuation's slots in a spill block. Every child's number goes in by the core's
    // one-call finish, also into a spill block.
    const s = await start(backend, 2);
    for (let fan = 1; fan <= 12; fan++) {
      const want = 1 + fan + fan ** 2 + fan ** 3; // every node of a tree of depth 3
      expect(await within(s.run('forkTree', 3, fan), 30_000, `forkTree(3, ${fan})`)).toBe(want);
    }
    await within(s.close(), 20_000, 'close');
    expect(s.stats().sched.heapLiveBlocks).toBe(0);
  });

  it('plain values and mixed arrays reach the join function as they are', async () => {
    const s = await start(backend, 2);
    expect(await within(s.run('mixedJoin'), 20_000, 'mixedJoin')).toEqual(['x', [2, 5, 11, { k: 1 }], null, 'y']);
    const xs = Array.from({ length: 2000 }, (_, i) => (i * 7919) % 1009);
    expect(await within(s.run('msort', xs), 30_000, 'merge sort')).toEqual(xs.slice().sort((a, b) => a - b));
    const e = await s.run('mixedJoinFail').catch((x: unknown) => x) as Error;
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toBe('inner');
    await within(s.close(), 20_000, 'close');
    const st = s.stats();
    expect(st.sched.heapLiveBlocks).toBe(0);
  });

  it('a Task given twice to one join is a TypeError, and leaves the Tasks joinable', async () => {
    // One result cannot fill two slots: the join would wait for ever, or free the child twice.
    const s = await start(backend, 2);
    for (const [shape, where] of [['plain', 'argument 3'], ['array', 'argument 1[2]']]) {
      const [message, sum] = await within(s.run('joinTwice', shape), 20_000, `joinTwice ${shape}`) as [string, number];
      expect(message).toBe(`ctx.join('sum'): task 'add1' (${where}) is given to this join twice; a Task's result goes to one place`);
      expect(sum).toBe(13);
    }
    await within(s.close(), 20_000, 'close');
    expect(s.stats().sched.heapLiveBlocks).toBe(0);
  });

  it('ctx.spawn hands each child its arguments as given, numbers or not, 0 to 8 of them', async () => {
    const want = [[], ['-0'], [1.5, 'NaN'], [1, -(2 ** 40), 2 ** 31], [1, 'two', 3], [1, 2, 3, 4], [7], [undefined, null, true],
      [1, 2, 3, 4, 5], [1, 2, 3, 4, 5, 6], [-1, 2.5, 3, 4, 5, 6, '-0'], [1, 2, 3, 4, 5, [6], 7], [1, 2, 3, 4, 5, 6, 7, 8]];
    const s = await start(backend, 2);
    for (let i = 0; i < 3; i++) expect(await within(s.run('spawnArgs'), 20_000, 'spawnArgs')).toEqual(want);
    await within(s.close(), 20_000, 'close');
    expect(s.stats().sched.heapLiveBlocks).toBe(0);
  });

  it('short strings travel in the slot itself and longer ones in a block, as results and arguments', async () => {
    const xs = ['ok', '', 'caf\u00e9', 'seven77', 'eight888', '\u65e5', 'x\u0000y'];
    const s = await start(backend, 2);
    for (let i = 0; i < 3; i++) expect(await within(s.run('shortStrings'), 20_000, 'shortStrings')).toEqual([...xs, xs]);
    for (const x of xs) expect(await within(s.run('echo', x), 20_000, 'echo')).toBe(x); // a root's argument and result
    await within(s.close(), 20_000, 'close');
    expect(s.stats().sched.heapLiveBlocks).toBe(0);
  });

  it('the same, with the table at its limit (children run inline)', async () => {
    const s = await start(backend, 1, { maxTasks: 1024, initialTasks: 1024 });
    const xs = Array.from({ length: 3000 }, (_, i) => (i * 7919) % 1009);
    const sorts = Array.from({ length: 4 }, () => s.run('msort', xs));
    for (const r of await within(Promise.all(sorts), 60_000, 'merge sorts at capacity')) expect(r).toEqual(xs.slice().sort((a, b) => a - b));
    expect(await within(s.run('spawnMany', 5000), 30_000, 'an array join at capacity')).toBe(5000 * 5001 / 2);
    expect(await within(s.run('mixedJoin'), 20_000, 'mixedJoin')).toEqual(['x', [2, 5, 11, { k: 1 }], null, 'y']);
    await within(s.close(), 20_000, 'close');
    expect(s.stats().sched.heapLiveBlocks).toBe(0);
  });
});
