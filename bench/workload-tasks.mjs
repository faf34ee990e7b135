// Task module of bench/workloads.mjs (every export is a task, context first): the real
// workloads written as a user of the package would, fork-join with ctx.fork (DESIGN.md
// "Fork-join") over the kernels in bench/kernels/, which the one-thread baselines, the piscina
// worker (workload-pool-worker.mjs) and the tests run too.

import { DIGEST, spawnDigest } from './kernels/sha1.mjs';
import { addCounts, numChildren, walk, Walk, walkSome } from './kernels/uts.mjs';
import { TREE_LIST } from './kernels/trees.mjs';
import { count } from './kernels/nqueens.mjs';
import { merge, sort } from './kernels/msort.mjs';
import { rows } from './kernels/mandel.mjs';

// ---- UTS, a fork per node ---------------------------------------------------------------------
//
// A node's children: all but the last forked, the last walked by a plain call, then the forks
// joined newest first. So a chain of the tree nests one inline run per level on the joiner's
// stack at most (T3's deepest chain is 1,572 levels; FORK_MAX_DEPTH is 2,000). The root's
// 2,000 children (T3) are spread by binary splitting instead: a P's fork deque holds 256.
// Every node returns [nodes, leaves, depth] of its subtree.

function utsNode(ctx, t, ti, s0, s1, s2, s3, s4, h) {
  const k = numChildren(t, h, s4);
  if (k === 0) return [1, 1, h];
  const forks = new Array(k - 1);
  for (let i = 0; i < k - 1; i++) {
    spawnDigest(s0, s1, s2, s3, s4, i);
    forks[i] = ctx.fork('utsNodeTask', ti, DIGEST[0], DIGEST[1], DIGEST[2], DIGEST[3], DIGEST[4], h + 1);
  }
  spawnDigest(s0, s1, s2, s3, s4, k - 1);
  const r = utsNode(ctx, t, ti, DIGEST[0], DIGEST[1], DIGEST[2], DIGEST[3], DIGEST[4], h + 1);
  for (let i = k - 2; i >= 0; i--) addCounts(r, forks[i].join());
  r[0] += 1;
  return r;
}

/** A node of tree TREE_LIST[ti] and its subtree: [nodes, leaves, depth]. */
export function utsNodeTask(ctx, ti, s0, s1, s2, s3, s4, h) {
  return utsNode(ctx, TREE_LIST[ti], ti, s0, s1, s2, s3, s4, h);
}

/** Children lo..hi-1 of a node, by binary splitting: their subtrees' counts. */
export function utsKids(ctx, ti, s0, s1, s2, s3, s4, h, lo, hi) {
  if (hi - lo === 1) {
    spawnDigest(s0, s1, s2, s3, s4, lo);
    return utsNode(ctx, TREE_LIST[ti], ti, DIGEST[0], DIGEST[1], DIGEST[2], DIGEST[3], DIGEST[4], h + 1);
  }
  const mid = (lo + hi) >>> 1;
  const left = ctx.fork('utsKids', ti, s0, s1, s2, s3, s4, h, lo, mid);
  const r = utsKids(ctx, ti, s0, s1, s2, s3, s4, h, mid, hi);
  return addCounts(r, left.join());
}

/** The whole tree from its root's state, a fork per node (the root's children split). */
export function utsTree(ctx, ti, s0, s1, s2, s3, s4) {
  const t = TREE_LIST[ti];
  const k = numChildren(t, 0, s4);
  if (k === 0) return [1, 1, 0];
  const r = utsKids(ctx, ti, s0, s1, s2, s3, s4, 0, 0, k);
  r[0] += 1;
  return r;
}

// ---- UTS, a task per node through spawn, joined by ctx.join ------------------------------------
//
// The form of issue 30 (and Go's goroutine per node): every node is a task of its own, spawned
// with its state as seven numbers (tree, five state words, height: spawnNew's one core call);
// it spawns its children and returns ctx.join('utsAdd', ...children), and a leaf returns
// [nodes, leaves, depth] = [1, 1, height]: every result is a small tuple through the codec's
// fast path. The root's children (2,000 in T3) are spread by binary splitting (utsSpawnKids).

/** A node of tree TREE_LIST[ti]: its subtree's [nodes, leaves, depth], by a task per child. */
export function utsSpawnNode(ctx, ti, s0, s1, s2, s3, s4, h) {
  const k = numChildren(TREE_LIST[ti], h, s4);
  if (k === 0) return [1, 1, h];
  const kids = new Array(k);
  for (let i = 0; i < k; i++) {
    spawnDigest(s0, s1, s2, s3, s4, i);
    kids[i] = ctx.spawn('utsSpawnNode', ti, DIGEST[0], DIGEST[1], DIGEST[2], DIGEST[3], DIGEST[4], h + 1);
  }
  return ctx.join('utsAdd', ...kids);
}

/** A node's continuation: its children's counts added, and itself. */
export function utsAdd(ctx, ...rs) {
  let nodes = 1, leaves = 0, depth = 0;
  for (let i = 0; i < rs.length; i++) {
    const r = rs[i];
    nodes += r[0];
    leaves += r[1];
    if (r[2] > depth) depth = r[2];
  }
  return [nodes, leaves, depth];
}

/** Children lo..hi-1 of the root (state s0..s4), by binary splitting: their subtrees' counts. */
export function utsSpawnKids(ctx, ti, s0, s1, s2, s3, s4, lo, hi) {
  if (hi - lo === 1) {
    spawnDigest(s0, s1, s2, s3, s4, lo);
    return utsSpawnNode(ctx, ti, DIGEST[0], DIGEST[1], DIGEST[2], DIGEST[3], DIGEST[4], 1);
  }
  const mid = (lo + hi) >>> 1;
  return ctx.join('utsPair', ctx.spawn('utsSpawnKids', ti, s0, s1, s2, s3, s4, lo, mid),
    ctx.spawn('utsSpawnKids', ti, s0, s1, s2, s3, s4, mid, hi));
}

/** Two subtrees' counts added (no node of their own). */
export function utsPair(ctx, a, b) {
  return [a[0] + b[0], a[1] + b[1], a[2] > b[2] ? a[2] : b[2]];
}

/** The whole tree from its root's state, a task per node through spawn and ctx.join. */
export function utsSpawnTree(ctx, ti, s0, s1, s2, s3, s4) {
  const k = numChildren(TREE_LIST[ti], 0, s4);
  if (k === 0) return [1, 1, 0];
  return ctx.join('utsAdd', ctx.spawn('utsSpawnKids', ti, s0, s1, s2, s3, s4, 0, k));
}

// ---- UTS, chunked ---------------------------------------------------------------------------
//
// UTS's own work-stealing form: a task walks its stack of nodes (6 ints a node: state, height)
// depth first; every `chunk` nodes, if the stack holds more than one node, it forks the oldest
// half (the biggest subtrees) as a new task and goes on with the rest. Its forks are joined
// when its stack is empty.
//
// A task walks in a stack taken from this thread's spares, not in a typed array of its own: a
// chunk task copied its argument and grew that copy from its few nodes by doubling, typed
// arrays to allocate, zero and collect per chunk; T3 on one P cost 1.20x the plain walk's CPU
// at a chunk of 256 nodes, 1.11x with the spare stacks (bench/uts-chunk.mjs). The walk itself is
// the plain walk's loop (kernels/uts.mjs walkSome), run a chunk at a time. The walk gives its
// stack back before it joins, and nothing runs on this thread while it walks (a fork only
// queues), so a stack is never in two walks at once.

const spareStacks = [];

/** A stack holding the nodes `nodes6` (an Int32Array or an array), with room to grow. */
function takeStack(nodes6) {
  let s = spareStacks.pop();
  if (s === undefined || s.length < 2 * nodes6.length) s = new Int32Array(Math.max(4096, 2 * nodes6.length));
  s.set(nodes6);
  return s;
}

export function utsChunk(ctx, ti, nodes6, chunk) {
  const t = TREE_LIST[ti];
  const w = new Walk(takeStack(nodes6), nodes6.length);
  const forks = [];
  for (;;) {
    walkSome(t, w, chunk); // the plain walk's own loop, a chunk at a time
    if (w.sp === 0) break;
    if (w.sp > 6) {
      const half = 6 * ((w.sp / 6) >>> 1);
      forks.push(ctx.fork('utsChunk', ti, w.stack.slice(0, half), chunk));
      w.stack.copyWithin(0, half, w.sp);
      w.sp -= half;
    }
  }
  spareStacks.push(w.stack);
  const r = [w.nodes, w.leaves, w.depth];
  for (let i = forks.length - 1; i >= 0; i--) addCounts(r, forks[i].join());
  return r;
}

/** A subtree walked on one thread (the one-thread baseline's body, as a task). */
export function utsWalk(ctx, ti, nodes6) {
  return walk(TREE_LIST[ti], nodes6);
}

// ---- N-Queens: a fork per placement in the first `cut` rows, one thread below ---------------

export function queens(ctx, n, row, cols, left, right, cut) {
  if (row >= cut) return count(n, row, cols, left, right);
  const all = (1 << n) - 1;
  let free = all & ~(cols | left | right);
  const forks = [];
  let s = 0;
  while (free !== 0) {
    const bit = free & -free;
    free ^= bit;
    const c = cols | bit, l = ((left | bit) << 1) & all, r = (right | bit) >>> 1;
    if (free === 0) s += queens(ctx, n, row + 1, c, l, r, cut); // the last one on this thread
    else forks.push(ctx.fork('queens', n, row + 1, c, l, r, cut));
  }
  for (let i = forks.length - 1; i >= 0; i--) s += forks[i].join();
  return s;
}

// ---- merge sort: fork the first half above `cut` elements, then merge -----------------------

function msortPar(ctx, a, b, abuf, bbuf, lo, hi, toB, cut) {
  if (hi - lo <= cut) { sort(a, b, lo, hi, toB); return; }
  const mid = (lo + hi) >>> 1;
  const left = ctx.fork('msort', abuf, bbuf, lo, mid, !toB, cut);
  msortPar(ctx, a, b, abuf, bbuf, mid, hi, !toB, cut);
  left.join();
  if (toB) merge(a, b, lo, mid, hi);
  else merge(b, a, lo, mid, hi);
}

/** Sorts a[lo..hi) (a Float64Array over the SharedArrayBuffer abuf) into a, or into b if toB. */
export function msort(ctx, abuf, bbuf, lo, hi, toB, cut) {
  msortPar(ctx, new Float64Array(abuf), new Float64Array(bbuf), abuf, bbuf, lo, hi, toB, cut);
  return hi - lo;
}

// ---- Mandelbrot: rows split in halves down to `grain` rows ----------------------------------

/** Rows y0..y1-1 into the Int32Array over `buf`; returns their iteration sum. */
export function mandel(ctx, buf, w, h, y0, y1, maxIter, grain) {
  if (y1 - y0 <= grain) return rows(new Int32Array(buf), w, h, y0, y1, maxIter);
  const mid = (y0 + y1) >>> 1;
  const top = ctx.fork('mandel', buf, w, h, y0, mid, maxIter, grain);
  const s = mandel(ctx, buf, w, h, mid, y1, maxIter, grain);
  return s + top.join();
}
