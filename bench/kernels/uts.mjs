// The Unbalanced Tree Search benchmark's trees (UTS 2.1, Olivier et al. 2006): a node is UTS's
// 20-byte SHA-1 random state (five 32-bit words) and its height; child i's state is
// SHA-1(parent state, i) (rng_spawn) and a node's random number is its last state word's low 31
// bits (rng_rand). How many children a node has depends on the tree type:
// - binomial (T3: -t 0 -b 2000 -q 0.124875 -m 8 -r 42): the root has floor(b0) children; every
//   other node has m with probability q, else none.
// - geometric, fixed shape (T1: -t 1 -a 3 -d 10 -b 4 -r 19): a node above depth gen_mx draws
//   its child count from a geometric distribution of mean b0 (UTS's inverse CDF), at gen_mx
//   none; at most 100 children (UTS's MAXNUMCHILDREN).
// Any thread may call these (sha1.mjs's scratch is per thread).

import { DIGEST, sha1Words, spawnDigest } from './sha1.mjs';

/** UTS's published sample trees: parameters and the counts its reference code prints. */
export const TREES = {
  T1: { type: 'geo', b0: 4, genMx: 10, seed: 19, nodes: 4_130_071, leaves: 3_305_118, depth: 10 },
  T3: { type: 'bin', b0: 2000, q: 0.124875, m: 8, seed: 42, nodes: 4_112_897, leaves: 3_599_034, depth: 1572 },
};

const MAX_CHILDREN = 100;

/** UTS's rng_init: the root's state from the seed (16 zero bytes, then the seed), into `out`. */
export function rootState(seed, out = new Int32Array(5)) {
  sha1Words([0, 0, 0, 0, seed | 0], 20);
  out.set(DIGEST);
  return out;
}

/**
 * The number of children of a node at `height` whose last state word is s4, in tree `t`
 * (uts_numChildren: binomial or geometric with the fixed shape).
 */
export function numChildren(t, height, s4) {
  const u = (s4 & 0x7fffffff) / 2147483648;
  if (t.type === 'bin') {
    if (height === 0) return Math.floor(t.b0);
    return u < t.q ? t.m : 0;
  }
  const b = height < t.genMx ? t.b0 : 0;
  const p = 1 / (1 + b);
  const n = Math.floor(Math.log(1 - u) / Math.log(1 - p));
  return n > MAX_CHILDREN ? MAX_CHILDREN : n;
}

/**
 * A walk in progress: a stack of nodes, 6 ints a node (five state words, then the height), `sp`
 * ints of it in use, and the counts so far. walkSome advances it; the plain walk runs one to the
 * end, a chunked task a chunk at a time (bench/workload-tasks.mjs utsChunk).
 */
export class Walk {
  constructor(stack, sp) {
    this.stack = stack;
    this.sp = sp;
    this.nodes = 0;
    this.leaves = 0;
    this.depth = 0;
  }
}

/**
 * Walks up to `budget` nodes of walk `w` in tree `t`, depth first: each node popped is counted
 * and its children pushed. The one loop every UTS variant runs (the plain walk, the chunked
 * tasks, the pool's), so they all run the same compiled kernel: written twice, V8 compiled the
 * two loops differently enough to cost the chunked form several percent on one thread.
 */
export function walkSome(t, w, budget) {
  let stack = w.stack;
  let sp = w.sp;
  let nodes = w.nodes, leaves = w.leaves, depth = w.depth;
  let n = 0;
  while (sp !== 0 && n < budget) {
    sp -= 6;
    n++;
    const s0 = stack[sp], s1 = stack[sp + 1], s2 = stack[sp + 2], s3 = stack[sp + 3], s4 = stack[sp + 4], h = stack[sp + 5];
    nodes++;
    if (h > depth) depth = h;
    const k = numChildren(t, h, s4);
    if (k === 0) { leaves++; continue; }
    if (sp + 6 * k > stack.length) {
      const bigger = new Int32Array(Math.max(2 * stack.length, sp + 6 * k));
      bigger.set(stack.subarray(0, sp));
      stack = bigger;
    }
    for (let i = 0; i < k; i++) {
      spawnDigest(s0, s1, s2, s3, s4, i);
      stack.set(DIGEST, sp);
      stack[sp + 5] = h + 1;
      sp += 6;
    }
  }
  w.stack = stack;
  w.sp = sp;
  w.nodes = nodes;
  w.leaves = leaves;
  w.depth = depth;
}

/**
 * Walks the subtrees of the nodes given as a stack, 6 ints a node (five state words, then the
 * height), depth first on one thread. Returns [nodes, leaves, deepest height].
 */
export function walk(t, nodes6) {
  const w = new Walk(Int32Array.from(nodes6), nodes6.length);
  walkSome(t, w, Infinity);
  return [w.nodes, w.leaves, w.depth];
}

/** The whole tree on one thread: [nodes, leaves, depth]. */
export function walkTree(t) {
  const r = rootState(t.seed);
  return walk(t, [r[0], r[1], r[2], r[3], r[4], 0]);
}

/**
 * The tree's frontier for a pool: the nodes at the first level with at least `k` of them
 * (breadth first), 6 ints a node, and the counts of the nodes above it.
 */
export function frontier(t, k) {
  const r = rootState(t.seed);
  let level = [[r[0], r[1], r[2], r[3], r[4], 0]];
  let nodes = 0, leaves = 0, depth = 0;
  while (level.length !== 0 && level.length < k) {
    const next = [];
    for (const [s0, s1, s2, s3, s4, h] of level) {
      nodes++;
      if (h > depth) depth = h;
      const c = numChildren(t, h, s4);
      if (c === 0) leaves++;
      for (let i = 0; i < c; i++) {
        spawnDigest(s0, s1, s2, s3, s4, i);
        next.push([DIGEST[0], DIGEST[1], DIGEST[2], DIGEST[3], DIGEST[4], h + 1]);
      }
    }
    level = next;
  }
  return { level, above: [nodes, leaves, depth] };
}

/** Adds counts b into a: nodes and leaves add, the depth is the deeper. */
export function addCounts(a, b) {
  a[0] += b[0];
  a[1] += b[1];
  if (b[2] > a[2]) a[2] = b[2];
  return a;
}
