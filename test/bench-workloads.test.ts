// The bench's real workloads (bench/kernels/, bench/workload-tasks.mjs) compute the right
// answers: UTS's SHA-1 generator against node:crypto and UTS's published T1 and T3 counts; the
// fork-join forms on real threads against one thread, at small sizes. Speed is bench/'s job.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Scheduler } from '../dist/bindings/index.js';
import { within } from './helpers/runtime.js';
// @ts-expect-error: a plain JS module of the bench, no types
import { DIGEST, sha1Words, spawnDigest } from '../bench/kernels/sha1.mjs';
// @ts-expect-error: idem
import { frontier, rootState, TREES, walk, walkTree } from '../bench/kernels/uts.mjs';
// @ts-expect-error: idem
import { TREE_LIST, TREE_NAMES } from '../bench/kernels/trees.mjs';
// @ts-expect-error: idem
import { count, placements, SOLUTIONS } from '../bench/kernels/nqueens.mjs';
// @ts-expect-error: idem
import { fillRandom, sort } from '../bench/kernels/msort.mjs';
// @ts-expect-error: idem
import { rows } from '../bench/kernels/mandel.mjs';
// @ts-expect-error: idem
import * as pool from '../bench/workload-pool-worker.mjs';

type Counts = [number, number, number];
const hex = (): string => Array.from(DIGEST as Int32Array, (x) => (x >>> 0).toString(16).padStart(8, '0')).join('');
const words = (b: Uint8Array): number[] => {
  const w: number[] = [];
  for (let i = 0; i < b.length; i += 4) w.push(((b[i] << 24) | ((b[i + 1] ?? 0) << 16) | ((b[i + 2] ?? 0) << 8) | (b[i + 3] ?? 0)) | 0);
  return w;
};

describe('UTS random number generator (SHA-1 of one block)', () => {
  it('matches node:crypto for every message length UTS uses and a few others', () => {
    for (const len of [0, 1, 3, 4, 5, 19, 20, 23, 24, 55]) {
      const b = Uint8Array.from({ length: len }, (_, i) => (i * 37 + 11) & 255);
      sha1Words(words(b), len);
      expect(hex(), `length ${len}`).toBe(createHash('sha1').update(b).digest('hex'));
    }
    const b = Uint8Array.from({ length: 24 }, (_, i) => (i * 7) & 255);
    new DataView(b.buffer).setInt32(20, 1999);
    const w = words(b);
    spawnDigest(w[0], w[1], w[2], w[3], w[4], 1999);
    expect(hex()).toBe(createHash('sha1').update(b).digest('hex'));
  });

  // UTS's sample trees, whose counts UTS's reference code prints: these two walks check the
  // generator and both tree shapes end to end (about 1.5 s each on one thread).
  it.each(['T1', 'T3'])('%s has the published size, leaves and depth', (name) => {
    const t = TREES[name];
    expect(walkTree(t)).toEqual([t.nodes, t.leaves, t.depth]);
  });

  it('a frontier and the walks below it count the same tree', () => {
    const t = TREE_LIST[TREE_NAMES.indexOf('S3')];
    const cut = frontier(t, 64);
    expect(cut.level.length).toBeGreaterThanOrEqual(64);
    const total = cut.level.map((n6: number[]) => pool.utsWalk({ ti: TREE_NAMES.indexOf('S3'), nodes6: n6 }) as Counts)
      .reduce((a: Counts, b: Counts) => [a[0] + b[0], a[1] + b[1], Math.max(a[2], b[2])], [...cut.above]);
    expect(total).toEqual(walkTree(t));
  });
});

describe('the kernels on one thread', () => {
  it('N-Queens counts OEIS A000170 up to 10, and 92 for 8 through a pool\'s placements', () => {
    for (let n = 1; n <= 10; n++) expect(count(n, 0, 0, 0, 0), `n = ${n}`).toBe(SOLUTIONS[n]);
    const parts = placements(8, 2).map(([row, cols, left, right]: number[]) => pool.queens({ n: 8, row, cols, left, right }) as number);
    expect(parts.reduce((a: number, b: number) => a + b, 0)).toBe(92);
  });

  it('merge sort gives the order Float64Array.prototype.sort gives, into either buffer', () => {
    for (const n of [0, 1, 31, 32, 33, 1000, 4099]) {
      for (const toB of [false, true]) {
        const a = fillRandom(new Float64Array(n), n + 1);
        for (let i = 0; i < n; i += 7) a[i] = a[(i * 13) % n]; // duplicates
        const want = Float64Array.from(a).sort();
        const b = new Float64Array(n);
        sort(a, b, 0, n, toB);
        expect(Array.from(toB ? b : a), `n = ${n}, into ${toB ? 'b' : 'a'}`).toEqual(Array.from(want));
      }
    }
  });
});

describe('the fork-join forms on 2 Ps agree with one thread', () => {
  let s: Scheduler;
  beforeAll(async () => {
    s = await Scheduler.start({ tasks: new URL('../bench/workload-tasks.mjs', import.meta.url), procs: 2 });
  });
  afterAll(async () => { await s?.close({ force: true }); });

  it.each(['S1', 'S3'])('UTS %s: a fork per node, a task per node and chunked count [nodes, leaves, depth] as the walk does', async (name) => {
    const ti = TREE_NAMES.indexOf(name);
    const t = TREE_LIST[ti];
    const want = walkTree(t);
    const root = Array.from(rootState(t.seed) as Int32Array);
    expect(await within(s.run('utsTree', ti, ...root), 60000, 'utsTree')).toEqual(want);
    expect(await within(s.run('utsSpawnTree', ti, ...root), 60000, 'utsSpawnTree')).toEqual(want);
    for (const chunk of [16, 256]) {
      expect(await within(s.run('utsChunk', ti, Int32Array.from([...root, 0]), chunk), 60000, 'utsChunk')).toEqual(want);
    }
    // A plain array as the root's stack.
    expect(await within(s.run('utsChunk', ti, [...root, 0], 16), 60000, 'utsChunk, plain array')).toEqual(want);
    expect(walk(t, [...root, 0])).toEqual(want);
  });

  it('N-Queens(8) = 92 and N-Queens(10) = 724 with a fork per placement', async () => {
    expect(await within(s.run('queens', 8, 0, 0, 0, 0, 3), 30000, 'queens 8')).toBe(92);
    expect(await within(s.run('queens', 10, 0, 0, 0, 0, 2), 30000, 'queens 10')).toBe(724);
  });

  it('merge sort of 100,000 float64s in shared memory, forking above 1,000', async () => {
    const n = 100_000;
    const abuf = new SharedArrayBuffer(n * 8);
    const a = fillRandom(new Float64Array(abuf), 7);
    const want = Float64Array.from(a).sort();
    expect(await within(s.run('msort', abuf, new SharedArrayBuffer(n * 8), 0, n, false, 1000), 30000, 'msort')).toBe(n);
    let bad = -1;
    for (let i = 0; i < n && bad < 0; i++) if (a[i] !== want[i]) bad = i;
    expect(bad).toBe(-1);
  });

  it('Mandelbrot: every pixel as one thread computes it', async () => {
    const w = 96;
    const one = new Int32Array(w * w);
    const sum = rows(one, w, w, 0, w, 300);
    const buf = new SharedArrayBuffer(w * w * 4);
    expect(await within(s.run('mandel', buf, w, w, 0, w, 300, 2), 30000, 'mandel')).toBe(sum);
    expect(Array.from(new Int32Array(buf))).toEqual(Array.from(one));
  });
});
